//! Run progress on stderr, one line per event: ids, statuses and timings, never values.

use std::time::Duration;

use browserflow_catalog::batch;
use browserflow_replay::{StepReport, StepStatus};
use browserflow_rider::RunEvent;

pub fn print(event: &RunEvent) {
    match event {
        RunEvent::RunStarted {
            run_id,
            flow,
            steps,
            resumed,
        } => {
            let verb = if *resumed { "resuming" } else { "running" };
            let steps = crate::words::count(*steps, "step");
            eprintln!("{verb} {flow} ({steps}) as run {run_id}");
        }
        RunEvent::StepStarted {
            step_id,
            tool,
            attempt,
        } => {
            if *attempt > 1 {
                eprintln!("  {step_id} ({tool}) attempt {attempt}…");
            } else {
                eprintln!("  {step_id} ({tool})…");
            }
        }
        RunEvent::StepFinished {
            step_id,
            status,
            duration_ms,
        } => eprintln!("  {step_id} {status} in {duration_ms:.0} ms"),
        RunEvent::RunFinished { run_id, status } => eprintln!("run {run_id} {status}"),
    }
}

/// A browser step that just finished, as `bflow run` says it the moment it does: its number,
/// its label (the recorder's description), how it ended, its time and the selector that
/// found its element. `ranked` holds each step's candidates, described, best first; a step
/// won by a lower-ranked one gets a warning naming those that found nothing.
pub fn replay_step(report: &StepReport, ranked: &[Vec<String>]) -> Vec<String> {
    let status = match report.status {
        StepStatus::Passed => "passed",
        StepStatus::Failed => "FAILED",
        StepStatus::Skipped => "skipped",
    };
    let via = report
        .selector
        .as_ref()
        .map(|s| format!(" via {}", s.description))
        .unwrap_or_default();
    let mut lines = vec![format!(
        "  {}. {} — {status} in {:.0} ms{via}",
        report.index + 1,
        report.what(),
        report.duration_ms
    )];
    let candidates = ranked.get(report.index).map(Vec::as_slice).unwrap_or(&[]);
    if let Some(fallback) = report.fallback(candidates) {
        lines.push(format!("  warning: {fallback}"));
    }
    if let Some(why) = &report.screenshot_withheld {
        lines.push(format!("  (step {}: {why})", report.index + 1));
    }
    lines
}

/// A batch row that just finished: where the batch stands (rows done of all, failed, rows a
/// second, the time left), then the row and how it ended; a failed row's cause and the folder
/// its page was kept in on lines of their own.
pub fn batch_row(row: &batch::RowOutcome, progress: &batch::Progress) -> Vec<String> {
    let done = progress.skipped + progress.finished;
    let left = progress
        .time_left()
        .map(|t| format!(" · ~{} left", seconds(t)))
        .unwrap_or_default();
    let failed = match progress.failed {
        0 => String::new(),
        n => format!(" · {n} failed"),
    };
    let head = format!(
        "[{done}/{}{failed} · {:.1} rows/s{left}]",
        progress.total,
        progress.rows_per_second()
    );
    let mut lines = match row.status {
        batch::RowStatus::Ok => vec![format!(
            "{head} row {}: ok in {}",
            row.row,
            seconds(Duration::from_secs_f64(row.duration_ms / 1000.0))
        )],
        batch::RowStatus::Failed => vec![
            format!("{head} row {}: FAILED", row.row),
            format!("  {}", row.error.as_deref().unwrap_or("no reason given")),
        ],
    };
    if let Some(folder) = &row.run_folder {
        lines.push(format!(
            "  run folder (the failing page, report.json): {}",
            folder.display()
        ));
    }
    lines
}

/// The last line of a batch: rows, how they ended, the rate, and the CPU a row cost (this
/// process and its browser together) when it could be measured.
pub fn batch_summary(summary: &batch::BatchSummary, cpu_seconds: Option<f64>) -> String {
    let run = summary.ok + summary.failed;
    let skipped = match summary.skipped {
        0 => String::new(),
        n => format!(", {n} done before (skipped)"),
    };
    let cpu = match cpu_seconds {
        Some(cpu) if run > 0 => format!(", {:.2} CPU-s per row", cpu / run as f64),
        _ => String::new(),
    };
    format!(
        "batch: {}: {} ok, {} failed{skipped} in {} — {:.2} rows/s{cpu}",
        crate::words::count(summary.rows, "row"),
        summary.ok,
        summary.failed,
        seconds(summary.elapsed),
        summary.rows_per_second()
    )
}

/// `0.9 s`, `41 s`, `3 min 20 s`.
fn seconds(t: Duration) -> String {
    let s = t.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{} min {} s", t.as_secs() / 60, t.as_secs() % 60)
    }
}
