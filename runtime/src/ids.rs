//! Identifiers the server hands out (session ids, task ids): unguessable and header-safe.

/// 128 random bits as 32 lowercase hex digits: visible ASCII, safe in any header.
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system provides randomness");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
