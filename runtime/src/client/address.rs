//! Where the client goes when a server tells it to. A URL that comes from a server (its
//! resource metadata, the authorization server it names and that server's endpoints) must be
//! https, or http on a loopback address; and a server that is not itself on loopback may not
//! send the client to a loopback, private or link-local address, unless the application
//! allows it: otherwise any server on the internet could point the client at the services of
//! the network it runs in.

use std::net::IpAddr;

use reqwest::Url;

/// How far from the client a host is, as far as its address tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Reach {
    /// This machine: `localhost`, `*.localhost`, 127.0.0.0/8, `::1`.
    Loopback,
    /// A network the machine is on: private ranges (10/8, 172.16/12, 192.168/16, 100.64/10,
    /// fc00::/7), link-local ones (169.254/16, fe80::/10), the unspecified address.
    Private,
    /// Anywhere else (a name that is not `localhost`, until it is resolved).
    Public,
}

impl Reach {
    /// The reach of `ip` (an IPv4 address mapped into IPv6 as the IPv4 address).
    pub fn of_ip(ip: IpAddr) -> Reach {
        match ip {
            IpAddr::V4(v4) => {
                let [a, b, ..] = v4.octets();
                if v4.is_loopback() {
                    Reach::Loopback
                } else if v4.is_private()
                    || v4.is_link_local()
                    || v4.is_unspecified()
                    || v4.is_broadcast()
                    // Shared address space (carrier-grade NAT), 100.64.0.0/10.
                    || (a == 100 && (64..128).contains(&b))
                {
                    Reach::Private
                } else {
                    Reach::Public
                }
            }
            IpAddr::V6(v6) => {
                if let Some(v4) = v6.to_ipv4_mapped() {
                    return Reach::of_ip(IpAddr::V4(v4));
                }
                let first = v6.segments()[0];
                if v6.is_loopback() {
                    Reach::Loopback
                } else if v6.is_unspecified() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80 {
                    Reach::Private
                } else {
                    Reach::Public
                }
            }
        }
    }

    /// The reach of a URL's host as written: an address literal, `localhost` (and its
    /// subdomains, RFC 6761), or a name, taken as public.
    pub fn of_host(host: &str) -> Reach {
        let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Reach::of_ip(ip);
        }
        let name = host.trim_end_matches('.').to_ascii_lowercase();
        if name == "localhost" || name.ends_with(".localhost") { Reach::Loopback } else { Reach::Public }
    }

    /// The reach of `url`'s host (`None` when it has none).
    pub fn of_url(url: &str) -> Option<Reach> {
        let url = Url::parse(url).ok()?;
        url.host_str().map(Reach::of_host)
    }
}

/// The host of a URL a server sent, if it may be shown to a person to open: https, or http on
/// this machine (where nobody else can read it on the way), and no credentials in it. The
/// host is as the URL standard writes it (an international name in punycode), so that a
/// look-alike name shows as what it is.
///
/// ```
/// use mcp_rounds::client::address::secure_url_host;
///
/// assert_eq!(secure_url_host("https://auth.example.com/login?x=1").as_deref(), Some("auth.example.com"));
/// assert_eq!(secure_url_host("http://127.0.0.1:8080/callback").as_deref(), Some("127.0.0.1"));
/// assert_eq!(secure_url_host("https://exаmple.com/").as_deref(), Some("xn--exmple-4nf.com"));
/// assert_eq!(secure_url_host("http://10.0.0.1/login"), None);
/// assert_eq!(secure_url_host("javascript:alert(1)"), None);
/// ```
pub fn secure_url_host(url: &str) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    let host = parsed.host_str()?;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return None;
    }
    match parsed.scheme() {
        "https" => Some(host.to_owned()),
        "http" if Reach::of_host(host) == Reach::Loopback => Some(host.to_owned()),
        _ => None,
    }
}

/// What the client allows the server at one URL to send it to (a login's URLs).
#[cfg(feature = "oauth")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UrlPolicy {
    /// Where the server is.
    pub(crate) server: Reach,
    /// Whether the application allows a server off loopback to name loopback, private and
    /// link-local addresses.
    pub(crate) allow_private: bool,
}

#[cfg(feature = "oauth")]
impl UrlPolicy {
    /// The policy for URLs named by the server at `server`.
    pub(crate) fn for_server(server: &Url, allow_private: bool) -> UrlPolicy {
        // Only a web server is anywhere: any other scheme is taken as far off as can be.
        let web = matches!(server.scheme(), "http" | "https");
        let server = server.host_str().filter(|_| web).map_or(Reach::Public, Reach::of_host);
        UrlPolicy { server, allow_private }
    }

