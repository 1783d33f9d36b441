//! The journal as an interface: the operations the Rider needs, each one transaction.
//!
//! Blocking, like the SQLite backend of today: the Rider calls them from its async steps
//! (each is one short transaction) and from the lease heartbeat's own thread. A backend
//! whose client is async (PostgreSQL, issue #29) drives it on a runtime or thread of its
//! own behind these calls; none of them may block on the caller's async runtime.
//!
//! Each write after a run started takes the session's [`Fence`] and is made only if the
//! journal, inside the same transaction, says the fence still holds the run's lease
//! ([`JournalError::LeaseLost`] otherwise, with nothing written). See [`super::lease`] for
//! why that is sound.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;

use super::JournalError;
use super::lease::{Fence, LeaseAnswer, LeaseHolder, LeaseOwner};
use super::queue::{CancelAnswer, Claim, QueueOrigin, RunEntry};
use super::report::{RunReport, RunSummary};
use crate::plan_identity::StepIdentity;
use crate::redact::Redactor;

/// A journal backend. Share it (`Arc<dyn JournalStore>`) between Riders and readers.
pub trait JournalStore: Send + Sync + std::fmt::Debug {
    /// What this journal is, for messages (a file's path; a database without its
    /// password).
    fn describe(&self) -> String;

    /// The redactor every write passes through; a Rider using this journal shares it.
    fn redactor(&self) -> &Redactor;

    /// The schema version of the journal.
    fn schema_version(&self) -> Result<i64, JournalError>;

