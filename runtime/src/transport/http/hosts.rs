//! Which hosts and browser origins an endpoint answers: the defence against DNS rebinding.

/// Which `Host` headers are answered.
pub(super) enum Hosts {
    Any,
    /// The local names and these.
    Local(Vec<String>),
}

impl Hosts {
    pub(super) fn allows(&self, host: Option<&str>) -> bool {
        match self {
            Hosts::Any => true,
            Hosts::Local(extra) => host.map(host_name).is_some_and(|name| {
                is_local_name(name) || extra.iter().any(|allowed| allowed.eq_ignore_ascii_case(name))
            }),
        }
    }
}

/// The name of `host[:port]`, keeping the brackets of an IPv6 literal.
fn host_name(authority: &str) -> &str {
    match authority.strip_prefix('[') {
        Some(v6) => v6.find(']').map_or(authority, |end| &authority[..end + 2]),
        None => authority.split(':').next().unwrap_or_default(),
    }
}

fn is_local_name(name: &str) -> bool {
    ["localhost", "127.0.0.1", "[::1]"].iter().any(|local| local.eq_ignore_ascii_case(name))
}

pub(super) fn is_local_origin(origin: &str) -> bool {
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else {
        return false;
    };
    is_local_name(host_name(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_drop_the_port_and_keep_ipv6_brackets() {
        assert_eq!(host_name("localhost:8080"), "localhost");
        assert_eq!(host_name("[::1]:8080"), "[::1]");
        assert_eq!(host_name("[::1]"), "[::1]");
        assert_eq!(host_name("example.com"), "example.com");
    }

    #[test]
    fn local_hosts_and_configured_ones_are_answered() {
        let hosts = Hosts::Local(vec!["mcp.example.com".into()]);
        for ok in ["localhost", "127.0.0.1:1", "[::1]:9", "MCP.example.com:443", "mcp.example.com"] {
            assert!(hosts.allows(Some(ok)), "{ok}");
        }
        for refused in ["evil.example.com", "example.com", "localhost.evil", "[::2]", ""] {
            assert!(!hosts.allows(Some(refused)), "{refused}");
        }
        assert!(!hosts.allows(None));
        assert!(Hosts::Any.allows(Some("anything.example")));
    }

    #[test]
    fn local_origins_are_recognised_by_host_not_prefix() {
        assert!(is_local_origin("http://localhost:3000"));
        assert!(is_local_origin("https://[::1]"));
        assert!(!is_local_origin("http://localhost.evil.example"));
        assert!(!is_local_origin("http://127.0.0.1.nip.io"));
        assert!(!is_local_origin("null"));
    }
}
