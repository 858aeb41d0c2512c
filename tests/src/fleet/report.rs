//! A run's report in Markdown: the machine, the plan, the faults with their recovery times, the
//! answers counted, delivery times, and every broken invariant.

use std::fmt::Write;

use super::run::{Outcome, Plan};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The machine, in one line: cores, CPU, memory, kernel.
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model =
        cpuinfo.lines().find_map(|l| l.strip_prefix("model name")).map(|l| l.trim_start_matches([' ', '\t', ':']));
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse::<u64>().ok())
        .map_or("?".to_owned(), |kib| format!("{} GiB", kib / 1024 / 1024));
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!("{cores} cores ({}), {memory} of memory, Linux {}", model.unwrap_or("?"), kernel.trim())
}

/// The report of `outcome`, which ran `plan` with `instances` instances.
pub fn markdown(title: &str, plan: &Plan, instances: usize, outcome: &Outcome) -> String {
    let findings = &outcome.findings;
    let journal = &outcome.journal;
    let mut out = String::new();
    let _ = writeln!(out, "## {title}\n");
    let _ = writeln!(out, "- Machine: {}", machine());
    let _ = writeln!(
        out,
        "- Fleet: {instances} instances of the notes server (debug build) sharing one data directory and one \
         PostgreSQL (over verified TLS), behind HAProxy (round-robin, health checks, `retry-on conn-failure`)"
    );
    let s = &plan.settings;
    let _ = writeln!(
        out,
        "- Workload: {} workers over {} notes each, {} listen streams, an export task every {} ms",
        s.workers,
        s.slots,
        s.streams,
        s.export_every.as_millis()
    );
    let _ = writeln!(
        out,
        "- Ran {:.0} s; {} requests, {} streams, {} tasks\n",
        outcome.seconds,
        journal.calls.len(),
        journal.streams.len(),
        journal.tasks.len()
    );
    let _ = writeln!(out, "| Fault | At (s) | Lasted (s) | Recovered after (s) |\n|---|---|---|---|");
    for fault in &journal.faults {
        let recovered =
            fault.recovered.map_or("not within a minute".to_owned(), |r| format!("{:.2}", (r - fault.ended) / 1000.0));
        let _ = writeln!(
            out,
            "| {} | {:.1} | {:.2} | {recovered} |",
            fault.what,
            fault.began / 1000.0,
            (fault.ended - fault.began) / 1000.0
        );
    }
    for fault in journal.faults.iter().filter(|f| !f.phases.is_empty() || !f.evidence.is_empty()) {
        let _ = writeln!(out, "\n{}:", fault.what);
        for (phase, at) in &fault.phases {
            let _ = writeln!(out, "- at {:.1} s: {phase}", at / 1000.0);
        }
        for evidence in &fault.evidence {
            let _ = writeln!(out, "- {evidence}");
        }
    }
    let _ = writeln!(out, "\n| Answers | Count |\n|---|---|");
    for (what, count) in &findings.counts {
        let _ = writeln!(out, "| {what} | {count} |");
    }
    let _ = writeln!(
        out,
        "\nTwo-round deletes answered in both rounds: {}, of which {} had their rounds answered by different instances.",
        findings.both_rounds, findings.crossed
    );
    let d = &findings.delivery;
    let _ = writeln!(
        out,
        "Changes delivered to open streams: {} (from the request to the event: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms).",
        d.len(),
        percentile(d, 0.5),
        percentile(d, 0.99),
        d.last().copied().unwrap_or(f64::NAN)
    );
    let calm = &findings.delivery_calm;
    let _ = writeln!(
        out,
        "Outside faults: {} (p50 {:.1} ms, p99 {:.1} ms). Notifications that matched no change the workload knew of: {}.",
        calm.len(),
        percentile(calm, 0.5),
        percentile(calm, 0.99),
        findings.surplus
    );
    let ended: Vec<_> = journal.streams.iter().filter_map(|s| s.ended.as_ref()).collect();
    let results = ended.iter().filter(|(_, e)| *e == super::record::End::Result).count();
    let _ = writeln!(
        out,
        "Streams ended by the server with a result: {results}; dropped: {}.",
        ended.iter().filter(|(_, e)| matches!(e, super::record::End::Dropped(_))).count()
    );
    if !findings.unbitten.is_empty() {
        let _ = writeln!(out, "\n**Faults that met no work in flight:**\n");
        for missed in &findings.unbitten {
            let _ = writeln!(out, "- {missed}");
        }
    }
    if findings.violations.is_empty() {
        let _ = writeln!(out, "\n**Every invariant held.**");
    } else {
        let _ = writeln!(out, "\n**{} invariants broken:**\n", findings.violations.len());
        for violation in &findings.violations {
            let _ = writeln!(out, "- {violation}");
        }
    }
    out
}
