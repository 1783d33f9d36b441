//! Run progress on stderr, one line per event: ids, statuses and timings, never values.

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
            eprintln!("{verb} {flow} ({steps} steps) as run {run_id}");
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