    /// `url` (`what` it is, for the message) if the server may send the client there.
    pub(crate) fn check(&self, url: &str, what: &str) -> Result<Url, String> {
        let parsed = Url::parse(url).map_err(|e| format!("{what} {url:?} is not a URL: {e}"))?;
        let host = parsed.host_str().ok_or_else(|| format!("{what} {url:?} names no host"))?;
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(format!("{what} {url:?} carries credentials in the URL: refused"));
        }
        let reach = Reach::of_host(host);
        match parsed.scheme() {
            "https" => {}
            "http" if reach == Reach::Loopback => {}
            _ => return Err(format!("{what} {url:?} is neither https nor http on this machine: refused")),
        }
        self.allows(reach, what, url)?;
        Ok(parsed)
    }

    /// Checks the addresses `url`'s host name resolves to, when the policy has any to refuse:
    /// a public name may stand for a private address.
    pub(crate) async fn check_resolved(&self, url: &Url, what: &str) -> Result<(), String> {
        if self.allow_private || self.server == Reach::Loopback {
            return Ok(());
        }
        let Some(host) = url.host_str() else { return Ok(()) };
        if Reach::of_host(host) != Reach::Public || host.starts_with('[') || host.parse::<IpAddr>().is_ok() {
            return Ok(());
        }
        let port = url.port_or_known_default().unwrap_or(443);
        // A name that does not resolve fails when it is fetched, with the resolver's reason.
        let Ok(addresses) = tokio::net::lookup_host((host, port)).await else { return Ok(()) };
        for address in addresses {
            self.allows(Reach::of_ip(address.ip()), what, url.as_str())
                .map_err(|e| format!("{e} ({host} resolves to {})", address.ip()))?;
        }
        Ok(())
    }

    fn allows(&self, reach: Reach, what: &str, url: &str) -> Result<(), String> {
        if reach == Reach::Public || self.server == Reach::Loopback || self.allow_private {
            return Ok(());
        }
        let kind = if reach == Reach::Loopback { "this machine" } else { "a private or link-local network" };
        Err(format!(
            "{what} {url:?} is on {kind}, and the server that names it is not on this machine: refused \
             (allow private addresses to trust it)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_placed_by_their_address() {
        for (host, reach) in [
            ("127.0.0.1", Reach::Loopback),
            ("127.9.9.9", Reach::Loopback),
            ("[::1]", Reach::Loopback),
            ("localhost", Reach::Loopback),
            ("app.LOCALHOST.", Reach::Loopback),
            ("[::ffff:127.0.0.1]", Reach::Loopback),
            ("10.1.2.3", Reach::Private),
            ("172.31.0.1", Reach::Private),
            ("192.168.1.1", Reach::Private),
            ("169.254.169.254", Reach::Private),
            ("100.64.0.1", Reach::Private),
            ("0.0.0.0", Reach::Private),
            ("[fd00::1]", Reach::Private),
            ("[fe80::1]", Reach::Private),
            ("[::ffff:10.0.0.1]", Reach::Private),
            ("8.8.8.8", Reach::Public),
            ("172.32.0.1", Reach::Public),
            ("[2001:db8::1]", Reach::Public),
            ("auth.example.com", Reach::Public),
            ("localhost.example.com", Reach::Public),
        ] {
            assert_eq!(Reach::of_host(host), reach, "{host}");
        }
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn a_server_off_loopback_names_only_public_https_urls() {
        let remote = UrlPolicy::for_server(&Url::parse("https://mcp.example.com/mcp").unwrap(), false);
        assert!(remote.check("https://auth.example.com", "issuer").is_ok());
        for refused in [
            "http://auth.example.com",
            "http://127.0.0.1:9000/as",
            "https://127.0.0.1:9000/as",
            "https://10.0.0.1/as",
            "https://169.254.169.254/latest",
            "https://[fe80::1]/",
            "https://localhost/as",
            "https://user:pass@auth.example.com/",
            "ftp://auth.example.com/",
            "not a url",
        ] {
            let error = remote.check(refused, "issuer").unwrap_err();
            assert!(error.contains("refused") || error.contains("not a URL"), "{refused}: {error}");
        }
        let trusting = UrlPolicy { allow_private: true, ..remote };
        assert!(trusting.check("https://10.0.0.1/as", "issuer").is_ok());
        assert!(trusting.check("http://10.0.0.1/as", "issuer").is_err(), "still https off loopback");
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn a_server_on_loopback_may_name_another_port_of_this_machine() {
        let local = UrlPolicy::for_server(&Url::parse("http://127.0.0.1:8000/mcp").unwrap(), false);
        assert!(local.check("http://localhost:9000/as", "issuer").is_ok());
        assert!(local.check("https://10.0.0.1/as", "issuer").is_ok());
        assert!(local.check("http://10.0.0.1/as", "issuer").is_err());
    }
}
