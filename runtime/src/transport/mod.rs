//! Transports move bytes and establish who is calling; they know nothing of tools.

pub mod framing;
#[cfg(feature = "http")]
pub mod http;
pub mod stdio;
