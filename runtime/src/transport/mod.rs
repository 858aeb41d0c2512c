//! Transports move bytes and establish who is calling; they know nothing of tools.

pub mod framing;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "http")]
mod sessions;
pub mod stdio;
