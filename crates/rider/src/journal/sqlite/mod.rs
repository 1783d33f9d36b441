//! The SQLite backend of the journal: a file in WAL mode.
//!
//! Durability: `synchronous=NORMAL` in WAL mode. A commit survives the process being killed
//! (the WAL is in the OS page cache); a power cut may lose the last commits, never corrupt
//! the file. [`JournalOptions::durable`] makes every commit wait for the disk.
//!
//! Identity: a journal carries `PRAGMA application_id` = [`APPLICATION_ID`] and its schema
//! version in `PRAGMA user_version`. A file that is some other application's database is
//! refused before anything is written to it, and [`SqliteJournal::open_read_only`] (every
//! read command) never writes a byte.
//!
//! Schema versions: 1 (runs, steps, attempts, effects); 2 adds `plan_steps` (each step's
//! identity, recorded when a run starts, so a resume checks the whole plan first) and
//! `leases` (who is executing a run; see [`lease`](super::lease)); 3 adds the lease epoch
//! (`runs.lease_epoch`, the last epoch granted, and `leases.epoch`, the holder's), which
//! fences every write; 4 adds `steps.warnings` (what a person should know of a step that
//! succeeded: a page drifting from its recording); 5 adds `schedules` and
//! `schedule_firings` (see [`ScheduleBook`](super::ScheduleBook)); 6 adds the run queue
//! (`run_queue`, and `runs.cancel_requested_at_ms`; see [`queue`](super::queue)). Opening an older journal for writing migrates it in one write
//! transaction that reads the version under the write lock (two processes opening it at once
//! migrate it once); its runs of version 1 have no plan rows and are resumed with the
//! step-by-step checks alone.
//!
//! Every operation of [`JournalStore`] is one transaction; the fenced ones start with
//! `BEGIN IMMEDIATE`, so the fence is read under the write lock and no takeover can commit
//! between the check and the write.

mod lease;
mod plan;
mod queue;
mod report;
mod schedules;
mod write;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::lease::{Fence, LeaseAnswer, LeaseHolder, LeaseOwner};
use super::queue::{CancelAnswer, Claim, RunEntry};
use super::store::{
    Attempt, AttemptOutcome, EffectStart, JournalStore, PendingStep, QueuedStart, RunEnd,
    RunRecord, RunStart,
};
use super::{JournalError, RunReport, RunSummary};
use crate::redact::Redactor;

/// How the journal commits.
#[derive(Debug, Clone, Copy, Default)]
pub struct JournalOptions {
    /// Wait for the disk on every commit (`synchronous=FULL`): survives a power cut, at the
    /// cost of an fsync per journaled step.
    pub durable: bool,
}

/// The schema version written to `PRAGMA user_version`.
pub const SCHEMA_VERSION: i64 = 6;

/// `PRAGMA application_id` of a journal (`bfjl`), so a journal is recognised as one.
pub const APPLICATION_ID: i32 = 0x6266_6a6c;

