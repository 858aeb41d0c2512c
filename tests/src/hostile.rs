//! The hostile server (`hostile-server`): a hand-written MCP server that lures a client in and
//! then misbehaves, for tests of the client's defences. Here: the strings it sends to a
//! terminal, a check for them in what a client printed, and the process, started and stopped.
//!
//! Each scenario lives at its own path on the main origin (`/<scenario>/mcp`); a second
//! listener, "elsewhere", stands for another origin and records every request that reaches it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::Value;

// Each sequence is a macro too, so that `ALL` can be one `concat!` of them and never drift.
macro_rules! clipboard {
    () => {
        "\x1b]52;c;aGFja2Vk\x07"
    };
}
macro_rules! clear {
    () => {
        "\x1b[2J\x1b[3J\x1b[H"
    };
}
macro_rules! title {
    () => {
        "\x1b]0;pwned\x07"
    };
}
macro_rules! link {
    () => {
        "\x1b]8;;https://evil.example/\x1b\\innocent\x1b]8;;\x1b\\"
    };
}
macro_rules! c1_csi {
    () => {
        "\u{9b}31mred"
    };
}
macro_rules! bidi {
    () => {
        "\u{202e}gnp.exe"
    };
}
macro_rules! bell {
    () => {
        "\x07"
    };
}
macro_rules! overwrite {
    () => {
        "\rspoofed"
    };
}

/// OSC 52: writes `hacked` to the terminal's clipboard.
pub const CLIPBOARD: &str = clipboard!();
/// Clears the screen and the scrollback, and homes the cursor.
pub const CLEAR: &str = clear!();
/// OSC 0: sets the window title.
pub const TITLE: &str = title!();
/// OSC 8: a hyperlink showing `innocent` and leading to `https://evil.example/`.
pub const LINK: &str = link!();
/// A C1 CSI (U+009B) turning the text red.
pub const C1_CSI: &str = c1_csi!();
/// A right-to-left override: `exe.png` shows as `gnp.exe` reversed.
pub const BIDI: &str = bidi!();
/// The terminal bell.
pub const BELL: &str = bell!();
/// A carriage return, so that what follows overwrites the start of the line.
pub const OVERWRITE: &str = overwrite!();

/// Every sequence above, each after a readable marker (`1:clipboard=` … `8:overwrite=`),
/// between `[hostile]` and `[end]`: a client that shows the text safely still shows these.
pub const ALL: &str = concat!(
    "[hostile] 1:clipboard=",
    clipboard!(),
    " 2:clear=",
    clear!(),
    " 3:title=",
    title!(),
    " 4:link=",
    link!(),
    " 5:c1=",
    c1_csi!(),
    " 6:bidi=",
    bidi!(),
    " 7:bell=",
    bell!(),
    " 8:overwrite=",
    overwrite!(),
    " [end]"
);

/// The raw sequences a terminal would act on that appear in `text`, each named once, in this
/// order: `ESC`, `BEL`, `CR`, `C0` (another control character than tab and newline), `DEL`,
/// `C1` (U+0080–U+009F), `BIDI` (U+202A–U+202E), `ISOLATE` (U+2066–U+2069). Empty when the
/// text is safe to print.
pub fn dangerous(text: &str) -> Vec<&'static str> {
    const KINDS: [&str; 8] = ["ESC", "BEL", "CR", "C0", "DEL", "C1", "BIDI", "ISOLATE"];
    let kind = |c: char| match c {
        '\x1b' => Some(0),
        '\x07' => Some(1),
        '\r' => Some(2),
        '\t' | '\n' => None,
        '\0'..='\x1f' => Some(3),
        '\x7f' => Some(4),
        '\u{80}'..='\u{9f}' => Some(5),
        '\u{202a}'..='\u{202e}' => Some(6),
        '\u{2066}'..='\u{2069}' => Some(7),
        _ => None,
    };
    let mut seen = [false; KINDS.len()];
    for found in text.chars().filter_map(kind) {
        seen[found] = true;
    }
    KINDS.iter().zip(seen).filter(|(_, seen)| *seen).map(|(name, _)| *name).collect()
}