    /// Records a new run, its plan's identity and its owner's lease (epoch 1), at once.
    /// Returns the fence the run's first session acts under.
    fn begin_run(&self, run: &RunStart<'_>) -> Result<Fence, JournalError>;

    /// Everything recorded for a run, read without changing it.
    fn read_run(&self, run_id: &str) -> Result<RunRecord, JournalError>;

    /// Opens a new session of a run whose lease `fence` holds; returns its number (2 for the
    /// first resume…).
    fn open_session(&self, run_id: &str, fence: &Fence) -> Result<i64, JournalError>;

    /// Before an effect, under the fence: if the step's effect is already recorded, its
    /// outcome ([`EffectStart::Recorded`]) and nothing else is written; otherwise the
    /// intent to attempt it (the step's row and the attempt's), with `pending` rows, at
    /// once.
    fn effect_started(
        &self,
        attempt: &Attempt<'_>,
        now_ms: i64,
        pending: &mut Vec<PendingStep>,
    ) -> Result<EffectStart, JournalError>;

    /// Under the fence: whether `fence` still holds the run's lease, read and written
    /// nothing else. The last check before a tool's effect starts.
    fn check_fence(&self, run_id: &str, fence: &Fence) -> Result<(), JournalError>;

    /// Under the fence: the outcome of an attempt. A success is recorded once: if the
    /// step's effect was recorded first, that outcome wins and is returned; a returned
    /// value is what a resume would read back (redacted), `None` when it is the output
    /// given, unchanged.
    fn effect_finished(
        &self,
        attempt: &Attempt<'_>,
        outcome: AttemptOutcome<'_>,
        duration_us: i64,
        now_ms: i64,
    ) -> Result<Option<Value>, JournalError>;

    /// Under the fence: ends a session of a run (its status, output or error, every
    /// pending row) and releases the lease, at once.
    fn finish_run(
        &self,
        run_id: &str,
        fence: &Fence,
        end: &RunEnd<'_>,
        pending: &mut Vec<PendingStep>,
    ) -> Result<(), JournalError>;

    /// Takes the lease of a run for `owner` at `now_ms`, atomically: free, already this
    /// owner's, or its owner gone ⇒ granted (a new epoch unless this owner held it);
    /// otherwise held.
    fn take_lease(
        &self,
        run_id: &str,
        owner: &LeaseOwner,
        now_ms: i64,
    ) -> Result<LeaseAnswer, JournalError>;

    /// Renews the lease `fence` holds for `ttl` from `now_ms`: `false` when it no longer
    /// holds it (never brings back a lease someone else took, or that was released).
    fn renew_lease(
        &self,
        run_id: &str,
        fence: &Fence,
        ttl: Duration,
        now_ms: i64,
    ) -> Result<bool, JournalError>;

    /// Releases the lease `fence` holds (nothing if it no longer holds it).
    fn release_lease(&self, run_id: &str, fence: &Fence) -> Result<(), JournalError>;

    /// Who holds the lease of a run, if anyone.
    fn lease_holder(&self, run_id: &str) -> Result<Option<LeaseHolder>, JournalError>;

    /// The report of a run: steps, status, timings, outputs (redacted).
    fn show(&self, run_id: &str) -> Result<RunReport, JournalError>;

    /// The most recent runs, newest first.
    fn runs(&self, limit: usize) -> Result<Vec<RunSummary>, JournalError>;

    /// Records a queued run (status `queued`, no lease): its plan's identity and inputs are
    /// fixed now, and a worker claims it later ([`super::queue`]).
    fn enqueue_run(&self, run: &QueuedStart<'_>) -> Result<(), JournalError>;

    /// In one transaction: picks the oldest queued run (or a queued run started by a worker
    /// whose lease owner is gone), takes its lease for `owner` (a new epoch) and marks it
    /// running, claimed by `worker`. `None` when there is nothing to claim. A run is
    /// claimed by one worker at a time.
    fn claim_queued(
        &self,
        owner: &LeaseOwner,
        worker: &str,
        now_ms: i64,
    ) -> Result<Option<Claim>, JournalError>;

    /// Puts a queued run that `fence` was granted back in the queue (its worker stops
    /// before it ended), releasing the lease: only while no one took the run since and no
    /// cancel was asked. Whether it was put back.
    fn requeue(&self, run_id: &str, fence: &Fence) -> Result<bool, JournalError>;

    /// Cancels a run: a queued one ends `cancelled` now; a running one is asked to stop
    /// (its owner reads [`JournalStore::cancel_requested`] at its next step). A run that
    /// ended is refused ([`JournalError::RunFinished`]).
    fn request_cancel(&self, run_id: &str, now_ms: i64) -> Result<CancelAnswer, JournalError>;

    /// Whether a cancel was asked for run `run_id`.
    fn cancel_requested(&self, run_id: &str) -> Result<bool, JournalError>;

    /// The most recent runs, queued ones included, newest first, with their workers.
    fn run_entries(&self, limit: usize) -> Result<Vec<RunEntry>, JournalError>;

    /// Run `run_id` as [`JournalStore::run_entries`] lists it.
    fn run_entry(&self, run_id: &str) -> Result<RunEntry, JournalError>;
}

/// A run to queue.
#[derive(Debug)]
pub struct QueuedStart<'a> {
    /// The new run's id.
    pub run_id: &'a str,
    /// The flow, `name@version`.
    pub flow: &'a str,
    /// The flow's digest.
    pub flow_digest: &'a str,
    /// Tagged inputs, as [`RunStart::inputs`].
    pub inputs: &'a Value,
    /// The variables the run is given.
    pub env: &'a Value,
    /// The run's logical time (Unix ms).
    pub clock_ms: i64,
    /// When it is queued (Unix ms).
    pub enqueued_at_ms: i64,
    /// Every step's identity, fixed now: a claim of a changed flow is a divergence.
    pub plan: &'a [StepIdentity],
    /// Where its flow is.
    pub origin: &'a QueueOrigin,
}

/// The start of a new run.
#[derive(Debug)]
pub struct RunStart<'a> {
    /// The new run's id.
    pub run_id: &'a str,
    /// The flow, `name@version`.
    pub flow: &'a str,
    /// The flow's digest.
    pub flow_digest: &'a str,
    /// Tagged inputs: `{"name": {"value": …}}` or `{"name": {"secret_template": "…"}}`.
    pub inputs: &'a Value,
    /// The variables the run is given.
    pub env: &'a Value,
    /// The run's logical time (Unix ms).
    pub clock_ms: i64,
    /// When it starts (Unix ms).
    pub started_at_ms: i64,
    /// Every step's identity, recorded so a resume can check the whole plan first.
    pub plan: &'a [StepIdentity],
    /// The session that executes it: its lease is taken with the run.
    pub owner: &'a LeaseOwner,
}

/// A run as recorded, for resuming it.
#[derive(Debug)]
pub struct RunRecord {
    /// The flow, `name@version`.
    pub flow: String,
    /// The tagged inputs, as [`RunStart::inputs`].
    pub inputs: Value,
    /// The variables the run was given.
    pub env: Value,
    /// The run's logical time (Unix ms).
    pub clock_ms: i64,
    /// The plan's identity as recorded (empty for runs of schema version 1).
    pub plan: Vec<StepIdentity>,
    /// Every step the journal holds a row for, by step id.
    pub steps: HashMap<String, RecordedStep>,
}

