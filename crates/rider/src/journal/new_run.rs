//! A new run's row, as both backends insert it: a run that starts at once, or one that waits
//! in the queue.

use serde_json::Value;

use crate::journal::store::{QueuedStart, RunStart};
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

impl<'a> NewRunRow<'a> {
    /// The row of a run that starts now.
    pub(crate) fn started(run: &RunStart<'a>) -> Self {
        NewRunRow {
            run_id: run.run_id,
            flow: run.flow,
            flow_digest: run.flow_digest,
            inputs: run.inputs,
            env: run.env,
            clock_ms: run.clock_ms,
            at_ms: run.started_at_ms,
            plan: run.plan,
            status: RunRowStatus::Running,
        }
    }

    /// The row of a run that waits in the queue.
    pub(crate) fn queued(run: &QueuedStart<'a>) -> Self {
        NewRunRow {
            run_id: run.run_id,
            flow: run.flow,
            flow_digest: run.flow_digest,
            inputs: run.inputs,
            env: run.env,
            clock_ms: run.clock_ms,
            at_ms: run.enqueued_at_ms,
            plan: run.plan,
            status: RunRowStatus::Queued,
        }
    }
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
