//! The run queue: runs recorded now and executed later by whichever worker claims them
//! (`bflow flow run --enqueue`, `bflow worker`).
//!
//! A queued run is a run row like any other (status `queued`, its plan's identity and its
//! inputs recorded at enqueue time), plus a queue row saying where its flow file is. A
//! worker claims one with [`JournalStore::claim_queued`](super::JournalStore::claim_queued):
//! in one transaction it picks a run that is queued — or running under a lease whose owner
//! is gone (its worker was killed) — takes the run's lease (a new epoch) and marks it
//! running with the worker's id. On PostgreSQL the pick is `SELECT … FOR UPDATE SKIP
//! LOCKED` on the run's row, the row every fenced write locks; on SQLite the transaction
//! is `BEGIN IMMEDIATE`, the file's single writer. So **a run is claimed by one worker at a
//! time, and the claim and the lease are one step**: no worker can hold a claim without
//! the lease, and the lease's fence then guards every write and effect as for any run.
//!
//! Why row locks and not a queue crate (pgmq, apalis, graphile-worker…): the claim must take
//! the journal's lease in the same transaction, so that the lease's fence — the one mechanism
//! that guards every write and effect — is also what makes a claim exclusive and what hands a
//! dead worker's run to another. A queue of its own would bring a second visibility timeout
//! beside the lease, and two mechanisms could disagree about who holds a run.
//!
//! Cancelling ([`JournalStore::request_cancel`](super::JournalStore::request_cancel)): a
//! queued run is ended `cancelled` at once (it never starts); a running one gets a cancel
//! request that its owner reads at its next step boundary and stops on.

/// The origin of a queued run: what a worker needs to compile its flow again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueOrigin {
    /// The flow file (absolute).
    pub flow_file: String,
    /// Folders of tool files the flow resolves refs from (absolute).
    pub tools: Vec<String>,
}

/// A run claimed by a worker: its lease is this worker's, under `fence`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The run.
    pub run_id: String,
    /// Where its flow is.
    pub origin: QueueOrigin,
    /// The lease the claim took.
    pub fence: super::Fence,
    /// Whether the run had been started by another worker, now gone (a takeover).
    pub taken_over: bool,
}

/// A run as `bflow runs list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RunEntry {
    /// The run id.
    pub run_id: String,
    /// The flow, `name@version`.
    pub flow: String,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    /// When it was enqueued or started (Unix ms).
    pub created_at_ms: i64,
    /// When it last ended (Unix ms).
    pub finished_at_ms: Option<i64>,
    /// The worker that claimed it last (queued runs only).
    pub worker: Option<String>,
    /// Whether it came from the queue.
    pub queued: bool,
    /// When a cancel was asked for, if it was and the run has not ended yet.
    pub cancel_requested_at_ms: Option<i64>,
}

/// What [`JournalStore::request_cancel`](super::JournalStore::request_cancel) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelAnswer {
    /// The run was queued: it is now `cancelled` and will never start.
    Dequeued,
    /// The run is running: its owner stops at its next step boundary.
    Requested,
}
