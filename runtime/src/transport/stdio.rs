//! The stdio transport: one JSON-RPC message per line on stdin and stdout.
//!
//! Requests run concurrently and are answered as they complete. stdout carries nothing but
//! JSON-RPC; logs belong on stderr. At end of input, requests in flight finish, then
//! [`Stdio::serve`] returns.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::framing::{BlockingLineReader, DEFAULT_MAX_MESSAGE_BYTES, Frame, LineReader};
use crate::connection::{Answered, Arrival, Received, Refused, Status, StreamConnection};
use crate::context::{Notifier, Principal};
use crate::error::Error;
use crate::future::BoxFuture;
use crate::jsonrpc;
use crate::server::Server;
use crate::telemetry::Transport;

/// Responses waiting for stdout; senders wait when the client stops reading.
pub(super) const OUTBOX_CAPACITY: usize = 256;

/// At most this many bytes of answers are held back to go out together.
const MAX_BURST: usize = 64 * 1024;

/// Serves a [`Server`] over stdin and stdout (or any pair of byte streams).
///
/// ```no_run
/// use mcp_rounds::{Principal, Server};
/// use mcp_rounds::transport::stdio::Stdio;
///
/// # async fn run(server: Server) -> std::io::Result<()> {
/// Stdio::new().principal(Principal::new("demo")).serve(&server).await
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Stdio {
    principal: Principal,
    max_message_bytes: usize,
}

impl Default for Stdio {
    fn default() -> Self {
        Stdio { principal: Principal::anonymous(), max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES }
    }
}

impl Stdio {
    /// Anonymous principal, 4 MiB message limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// The principal every request on this stream runs as. There is no authentication on a
    /// pipe: whoever started the process is the caller.
    pub fn principal(mut self, principal: Principal) -> Self {
        self.principal = principal;
        self
    }

    /// The largest message accepted, in bytes (default 4 MiB). Longer lines are refused with
    /// -32600 without being held in memory.
    pub fn max_message_bytes(mut self, limit: usize) -> Self {
        self.max_message_bytes = limit;
        self
    }

    /// Serves on this process's stdin and stdout until stdin closes.
    ///
    /// stdin and stdout get threads of their own, and a request whose handler needs no waiting
    /// is answered from the reading thread, which also writes the answer unless the writing
    /// thread is busy: a call answered one at a time crosses no thread. A tool that computes
    /// for long without awaiting anything therefore holds up the reading of the next requests
    /// while it runs: mark it `#[tool(blocking)]` and it runs on a thread of its own instead.
    pub async fn serve(&self, server: &Server) -> io::Result<()> {
        let (outbox, outgoing) = mpsc::channel::<Vec<u8>>(OUTBOX_CAPACITY);
        let out = Arc::new(Mutex::new(Out::new(std::io::stdout(), outgoing)));
        let writer = {
            let out = out.clone();
            std::thread::Builder::new().name("mcp-stdout".into()).spawn(move || write_queued(&out))?
        };
        let lines = Lines::new(self, server, outbox);
        let tasks = lines.tasks.clone();
        let shutdown = lines.shutdown.clone();
        let handle = tokio::runtime::Handle::current();
        let limit = self.max_message_bytes;
        let (done, read) = tokio::sync::oneshot::channel();
        std::thread::Builder::new().name("mcp-stdin".into()).spawn(move || {
            // The runtime's context, so that handlers polled here can use timers and spawn.
            let _runtime = handle.enter();
            let mut frames = BlockingLineReader::new(std::io::stdin().lock(), limit);
            // Answers made here wait while more requests are already read, and then go out
            // together: one write per burst, not per answer.
            let mut burst = Vec::new();
            let result = loop {
                let end = match frames.next_frame() {
                    Ok(Some(frame)) => {
                        lines.frame_blocking(frame, &mut burst);
                        if burst.len() < MAX_BURST && frames.has_line_ready() {
                            continue;
                        }
                        None
                    }
                    Ok(None) => Some(Ok(())),
                    Err(err) => Some(Err(err)),
                };
                if !burst.is_empty() {
                    lock(&out).write(None, &burst);
                    burst.clear();
                }
                if let Some(result) = end {
                    break result;
                }
            };
            // The lines hold a sender: dropping them lets the writer finish.
            drop(lines);
            let _ = done.send(result);
        })?;
        let read_result = read.await.unwrap_or_else(|_| Err(io::Error::other("the stdin thread panicked")));
        shutdown.cancel();
        tasks.close();
        tasks.wait().await;
        let written = tokio::task::spawn_blocking(move || writer.join())
            .await
            .map_err(io::Error::other)?
            .unwrap_or_else(|_| Err(io::Error::other("the stdout thread panicked")));
        read_result.and(written)
    }

