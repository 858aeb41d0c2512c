//! Newline-delimited JSON framing with a size limit enforced while reading.
//!
//! A line longer than the limit is never held in memory: once it crosses the limit the rest
//! is read and dropped up to the next newline. While dropping, a tiny scanner watches for the
//! message's top-level `"id"` so the refusal can still be addressed to the request it refuses;
//! otherwise a client would wait forever for an answer that never names its id.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use crate::jsonrpc::RequestId;

/// Default limit on one message: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// One framed line.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A complete line within the limit, without its line terminator.
    Message(Vec<u8>),
    /// A line over the limit; its contents were dropped.
    TooLarge {
        /// The top-level `id` of the dropped message, if one could be seen.
        id: Option<RequestId>,
    },
}

/// The framing itself, without I/O: fed the bytes a reader has buffered, it says how many it
/// took and which frame, if any, they completed.
#[derive(Debug)]
struct Framer {
    limit: usize,
    line: Vec<u8>,
    dropping: Option<IdSniffer>,
}

impl Framer {
    fn new(limit: usize) -> Self {
        Framer { limit, line: Vec::new(), dropping: None }
    }

    /// Takes bytes from `available` (never empty): how many were consumed, and the line they
    /// ended.
    fn feed(&mut self, available: &[u8]) -> (usize, Option<Frame>) {
        let newline = memchr::memchr(b'\n', available);
        let chunk = &available[..newline.unwrap_or(available.len())];
        if let Some(sniffer) = &mut self.dropping {
            sniffer.feed(chunk);
        } else if self.line.len() + chunk.len() > self.limit {
            let mut sniffer = IdSniffer::default();
            sniffer.feed(&self.line);
            sniffer.feed(chunk);
            self.line = Vec::new();
            self.dropping = Some(sniffer);
        } else {
            self.line.extend_from_slice(chunk);
        }
        match newline {
            Some(i) => (i + 1, Some(self.end_line())),
            None => (available.len(), None),
        }
    }

    /// At end of input: a last line without a newline still counts.
    fn finish(&mut self) -> Option<Frame> {
        if self.dropping.is_none() && self.line.is_empty() {
            return None;
        }
        Some(self.end_line())
    }

    fn end_line(&mut self) -> Frame {
        if let Some(sniffer) = self.dropping.take() {
            return Frame::TooLarge { id: sniffer.finish() };
        }
        let mut line = std::mem::take(&mut self.line);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Frame::Message(line)
    }
}

fn is_blank(frame: &Frame) -> bool {
    matches!(frame, Frame::Message(bytes) if bytes.iter().all(u8::is_ascii_whitespace))
}

/// What the bytes a reader has buffered amount to.
enum Next {
    /// A non-blank frame, after consuming this many bytes.
    Frame(usize, Frame),
    /// Consume this many bytes and read on.
    More(usize),
    /// End of input.
    End,
}

impl Framer {
    /// The next step of a reader whose buffer holds `available` (empty at end of input),
    /// skipping blank lines.
    fn next(&mut self, available: &[u8]) -> Next {
        let (consumed, frame) = if available.is_empty() {
            match self.finish() {
                Some(frame) => (0, frame),
                None => return Next::End,
            }
        } else {
            match self.feed(available) {
                (consumed, Some(frame)) => (consumed, frame),
                (consumed, None) => return Next::More(consumed),
            }
        };
        if is_blank(&frame) { Next::More(consumed) } else { Next::Frame(consumed, frame) }
    }
}

/// Reads frames from a buffered byte stream.
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    framer: Framer,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Frames `reader`, refusing lines longer than `limit` bytes.
    pub fn new(reader: R, limit: usize) -> Self {
        LineReader { reader, framer: Framer::new(limit) }
    }

    /// The next non-blank frame, or `None` at end of input.
    pub async fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        loop {
            let available = self.reader.fill_buf().await?;
            match self.framer.next(available) {
                Next::End => return Ok(None),
                Next::Frame(consumed, frame) => {
                    self.reader.consume(consumed);
                    return Ok(Some(frame));
                }
                Next::More(consumed) => self.reader.consume(consumed),
            }
        }
    }
}

