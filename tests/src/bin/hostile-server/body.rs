//! Response bodies made while they are sent, never held whole: fixed pieces, a block repeated
//! up to a length, or messages made one by one; counted in the record as they are handed to
//! the connection. Once the client hangs up the body is dropped, and nothing more is made.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use futures_core::Stream;

use crate::record::Record;

/// The size of the chunks a repeated block is handed out in.
const CHUNK: usize = 64 * 1024;

/// 64 KiB of `a`.
pub fn a_block() -> Bytes {
    static BLOCK: OnceLock<Bytes> = OnceLock::new();
    BLOCK.get_or_init(|| Bytes::from(vec![b'a'; CHUNK])).clone()
}

/// One part of a body.
pub enum Piece {
    /// These bytes.
    Once(Bytes),
    /// `block` over and over, cut at `left` bytes in all.
    Repeat { block: Bytes, left: u64 },
    /// Chunks from a maker, until it has no more.
    Made(Box<dyn FnMut() -> Option<Bytes> + Send>),
}

/// A body: its pieces in order, then the end, or nothing more ever (the connection stays open).
pub struct Made {
    pieces: VecDeque<Piece>,
    hang: bool,
    counted: Option<(Arc<Record>, &'static str)>,
}

impl Made {
    /// A body of `pieces` that ends after them.
    pub fn new(pieces: impl IntoIterator<Item = Piece>) -> Made {
        Made { pieces: pieces.into_iter().collect(), hang: false, counted: None }
    }

    /// Once the pieces are out, sends nothing more and never ends.
    pub fn then_hang(mut self) -> Made {
        self.hang = true;
        self
    }

    /// Counts every byte handed out in `bytes_sent[scenario]`.
    pub fn counted(mut self, record: &Arc<Record>, scenario: &'static str) -> Made {
        self.counted = Some((record.clone(), scenario));
        self
    }

    /// The next chunk, `None` after the last piece.
    pub fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            let chunk = match self.pieces.front_mut()? {
                Piece::Once(bytes) => {
                    let bytes = std::mem::take(bytes);
                    self.pieces.pop_front();
                    bytes
                }
                Piece::Repeat { left: 0, .. } => {
                    self.pieces.pop_front();
                    continue;
                }
                Piece::Repeat { block, left } => {
                    let n = block.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
                    if n == 0 {
                        self.pieces.pop_front();
                        continue;
                    }
                    *left -= n as u64;
                    block.slice(..n)
                }
                Piece::Made(make) => match make() {
                    Some(bytes) => bytes,
                    None => {
                        self.pieces.pop_front();
                        continue;
                    }
                },
            };
            if chunk.is_empty() {
                continue;
            }
            if let Some((record, scenario)) = &self.counted {
                record.sent(scenario, chunk.len() as u64);
            }
            return Some(chunk);
        }
    }

    /// As an HTTP body.
    pub fn into_body(self) -> Body {
        Body::from_stream(self)
    }
}

impl Stream for Made {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        match this.next_chunk() {
            Some(chunk) => Poll::Ready(Some(Ok(chunk))),
            // Never woken again: the connection stays open with nothing more on it.
            None if this.hang => Poll::Pending,
            None => Poll::Ready(None),
        }
    }
}

/// A body fed by a channel (for what is sent over time), counted in `bytes_sent[scenario]`;
/// the sender sees the channel closed once the client has gone.
pub struct Fed {
    receiver: tokio::sync::mpsc::Receiver<Bytes>,
    record: Arc<Record>,
    scenario: &'static str,
}

impl Fed {
    /// A body and the sender that feeds it.
    pub fn new(record: &Arc<Record>, scenario: &'static str) -> (Fed, tokio::sync::mpsc::Sender<Bytes>) {
        let (sender, receiver) = tokio::sync::mpsc::channel(4);
        (Fed { receiver, record: record.clone(), scenario }, sender)
    }
}

impl Stream for Fed {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        this.receiver.poll_recv(cx).map(|chunk| {
            chunk.map(|chunk| {
                this.record.sent(this.scenario, chunk.len() as u64);
                Ok(chunk)
            })
        })
    }
}
