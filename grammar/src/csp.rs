//! The sources a view may declare in its Content Security Policy (MCP Apps, `_meta.ui.csp`):
//! origins, so that a declaration can only widen what the view reaches to named places, never
//! smuggle a keyword or another directive into the policy the host builds from it, nor open
//! it to every host at once.

use alloc::format;
use alloc::string::String;

// The Public Suffix List comes from the `psl` crate rather than `publicsuffix`: `psl` is the
// list compiled into one lookup, released again whenever the list changes, so `cargo update`
// keeps it current and a macro call parses nothing. `publicsuffix` builds in under a second
// but ships no list: it would parse a 230 KB copy of our own, kept current by hand, on every
// check. The price is build time, since `psl`'s lookup is generic and so compiled in this
// crate: a clean build of it went from 0.4 s to 6.3 s (1.0 s to 23 s in release), paid on
// a clean build and on edits to this crate, never on edits to code that uses the macros.
use psl::Psl;

/// Whether `entry` is a CSP source a view may declare: an origin `scheme://host[:port]` whose
/// scheme is `http`, `https`, `ws` or `wss` and whose host is a DNS name, `localhost`, or an
/// IPv4 address. The host's first label may be `*`, a wildcard subdomain, but only over a
/// domain someone registered (`*.example.com`), never directly over a public suffix (`*.com`,
/// `*.co.uk`, `*.github.io`). No scheme alone (`https:` allows every host), path, query,
/// quote, space, `;` or keyword. [`source_problem`] says why an entry is refused.
///
/// ```
/// use mcp_rounds_grammar::csp::is_csp_source;
///
/// assert!(is_csp_source("https://api.example.com"));
/// assert!(is_csp_source("https://*.cdn.example.com:8443"));
/// assert!(!is_csp_source("wss:"));
/// assert!(!is_csp_source("https://*.co.uk"));
/// assert!(!is_csp_source("'unsafe-eval'"));
/// assert!(!is_csp_source("https://example.com/path"));
/// assert!(!is_csp_source("https://example.com; script-src *"));
/// ```
pub fn is_csp_source(entry: &str) -> bool {
    source_problem(entry).is_none()
}

/// Why `entry` is not a CSP source a view may declare (see [`is_csp_source`]), if it is not:
/// a sentence naming the entry, for a compile error on it or a build error.
///
/// ```
/// use mcp_rounds_grammar::csp::source_problem;
///
/// assert_eq!(source_problem("https://cdn.example.com"), None);
/// assert!(source_problem("https:").unwrap().contains("every host"));
/// assert!(source_problem("https://*.github.io").unwrap().contains("public suffix"));
/// ```
pub fn source_problem(entry: &str) -> Option<String> {
    let invalid = || Some(format!("{entry:?} is not a CSP source a view may declare: use {CSP_SOURCE_RULE}"));
    let Some((scheme, rest)) = entry.split_once(':') else { return invalid() };
    if rest.is_empty() && crate::html::is_scheme(scheme) {
        let lowercase = scheme.to_ascii_lowercase();
        let every = if is_network(&lowercase) { String::from("every host") } else { format!("every {scheme}: URL") };
        return Some(format!(
            "{entry:?} is a scheme alone, which would allow {every}, not one origin: \
             name the origins the view reaches instead, as in https://cdn.example.com"
        ));
    }
    if !is_network(scheme) {
        return invalid();
    }
    let Some(authority) = rest.strip_prefix("//") else { return invalid() };
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    let port_fits = |port: &str| (1..=5).contains(&port.len()) && port.bytes().all(|b| b.is_ascii_digit());
    if port.is_some_and(|port| !port_fits(port)) || !is_host(host) {
        return invalid();
    }
    let above = host.strip_prefix("*.")?.to_ascii_lowercase();
    let suffix = psl::List.suffix(above.as_bytes()).filter(|suffix| suffix.as_bytes() == above.as_bytes())?;
    // The list's implicit rule makes every unlisted top-level name (`localhost`, `internal`)
    // a suffix too: the wildcard would still cover everything under a name nobody owns.
    let kind = if suffix.is_known() { "a public suffix" } else { "a top-level domain" };
    Some(format!(
        "{entry:?} puts its wildcard directly above {above}, {kind}, so it would allow every site anyone registers \
         there: name the origins, or a wildcard under one domain, as in {scheme}://*.example.{above}"
    ))
}

