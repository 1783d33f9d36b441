//! `bflow journal show RUN_ID` and `bflow journal list`.

use std::path::PathBuf;

use browserflow_rider::{Clock, Journal, LeaseHolder, RunReport};
use clap::Subcommand;

use crate::exit::Outcome;

#[derive(Subcommand)]
pub enum JournalCommand {
    /// A run's steps, statuses, timings and outputs (secrets redacted), and who holds its
    /// lease (owner, host, pid, heartbeat, expiry), as JSON.
    Show {
        /// The run.
        run_id: String,
        /// The journal file (default: the user's data folder).
        #[arg(long, value_name = "PATH")]
        journal: Option<PathBuf>,
    },
    /// The most recent runs.
    List {
        /// The journal file (default: the user's data folder).
        #[arg(long, value_name = "PATH")]
        journal: Option<PathBuf>,
        /// How many runs.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
}

pub fn run(command: JournalCommand) -> Outcome {
    // Read commands never write: read-only, and a file that is not a journal is refused
    // untouched.
    let open = |path: Option<PathBuf>| match path {
        Some(path) => Journal::open_read_only(path),
        None => Journal::open_default_read_only(),
    };
    match command {
        JournalCommand::Show { run_id, journal } => {
            let journal = open(journal)?;
            let shown = ShownRun {
                report: journal.show(&run_id)?,
                lease: journal.lease_holder(&run_id)?.map(ShownLease::from),
            };
            println!("{}", serde_json::to_string_pretty(&shown)?);
        }
        JournalCommand::List { journal, limit } => {
            for run in open(journal)?.runs(limit)? {
                println!("{}", serde_json::to_string(&run)?);
            }
        }
    }
    Ok(true)
}

/// `journal show`'s output: the run's report, and the lease of whoever executes it (or
/// executed it last and was killed before releasing it), so a person can tell a live run
/// from a crashed one.
#[derive(serde::Serialize)]
struct ShownRun {
    #[serde(flatten)]
    report: RunReport,
    lease: Option<ShownLease>,
}

/// A lease with its times also in RFC 3339, for people.
#[derive(serde::Serialize)]
struct ShownLease {
    #[serde(flatten)]
    holder: LeaseHolder,
    heartbeat_at: String,
    expires_at: String,
}

impl From<LeaseHolder> for ShownLease {
    fn from(holder: LeaseHolder) -> ShownLease {
        let at = |ms: i64| Clock::at_unix_millis(ms).rfc3339();
        ShownLease {
            heartbeat_at: at(holder.heartbeat_at_ms),
            expires_at: at(holder.expires_at_ms),
            holder,
        }
    }
}
