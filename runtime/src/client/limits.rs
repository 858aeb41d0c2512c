//! What a client takes from a server, at most: a server is a stranger until proven otherwise,
//! so every size, count and wait it could make unbounded has a default bound here, and a
//! builder setting to move it.

use std::fmt;
use std::time::Duration;

/// The largest message the client reads from a server unless the builder says otherwise:
/// a JSON answer, one event of an event stream, one line of a child's stdout.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 32 * 1024 * 1024;

/// Input requests one round may ask at most, unless the builder says otherwise.
pub const DEFAULT_MAX_INPUT_REQUESTS: usize = 64;

/// Requests a 2025-11-25 server may have waiting for the client's answer at once; beyond
/// them, the server's requests are refused until some are answered.
pub const DEFAULT_MAX_SERVER_REQUESTS: usize = 16;

/// How long Streamable HTTP waits for a TCP and TLS connection, with its own HTTP client.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest wait a server's `retry:` may ask before a stream is resumed.
pub const MAX_RETRY: Duration = Duration::from_secs(30);

/// The client's bounds, as its builder set them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) max_message_size: usize,
    pub(crate) max_input_requests: usize,
    pub(crate) max_server_requests: usize,
    /// The longest silence while an answer is read (never applied to listen streams).
    pub(crate) idle_timeout: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            max_input_requests: DEFAULT_MAX_INPUT_REQUESTS,
            max_server_requests: DEFAULT_MAX_SERVER_REQUESTS,
            idle_timeout: None,
        }
    }
}

/// Which of the client's limits a server went over.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// A message (an answer, an event, a line) larger than the limit, in bytes
    /// ([`ClientBuilder::max_message_size`](super::ClientBuilder::max_message_size)).
    MessageSize(usize),
    /// More input requests in one round than the limit
    /// ([`ClientBuilder::max_input_requests`](super::ClientBuilder::max_input_requests)).
    InputRequests {
        /// How many the server asked.
        asked: usize,
        /// The limit.
        limit: usize,
    },
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::MessageSize(limit) => write!(f, "a message larger than the limit of {}", bytes(*limit)),
            Limit::InputRequests { asked, limit } => {
                write!(f, "{asked} input requests in one round, over the limit of {limit}")
            }
        }
    }
}

/// `bytes` as a person reads a size: `32 MiB`, `1.5 KiB`, `200 bytes`.
pub(crate) fn bytes(bytes: usize) -> String {
    const UNITS: [(&str, usize); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            return if bytes.is_multiple_of(size) {
                format!("{} {unit}", bytes / size)
            } else {
                format!("{:.1} {unit}", bytes as f64 / size as f64)
            };
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_says_its_size_as_a_person_reads_it() {
        assert_eq!(
            Limit::MessageSize(DEFAULT_MAX_MESSAGE_SIZE).to_string(),
            "a message larger than the limit of 32 MiB"
        );
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(200), "200 bytes");
        assert_eq!(bytes(3 << 30), "3 GiB");
    }
}