/// [`LineReader`] over a blocking reader, for a thread of its own.
#[derive(Debug)]
pub struct BlockingLineReader<R> {
    reader: std::io::BufReader<R>,
    framer: Framer,
}

impl<R: std::io::Read> BlockingLineReader<R> {
    /// Frames `reader`, refusing lines longer than `limit` bytes.
    pub fn new(reader: R, limit: usize) -> Self {
        BlockingLineReader { reader: std::io::BufReader::with_capacity(64 * 1024, reader), framer: Framer::new(limit) }
    }

    /// Whether a whole line is already read and waiting: then the next frame comes without
    /// blocking.
    pub fn has_line_ready(&self) -> bool {
        memchr::memchr(b'\n', self.reader.buffer()).is_some()
    }

    /// The next non-blank frame, or `None` at end of input.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        use std::io::BufRead as _;
        loop {
            let available = self.reader.fill_buf()?;
            match self.framer.next(available) {
                Next::End => return Ok(None),
                Next::Frame(consumed, frame) => {
                    self.reader.consume(consumed);
                    return Ok(Some(frame));
                }
                Next::More(consumed) => self.reader.consume(consumed),
            }
        }
    }
}

const MAX_ID_BYTES: usize = 1024;

#[derive(Debug, Default)]
enum Capture {
    #[default]
    Off,
    AwaitValue,
    Str {
        raw: Vec<u8>,
        escape: bool,
    },
    Num {
        raw: Vec<u8>,
    },
}

/// Finds the top-level `"id"` of a JSON object fed to it in pieces, in constant memory.
#[derive(Debug, Default)]
pub struct IdSniffer {
    depth: u32,
    in_string: bool,
    escape: bool,
    expect_key: bool,
    in_key: bool,
    key: [u8; 2],
    key_len: usize,
    key_is_id: bool,
    capture: Capture,
    found: Option<RequestId>,
}

