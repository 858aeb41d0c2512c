//! The sources a view may declare in its Content Security Policy (MCP Apps, `_meta.ui.csp`):
//! origins, so that a declaration can only widen what the view reaches to named places, never
//! smuggle a keyword or another directive into the policy the host builds from it.

/// Whether `entry` is a CSP source a view may declare: a scheme alone (`https:`, `wss:`), or
/// an origin `scheme://host[:port]` whose scheme is `http`, `https`, `ws` or `wss` and whose
/// host is a DNS name (its first label may be `*`, a wildcard subdomain), `localhost`, or an
/// IPv4 address. No path, query, quote, space, `;` or keyword.
///
/// ```
/// use mcp_rounds_grammar::csp::is_csp_source;
///
/// assert!(is_csp_source("https://api.example.com"));
/// assert!(is_csp_source("https://*.cdn.example.com:8443"));
/// assert!(is_csp_source("wss:"));
/// assert!(!is_csp_source("'unsafe-eval'"));
/// assert!(!is_csp_source("https://example.com/path"));
/// assert!(!is_csp_source("https://example.com; script-src *"));
/// ```
pub fn is_csp_source(entry: &str) -> bool {
    let Some((scheme, rest)) = entry.split_once(':') else { return false };
    if !matches!(scheme, "http" | "https" | "ws" | "wss") {
        return false;
    }
    if rest.is_empty() {
        return true;
    }
    let Some(authority) = rest.strip_prefix("//") else { return false };
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    let port_fits = |port: &str| (1..=5).contains(&port.len()) && port.bytes().all(|b| b.is_ascii_digit());
    if port.is_some_and(|port| !port_fits(port)) {
        return false;
    }
    is_host(host)
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
pub const CSP_SOURCE_RULE: &str = "a scheme (https:, wss:) or an origin scheme://host[:port] (http, https, ws or wss; the host may start with *.), nothing else";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_origins_and_schemes_pass() {
        for good in [
            "https://example.com",
            "http://localhost:8080",
            "http://127.0.0.1:3000",
            "wss://realtime.example.com",
            "https://*.example.com",
            "https:",
            "ws:",
        ] {
            assert!(is_csp_source(good), "{good}");
        }
        for bad in [
            "",
            "*",
            "example.com",
            "'self'",
            "'unsafe-inline'",
            "data:",
            "blob:",
            "javascript:",
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
}