    /// Serves on any byte streams with the same framing (a socket, a pipe, a test buffer).
    pub async fn serve_streams<R, W>(&self, server: &Server, reader: R, writer: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outbox, outgoing) = mpsc::channel::<Vec<u8>>(OUTBOX_CAPACITY);
        let writer = tokio::spawn(write_lines(writer, outgoing));
        let lines = Lines::new(self, server, outbox);
        let mut frames = LineReader::new(BufReader::new(reader), self.max_message_bytes);
        let read_result = loop {
            match frames.next_frame().await {
                Ok(Some(frame)) => lines.frame(frame).await,
                Ok(None) => break Ok(()),
                Err(err) => break Err(err),
            }
        };
        lines.finish().await;
        drop(lines);
        let written = writer.await.map_err(io::Error::other)?;
        read_result.and(written)
    }
}

/// Turns frames into answers and running requests: the part of the transport that does not
/// care how bytes are read and written (the in-process transport is this without the bytes).
pub(super) struct Lines {
    connection: StreamConnection,
    principal: Principal,
    max_message_bytes: usize,
    outbox: mpsc::Sender<Vec<u8>>,
    tasks: TaskTracker,
    // Ends listen streams (with a result) at end of input, so that shutdown can finish.
    shutdown: CancellationToken,
    /// What telemetry says carried the requests.
    transport: Transport,
}

impl Lines {
    pub(super) fn new(stdio: &Stdio, server: &Server, outbox: mpsc::Sender<Vec<u8>>) -> Self {
        Self::carried_by(stdio, server, outbox, Transport::Pipe)
    }

    pub(super) fn carried_by(
        stdio: &Stdio,
        server: &Server,
        outbox: mpsc::Sender<Vec<u8>>,
        transport: Transport,
    ) -> Self {
        let shutdown = CancellationToken::new();
        let sink = Notifier::new(outbox.clone());
        Lines {
            connection: StreamConnection::stream(server, sink, shutdown.clone()),
            principal: stdio.principal.clone(),
            max_message_bytes: stdio.max_message_bytes,
            outbox,
            tasks: TaskTracker::new(),
            shutdown,
            transport,
        }
    }

    /// What one frame comes to.
    fn receive(&self, frame: Frame) -> Received {
        let bytes = match frame {
            Frame::Message(bytes) => bytes,
            Frame::TooLarge { id } => {
                tracing::warn!(limit = self.max_message_bytes, "message over the size limit refused");
                let error =
                    Error::invalid_request(format!("Message too large: the limit is {} bytes", self.max_message_bytes))
                        .with_data(serde_json::json!({ "maxMessageBytes": self.max_message_bytes }));
                let bytes = jsonrpc::encode_error(id.as_ref(), &error);
                return Received::Refused(Refused { status: Status::Invalid, bytes });
            }
        };
        let arrival = Arrival {
            principal: self.principal.clone(),
            notifier: Some(Notifier::new(self.outbox.clone())),
            transport: self.transport,
            ..Arrival::default()
        };
        self.connection.receive(&bytes, arrival)
    }

