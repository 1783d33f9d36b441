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

mod report;
mod write;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rusqlite::Connection;

pub use report::{ErrorReport, RunReport, RunSummary, StepReport};
pub(crate) use write::{PendingStep, RecordedStep, RunStart, StepStart};

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
const SCHEMA_VERSION: i64 = 1;

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
";

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
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite("cannot switch to WAL"))?;
        let synchronous = if options.durable { "FULL" } else { "NORMAL" };
        conn.pragma_update(None, "synchronous", synchronous)
            .map_err(sqlite("cannot set synchronous"))?;
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .map_err(sqlite("cannot read the schema version"))?;
        if version > SCHEMA_VERSION {
            return Err(JournalError::Corrupt {
                path,
                message: format!(
                    "schema version {version} is newer than this program understands ({SCHEMA_VERSION}); upgrade browserflow"
                ),
            });
        }
        conn.execute_batch(SCHEMA)
            .map_err(sqlite("cannot create the tables"))?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(sqlite("cannot write the schema version"))?;
        Ok(Journal {
            path,
            conn: Mutex::new(conn),
            redactor: Redactor::new(),
        })
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
