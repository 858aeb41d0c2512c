//! The client's event-stream decoder against a model of the HTML standard's (with the
//! client's bounds): fed in any chunks (empty ones included), the stream gives the same
//! events, the same last event id and `retry:`, and fails at the same byte with
//! `Limit::MessageSize`, as the model says; no event's data is over the limit, no id over
//! 1024 bytes, no wait over `MAX_RETRY`; and a line that never ends fails by `max + 16 + 1`
//! bytes, so that whatever is fed (ten times the input here) the decoder holds no more.
//!
//! Input: one byte (the limit, the number of cuts), two bytes per cut, then the stream.

#![no_main]

use std::ops::Range;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcp_rounds::client::transport::{EventStreamDecoder, ServerEvent};
use mcp_rounds::client::{Limit, MAX_RETRY};

/// The limits tried: small ones reach every bound with short inputs; the largest takes an id
/// of the longest length kept.
const MAXES: [usize; 4] = [16, 64, 256, 2048];
/// A line holds an event's data and its field's name: the decoder's allowance for the name.
const FIELD_ALLOWANCE: usize = 16;
const MAX_EVENT_ID: usize = 1024;
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What feeding a stream came to.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<ServerEvent>,
    /// The index (in the whole stream) of the byte at which it failed, if it did: for a
    /// chunked feed, the range of the chunk that failed.
    failed: Option<Range<usize>>,
    last_event_id: Option<String>,
    retry: Option<Duration>,
}

/// Feeds `stream` to a new decoder in the chunks `cuts` make (sorted offsets; equal ones make
/// empty chunks), checking the bounds after every chunk.
fn feed(stream: &[u8], cuts: &[usize], max: usize) -> Outcome {
    let mut decoder = EventStreamDecoder::new(max);
    let mut events = Vec::new();
    let mut failed = None;
    let mut start = 0;
    for end in cuts.iter().copied().chain([stream.len()]) {
        let result = decoder.feed(&stream[start..end], &mut |event| events.push(event));
        check_bounds(&decoder, &events, max);
        match result {
            Ok(()) => {}
            Err(Limit::MessageSize(limit)) if limit == max => {
                failed = Some(start..end);
                break;
            }
            Err(other) => panic!("a decoder fails only over its message size: {other:?}"),
        }
        start = end;
    }
    Outcome { events, failed, last_event_id: decoder.last_event_id().map(str::to_owned), retry: decoder.retry() }
}

fn check_bounds(decoder: &EventStreamDecoder, events: &[ServerEvent], max: usize) {
    for event in events {
        assert!(event.data.len() <= max, "an event of {} bytes passed a limit of {max}", event.data.len());
    }
    if let Some(id) = decoder.last_event_id() {
        assert!(id.len() <= MAX_EVENT_ID, "an event id of {} bytes kept", id.len());
    }
    assert!(decoder.retry().is_none_or(|retry| retry <= MAX_RETRY), "retry {:?}", decoder.retry());
}