impl IdSniffer {
    /// Scans more bytes.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found.is_some() {
                return;
            }
            self.step(b);
        }
    }

    /// The id, if one was seen.
    pub fn finish(mut self) -> Option<RequestId> {
        if let Capture::Num { raw } = std::mem::take(&mut self.capture) {
            // An integer beyond 64 bits is no id (decoding refuses it too): as a float it would
            // not be the client's.
            let integer = !raw.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
            self.found = serde_json::from_slice(&raw)
                .ok()
                .filter(|id| !(integer && matches!(id, RequestId::Number(n) if n.is_f64())));
        }
        self.found
    }

    fn step(&mut self, b: u8) {
        match &mut self.capture {
            Capture::Off => {}
            Capture::AwaitValue => match b {
                b' ' | b'\t' | b'\r' | b'\n' => return,
                b'"' => {
                    self.capture = Capture::Str { raw: vec![b], escape: false };
                    return;
                }
                b'-' | b'0'..=b'9' => {
                    self.capture = Capture::Num { raw: vec![b] };
                    return;
                }
                _ => self.capture = Capture::Off,
            },
            Capture::Str { raw, escape } => {
                raw.push(b);
                if *escape {
                    *escape = false;
                } else if b == b'\\' {
                    *escape = true;
                } else if b == b'"' {
                    self.found = serde_json::from_slice(raw).ok();
                    self.capture = Capture::Off;
                    return;
                }
                if raw.len() > MAX_ID_BYTES {
                    // Not an id worth echoing; go on scanning as an ordinary string.
                    self.in_string = true;
                    self.escape = *escape;
                    self.capture = Capture::Off;
                }
                return;
            }
            Capture::Num { raw } => {
                if matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') && raw.len() < 64 {
                    raw.push(b);
                    return;
                }
                self.found = serde_json::from_slice(raw).ok();
                self.capture = Capture::Off;
                return;
            }
        }

        if self.in_string {
            if self.escape {
                self.escape = false;
                self.push_key_byte(0);
            } else if b == b'\\' {
                self.escape = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.in_key {
                    self.in_key = false;
                    self.key_is_id = self.key_len == 2 && &self.key == b"id";
                }
            } else {
                self.push_key_byte(b);
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.in_key = true;
                    self.key_len = 0;
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = b == b'{';
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b':' if self.depth == 1 => {
                self.expect_key = false;
                if std::mem::take(&mut self.key_is_id) {
                    self.capture = Capture::AwaitValue;
                }
            }
            b',' if self.depth == 1 => self.expect_key = true,
            _ => {}
        }
    }

    fn push_key_byte(&mut self, b: u8) {
        if self.in_key {
            if self.key_len < 2 {
                self.key[self.key_len] = b;
            }
            self.key_len += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    async fn frames(input: &[u8], limit: usize) -> Vec<Frame> {
        // A small buffer so lines straddle reads.
        let reader = tokio::io::BufReader::with_capacity(7, input);
        let mut lines = LineReader::new(reader, limit);
        let mut out = Vec::new();
        while let Some(f) = lines.next_frame().await.unwrap() {
            out.push(f);
        }
        out
    }

    #[tokio::test]
    async fn lines_are_split_trimmed_and_blank_ones_skipped() {
        let got = frames(b"{\"a\":1}\r\n\n   \n{\"b\":2}", 100).await;
        assert_eq!(got, vec![Frame::Message(b"{\"a\":1}".to_vec()), Frame::Message(b"{\"b\":2}".to_vec())]);
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_dropped_with_its_id_and_the_next_is_read() {
        let big = format!(r#"{{"jsonrpc":"2.0","id":"big-1","method":"x","params":{{"s":"{}"}}}}"#, "a".repeat(500));
        let input = format!("{big}\n{{\"ok\":true}}\n");
        let got = frames(input.as_bytes(), 100).await;
        assert_eq!(
            got,
            vec![Frame::TooLarge { id: Some(RequestId::from("big-1")) }, Frame::Message(b"{\"ok\":true}".to_vec())]
        );
    }

    #[tokio::test]
    async fn a_line_exactly_at_the_limit_is_accepted() {
        let got = frames(b"0123456789\n", 10).await;
        assert_eq!(got, vec![Frame::Message(b"0123456789".to_vec())]);
        let got = frames(b"01234567890\n", 10).await;
        assert_eq!(got, vec![Frame::TooLarge { id: None }]);
    }

    fn sniff(s: &str) -> Option<RequestId> {
        let mut sniffer = IdSniffer::default();
        sniffer.feed(s.as_bytes());
        sniffer.finish()
    }

    #[test]
    fn sniffer_finds_only_the_top_level_id() {
        assert_eq!(sniff(r#"{"params":{"id":5},"id":7}"#), Some(RequestId::number(7)));
        assert_eq!(sniff(r#"{"x":"\"id\":3","id" : "q\"r"}"#), Some(RequestId::from("q\"r")));
        assert_eq!(sniff(r#"{"idx":1,"i":2}"#), None);
        assert_eq!(sniff(r#"{"id":null}"#), None);
        assert_eq!(sniff(r#"{"id":-12}"#), Some(RequestId::number(-12)));
        assert_eq!(sniff(r#"[{"id":1}]"#), None);
    }

    proptest! {
        #[test]
        fn sniffer_agrees_with_a_parser(
            id in prop_oneof![any::<i64>().prop_map(serde_json::Value::from), ".{0,20}".prop_map(serde_json::Value::from)],
            before in proptest::collection::btree_map("[a-z]{1,4}", ".{0,10}", 0..4),
            nested in ".{0,10}",
            split in 0usize..200,
        ) {
            let mut obj = serde_json::Map::new();
            for (k, v) in before { if k != "id" { obj.insert(k, v.into()); } }
            obj.insert("params".into(), serde_json::json!({"id": nested, "list": [{"id": 1}]}));
            obj.insert("id".into(), id.clone());
            let text = serde_json::to_string(&obj).unwrap();
            let split = split.min(text.len());
            let mut sniffer = IdSniffer::default();
            sniffer.feed(&text.as_bytes()[..split]);
            sniffer.feed(&text.as_bytes()[split..]);
            let expected: RequestId = serde_json::from_value(id).unwrap();
            prop_assert_eq!(sniffer.finish(), Some(expected));
        }
    }
}
