//! Transports move bytes and establish who is calling; they know nothing of tools.

pub mod framing;
pub mod stdio;
