//! The Journal: where a run's steps, attempts, effects, errors and timings are recorded, so
//! that a crashed run resumes without repeating an effect.
//!
//! The Rider talks to a journal only through the [`JournalStore`] trait: one operation per
//! transaction it needs (start a run with its plan and lease, start and finish an effect
//! attempt under the lease's fence, end a run and release its lease, take or renew a lease,
//! read a run back). A backend implements each operation atomically; the SQL, or whatever
//! the backend speaks, stays inside it. [`SqliteJournal`] is the backend of today (a SQLite
//! file in WAL mode); a second backend runs the same test suite (the rider's
//! `tests/it/journal_suite`) unchanged.
//!
//! Where a journal is, is a [`JournalLocation`]: it opens the store, and it says where the
//! runs' folders go, so nothing outside the store assumes that the journal is a file.
//!
//! Effectful steps (any capability) are recorded once, in the effects, keyed by (run, step):
//! a resumed run returns that outcome instead of running the step again. Pure steps are
//! re-run on resume; their rows only serve the report, and are written in batches with the
//! next commit ([`PendingStep`]) so that a pure step costs no write of its own.
//!
//! Every text written (inputs, outputs, errors) passes through the journal's [`Redactor`],
//! which the Rider shares: the one redactor that guards every writer.
//!
//! Who may write what is the business of [`lease`]: every write a session makes after it
//! started (and every effect it starts) is fenced by the lease it holds.

pub mod lease;
mod location;
mod new_run;
mod pg;
pub mod queue;
mod report;
mod schedules;
mod sqlite;
mod store;

use std::path::PathBuf;

pub use lease::{
    DEFAULT_LEASE_TTL, Fence, LeaseAnswer, LeaseGrant, LeaseHolder, LeaseOwner, Takeover,
};
pub use location::JournalLocation;
pub use pg::{PG_APPLICATION, PG_MIGRATIONS, PG_SCHEMA_VERSION, PgJournal, PgUrl};
pub use queue::{CancelAnswer, Claim, QueueOrigin, RunEntry};
pub use report::{ErrorReport, RunReport, RunSummary, StepReport};
pub use schedules::{FiringRecord, FiringState, ScheduleBook, ScheduleRecord};
pub use sqlite::{APPLICATION_ID, JournalOptions, SCHEMA_VERSION, SqliteJournal};
pub use store::{
    Attempt, AttemptOutcome, EffectStart, JournalStore, PendingStep, QueuedStart, RecordedStep,
    RunEnd, RunRecord, RunStart, StepStart,
};

/// Why the journal could not be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// SQLite failed.
    #[error("journal {path}: {context}: {source}")]
    Sqlite {
        /// The journal file.
        path: PathBuf,
        /// What was being done.
        context: &'static str,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// PostgreSQL failed (the database named without its password).
    #[error("journal {journal}: {context}: {}", pg_message(.source))]
    Postgres {
        /// The database ([`JournalStore::describe`]).
        journal: String,
        /// What was being done.
        context: &'static str,
        /// The client's error.
        source: ::postgres::Error,
    },
    /// A `postgres://` journal location that does not parse.
    #[error(
        "journal: not a PostgreSQL URL: {message} (expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)"
    )]
    BadDatabaseUrl {
        /// Why (never the URL itself: it may hold a password).
        message: String,
    },
    /// A database with no browserflow journal, opened for reading (a read never creates one).
    #[error("no journal in {journal}: no run has been recorded there")]
    NoJournalIn {
        /// The database ([`JournalStore::describe`]).
        journal: String,
    },
    /// A database whose `browserflow` schema belongs to something else. Nothing was written.
    #[error(
        "{journal} holds no browserflow journal ({found}); nothing was written to it. Pass --journal with another database"
    )]
    NotAJournalDatabase {
        /// The database ([`JournalStore::describe`]).
        journal: String,
        /// What it holds instead.
        found: String,
    },
    /// The journal file's directory could not be created.
    #[error("journal {path}: cannot create its directory: {source}")]
    Directory {
        /// The journal file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// No data directory is known for this user.
    #[error("no data directory for this user (set HOME or XDG_DATA_HOME, or pass --journal PATH)")]
    NoDataDir,
    /// No run with this id.
    #[error("journal {journal}: no run `{run_id}`")]
    UnknownRun {
        /// The journal ([`JournalStore::describe`]).
        journal: String,
        /// The run id asked for.
        run_id: String,
    },
    /// The file is not a browserflow journal (another application's database, or not
    /// SQLite at all). Nothing was written to it.
    #[error(
        "{path} is not a browserflow journal ({found}); nothing was written to it. Pass --journal with a journal file, or a new path"
    )]
    NotAJournal {
        /// The file.
        path: PathBuf,
        /// What the file holds instead.
        found: String,
    },
    /// A run with this id is already recorded: a run id names one run, started once.
    #[error("journal {journal}: run `{run_id}` is already recorded (resume it instead)")]
    RunExists {
        /// The journal ([`JournalStore::describe`]).
        journal: String,
        /// The run id.
        run_id: String,
    },
    /// A run that ended cannot be cancelled.
    #[error(
        "journal {journal}: run `{run_id}` has ended ({status}); only a queued or running run can be cancelled"
    )]
    RunFinished {
        /// The journal ([`JournalStore::describe`]).
        journal: String,
        /// The run.
        run_id: String,
        /// How it ended.
        status: String,
    },
    /// A schedule of this name exists already.
    #[error(
        "journal {journal}: a schedule named `{name}` exists already (remove it first, or choose another name)"
    )]
    ScheduleExists {
        /// The journal ([`JournalStore::describe`]).
        journal: String,
        /// The name.
        name: String,
    },
    /// No schedule of this name.
    #[error("journal {journal}: no schedule `{name}`")]
    UnknownSchedule {
        /// The journal ([`JournalStore::describe`]).
        journal: String,
        /// The name asked for.
        name: String,
    },
    /// No journal file at this path (a read never creates one).
    #[error("no journal at {path}: no run has been recorded there")]
    Missing {
        /// The path.
        path: PathBuf,
    },
    /// This session was deposed: it no longer holds the run's lease (another process took
    /// it over after this one stopped heartbeating for longer than the lease lasts, and may
    /// since have finished and released it). It writes nothing more and starts no effect.
    #[error(
        "journal {journal}: this process was deposed as the executor of run `{run_id}` (its lease, epoch {epoch}, {}); it stopped before its next write or effect",
        lease_now(.holder)
    )]
    LeaseLost {
        /// The journal ([`JournalStore::describe`]).
        journal: String,
        /// The run.
        run_id: String,
        /// The epoch this session held.
        epoch: i64,
        /// Who holds the lease now, if anyone.
        holder: Option<Box<LeaseHolder>>,
    },
    /// A row that does not read back.
    #[error("journal {journal}: {message}")]
    Corrupt {
        /// The journal ([`JournalStore::describe`]).
        journal: String,
        /// What is wrong.
        message: String,
    },
}

/// A PostgreSQL error in words: the server's message (the client's own `Display` says only
/// "db error" for those), or the client's.
fn pg_message(error: &::postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => error.to_string(),
    }
}

/// What became of a deposed session's lease, for [`JournalError::LeaseLost`].
fn lease_now(holder: &Option<Box<LeaseHolder>>) -> String {
    match holder {
        Some(holder) => format!("is now held by {holder}, epoch {}", holder.epoch),
        None => "was taken over and then released by another process".to_owned(),
    }
}