/// The HTML standard's interpretation of an event stream (§9.2.6), bytes in, with the client's
/// bounds: what the decoder must come to, the index of the failing byte included.
fn model(stream: &[u8], max: usize) -> Outcome {
    let body_start = if stream.starts_with(BOM) { BOM.len() } else { 0 };
    let mut at = body_start;
    let mut data: Option<Vec<u8>> = None;
    let mut kind: Vec<u8> = Vec::new();
    let mut id_buffer: Option<String> = None;
    let mut out = Outcome { events: Vec::new(), failed: None, last_event_id: None, retry: None };
    // A type that is not UTF-8 is no known type; an id that is not cannot be sent back.
    let kind_text = |bytes: &[u8]| std::str::from_utf8(bytes).map_or_else(|_| "\u{fffd}".to_owned(), str::to_owned);
    while at < stream.len() {
        let Some(length) = stream[at..].iter().position(|b| *b == b'\n' || *b == b'\r') else {
            // A line not ended (yet): only its length counts.
            if stream.len() - at > max + FIELD_ALLOWANCE {
                out.failed = Some(at + max + FIELD_ALLOWANCE..at + max + FIELD_ALLOWANCE + 1);
            }
            break;
        };
        if length > max + FIELD_ALLOWANCE {
            out.failed = Some(at + max + FIELD_ALLOWANCE..at + max + FIELD_ALLOWANCE + 1);
            break;
        }
        let line = &stream[at..at + length];
        let terminator = at + length;
        at = terminator + 1;
        if stream[terminator] == b'\r' && stream.get(at) == Some(&b'\n') {
            at += 1;
        }
        if line.is_empty() {
            // Dispatch: the id takes effect, with or without data.
            if let Some(id) = &id_buffer {
                out.last_event_id = Some(id.clone());
            }
            if let Some(data) = data.take() {
                out.events.push(ServerEvent { event: (!kind.is_empty()).then(|| kind_text(&kind)), data });
            }
            kind.clear();
            continue;
        }
        if line[0] == b':' {
            continue;
        }
        let (field, value) = match line.iter().position(|b| *b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                let grown = data.as_ref().map_or(value.len(), |data| data.len() + 1 + value.len());
                if grown > max {
                    // Found out when the line ends, not before.
                    out.failed = Some(terminator..terminator + 1);
                    break;
                }
                match &mut data {
                    Some(data) => {
                        data.push(b'\n');
                        data.extend_from_slice(value);
                    }
                    None => data = Some(value.to_vec()),
                }
            }
            b"event" => kind = value.to_vec(),
            b"id" if !value.contains(&0) && value.len() <= MAX_EVENT_ID => {
                if let Ok(id) = std::str::from_utf8(value) {
                    id_buffer = Some(id.to_owned());
                }
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let millis = value.iter().fold(0u128, |n, d| (n * 10 + u128::from(d - b'0')).min(u128::from(u64::MAX)));
                out.retry = Some(Duration::from_millis(millis as u64).min(MAX_RETRY));
            }
            _ => {}
        }
    }
    out
}

fuzz_target!(|input: &[u8]| {
    let Some((&header, rest)) = input.split_first() else { return };
    let max = MAXES[usize::from(header & 3)];
    let cut_count = usize::from(header >> 2).min(rest.len() / 2);
    let (cut_bytes, stream) = rest.split_at(cut_count * 2);
    let mut cuts: Vec<usize> = cut_bytes
        .chunks(2)
        .map(|pair| usize::from(u16::from_le_bytes([pair[0], pair[1]])) % (stream.len() + 1))
        .collect();
    cuts.sort_unstable();

    let expected = model(stream, max);
    let byte_by_byte: Vec<usize> = (1..stream.len()).collect();
    for (how, cuts) in [("whole", &[][..]), ("byte by byte", &byte_by_byte[..]), ("in the fuzzer's chunks", &cuts[..])]
    {
        let got = feed(stream, cuts, max);
        compare(&got, &expected, how);
    }

    // Ten times the stream, cut the same way each time: a decoder that kept anything from one
    // event to the next, or let a line grow, would show it here.
    let repeated = stream.repeat(10);
    let cuts: Vec<usize> = (0..10).flat_map(|copy| cuts.iter().map(move |cut| cut + copy * stream.len())).collect();
    compare(&feed(&repeated, &cuts, max), &model(&repeated, max), "ten times over");
});

fn compare(got: &Outcome, expected: &Outcome, how: &str) {
    assert_eq!(got.events, expected.events, "the events, fed {how}");
    match (&got.failed, &expected.failed) {
        (None, None) => {}
        (Some(chunk), Some(byte)) => assert!(
            chunk.contains(&byte.start),
            "fed {how}, it failed in bytes {chunk:?}, not at byte {} where the limit is passed",
            byte.start
        ),
        (got, expected) => panic!("fed {how}, it failed at {got:?}, not at {expected:?}"),
    }
    assert_eq!(got.retry, expected.retry, "the retry, fed {how}");
    assert_eq!(
        got.last_event_id, expected.last_event_id,
        "the last event id, fed {how}: the id of the last event dispatched (set at dispatch, as the HTML standard \
         says), which a resumed stream starts after"
    );
}
