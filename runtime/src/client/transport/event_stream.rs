//! A server-sent event stream decoded as the HTML standard says (lines ended by CRLF, LF or
//! CR; `data`, `event`, `id` and `retry` fields; a blank line dispatches), with bounds: no
//! line and no event's data may grow past the client's message limit, however the server
//! splits its bytes. Decoding is separate from reading, so that any body (and a fuzzer) can
//! feed it.

use std::time::Duration;

use crate::client::limits::{Limit, MAX_RETRY};

/// The longest event id kept: an id is sent back as a header to resume a stream, and no
/// sensible server needs more.
const MAX_EVENT_ID: usize = 1024;

/// One event of the stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerEvent {
    /// Its type (`event:`), when it is not the default `message` (U+FFFD for a type that is
    /// not UTF-8).
    pub event: Option<String>,
    /// Its data lines, joined by `\n`, as the server sent them (a JSON-RPC reader refuses
    /// what is not UTF-8).
    pub data: Vec<u8>,
}

/// Decodes an event stream fed to it in chunks of any size.
///
/// ```
/// use mcp_rounds::client::transport::EventStreamDecoder;
///
/// let mut decoder = EventStreamDecoder::new(1024);
/// let mut events = Vec::new();
/// decoder.feed(b"id: 7\nretry: 99999999\ndata: {\"jsonrpc\":", &mut |e| events.push(e)).unwrap();
/// decoder.feed(b"\"2.0\"}\n\n", &mut |e| events.push(e)).unwrap();
/// assert_eq!(events[0].data, br#"{"jsonrpc":"2.0"}"#);
/// assert_eq!(decoder.last_event_id(), Some("7"));
/// // A server cannot ask the client to wait longer than 30 s before it resumes.
/// assert_eq!(decoder.retry(), Some(std::time::Duration::from_secs(30)));
/// ```
#[derive(Debug)]
pub struct EventStreamDecoder {
    max: usize,
    /// The line read so far (without its end).
    line: Vec<u8>,
    /// The last byte fed was a CR: a LF right after it ends nothing more.
    after_cr: bool,
    /// Whether the stream's start (and its optional BOM) is behind.
    started: bool,
    data: Vec<u8>,
    has_data: bool,
    event: Option<String>,
    /// The id the next dispatch makes the stream's (the standard's "last event ID buffer").
    id_buffer: Option<String>,
    last_event_id: Option<String>,
    retry: Option<Duration>,
}

impl EventStreamDecoder {
    /// A decoder that takes lines and events of up to `max` bytes each.
    pub fn new(max: usize) -> Self {
        EventStreamDecoder {
            max,
            line: Vec::new(),
            after_cr: false,
            started: false,
            data: Vec::new(),
            has_data: false,
            event: None,
            id_buffer: None,
            last_event_id: None,
            retry: None,
        }
    }

