//! The Journal: a SQLite file (WAL) recording runs, steps, attempts, effects, errors and
//! timings.
//!
//! Effectful steps (any capability) are recorded once, in `effects`, keyed by (run, step): a
//! resumed run returns that outcome instead of running the step again. Pure steps are re-run
//! on resume; their rows in `steps` only serve the report, and are written in batches with the
//! next commit so that a pure step costs no disk write of its own.
//!
//! Every text written (inputs, outputs, errors) passes through the journal's [`Redactor`],
//! which the Rider shares: the one redactor that guards every writer.
//!
//! Durability: `synchronous=NORMAL` in WAL mode. A commit survives the process being killed
//! (the WAL is in the OS page cache); a power cut may lose the last commits, never corrupt
//! the file. [`JournalOptions::durable`] makes every commit wait for the disk.
//!
//! Identity: a journal carries `PRAGMA application_id` = [`APPLICATION_ID`] and its schema
//! version in `PRAGMA user_version`. A file that is some other application's database is
//! refused before anything is written to it, and [`Journal::open_read_only`] (every read
//! command) never writes a byte.
//!
//! Schema versions: 1 (runs, steps, attempts, effects); 2 adds `plan_steps` (each step's
//! identity, recorded when a run starts, so a resume checks the whole plan first) and
//! `leases` (who is executing a run; see [`lease`]). Opening a version-1 journal for writing
//! migrates it in one transaction; its runs have no plan rows and are resumed with the
//! step-by-step checks alone.

pub mod lease;
mod plan;
mod report;
mod write;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OpenFlags};

pub use lease::{DEFAULT_LEASE_TTL, LeaseAnswer, LeaseGrant, LeaseHolder, LeaseOwner, Takeover};
pub use report::{ErrorReport, RunReport, RunSummary, StepReport};
pub(crate) use write::{PendingStep, RecordedStep, RunRecord, RunStart, StepStart};

use crate::redact::Redactor;

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
    #[error("journal {path}: no run `{run_id}`")]
    UnknownRun {
        /// The journal file.
        path: PathBuf,
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
    /// No journal file at this path (a read never creates one).
    #[error("no journal at {path}: no run has been recorded there")]
    Missing {
        /// The path.
        path: PathBuf,
    },
    /// This session no longer holds the run's lease: another process took it over (this
    /// one stopped heartbeating for longer than the lease lasts). Nothing more is written.
    #[error(
        "journal {path}: run `{run_id}` is now executed by {holder}; this process stopped before its next effect"
    )]
    LeaseLost {
        /// The journal file.
        path: PathBuf,
        /// The run.
        run_id: String,
        /// Who holds the lease now.
        holder: Box<LeaseHolder>,
    },
    /// A row that does not read back.
    #[error("journal {path}: {message}")]
    Corrupt {
        /// The journal file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// How the journal commits.
#[derive(Debug, Clone, Copy, Default)]
pub struct JournalOptions {
    /// Wait for the disk on every commit (`synchronous=FULL`): survives a power cut, at the
    /// cost of an fsync per journaled step.
    pub durable: bool,
}

/// The schema version written to `PRAGMA user_version`.
pub const SCHEMA_VERSION: i64 = 2;

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
    sessions INTEGER NOT NULL DEFAULT 1
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
    expires_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
";

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

/// A journal file. Share it (`Arc<Journal>`) between Riders and readers; writes are
/// serialised inside.
pub struct Journal {
    path: PathBuf,
    conn: Mutex<Connection>,
    redactor: Redactor,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal").field("path", &self.path).finish()
    }
}

impl Journal {
    /// Opens (creating if needed) the journal at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Journal, JournalError> {
        Journal::open_with(path, JournalOptions::default())
    }

    /// Opens the journal at `path` with `options`.
    pub fn open_with(
        path: impl AsRef<Path>,
        options: JournalOptions,
    ) -> Result<Journal, JournalError> {
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
        // new file at once cannot interleave, and a crash leaves the old version intact.
        // (`IF NOT EXISTS` everywhere: a second process doing the same finds it done.)
        if !current {
            conn.execute_batch(&format!(
                "BEGIN IMMEDIATE; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION};
                 PRAGMA application_id = {APPLICATION_ID}; COMMIT;"
            ))
            .map_err(sqlite("cannot create or migrate the tables"))?;
        }
        Ok(Journal {
            path,
            conn: Mutex::new(conn),
            redactor: Redactor::new(),
        })
    }

    /// Opens the journal at `path` for reading only (`SQLITE_OPEN_READ_ONLY`): never creates
    /// the file, never migrates it, never writes a byte to it, and refuses a file that is
    /// not a browserflow journal. Every read command uses this.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Journal, JournalError> {
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
            FileKind::Journal(_) => Ok(Journal {
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

    /// Opens the default journal read-only; see [`Journal::open_read_only`].
    pub fn open_default_read_only() -> Result<Journal, JournalError> {
        Journal::open_read_only(Journal::default_path()?)
    }

    /// The default journal: `<data dir>/browserflow/journal.sqlite` (on Linux
    /// `$XDG_DATA_HOME/browserflow/journal.sqlite`, else `~/.local/share/…`).
    pub fn default_path() -> Result<PathBuf, JournalError> {
        dirs::data_dir()
            .map(|dir| dir.join("browserflow").join("journal.sqlite"))
            .ok_or(JournalError::NoDataDir)
    }

    /// Opens the default journal.
    pub fn open_default() -> Result<Journal, JournalError> {
        Journal::open(Journal::default_path()?)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The redactor every write passes through; a Rider using this journal shares it.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The schema version of this file (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64, JournalError> {
        self.lock()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(self.sqlite_error("cannot read the schema version"))
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
        path,
        message: format!(
            "schema version {version} is newer than this program understands ({SCHEMA_VERSION}); upgrade browserflow"
        ),
    }
}
