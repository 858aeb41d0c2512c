//! The CPU time a server spends per request, kernel included, read from the scheduler's
//! account of each of its threads: unlike requests per second, it does not count the time a
//! request waits for a core or for the load generator, which on a shared machine moves the
//! wall-clock figures by more than the differences they are meant to show.

use std::fmt::Write as _;

/// Nanoseconds the threads of process `pid` have run on a CPU so far (threads that already
/// ended are not counted: the servers keep theirs).
fn used_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return 0 };
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// A process's CPU time from a starting point.
pub struct Meter {
    pid: u32,
    start: u64,
}

impl Meter {
    pub fn start(pid: u32) -> Self {
        Meter { pid, start: used_ns(pid) }
    }

    /// Seconds of CPU since the start.
    pub fn seconds(&self) -> f64 {
        (used_ns(self.pid).saturating_sub(self.start)) as f64 / 1e9
    }

    /// Seconds of CPU per request, `requests` having been answered since the start.
    pub fn per(&self, requests: u64) -> f64 {
        self.seconds() / requests.max(1) as f64
    }
}

/// The median of `runs`.
pub fn median(runs: &[f64]) -> f64 {
    let mut sorted = runs.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// One server's CPU seconds per request, run by run, in each row it was measured in.
pub struct Rows<'a> {
    pub name: &'a str,
    /// (row label, every run's seconds per request)
    pub rows: Vec<(String, &'a [f64])>,
}

/// The report's section on CPU time per request.
pub fn render(out: &mut String, servers: &[Rows<'_>]) {
    let Some(first) = servers.first() else { return };
    let _ = writeln!(out, "## CPU time per request\n");
    let _ = writeln!(
        out,
        "The CPU time each server's threads spent per call in the runs above (in the two-round \
         exchanges, per each of their two calls), kernel included, as the scheduler accounts it: the \
         median over the runs, in µs. Waiting is not in it, so it moves far less from run to run than \
         requests per second do: a row whose calls mostly wait for wake-ups, as the two-round one does \
         on some machines, can show two servers answering at one rate while one of them works half as \
         much.\n"
    );
    let labels: Vec<&str> = first.rows.iter().map(|(label, _)| label.as_str()).collect();
    let _ = writeln!(out, "| server | {} |", labels.join(" | "));
    let _ = writeln!(out, "|---|{}", "---:|".repeat(labels.len()));
    for server in servers {
        // A server not measured in a row (the ceiling has no two-round tool) has no runs there.
        let cell = |runs: &[f64]| if runs.is_empty() { "–".to_owned() } else { format!("{:.1}", median(runs) * 1e6) };
        let cells: Vec<String> = server.rows.iter().map(|(_, runs)| cell(runs)).collect();
        let _ = writeln!(out, "| {} | {} |", server.name, cells.join(" | "));
    }
    let Some(ours) = servers.iter().find(|s| s.name == "mcp-rounds") else { return };
    let _ = writeln!(out, "\n| CPU per call, paired per run | {} |", labels.join(" | "));
    let _ = writeln!(out, "|---|{}", "---:|".repeat(labels.len()));
    for other in servers.iter().filter(|s| s.name != "mcp-rounds") {
        let (label, ours_first) = crate::against_ours(other.name);
        let cells: Vec<String> = ours
            .rows
            .iter()
            .zip(&other.rows)
            .map(|((_, a), (_, b))| {
                let ratio = if ours_first { crate::paired(a, b) } else { crate::paired(b, a) };
                if ratio.is_finite() { format!("{ratio:.2}×") } else { "–".into() }
            })
            .collect();
        let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
    }
    let _ = writeln!(out);
}
