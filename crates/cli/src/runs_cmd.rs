//! `bflow runs list|show|cancel`: the runs of a journal — queued ones included, with the
//! worker that claimed them — on either backend. `list` and `show` open the journal
//! read-only; `show` is `journal show`'s report with the run's queue state.

use browserflow_rider::{CancelAnswer, Clock, JournalLocation, RunEntry};
use clap::Subcommand;

use crate::exit::Outcome;
use crate::journal_cmd::{ShownRun, table};

#[derive(Subcommand)]
pub enum RunsCommand {
    /// The most recent runs, newest first: status (queued, running, succeeded, failed,
    /// cancelled), times, the worker that claimed it, the flow.
    List {
        #[command(flatten)]
        journal: JournalArg,
        /// How many runs.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Print one JSON object a run (for scripts) instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// A run: its status and worker, its outputs, and each step's journal record (as
    /// `bflow journal show`).
    Show {
        /// The run.
        run_id: String,
        #[command(flatten)]
        journal: JournalArg,
        /// Print JSON (for scripts) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Cancels a run: a queued run never starts; a running one is stopped by its worker at
    /// its next step. A run that ended cannot be cancelled.
    Cancel {
        /// The run.
        run_id: String,
        #[command(flatten)]
        journal: JournalArg,
    },
}

#[derive(clap::Args)]
pub struct JournalArg {
    /// The journal: a file path (default: the user's data folder) or a `postgres://` URL.
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "BROWSERFLOW_JOURNAL",
        hide_env_values = true
    )]
    journal: Option<JournalLocation>,
}

impl JournalArg {
    fn location(self) -> Result<JournalLocation, browserflow_rider::JournalError> {
        match self.journal {
            Some(location) => Ok(location),
            None => JournalLocation::user_default(),
        }
    }
}

/// `runs show --json`: the run's queue state beside `journal show`'s report.
#[derive(serde::Serialize)]
struct ShownQueuedRun {
    #[serde(flatten)]
    shown: ShownRun,
    queued: bool,
    worker: Option<String>,
    cancel_requested: bool,
}

pub fn run(command: RunsCommand) -> Outcome {
    match command {
        RunsCommand::List {
            journal,
            limit,
            json,
        } => {
            // Read commands never write.
            let runs = journal.location()?.open_read_only()?.run_entries(limit)?;
            if json {
                for run in &runs {
                    println!("{}", serde_json::to_string(run)?);
                }
            } else {
                print!("{}", runs_table(&runs));
            }
        }
        RunsCommand::Show {
            run_id,
            journal,
            json,
        } => {
            let journal = journal.location()?.open_read_only()?;
            let shown = ShownRun::read(journal.as_ref(), &run_id)?;
            let entry = journal.run_entry(&run_id)?;
            let shown = ShownQueuedRun {
                queued: entry.queued,
                worker: entry.worker,
                cancel_requested: journal.cancel_requested(&run_id)?,
                shown,
            };
            if json {
                println!("{}", serde_json::to_string_pretty(&shown)?);
            } else {
                if shown.queued {
                    println!(
                        "queued run; worker: {}{}",
                        shown.worker.as_deref().unwrap_or("none yet"),
                        if shown.cancel_requested && shown.shown.status() == "running" {
                            "; cancel requested"
                        } else {
                            ""
                        }
                    );
                }
                print!("{}", shown.shown.text());
            }
        }
        RunsCommand::Cancel { run_id, journal } => {
            let journal = journal.location()?.open()?;
            let now = jiff_now_ms();
            match journal.request_cancel(&run_id, now)? {
                CancelAnswer::Dequeued => {
                    println!("run {run_id}: cancelled (it was queued; it will never start)")
                }
                CancelAnswer::Requested => {
                    println!("run {run_id}: cancel requested; its worker stops it at its next step")
                }
            }
        }
    }
    Ok(true)
}

fn jiff_now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// `runs list` for people.
fn runs_table(runs: &[RunEntry]) -> String {
    if runs.is_empty() {
        return "no runs in this journal\n".into();
    }
    let at = |ms: i64| Clock::at_unix_millis(ms).rfc3339();
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.run_id.clone(),
                r.flow.clone(),
                match r.cancel_requested_at_ms {
                    Some(_) => format!("{} (cancelling)", r.status),
                    None => r.status.clone(),
                },
                at(r.created_at_ms),
                r.finished_at_ms.map(at).unwrap_or_else(|| "-".into()),
                r.worker.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    table(
        &["RUN", "FLOW", "STATUS", "CREATED", "FINISHED", "WORKER"],
        &rows,
    )
}
