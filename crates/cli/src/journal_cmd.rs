//! `bflow journal show RUN_ID` and `bflow journal list`.

use browserflow_rider::{Clock, JournalLocation, LeaseHolder, RunReport, RunSummary};
use clap::Subcommand;

use crate::exit::Outcome;

#[derive(Subcommand)]
pub enum JournalCommand {
    /// A run's steps, statuses, timings and outputs (secrets redacted), and who holds its
    /// lease (owner, host, pid, epoch, heartbeat, expiry).
    Show {
        /// The run.
        run_id: String,
        /// The journal: a file path (default: the user's data folder) or a
        /// `postgres://` URL.
        #[arg(
            long,
            value_name = "PATH|URL",
            env = "BROWSERFLOW_JOURNAL",
            hide_env_values = true
        )]
        journal: Option<JournalLocation>,
        /// Print JSON (for scripts) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The most recent runs, newest first, as a table.
    List {
        /// The journal: a file path (default: the user's data folder) or a
        /// `postgres://` URL.
        #[arg(
            long,
            value_name = "PATH|URL",
            env = "BROWSERFLOW_JOURNAL",
            hide_env_values = true
        )]
        journal: Option<JournalLocation>,
        /// How many runs.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Print one JSON object a run (for scripts) instead of a table.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: JournalCommand) -> Outcome {
    // Read commands never write: read-only, and a file that is not a journal is refused
    // untouched.
    let open = |location: Option<JournalLocation>| match location {
        Some(location) => location.open_read_only(),
        None => JournalLocation::user_default()?.open_read_only(),
    };
    match command {
        JournalCommand::Show {
            run_id,
            journal,
            json,
        } => {
            let journal = open(journal)?;
            let shown = ShownRun::read(journal.as_ref(), &run_id)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&shown)?);
            } else {
                print!("{}", shown.text());
            }
        }
        JournalCommand::List {
            journal,
            limit,
            json,
        } => {
            let runs = open(journal)?.runs(limit)?;
            if json {
                for run in &runs {
                    println!("{}", serde_json::to_string(run)?);
                }
            } else {
                print!("{}", runs_table(&runs));
            }
        }
    }
    Ok(true)
}

/// `journal show`'s output: the run's report, and the lease of whoever executes it (or
/// executed it last and was killed before releasing it), so a person can tell a live run
/// from a crashed one.
#[derive(serde::Serialize)]
pub(crate) struct ShownRun {
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

/// Rows of text under a header, each column as wide as its widest cell.
pub(crate) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut out = line(header.iter().map(|h| h.to_string()).collect());
    for row in rows {
        out.push_str(&line(row.clone()));
    }
    out
}

/// `journal list` for people.
fn runs_table(runs: &[RunSummary]) -> String {
    if runs.is_empty() {
        return "no runs in this journal\n".into();
    }
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.run_id.clone(),
                r.flow.clone(),
                r.status.clone(),
                r.started_at.clone(),
                match r.warnings {
                    0 => "-".to_owned(),
                    n => n.to_string(),
                },
            ]
        })
        .collect();
    table(&["RUN", "FLOW", "STATUS", "STARTED", "WARNINGS"], &rows)
}

impl ShownRun {
    /// Run `run_id` as `journal` tells it, with its lease.
    pub(crate) fn read(
        journal: &dyn browserflow_rider::JournalStore,
        run_id: &str,
    ) -> Result<ShownRun, browserflow_rider::JournalError> {
        Ok(ShownRun {
            report: journal.show(run_id)?,
            lease: journal.lease_holder(run_id)?.map(ShownLease::from),
        })
    }

    /// The run's status.
    pub(crate) fn status(&self) -> &str {
        &self.report.status
    }

    /// `journal show` for people: the run, its lease, its steps as a table, output or error.
    pub(crate) fn text(&self) -> String {
        let r = &self.report;
        let mut out = format!("run {}  {}  {}\n", r.run_id, r.flow, r.status);
        out.push_str(&format!(
            "started {}{}  sessions {}  flow digest {}\n",
            r.started_at,
            r.finished_at
                .as_ref()
                .map(|f| format!("  finished {f}"))
                .unwrap_or_default(),
            r.sessions,
            r.flow_digest
        ));
        match &self.lease {
            Some(l) => out.push_str(&format!(
                "lease: {} on {} (pid {}), epoch {}, heartbeat {}, expires {}\n",
                l.holder.owner,
                l.holder.host,
                l.holder.pid,
                l.holder.epoch,
                l.heartbeat_at,
                l.expires_at
            )),
            None => out.push_str("lease: none (no process holds this run)\n"),
        }
        out.push_str(&format!("inputs: {}\n", r.inputs));
        let rows: Vec<Vec<String>> = r
            .steps
            .iter()
            .map(|s| {
                vec![
                    (s.position + 1).to_string(),
                    s.step_id.clone(),
                    s.tool.clone(),
                    s.status.clone(),
                    s.attempts.to_string(),
                    s.duration_ms
                        .map(|ms| format!("{} ms", ms.round()))
                        .unwrap_or_else(|| "-".into()),
                ]
            })
            .collect();
        out.push_str(&table(
            &["#", "STEP", "TOOL", "STATUS", "ATTEMPTS", "TIME"],
            &rows,
        ));
        for s in &r.steps {
            for warning in &s.warnings {
                out.push_str(&format!("step {} warning: {warning}\n", s.step_id));
            }
        }
        for s in r.steps.iter().filter(|s| s.error.is_some()) {
            out.push_str(&format!(
                "step {} error: {}\n",
                s.step_id,
                s.error.as_deref().unwrap_or_default()
            ));
        }
        if let Some(output) = &r.output {
            out.push_str(&format!("output: {output}\n"));
        }
        if let Some(error) = &r.error {
            out.push_str(&format!("error [{}]: {}\n", error.code, error.message));
        }
        out
    }
}
