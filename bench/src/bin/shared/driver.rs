//! What the bench's Rust clients share: their command line, the three ways they load the
//! server, their own CPU time and the JSON line they report. Each client only says how it
//! makes one echo call and one two-round exchange with its framework ([`Caller`]).
//!
//! ```text
//! rounds-client --mode sequential --seconds 3 -- target/release/rounds-server --stdio
//! rounds-client --mode two-round --count 1000 -- target/release/rounds-server --stdio
//! ```
//!
//! The line printed on stdout, once the run is over:
//! `{"client":"mcp-rounds","mode":"sequential","completed":12345,"elapsed":3.0,"cpu":2.1}`:
//! the calls (or exchanges) completed and checked, the wall-clock seconds they took and the
//! client process's CPU seconds (user and system, all its threads) in the same stretch.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};

/// Calls in flight in the `concurrent` mode, as in the server rows.
pub const WINDOW: usize = 256;

/// What the server is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Echo calls, each sent when the last is answered.
    Sequential,
    /// Echo calls, [`WINDOW`] in flight.
    Concurrent,
    /// `confirm_echo` exchanges one at a time, each answered by the client's own round loop.
    TwoRound,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Sequential => "sequential",
            Mode::Concurrent => "concurrent",
            Mode::TwoRound => "two-round",
        }
    }
}

/// The command line of a bench client.
#[derive(Parser, Debug)]
pub struct Args {
    /// What to send.
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// Measure for this many seconds (after the warm-up).
    #[arg(long, conflicts_with = "count")]
    pub seconds: Option<f64>,
    /// Measure exactly this many calls (or exchanges), without a warm-up (for callgrind).
    #[arg(long)]
    pub count: Option<u64>,
    /// Seconds of the same load before the measured stretch (with `--seconds`).
    #[arg(long, default_value_t = 0.4)]
    pub warm_up: f64,
    /// The server's command line.
    #[arg(last = true, required = true)]
    pub server: Vec<String>,
}

/// One framework's way of calling the bench server. Each call checks its answer and panics
/// on a wrong one: a figure counts only answers that were right.
pub trait Caller: Clone + Send + Sync + 'static {
    /// One `tools/call` of `tool` with `{"text": "hi"}`, any `input_required` answered by the
    /// client's round loop (the form `{"confirm": true}`); the final answer must be `hi`.
    fn call(&self, tool: &'static str) -> impl Future<Output = ()> + Send;

    /// One call of `echo`.
    fn echo(&self) -> impl Future<Output = ()> + Send {
        self.call("echo")
    }

    /// One two-round exchange of `confirm_echo`.
    fn exchange(&self) -> impl Future<Output = ()> + Send {
        self.call("confirm_echo")
    }
}

/// When a stretch ends: at a deadline, or after a number of calls.
#[derive(Clone, Copy)]
enum Until {
    Deadline(Instant),
    Count(u64),
}

/// The client process's CPU seconds so far, user and system, all its threads.
pub fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the struct it is given.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Loads the server as `args` say with `caller`, and prints the JSON line of the measured
/// stretch. `asked` reads how many forms the client's handler has answered so far: every
/// two-round exchange must have asked one.
pub async fn drive<C: Caller>(client: &str, caller: C, args: &Args, asked: impl Fn() -> u64) {
    let mode = args.mode;
    if args.count.is_none() && args.warm_up > 0.0 {
        // Warm up: first calls pay for lazy initialization in every framework.
        run(&caller, mode, Until::Deadline(Instant::now() + Duration::from_secs_f64(args.warm_up))).await;
    }
    let asked_before = asked();
    let (started, cpu) = (Instant::now(), cpu_seconds());
    let until = match args.count {
        Some(count) => Until::Count(count),
        None => Until::Deadline(started + Duration::from_secs_f64(args.seconds.unwrap_or(3.0))),
    };
    let completed = run(&caller, mode, until).await;
    let (elapsed, cpu) = (started.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    if mode == Mode::TwoRound {
        let forms = asked() - asked_before;
        assert_eq!(forms, completed, "{client}: {completed} exchanges asked {forms} forms");
    }
    println!(
        "{}",
        serde_json::json!({
            "client": client, "mode": mode.name(), "completed": completed, "elapsed": elapsed, "cpu": cpu
        })
    );
}

/// Sends what `mode` says until `until`; the calls or exchanges completed.
async fn run<C: Caller>(caller: &C, mode: Mode, until: Until) -> u64 {
    match mode {
        Mode::Sequential => one_at_a_time(until, || caller.echo()).await,
        Mode::TwoRound => one_at_a_time(until, || caller.exchange()).await,
        Mode::Concurrent => in_flight(caller, until).await,
    }
}

async fn one_at_a_time<F: Future<Output = ()>>(until: Until, mut call: impl FnMut() -> F) -> u64 {
    let mut done = 0;
    loop {
        let more = match until {
            Until::Deadline(deadline) => Instant::now() < deadline,
            Until::Count(count) => done < count,
        };
        if !more {
            return done;
        }
        call().await;
        done += 1;
    }
}

/// Echo calls from [`WINDOW`] tasks, each sending its next when its last is answered, until
/// the deadline (then the calls in flight are drained) or until `count` were sent.
async fn in_flight<C: Caller>(caller: &C, until: Until) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicU64::new(0));
    let tasks: Vec<_> = (0..WINDOW)
        .map(|_| {
            let (caller, stop, sent, done) = (caller.clone(), stop.clone(), sent.clone(), done.clone());
            tokio::spawn(async move {
                loop {
                    let go = match until {
                        Until::Deadline(_) => !stop.load(Ordering::Relaxed),
                        Until::Count(count) => sent.fetch_add(1, Ordering::Relaxed) < count,
                    };
                    if !go {
                        return;
                    }
                    caller.echo().await;
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    if let Until::Deadline(deadline) = until {
        tokio::time::sleep_until(deadline.into()).await;
        stop.store(true, Ordering::Relaxed);
    }
    for task in tasks {
        task.await.expect("a caller task panicked");
    }
    done.load(Ordering::Relaxed)
}