    /// Runs a request to its end on the runtime, and writes its answer.
    fn spawn(&self, answer: BoxFuture<'static, Option<Answered>>) {
        let outbox = self.outbox.clone();
        self.tasks.spawn(async move {
            if let Some(answered) = answer.await {
                send(&outbox, answered.encoded.bytes).await;
            }
        });
    }

    pub(super) async fn frame(&self, frame: Frame) {
        match self.receive(frame) {
            Received::Refused(refused) => send(&self.outbox, refused.bytes).await,
            Received::Run(running) => self.spawn(running.answer),
            Received::Accepted => {}
        }
    }

    /// [`frame`](Self::frame) on a thread that may block: a request whose handler completes
    /// without waiting is answered right here rather than spawned, its answer appended to
    /// `burst` (lines joined by newlines).
    fn frame_blocking(&self, frame: Frame, burst: &mut Vec<u8>) {
        let mut answer = |bytes: Vec<u8>| {
            if !burst.is_empty() {
                burst.push(b'\n');
            }
            burst.extend_from_slice(&bytes);
        };
        match self.receive(frame) {
            Received::Refused(refused) => answer(refused.bytes),
            Received::Run(running) => {
                let mut running = running.answer;
                let mut context = std::task::Context::from_waker(std::task::Waker::noop());
                match running.as_mut().poll(&mut context) {
                    std::task::Poll::Ready(Some(answered)) => answer(answered.encoded.bytes),
                    std::task::Poll::Ready(None) => {}
                    // The runtime polls it again at once, with a real waker.
                    std::task::Poll::Pending => self.spawn(running),
                }
            }
            Received::Accepted => {}
        }
    }
}

impl Lines {
    /// Ends what runs: listen streams end, requests in flight finish.
    pub(super) async fn finish(&self) {
        self.shutdown.cancel();
        self.tasks.close();
        self.tasks.wait().await;
    }
}

async fn send(outbox: &mpsc::Sender<Vec<u8>>, bytes: Vec<u8>) {
    // Fails only when the writer stopped (stdout closed); there is no one left to tell.
    let _ = outbox.send(bytes).await;
}

async fn write_lines<W: AsyncWrite + Unpin>(writer: W, mut outgoing: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    let mut writer = BufWriter::new(writer);
    // One message per line: the framing adds the newline, so nothing else needs to.
    while let Some(message) = outgoing.recv().await {
        writer.write_all(&message).await?;
        writer.write_all(b"\n").await?;
        // Flush once per burst rather than once per message.
        while let Ok(message) = outgoing.try_recv() {
            writer.write_all(&message).await?;
            writer.write_all(b"\n").await?;
        }
        writer.flush().await?;
    }
    writer.flush().await?;
    writer.into_inner().shutdown().await
}

/// stdout and the queue of what waits for it. Whoever holds the lock writes, queued messages
/// first: the reading thread writes its own answers without waking the writing thread, and a
/// request's notifications, queued while it ran, still go out before its answer.
struct Out<W: Write> {
    writer: std::io::BufWriter<W>,
    queued: mpsc::Receiver<Vec<u8>>,
    /// The first write that failed (stdout closed): nothing more is written.
    failed: Option<io::Error>,
}

impl<W: Write> Out<W> {
    fn new(writer: W, queued: mpsc::Receiver<Vec<u8>>) -> Self {
        Out { writer: std::io::BufWriter::with_capacity(64 * 1024, writer), queued, failed: None }
    }

    /// Writes `first`, whatever else is queued, then `lines` (messages joined by newlines), and
    /// flushes once.
    fn write(&mut self, first: Option<Vec<u8>>, lines: &[u8]) {
        if self.failed.is_some() {
            while self.queued.try_recv().is_ok() {}
            return;
        }
        let result = (|| {
            if let Some(message) = first {
                line(&mut self.writer, &message)?;
            }
            while let Ok(message) = self.queued.try_recv() {
                line(&mut self.writer, &message)?;
            }
            if !lines.is_empty() {
                line(&mut self.writer, lines)?;
            }
            self.writer.flush()
        })();
        if let Err(err) = result {
            // Senders learn that no one is listening any more.
            self.queued.close();
            self.failed = Some(err);
        }
    }
}

