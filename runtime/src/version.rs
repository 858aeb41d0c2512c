//! Protocol versions this framework speaks.

/// The revision this framework implements.
pub const LATEST_PROTOCOL_VERSION: &str = "2026-07-28";

/// Every version accepted in a request's `_meta`, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &[LATEST_PROTOCOL_VERSION];

/// Versions of the `initialize` handshake a legacy session may settle on, newest first.
pub const LEGACY_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18"];

/// Whether `version` is accepted.
pub fn is_supported(version: &str) -> bool {
    SUPPORTED_PROTOCOL_VERSIONS.contains(&version)
}

/// `version` as the framework's own string, when it is one this framework speaks in either
/// era (for telemetry, which never carries a version a client made up).
pub(crate) fn known(version: &str) -> Option<&'static str> {
    SUPPORTED_PROTOCOL_VERSIONS.iter().chain(LEGACY_PROTOCOL_VERSIONS).find(|known| **known == version).copied()
}
