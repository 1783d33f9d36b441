//! Run progress on stderr, one line per event: ids, statuses and timings, never values.

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