fn line(writer: &mut impl Write, message: &[u8]) -> io::Result<()> {
    writer.write_all(message)?;
    writer.write_all(b"\n")
}

fn lock<W: Write>(out: &Mutex<Out<W>>) -> std::sync::MutexGuard<'_, Out<W>> {
    // A panic while writing leaves nothing half-done that matters: the next write goes on.
    out.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Wakes the writing thread when something is queued.
struct Unpark(std::thread::Thread);

impl std::task::Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// The writing thread: writes what requests answered elsewhere (and notifications) queue,
/// until every sender is gone. It takes a message only while it holds the lock, so that the
/// reading thread, once it holds the lock, knows that everything queued before is written.
fn write_queued<W: Write>(out: &Mutex<Out<W>>) -> io::Result<()> {
    let waker = std::task::Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = std::task::Context::from_waker(&waker);
    loop {
        let mut guard = lock(out);
        match guard.queued.poll_recv(&mut context) {
            std::task::Poll::Ready(Some(message)) => guard.write(Some(message), &[]),
            std::task::Poll::Ready(None) => return guard.failed.take().map_or(Ok(()), Err),
            std::task::Poll::Pending => {
                drop(guard);
                // A wake-up that came before this returns at once.
                std::thread::park();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};
    use std::sync::{Arc, Mutex};

    use tokio::sync::mpsc;

    use super::{Out, lock, write_queued};

    /// A writer that keeps what it is given, or fails every write once told to.
    #[derive(Clone, Default)]
    struct Recorder {
        written: Arc<Mutex<Vec<u8>>>,
        broken: Arc<std::sync::atomic::AtomicBool>,
    }

    impl Write for Recorder {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if self.broken.load(std::sync::atomic::Ordering::SeqCst) {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            self.written.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn what_was_queued_goes_out_before_the_readers_own_answers() {
        let sink = Recorder::default();
        let (queue, queued) = mpsc::channel(8);
        let out = Mutex::new(Out::new(sink.clone(), queued));
        queue.try_send(b"note 1".to_vec()).unwrap();
        queue.try_send(b"note 2".to_vec()).unwrap();
        lock(&out).write(None, b"answer 1\nanswer 2");
        assert_eq!(&*sink.written.lock().unwrap(), b"note 1\nnote 2\nanswer 1\nanswer 2\n");
    }

    #[test]
    fn the_writing_thread_writes_what_is_queued_and_ends_with_the_last_sender() {
        let sink = Recorder::default();
        let (queue, queued) = mpsc::channel(8);
        let out = Arc::new(Mutex::new(Out::new(sink.clone(), queued)));
        let writer = std::thread::spawn({
            let out = out.clone();
            move || write_queued(&out)
        });
        for n in 0..20 {
            queue.blocking_send(format!("message {n}").into_bytes()).unwrap();
        }
        drop(queue);
        writer.join().unwrap().unwrap();
        let expected: String = (0..20).map(|n| format!("message {n}\n")).collect();
        assert_eq!(String::from_utf8(sink.written.lock().unwrap().clone()).unwrap(), expected);
    }

    #[test]
    fn a_closed_stdout_stops_the_writing_and_is_reported_once_every_sender_is_gone() {
        let sink = Recorder::default();
        let (queue, queued) = mpsc::channel(8);
        let out = Arc::new(Mutex::new(Out::new(sink.clone(), queued)));
        sink.broken.store(true, std::sync::atomic::Ordering::SeqCst);
        lock(&out).write(None, b"answer");
        // Senders learn that nobody listens any more.
        assert!(queue.try_send(b"late".to_vec()).is_err());
        drop(queue);
        let error = write_queued(&out).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
        assert!(sink.written.lock().unwrap().is_empty());
    }
}
