//! A new run's row, as both backends insert it: a run that starts at once, or one that waits
//! in the queue.

use serde_json::Value;

use crate::plan_identity::StepIdentity;

/// The `runs` row of a new run and the plan recorded with it.
#[derive(Debug)]
pub(crate) struct NewRunRow<'a> {
    pub run_id: &'a str,
    pub flow: &'a str,
    pub flow_digest: &'a str,
    pub inputs: &'a Value,
    pub env: &'a Value,
    pub clock_ms: i64,
    /// When it started, or was queued (Unix ms).
    pub at_ms: i64,
    pub plan: &'a [StepIdentity],
    pub status: RunRowStatus,
}

/// How a new run begins.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RunRowStatus {
    /// Started now: its first session runs it.
    Running,
    /// Waiting for a worker to claim it: no session yet.
    Queued,
}

impl RunRowStatus {
    /// The `status` column's word and the sessions it starts with.
    pub(crate) fn column_and_sessions(self) -> (&'static str, i64) {
        match self {
            RunRowStatus::Running => ("running", 1),
            RunRowStatus::Queued => ("queued", 0),
        }
    }

    /// What failed, when inserting the row failed.
    pub(crate) fn recording(self) -> &'static str {
        match self {
            RunRowStatus::Running => "cannot record the run start",
            RunRowStatus::Queued => "cannot record the queued run",
        }
    }
}
