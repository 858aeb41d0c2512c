//! The scenarios that make sense on stdio, one JSON-RPC message a line: `escapes` (which also
//! writes [`ALL`] into its own log, stderr), `endless-task`, `endless-rounds`, `many-inputs`,
//! `sampling`, `url-elicit`, `big-json` (an answer line of `?bytes=` bytes) and `silent` (never
//! answers a `tools/call`).

use std::io::{BufRead, Write};
use std::process::ExitCode;

use mcp_rounds_tests::hostile::ALL;

use crate::body::{Made, Piece, a_block};
use crate::record::Record;
use crate::wire::{Incoming, Offer, Query, Reply, split_scenario, tool};
use crate::{escapes, rounds};

/// The scenarios served on stdio.
const SERVED: [&str; 8] =
    ["escapes", "endless-task", "endless-rounds", "many-inputs", "sampling", "url-elicit", "big-json", "silent"];

/// Serves `scenario` (with its `?query`, if any) until stdin ends.
pub fn run(scenario: &str) -> ExitCode {
    let (scenario, query) = split_scenario(scenario);
    if !SERVED.contains(&scenario) {
        eprintln!("hostile-server: {scenario:?} is not served on stdio (one of {SERVED:?})");
        return ExitCode::from(2);
    }
    let escapes = scenario == "escapes";
    if escapes {
        eprintln!("hostile-server starting: {ALL}");
        eprintln!("{ALL}");
    }
    let record = Record::default();
    let mut stdin = std::io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match stdin.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return ExitCode::SUCCESS,
            Ok(_) => {}
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let written = match Incoming::parse(&line) {
            Ok(message) => {
                if escapes {
                    eprintln!("request {} {ALL}", message.method());
                }
                answer(scenario, &query, &message, &record)
            }
            Err(error) => write_lines(&[error]),
        };
        // The client has gone: nothing more to do.
        if written.is_err() {
            return ExitCode::SUCCESS;
        }
    }
}

fn answer(scenario: &str, query: &Query, message: &Incoming, record: &Record) -> std::io::Result<()> {
    let reply = match scenario {
        "escapes" => escapes::answer(message, query),
        "big-json" | "silent" => {
            let name = if scenario == "silent" { "hang" } else { "big" };
            let offered = matches!(message.method(), "server/discover" | "tools/list");
            if !message.is_request() || offered {
                Offer::tools(scenario, vec![tool(name, "Answers at length, or not at all.")]).basic(message)
            } else if scenario == "silent" {
                Reply::Never
            } else {
                return big_line(message, query.number("bytes", 512 * 1024 * 1024, 1 << 40));
            }
        }
        _ => match rounds::answer(scenario, message, query, record) {
            Some(reply) => reply,
            None => return Ok(()),
        },
    };
    match reply {
        Reply::Json(_, message) => write_lines(&[message]),
        Reply::Events(messages) => write_lines(&messages),
        Reply::Accepted | Reply::Never => Ok(()),
    }
}

fn write_lines(messages: &[serde_json::Value]) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    for message in messages {
        writeln!(stdout, "{message}")?;
    }
    stdout.flush()
}

/// An answer of `bytes` bytes on one line (its newline not counted), written as it is made.
fn big_line(message: &Incoming, bytes: u64) -> std::io::Result<()> {
    let prefix = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"complete","content":[{{"type":"text","text":""#,
        message.id()
    );
    let suffix = "\"}]}}\n";
    let filler = bytes.saturating_sub((prefix.len() + suffix.len() - 1) as u64);
    let mut made = Made::new([
        Piece::Once(prefix.into()),
        Piece::Repeat { block: a_block(), left: filler },
        Piece::Once(suffix.as_bytes().to_vec().into()),
    ]);
    let mut stdout = std::io::stdout().lock();
    while let Some(chunk) = made.next_chunk() {
        stdout.write_all(&chunk)?;
    }
    stdout.flush()
}
