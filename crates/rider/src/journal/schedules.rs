//! Schedules, kept in the journal's database beside the runs they start: what to run and
//! when (the cron expression and time zone as written; the `browserflow-schedule` crate
//! reads them), and one firing row per (schedule, slot).
//!
//! The firing row is the exactly-once of a schedule: its key is (schedule, slot), and
//! [`ScheduleBook::claim_firing`] inserts it only if no worker did, in one transaction. The
//! run a firing starts has an id derived from the same key, so a worker that dies after
//! claiming leaves a run another worker finds and resumes through the journal's lease,
//! never a second run of the slot.

use super::JournalError;

/// A schedule as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleRecord {
    /// Its name, unique in the journal.
    pub name: String,
    /// The flow file it runs (absolute).
    pub flow: String,
    /// Folders of tool files the flow resolves refs from (absolute).
    pub tools: Vec<String>,
    /// The cron expression, as written.
    pub cron: String,
    /// The IANA time zone the expression is read in.
    pub time_zone: String,
    /// The flow's inputs, `name=value` as written (secret inputs as `secret.NAME`).
    pub inputs: Vec<String>,
    /// What a slot does while the schedule's previous run still runs: `skip` or `queue`.
    pub overlap: String,
    /// What slots missed while no worker ran become: `none` or `latest`.
    pub catch_up: String,
    /// A secret naming a webhook URL told of a firing that failed, if any.
    pub notify: Option<String>,
    /// Whether it is paused.
    pub paused: bool,
    /// Slots at or before this instant (ms since the epoch) are never fired: when it was
    /// added, or last resumed.
    pub active_since_ms: i64,
    /// When it was added.
    pub created_at_ms: i64,
}

/// What became of a firing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FiringState {
    /// A worker claimed it and is starting or running its run.
    Running,
    /// Its run succeeded.
    Succeeded,
    /// Its run failed (after its retries).
    Failed,
    /// Not run: the schedule's previous run was still running (`overlap skip`).
    Skipped,
}

impl FiringState {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            FiringState::Running => "running",
            FiringState::Succeeded => "succeeded",
            FiringState::Failed => "failed",
            FiringState::Skipped => "skipped",
        }
    }

    /// The state `word` names.
    pub fn parse(word: &str) -> Option<FiringState> {
        Some(match word {
            "running" => FiringState::Running,
            "succeeded" => FiringState::Succeeded,
            "failed" => FiringState::Failed,
            "skipped" => FiringState::Skipped,
            _ => return None,
        })
    }
}

/// One slot of a schedule, claimed by a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FiringRecord {
    /// The schedule.
    pub schedule: String,
    /// The slot, ms since the epoch (UTC).
    pub slot_ms: i64,
    /// The run it starts (derived from the schedule and slot).
    pub run_id: String,
    /// What became of it.
    pub state: FiringState,
    /// The worker that claimed it.
    pub worker: String,
    /// When it was claimed.
    pub claimed_at_ms: i64,
    /// When its state last changed.
    pub updated_at_ms: i64,
    /// Why it failed or was skipped, if it was.
    pub detail: Option<String>,
    /// Started by a person (`bflow schedule run-now`), not by the clock: not a slot of the
    /// expression, so it moves no schedule's last slot.
    pub manual: bool,
}

/// Schedules and their firings, in a journal's database. Each operation is one transaction.
pub trait ScheduleBook: Send + Sync + std::fmt::Debug {
    /// Adds `schedule`; refused ([`JournalError::ScheduleExists`]) when its name is taken.
    fn add_schedule(&self, schedule: &ScheduleRecord) -> Result<(), JournalError>;

    /// Every schedule, by name.
    fn schedules(&self) -> Result<Vec<ScheduleRecord>, JournalError>;

    /// The schedule `name` ([`JournalError::UnknownSchedule`] if none).
    fn schedule(&self, name: &str) -> Result<ScheduleRecord, JournalError>;

    /// Pauses (`paused`) or resumes the schedule `name`; a resume makes `now_ms` its
    /// `active_since_ms`, so slots passed while it was paused are not caught up.
    fn set_paused(&self, name: &str, paused: bool, now_ms: i64) -> Result<(), JournalError>;

    /// Removes the schedule `name` and its firings (the runs they started stay).
    fn remove_schedule(&self, name: &str) -> Result<(), JournalError>;

    /// Claims the slot `slot_ms` of `schedule` for `worker`, in `state` (running, or
    /// skipped): true if this call inserted the firing, false if a worker already had.
    fn claim_firing(&self, firing: &FiringRecord) -> Result<bool, JournalError>;

    /// Records what became of a firing.
    fn set_firing_state(
        &self,
        schedule: &str,
        slot_ms: i64,
        state: FiringState,
        detail: Option<&str>,
        now_ms: i64,
    ) -> Result<(), JournalError>;

    /// The latest slot of `schedule` that has a firing started by the clock (not by
    /// run-now), if any.
    fn last_slot(&self, schedule: &str) -> Result<Option<i64>, JournalError>;

    /// The firings of `schedule`, newest first, at most `limit`.
    fn firings(&self, schedule: &str, limit: usize) -> Result<Vec<FiringRecord>, JournalError>;

    /// Every firing still `running`, of every schedule (a worker checks whether their runs
    /// are alive, and resumes those whose worker died).
    fn running_firings(&self) -> Result<Vec<FiringRecord>, JournalError>;
}
