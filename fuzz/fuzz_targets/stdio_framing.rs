//! stdio framing, read in pieces of any size: the frames are the input's lines (without `\n`
//! and one `\r` before it, blank ones within the limit skipped), a line over the limit is one `TooLarge` frame
//! whatever its length, and the id seen in a dropped line is the message's own id.

#![no_main]

use std::io::Read;

use libfuzzer_sys::fuzz_target;
use mcp_rounds::jsonrpc::RequestId;
use mcp_rounds::transport::framing::{BlockingLineReader, Frame};

/// Hands out the input in the pieces the fuzzer chose.
struct Pieces<'a> {
    input: &'a [u8],
    sizes: std::iter::Cycle<std::vec::IntoIter<usize>>,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes.next().unwrap_or(1).clamp(1, buf.len()).min(self.input.len());
        buf[..size].copy_from_slice(&self.input[..size]);
        self.input = &self.input[size..];
        Ok(size)
    }
}

/// The top-level id of a message, when it is a JSON object with one `id` (a derived struct
/// refuses a duplicate field).
#[derive(serde::Deserialize)]
struct Top {
    id: Option<RequestId>,
}

fuzz_target!(|input: (u16, Vec<u8>, Vec<u8>)| {
    let (limit, sizes, input) = input;
    let limit = usize::from(limit % 512) + 1;
    let sizes: Vec<usize> = sizes.iter().map(|s| usize::from(*s) + 1).collect();
    let sizes = if sizes.is_empty() { vec![usize::MAX] } else { sizes };
    let mut reader = BlockingLineReader::new(Pieces { input: &input, sizes: sizes.into_iter().cycle() }, limit);
    let mut frames = Vec::new();
    while let Some(frame) = reader.next_frame().expect("reading memory does not fail") {
        frames.push(frame);
    }

    let mut lines: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
    if input.ends_with(b"\n") || input.is_empty() {
        lines.pop();
    }
    // A line over the limit is refused whatever it holds; a blank one within it is skipped.
    let expected: Vec<&[u8]> =
        lines.into_iter().filter(|line| line.len() > limit || !line.iter().all(u8::is_ascii_whitespace)).collect();
    assert_eq!(frames.len(), expected.len(), "one frame per non-blank line");
    for (frame, line) in frames.iter().zip(expected) {
        match frame {
            Frame::Message(bytes) => {
                assert!(line.len() <= limit, "a line over the limit passed");
                assert_eq!(&bytes[..], line.strip_suffix(b"\r").unwrap_or(line));
            }
            Frame::TooLarge { id } => {
                assert!(line.len() > limit, "a line within the limit dropped");
                if let (Some(id), Ok(top)) = (id, serde_json::from_slice::<Top>(line)) {
                    assert_eq!(Some(id), top.id.as_ref(), "the sniffed id is the message's");
                }
            }
        }
    }
});