    /// Decodes `chunk`, handing each complete event to `dispatch`. Fails, and should be fed
    /// no more, when a line or an event's data would grow past the decoder's limit.
    pub fn feed(&mut self, mut chunk: &[u8], dispatch: &mut dyn FnMut(ServerEvent)) -> Result<(), Limit> {
        if !self.started {
            let bom = b"\xEF\xBB\xBF";
            let seen = self.line.len() + chunk.len();
            if seen < bom.len() && bom.starts_with(&[&self.line[..], chunk].concat()) {
                // Perhaps a BOM split across chunks: wait for the rest of it.
                self.line.extend_from_slice(chunk);
                return Ok(());
            }
            let mut start = std::mem::take(&mut self.line);
            start.extend_from_slice(chunk);
            self.started = true;
            let body = start.strip_prefix(bom).unwrap_or(&start).to_vec();
            return self.feed(&body, dispatch);
        }
        if chunk.is_empty() {
            // Nothing to read: in particular, a CR seen last still waits for its LF.
            return Ok(());
        }
        if self.after_cr && chunk.first() == Some(&b'\n') {
            chunk = &chunk[1..];
        }
        self.after_cr = false;
        // A line holds an event's data and its field's name.
        let max_line = self.max.saturating_add(16);
        while let Some(end) = memchr::memchr2(b'\n', b'\r', chunk) {
            if self.line.len() + end > max_line {
                return Err(Limit::MessageSize(self.max));
            }
            self.line.extend_from_slice(&chunk[..end]);
            let line = std::mem::take(&mut self.line);
            self.line_ended(&line, dispatch)?;
            self.line = line;
            self.line.clear();
            let cr = chunk[end] == b'\r';
            chunk = &chunk[end + 1..];
            if cr {
                match chunk.first() {
                    Some(b'\n') => chunk = &chunk[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        if self.line.len() + chunk.len() > max_line {
            return Err(Limit::MessageSize(self.max));
        }
        self.line.extend_from_slice(chunk);
        Ok(())
    }

    /// The id of the last event that set one (sent as `Last-Event-ID` to resume).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// How long the server asked the client to wait before resuming, at most [`MAX_RETRY`].
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    fn line_ended(&mut self, line: &[u8], dispatch: &mut dyn FnMut(ServerEvent)) -> Result<(), Limit> {
        if line.is_empty() {
            self.dispatch(dispatch);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                let added = value.len() + usize::from(self.has_data);
                if self.data.len() + added > self.max {
                    return Err(Limit::MessageSize(self.max));
                }
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"event" => {
                // Compared with `message` only: a type that is not UTF-8 is not that one.
                let kind = std::str::from_utf8(value).map_or_else(|_| "\u{fffd}".to_owned(), str::to_owned);
                self.event = Some(kind);
            }
            // An id with a NUL is ignored, as the standard says; one too long to send back, or
            // not text a header can carry, as this client says.
            b"id" if !value.contains(&0) && value.len() <= MAX_EVENT_ID => {
                if let Ok(id) = std::str::from_utf8(value) {
                    self.id_buffer = Some(id.to_owned());
                }
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Digits beyond what a u64 holds are a wait longer than the bound anyway.
                let millis = std::str::from_utf8(value).ok().and_then(|v| v.parse::<u64>().ok()).unwrap_or(u64::MAX);
                self.retry = Some(Duration::from_millis(millis).min(MAX_RETRY));
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, dispatch: &mut dyn FnMut(ServerEvent)) {
        // The id becomes the stream's when its event ends, not when its line is read: a stream
        // broken in the middle of an event resumes before it, not after.
        self.last_event_id.clone_from(&self.id_buffer);
        let event = self.event.take();
        if !std::mem::take(&mut self.has_data) {
            self.data.clear();
            return;
        }
        let data = std::mem::take(&mut self.data);
        dispatch(ServerEvent { event: event.filter(|kind| !kind.is_empty()), data });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]], max: usize) -> (Vec<ServerEvent>, Result<(), Limit>, EventStreamDecoder) {
        let mut decoder = EventStreamDecoder::new(max);
        let mut events = Vec::new();
        let mut result = Ok(());
        for chunk in chunks {
            result = decoder.feed(chunk, &mut |e| events.push(e));
            if result.is_err() {
                break;
            }
        }
        (events, result, decoder)
    }

    fn data(events: &[ServerEvent]) -> Vec<&str> {
        events.iter().map(|e| std::str::from_utf8(&e.data).unwrap()).collect()
    }

    #[test]
    fn lines_end_with_crlf_lf_or_cr_however_the_bytes_are_split() {
        let whole: &[u8] = b"\xEF\xBB\xBFdata: a\r\ndata:b\r\rdata: c\n\n: comment\nevent: other\ndata: d\r\n\r\n";
        let (events, result, _) = decode(&[whole], 64);
        result.unwrap();
        assert_eq!(data(&events), ["a\nb", "c", "d"]);
        assert_eq!(events[2].event.as_deref(), Some("other"));
        // Byte by byte, a CRLF split between chunks included: the same events.
        let bytes: Vec<&[u8]> = whole.chunks(1).collect();
        let (split, result, _) = decode(&bytes, 64);
        result.unwrap();
        assert_eq!(split, events);
    }

    #[test]
    fn no_line_and_no_event_grows_past_the_limit() {
        let (_, result, _) = decode(&[b"data: ", &[b'a'; 100]], 64);
        assert_eq!(result, Err(Limit::MessageSize(64)), "one long line without an end");
        let many: Vec<&[u8]> = std::iter::repeat_n(&b"data: aaaaaaaaaa\n"[..], 10).collect();
        let (events, result, _) = decode(&many, 64);
        assert!(events.is_empty());
        assert_eq!(result, Err(Limit::MessageSize(64)), "many short lines of one event");
        let (events, result, _) = decode(&[b"data: 0123456789\n\n", b"data: 0123456789\n\n"], 16);
        result.unwrap();
        assert_eq!(events.len(), 2, "each event is bounded, not the stream");
    }

    #[test]
    fn an_id_is_the_streams_once_its_event_ends() {
        // Broken off in the middle of event 5: resumed after 4, so 5 comes again.
        let (_, _, decoder) = decode(&[b"id: 4\ndata: {}\n\nid: 5\ndata: {\"jsonrpc\":"], 4096);
        assert_eq!(decoder.last_event_id(), Some("4"));
        // An empty chunk between a CR and its LF changes nothing.
        let (events, result, _) = decode(&[b"data: a\r", b"", b"\ndata: b\n\n"], 64);
        result.unwrap();
        assert_eq!(data(&events), ["a\nb"]);
    }

    #[test]
    fn bytes_that_are_not_text_stay_within_the_limit() {
        let mut bad = b"data: ".to_vec();
        bad.extend([0xff; 60]);
        bad.extend(b"\n\n");
        let (events, result, _) = decode(&[&bad], 64);
        result.unwrap();
        assert_eq!(events[0].data.len(), 60, "the bytes as sent, not three times as many");
        let mut id = b"id: ".to_vec();
        id.extend([0xff; 400]);
        id.extend(b"\n\n");
        let (_, _, decoder) = decode(&[&id], 4096);
        assert_eq!(decoder.last_event_id(), None, "an id a header cannot carry is not kept");
    }

    #[test]
    fn retry_is_bounded_and_a_long_or_broken_id_is_not_kept() {
        let (_, _, decoder) = decode(&[b"retry: 4000000000000000000000\nid: 1\n\n"], 4096);
        assert_eq!(decoder.retry(), Some(MAX_RETRY));
        assert_eq!(decoder.last_event_id(), Some("1"));
        let long = format!("id: {}\n\n", "x".repeat(MAX_EVENT_ID + 1));
        let (_, _, decoder) = decode(&[b"id: 1\n", long.as_bytes(), b"id: a\0b\n\n"], 4096);
        assert_eq!(decoder.last_event_id(), Some("1"));
        let (_, _, decoder) = decode(&[b"retry: 250\nretry: 1x\n"], 64);
        assert_eq!(decoder.retry(), Some(Duration::from_millis(250)));
    }
}