/// A running `hostile-server`: its main origin, with one MCP endpoint per scenario, and the
/// other origin it calls elsewhere. Stopped when dropped.
pub struct Hostile {
    child: Child,
    main: String,
    elsewhere: String,
    logs: Arc<Mutex<String>>,
}

impl Hostile {
    /// Starts `program` (the `hostile-server` binary: `env!("CARGO_BIN_EXE_hostile-server")`
    /// in this package's integration tests) and waits until both origins listen.
    pub fn start(program: &str) -> Self {
        Self::start_with(program, &[])
    }

    /// [`start`](Self::start) with more options, e.g. `["--name-issuer", url]`.
    pub fn start_with(program: &str, args: &[&str]) -> Self {
        let mut child = Command::new(program)
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
        let (mut main, mut elsewhere) = (None, None);
        let mut line = String::new();
        while main.is_none() || elsewhere.is_none() {
            line.clear();
            if stderr.read_line(&mut line).unwrap_or(0) == 0 {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{program} exited before listening");
            }
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("listening on ") {
                main = Some(rest.trim_end_matches("/mcp").to_owned());
            } else if let Some(rest) = line.strip_prefix("elsewhere on ") {
                elsewhere = Some(rest.to_owned());
            } else {
                eprintln!("{line}");
            }
        }
        let logs = Arc::new(Mutex::new(String::new()));
        let kept = logs.clone();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                eprintln!("{line}");
                let mut kept = kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        Hostile { child, main: main.unwrap_or_default(), elsewhere: elsewhere.unwrap_or_default(), logs }
    }

    /// The MCP endpoint of `scenario`, e.g. `http://127.0.0.1:PORT/escapes/mcp`; a query
    /// (`big-json?bytes=10`) is kept after the path.
    pub fn url(&self, scenario: &str) -> String {
        match scenario.split_once('?') {
            Some((name, query)) => format!("{}/{name}/mcp?{query}", self.main),
            None => format!("{}/{scenario}/mcp", self.main),
        }
    }

    /// `http://127.0.0.1:PORT` of the main listener.
    pub fn main_origin(&self) -> String {
        self.main.clone()
    }

    /// `http://127.0.0.1:PORT` of the other origin.
    pub fn elsewhere_origin(&self) -> String {
        self.elsewhere.clone()
    }

    /// `127.0.0.1:PORT` of the main listener, for the raw client of [`crate::http`].
    pub fn main_address(&self) -> &str {
        self.main.trim_start_matches("http://")
    }

    /// `127.0.0.1:PORT` of the other origin.
    pub fn elsewhere_address(&self) -> &str {
        self.elsewhere.trim_start_matches("http://")
    }

    /// What the server counted and recorded so far (`GET /_record`): `bytes_sent` by
    /// scenario, counters (`rounds`, `task_gets`, `task_updates`, `task_cancels`,
    /// `legacy_answers`, …), `requests` by scenario, and `elsewhere`, every request that
    /// reached the other origin.
    pub fn record(&self) -> Value {
        let response = crate::http::request_to(self.main_address(), "GET", "/_record", &[], b"");
        assert_eq!(response.status, 200, "GET /_record");
        response.json()
    }

    /// What the server wrote on stderr since it listened.
    pub fn logs(&self) -> String {
        self.logs.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

impl Drop for Hostile {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The command line of `program` serving `scenario` on stdio (a query is allowed, as on HTTP:
/// `many-inputs?count=5`): the program and its arguments, for a client that starts servers.
/// `escapes` writes [`ALL`] to its stderr: capture it rather than let it reach a terminal.
pub fn stdio_command(program: &str, scenario: &str) -> (String, Vec<String>) {
    (program.to_owned(), vec!["--stdio".to_owned(), scenario.to_owned()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_holds_every_sequence_and_dangerous_names_them() {
        for sequence in [CLIPBOARD, CLEAR, TITLE, LINK, C1_CSI, BIDI, BELL, OVERWRITE] {
            assert!(ALL.contains(sequence), "{sequence:?}");
        }
        assert_eq!(dangerous(ALL), ["ESC", "BEL", "CR", "C1", "BIDI"]);
        assert_eq!(dangerous("plain\ttext\n"), Vec::<&str>::new());
        assert_eq!(dangerous("\u{2067}x\u{7f}\u{8}"), ["C0", "DEL", "ISOLATE"]);
    }
}