/// A step as recorded.
#[derive(Debug, Clone)]
pub struct RecordedStep {
    /// Its position in the plan.
    pub position: i64,
    /// Its tool, `name@version` (the effect's, when an effect is recorded).
    pub tool_ref: String,
    /// Its tool's contract digest.
    pub contract_digest: String,
    /// The digest of its input.
    pub input_digest: Option<String>,
    /// Attempts made, over every session.
    pub attempts: i64,
    /// The recorded outcome of an effectful step.
    pub effect: Option<Value>,
}

/// An effectful step about to be attempted.
#[derive(Debug)]
pub struct StepStart<'a> {
    /// The step id.
    pub step_id: &'a str,
    /// Its position in the plan.
    pub position: i64,
    /// Its tool, `name@version`.
    pub tool_ref: &'a str,
    /// Its tool's contract digest.
    pub contract_digest: &'a str,
    /// The digest of its input.
    pub input_digest: &'a str,
    /// Its input (redacted when written).
    pub input: &'a Value,
    /// The idempotency key its effect is made under.
    pub idempotency_key: &'a str,
}

/// One attempt of an effectful step, by the session holding `fence`.
#[derive(Debug)]
pub struct Attempt<'a> {
    /// The run.
    pub run_id: &'a str,
    /// The lease the session acts under.
    pub fence: &'a Fence,
    /// The step.
    pub step: &'a StepStart<'a>,
    /// The attempt's number, counted over every session of the run.
    pub number: i64,
    /// The session making it.
    pub session: i64,
}

/// What [`JournalStore::effect_started`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum EffectStart {
    /// The intent is recorded: the effect may be attempted.
    Started,
    /// The step's effect was already recorded: this is its outcome, and nothing was
    /// written. (Under a sound fence only the session that recorded it, or a later one
    /// that read it, can be here; it is checked anyway, so a step is never attempted
    /// again once its effect is recorded.)
    Recorded(Value),
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy)]
pub enum AttemptOutcome<'a> {
    /// The tool's output, checked against its contract, and its warnings (redacted when
    /// written). The warnings of an attempt whose outcome loses to one recorded first are
    /// not written: the step shows the outcome that counted.
    Succeeded {
        /// The output.
        output: &'a Value,
        /// What a person should know although it succeeded, one sentence each.
        warnings: &'a [String],
    },
    /// The attempt failed: the step's status (`failed`, `retrying`, `cancelled`) and why.
    Failed {
        /// The step's status after it.
        status: &'a str,
        /// The error (redacted when written).
        message: &'a str,
    },
}

/// How a session of a run ended.
#[derive(Debug, Clone, Copy)]
pub struct RunEnd<'a> {
    /// `succeeded`, `failed` or `cancelled`.
    pub status: &'a str,
    /// The flow's output, when it succeeded.
    pub output: Option<&'a Value>,
    /// The error's stable code and message, when it did not.
    pub error: Option<(&'a str, &'a str)>,
    /// When it ended (Unix ms).
    pub finished_at_ms: i64,
}

/// A row for a step that has no effect to record (pure, skipped, failed before running),
/// written with the next commit.
#[derive(Debug, Clone)]
pub struct PendingStep {
    /// The step id.
    pub step_id: String,
    /// Its position in the plan.
    pub position: i64,
    /// Its tool, `name@version`.
    pub tool_ref: String,
    /// Its tool's contract digest.
    pub contract_digest: String,
    /// The digest of its input.
    pub input_digest: Option<String>,
    /// Whether it holds capabilities.
    pub effectful: bool,
    /// `succeeded`, `failed`, `skipped`, `cancelled`.
    pub status: &'static str,
    /// Its input.
    pub input: Option<Value>,
    /// Its output.
    pub output: Option<Value>,
    /// Its error.
    pub error: Option<String>,
    /// Its warnings, one sentence each.
    pub warnings: Vec<String>,
    /// Attempts made.
    pub attempts: i64,
    /// When it started (Unix ms).
    pub started_at_ms: i64,
    /// How long it took.
    pub duration_us: i64,
}
