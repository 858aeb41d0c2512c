//! Transports frame messages, establish who is calling and map answers to their own statuses;
//! everything else (eras, legacy sessions, cancellation) is the connection layer's, which every
//! transport shares.

pub mod framing;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "client")]
pub mod in_process;
#[cfg(feature = "oauth")]
pub mod oauth;
pub mod stdio;