/// The tables every journal version has; a file with other tables and no journal identity
/// belongs to someone else.
const JOURNAL_TABLES: [&str; 4] = ["attempts", "effects", "runs", "steps"];

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    flow TEXT NOT NULL,
    flow_digest TEXT NOT NULL,
    status TEXT NOT NULL,
    inputs TEXT NOT NULL,
    env TEXT NOT NULL,
    clock_ms INTEGER NOT NULL,
    started_at_ms INTEGER NOT NULL,
    finished_at_ms INTEGER,
    output TEXT,
    error_code TEXT,
    error TEXT,
    sessions INTEGER NOT NULL DEFAULT 1,
    lease_epoch INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS steps (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    step_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    tool_ref TEXT NOT NULL,
    contract_digest TEXT NOT NULL,
    input_digest TEXT,
    effectful INTEGER NOT NULL,
    status TEXT NOT NULL,
    input TEXT,
    output TEXT,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    started_at_ms INTEGER,
    duration_us INTEGER,
    warnings TEXT,
    PRIMARY KEY (run_id, step_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS attempts (
    run_id TEXT NOT NULL,
    step_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    session INTEGER NOT NULL,
    started_at_ms INTEGER NOT NULL,
    duration_us INTEGER,
    outcome TEXT NOT NULL,
    error TEXT,
    PRIMARY KEY (run_id, step_id, attempt)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS effects (
    run_id TEXT NOT NULL,
    step_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    tool_ref TEXT NOT NULL,
    contract_digest TEXT NOT NULL,
    input_digest TEXT NOT NULL,
    output TEXT NOT NULL,
    recorded_at_ms INTEGER NOT NULL,
    PRIMARY KEY (run_id, step_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS runs_by_start ON runs(started_at_ms);
CREATE TABLE IF NOT EXISTS plan_steps (
    run_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    step_id TEXT NOT NULL,
    tool_ref TEXT NOT NULL,
    contract_digest TEXT NOT NULL,
    bindings TEXT NOT NULL,
    when_digest TEXT,
    when_text TEXT,
    PRIMARY KEY (run_id, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS leases (
    run_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    host_key TEXT NOT NULL,
    pid INTEGER NOT NULL,
    pid_start INTEGER,
    acquired_at_ms INTEGER NOT NULL,
    heartbeat_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    epoch INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS schedules (
    name TEXT PRIMARY KEY,
    flow TEXT NOT NULL,
    tools TEXT NOT NULL,
    cron TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    inputs TEXT NOT NULL,
    overlap TEXT NOT NULL,
    catch_up TEXT NOT NULL,
    notify TEXT,
    paused INTEGER NOT NULL DEFAULT 0,
    active_since_ms INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS schedule_firings (
    schedule TEXT NOT NULL,
    slot_ms INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    state TEXT NOT NULL,
    worker TEXT NOT NULL,
    claimed_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    detail TEXT,
    manual INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (schedule, slot_ms)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS run_queue (
    run_id TEXT PRIMARY KEY,
    flow_file TEXT NOT NULL,
    tools TEXT NOT NULL,
    enqueued_at_ms INTEGER NOT NULL,
    worker TEXT,
    claimed_at_ms INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status);
";

/// Columns added to tables of older versions (`ALTER TABLE … ADD COLUMN`, when missing):
/// the lease epoch of version 3, the step warnings of version 4, the cancel requests of 6.
const ADDED_COLUMNS: [(&str, &str, &str); 4] = [
    ("runs", "lease_epoch", "INTEGER NOT NULL DEFAULT 0"),
    ("leases", "epoch", "INTEGER NOT NULL DEFAULT 0"),
    ("steps", "warnings", "TEXT"),
    ("runs", "cancel_requested_at_ms", "INTEGER"),
];

/// Whether `table` has `column` (a journal opened read-only may be of an older version).
fn has_column(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<bool> {
    conn.prepare(&format!(
        "SELECT 1 FROM pragma_table_info('{table}') WHERE name = ?1"
    ))?
    .exists([column])
}

/// What a SQLite file holds, read without writing.
enum FileKind {
    /// No tables and no identity: a new file.
    Empty,
    /// A journal of this schema version.
    Journal(i64),
    /// Someone else's database, described.
    Foreign(String),
}

fn inspect(conn: &Connection) -> rusqlite::Result<FileKind> {
    let application_id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let has_journal_tables = JOURNAL_TABLES.iter().all(|t| tables.iter().any(|n| n == t));
    Ok(match application_id {
        APPLICATION_ID if has_journal_tables => FileKind::Journal(version),
        // Version 1 journals were written before the application id.
        0 if version >= 1 && has_journal_tables => FileKind::Journal(version),
        0 if version == 0 && tables.is_empty() => FileKind::Empty,
        0 => FileKind::Foreign(format!(
            "a SQLite database with the tables {}",
            tables.join(", ")
        )),
        other => FileKind::Foreign(format!("a SQLite database of application id {other:#010x}")),
    })
}

/// A journal in a SQLite file. Share it (`Arc<dyn JournalStore>`) between Riders and
/// readers; writes are serialised inside.
pub struct SqliteJournal {
    path: PathBuf,
    conn: Mutex<Connection>,
    redactor: Redactor,
}

impl std::fmt::Debug for SqliteJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteJournal")
            .field("path", &self.path)
            .finish()
    }
}

impl SqliteJournal {
    /// Opens (creating if needed) the journal at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteJournal, JournalError> {
        SqliteJournal::open_with(path, JournalOptions::default())
    }

    /// Opens the journal at `path` with `options`.
    pub fn open_with(
        path: impl AsRef<Path>,
        options: JournalOptions,
    ) -> Result<SqliteJournal, JournalError> {
        let path = path.as_ref().to_owned();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| JournalError::Directory {
                path: path.clone(),
                source,
            })?;
        }
        let sqlite = |context| {
            let path = path.clone();
            move |source| JournalError::Sqlite {
                path,
                context,
                source,
            }
        };
        let conn = Connection::open(&path).map_err(sqlite("cannot open"))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(sqlite("cannot set the busy timeout"))?;
        // Identify the file before changing anything in it (WAL switch included).
        let current = match check_kind(&conn, &path)? {
            FileKind::Journal(version) if version > SCHEMA_VERSION => {
                return Err(newer_schema(path, version));
            }
            FileKind::Foreign(found) => return Err(JournalError::NotAJournal { path, found }),
            FileKind::Journal(version) => version == SCHEMA_VERSION,
            FileKind::Empty => false,
        };
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite("cannot switch to WAL"))?;
        let synchronous = if options.durable { "FULL" } else { "NORMAL" };
        conn.pragma_update(None, "synchronous", synchronous)
            .map_err(sqlite("cannot set synchronous"))?;
        // Creation and migration in one write transaction: two processes opening the same
        // file at once cannot interleave (the second reads the version under the write
        // lock and finds it done), and a crash leaves the old version intact.
        if !current {
            migrate(&conn).map_err(sqlite("cannot create or migrate the tables"))?;
        }
        Ok(SqliteJournal {
            path,
            conn: Mutex::new(conn),
            redactor: Redactor::new(),
        })
    }

    /// Opens the journal at `path` for reading only (`SQLITE_OPEN_READ_ONLY`): never creates
    /// the file, never migrates it, never writes a byte to it, and refuses a file that is
    /// not a browserflow journal. Every read command uses this.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<SqliteJournal, JournalError> {
        let path = path.as_ref().to_owned();
        if !path.exists() {
            return Err(JournalError::Missing { path });
        }
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| JournalError::Sqlite {
            path: path.clone(),
            context: "cannot open read-only",
            source,
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(|source| JournalError::Sqlite {
                path: path.clone(),
                context: "cannot set the busy timeout",
                source,
            })?;
        match check_kind(&conn, &path)? {
            FileKind::Journal(version) if version > SCHEMA_VERSION => {
                Err(newer_schema(path, version))
            }
            FileKind::Journal(_) => Ok(SqliteJournal {
                path,
                conn: Mutex::new(conn),
                redactor: Redactor::new(),
            }),
            FileKind::Empty => Err(JournalError::NotAJournal {
                path,
                found: "an empty SQLite database".to_owned(),
            }),
            FileKind::Foreign(found) => Err(JournalError::NotAJournal { path, found }),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent (transactions roll back
        // on drop), so a poisoned lock is safe to reuse.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn sqlite_error(
        &self,
        context: &'static str,
    ) -> impl Fn(rusqlite::Error) -> JournalError + '_ {
        move |source| JournalError::Sqlite {
            path: self.path.clone(),
            context,
            source,
        }
    }

    /// Redacted JSON text of `value`, for a column.
    pub(crate) fn json_text(&self, value: &serde_json::Value) -> String {
        let text = self.redactor.redact_json(value).to_string();
        self.redactor.redact_string(&text)
    }

    /// Redacted text, for a column.
    pub(crate) fn text(&self, text: &str) -> String {
        self.redactor.redact_string(text)
    }

    pub(crate) fn unknown_run(&self, run_id: &str) -> JournalError {
        JournalError::UnknownRun {
            journal: self.describe(),
            run_id: run_id.to_owned(),
        }
    }

    pub(crate) fn corrupt(&self, message: String) -> JournalError {
        JournalError::Corrupt {
            journal: self.describe(),
            message,
        }
    }
}

impl JournalStore for SqliteJournal {
    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    fn schema_version(&self) -> Result<i64, JournalError> {
        self.lock()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(self.sqlite_error("cannot read the schema version"))
    }

    fn begin_run(&self, run: &RunStart<'_>) -> Result<Fence, JournalError> {
        self.write_run_start(run)
    }

    fn read_run(&self, run_id: &str) -> Result<RunRecord, JournalError> {
        self.read_run_record(run_id)
    }

    fn open_session(&self, run_id: &str, fence: &Fence) -> Result<i64, JournalError> {
        self.write_session(run_id, fence)
    }

    fn effect_started(
        &self,
        attempt: &Attempt<'_>,
        now_ms: i64,
        pending: &mut Vec<PendingStep>,
    ) -> Result<EffectStart, JournalError> {
        self.write_effect_start(attempt, now_ms, pending)
    }

    fn check_fence(&self, run_id: &str, fence: &Fence) -> Result<(), JournalError> {
        let conn = self.lock();
        self.fence(&conn, run_id, fence)
    }

    fn effect_finished(
        &self,
        attempt: &Attempt<'_>,
        outcome: AttemptOutcome<'_>,
        duration_us: i64,
        now_ms: i64,
    ) -> Result<Option<Value>, JournalError> {
        self.write_effect_outcome(attempt, outcome, duration_us, now_ms)
    }

    fn finish_run(
        &self,
        run_id: &str,
        fence: &Fence,
        end: &RunEnd<'_>,
        pending: &mut Vec<PendingStep>,
    ) -> Result<(), JournalError> {
        self.write_run_end(run_id, fence, end, pending)
    }

    fn take_lease(
        &self,
        run_id: &str,
        owner: &LeaseOwner,
        now_ms: i64,
    ) -> Result<LeaseAnswer, JournalError> {
        self.write_lease_take(run_id, owner, now_ms)
    }

    fn renew_lease(
        &self,
        run_id: &str,
        fence: &Fence,
        ttl: Duration,
        now_ms: i64,
    ) -> Result<bool, JournalError> {
        self.write_lease_renewal(run_id, fence, ttl, now_ms)
    }

    fn release_lease(&self, run_id: &str, fence: &Fence) -> Result<(), JournalError> {
        self.write_lease_release(run_id, fence)
    }

    fn lease_holder(&self, run_id: &str) -> Result<Option<LeaseHolder>, JournalError> {
        self.read_lease_holder(run_id)
    }

    fn show(&self, run_id: &str) -> Result<RunReport, JournalError> {
        self.read_report(run_id)
    }

    fn runs(&self, limit: usize) -> Result<Vec<RunSummary>, JournalError> {
        self.read_runs(limit)
    }

    fn enqueue_run(&self, run: &QueuedStart<'_>) -> Result<(), JournalError> {
        self.write_enqueue(run)
    }

    fn claim_queued(
        &self,
        owner: &LeaseOwner,
        worker: &str,
        now_ms: i64,
    ) -> Result<Option<Claim>, JournalError> {
        self.write_claim(owner, worker, now_ms)
    }

    fn requeue(&self, run_id: &str, fence: &Fence) -> Result<bool, JournalError> {
        self.write_requeue(run_id, fence)
    }

    fn request_cancel(&self, run_id: &str, now_ms: i64) -> Result<CancelAnswer, JournalError> {
        self.write_cancel(run_id, now_ms)
    }

    fn cancel_requested(&self, run_id: &str) -> Result<bool, JournalError> {
        self.read_cancel_requested(run_id)
    }

    fn run_entries(&self, limit: usize) -> Result<Vec<RunEntry>, JournalError> {
        self.read_run_entries(limit, None)
    }

    fn run_entry(&self, run_id: &str) -> Result<RunEntry, JournalError> {
        self.read_run_entries(1, Some(run_id))?
            .pop()
            .ok_or_else(|| self.unknown_run(run_id))
    }
}

/// Creates the tables, or brings an older version's up to this one, in one write
/// transaction. The version is read again under the write lock: of two processes opening
/// the same file at once, the second finds it done.
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let result = (|| {
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version >= SCHEMA_VERSION {
            return Ok(());
        }
        conn.execute_batch(SCHEMA)?;
        for (table, column, definition) in ADDED_COLUMNS {
            if !has_column(conn, table, column)? {
                conn.execute_batch(&format!(
                    "ALTER TABLE {table} ADD COLUMN {column} {definition}"
                ))?;
            }
        }
        conn.execute_batch(&format!(
            "PRAGMA user_version = {SCHEMA_VERSION}; PRAGMA application_id = {APPLICATION_ID};"
        ))
    })();
    match result {
        Ok(()) => conn.execute_batch("COMMIT"),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

fn check_kind(conn: &Connection, path: &Path) -> Result<FileKind, JournalError> {
    inspect(conn).map_err(|source| match source.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => JournalError::NotAJournal {
            path: path.to_owned(),
            found: "not a SQLite database".to_owned(),
        },
        _ => JournalError::Sqlite {
            path: path.to_owned(),
            context: "cannot read what the file holds",
            source,
        },
    })
}

fn newer_schema(path: PathBuf, version: i64) -> JournalError {
    JournalError::Corrupt {
        journal: path.display().to_string(),
        message: format!(
            "schema version {version} is newer than this program understands ({SCHEMA_VERSION}); upgrade browserflow"
        ),
    }
}
