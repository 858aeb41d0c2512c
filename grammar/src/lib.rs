//! The grammars [`mcp-rounds`](https://docs.rs/mcp-rounds) checks twice: when a handler is
//! compiled (its macros reject a bad name at the token that spells it) and when a server is
//! built or a request arrives. One definition serves both, so what compiles is exactly what the
//! server accepts.
//!
//! Use it through `mcp-rounds`; it has no opinions of its own, and one dependency, the Public
//! Suffix List (`psl`), which tells a wildcard CSP source over a domain from one over a suffix.
//!
//! The checks of a view's HTML ([`html`], [`view`]) are a lint: they catch mistakes when a view
//! is built, and are no security boundary. What a view can reach is the host's to enforce,
//! from the CSP the view declares and in the sandbox it renders the view in.

#![no_std]

extern crate alloc;

pub mod csp;
pub mod html;
pub mod template;
pub mod view;

/// Whether `name` is a tool name the protocol allows: 1 to 128 characters of `A-Z a-z 0-9 _ . -`.
///
/// ```
/// assert!(mcp_rounds_grammar::is_tool_name("notes_delete"));
/// assert!(!mcp_rounds_grammar::is_tool_name("notes delete"));
/// ```
pub fn is_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// What [`is_tool_name`] allows, for messages.
pub const TOOL_NAME_RULE: &str = "1 to 128 characters of A-Z a-z 0-9 _ . -";

/// Whether `name` is an RFC 9110 token (`1*tchar`), the only shape an HTTP header name can have.
///
/// ```
/// assert!(mcp_rounds_grammar::is_header_name("Region"));
/// assert!(!mcp_rounds_grammar::is_header_name("Has Space"));
/// ```
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// What [`is_header_name`] allows, for messages.
pub const HEADER_NAME_RULE: &str = "1 or more of A-Z a-z 0-9 ! # $ % & ' * + - . ^ _ ` | ~";

/// Whether `scope` is an OAuth scope token (RFC 6749 §3.3): visible ASCII but `"` and `\`, at
/// least one character.
///
/// ```
/// assert!(mcp_rounds_grammar::is_scope_token("notes:write"));
/// assert!(!mcp_rounds_grammar::is_scope_token("notes:read notes:write"));
/// ```
pub fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty() && scope.bytes().all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

/// What [`is_scope_token`] allows, for messages.
pub const SCOPE_RULE: &str = "visible ASCII without spaces, `\"` or `\\`";

/// Whether `name` is an Agent Skills name: 1 to 64 of `a-z 0-9 -`, not starting or ending
/// with `-`, without `--`.
///
/// ```
/// assert!(mcp_rounds_grammar::is_skill_name("tps-report-writing"));
/// assert!(!mcp_rounds_grammar::is_skill_name("TPS--report"));
/// ```
pub fn is_skill_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-'))
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// What [`is_skill_name`] allows, for messages.
pub const SKILL_NAME_RULE: &str =
    "1 to 64 lowercase letters, digits and hyphens, not starting or ending with a hyphen, without `--`";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_their_rules() {
        for ok in ["a", "notes_delete", "a.b-c_D9", &"x".repeat(128)] {
            assert!(is_tool_name(ok), "{ok}");
        }
        for bad in ["", "a b", "é", "a/b", &"x".repeat(129)] {
            assert!(!is_tool_name(bad), "{bad}");
        }
        for ok in ["a", "tps-report-writing", "x9", &"x".repeat(64)] {
            assert!(is_skill_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", &"x".repeat(65)] {
            assert!(!is_skill_name(bad), "{bad}");
        }
        assert!(is_header_name("X-Region_1~"));
        for bad in ["", "a b", "a:b", "Ünï", "a\nb"] {
            assert!(!is_header_name(bad), "{bad:?}");
        }
        assert!(is_scope_token("notes:read") && is_scope_token("!#[]~"));
        for bad in ["", "a b", "a\"b", "a\\b", "é"] {
            assert!(!is_scope_token(bad), "{bad:?}");
        }
    }
}