fn is_network(scheme: &str) -> bool {
    matches!(scheme, "http" | "https" | "ws" | "wss")
}

fn is_host(host: &str) -> bool {
    let host = host.strip_prefix("*.").unwrap_or(host);
    if host.is_empty() || host.len() > 253 {
        return false;
    }
    host.split('.').all(|label| {
        (1..=63).contains(&label.len())
            && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    })
}

/// What [`is_csp_source`] allows, for messages.
pub const CSP_SOURCE_RULE: &str = "an origin scheme://host[:port] (http, https, ws or wss; the host may start with *. over a registered domain, as in https://*.example.com), nothing else";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_origins_pass() {
        for good in [
            "https://example.com",
            "http://localhost:8080",
            "http://127.0.0.1:3000",
            "wss://realtime.example.com",
            "https://*.example.com",
        ] {
            assert!(is_csp_source(good), "{good}");
        }
        for bad in [
            "",
            "*",
            "example.com",
            "'self'",
            "'unsafe-inline'",
            "javascript:alert(1)",
            "https://",
            "https://example.com/",
            "https://example.com/x",
            "https://example.com?q",
            "https://exa mple.com",
            "https://example.com;",
            "https://*.*.example.com",
            "https://ex*ample.com",
            "https://example.com:",
            "https://example.com:123456",
            "https://-bad.example.com",
            "ftp://example.com",
        ] {
            assert!(!is_csp_source(bad), "{bad}");
        }
    }

    #[test]
    fn a_scheme_alone_is_refused_as_one() {
        for (scheme, allows) in [
            ("https:", "every host"),
            ("http:", "every host"),
            ("ws:", "every host"),
            ("wss:", "every host"),
            ("HTTPS:", "every host"),
            ("data:", "every data: URL"),
            ("blob:", "every blob: URL"),
            ("web+app:", "every web+app: URL"),
        ] {
            assert!(!is_csp_source(scheme), "{scheme}");
            let problem = source_problem(scheme).unwrap();
            assert!(
                problem.contains(&format!("{scheme:?} is a scheme alone, which would allow {allows},")),
                "{problem}"
            );
        }
    }

    #[test]
    fn a_wildcard_directly_above_a_public_suffix_is_refused() {
        for (source, suffix) in [
            ("https://*.com", "com"),
            ("https://*.co.uk", "co.uk"),
            ("https://*.github.io", "github.io"),
            ("wss://*.herokuapp.com:443", "herokuapp.com"),
            ("https://*.CO.UK", "co.uk"),
            ("http://*.localhost", "localhost"),
        ] {
            assert!(!is_csp_source(source), "{source}");
            let problem = source_problem(source).unwrap();
            assert!(problem.contains(source) && problem.contains(&format!("directly above {suffix}, ")), "{problem}");
        }
        assert!(source_problem("https://*.co.uk").unwrap().contains("a public suffix"));
        assert!(source_problem("http://*.localhost").unwrap().contains("a top-level domain"));
    }

    #[test]
    fn a_wildcard_over_a_registered_domain_stays_allowed() {
        for source in [
            "https://*.example.com",
            "https://*.example.co.uk",
            "https://*.octocat.github.io",
            "wss://*.api.example.org:8443",
        ] {
            assert_eq!(source_problem(source), None, "{source}");
        }
        // A public suffix named exactly is one origin, not a wildcard.
        assert_eq!(source_problem("https://github.io"), None);
    }
}
