//! Entry points for the fuzz targets (built only by `cargo fuzz`, which sets `cfg(fuzzing)`):
//! what the client reads from a server, reached below the public API where a target needs it.

#[cfg(all(feature = "oauth", feature = "client-http"))]
pub use super::oauth::fuzzing::{resource_metadata, server_metadata};

/// What a `WWW-Authenticate` challenge says: `resource_metadata`, `scope`, `error`.
pub fn challenge<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<[Option<String>; 3]> {
    #[cfg(all(feature = "oauth", feature = "client-http"))]
    {
        super::oauth::fuzzing::challenge(values)
    }
    #[cfg(not(all(feature = "oauth", feature = "client-http")))]
    {
        let _ = values.into_iter().count();
        None
    }
}

/// Delivers `bytes` to a fresh inbox that takes messages of up to `max` bytes, awaiting
/// request `awaited`: what the inbox made of them (`None`: nothing answered that request).
pub fn deliver(bytes: &[u8], max: usize, awaited: i64) -> (Result<(), super::TransportError>, Option<String>) {
    let (inbox, _events) = super::transport::Inbox::new(max);
    let id = crate::jsonrpc::RequestId::number(awaited);
    let mut answer = inbox.expect(id);
    let delivered = inbox.deliver(bytes);
    let answered = answer.try_recv().ok().map(|delivery| format!("{delivery:?}"));
    (delivered, answered)
}
