//! Where a journal is: the one place that knows which backend a location names, how to
//! open it, and where the runs' folders go beside it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::pg::{PgJournal, PgUrl};
use super::sqlite::{JournalOptions, SqliteJournal};
use super::{JournalError, JournalStore, ScheduleBook};

/// A journal's location, as configuration gives it (`--journal`, `BROWSERFLOW_JOURNAL`, a
/// setup): a SQLite file (the default) or a PostgreSQL database (`postgres://…`). Callers
/// open journals and find run folders through this type alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalLocation {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database, shared by processes on many hosts.
    Postgres(PgUrl),
}

impl JournalLocation {
    /// The user's journal: `<data dir>/browserflow/journal.sqlite` (on Linux
    /// `$XDG_DATA_HOME/browserflow/journal.sqlite`, else `~/.local/share/…`).
    pub fn user_default() -> Result<JournalLocation, JournalError> {
        dirs::data_dir()
            .map(|dir| JournalLocation::Sqlite(dir.join("browserflow").join("journal.sqlite")))
            .ok_or(JournalError::NoDataDir)
    }

    /// The location `text` names: a database for a `postgres://` or `postgresql://` URL, a
    /// file path otherwise. Refused: a database URL that does not parse (the message never
    /// repeats the URL, which may hold a password).
    pub fn parse(text: &str) -> Result<JournalLocation, JournalError> {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(JournalLocation::Postgres(PgUrl::parse(text)?));
        }
        Ok(JournalLocation::Sqlite(PathBuf::from(text)))
    }

    /// The text that names this location to another process of this program (a child
    /// runner): a database URL with its password, so never for a message ([`Display`]
    /// leaves the password out).
    ///
    /// [`Display`]: std::fmt::Display
    pub fn to_secret_text(&self) -> String {
        match self {
            JournalLocation::Sqlite(path) => path.display().to_string(),
            JournalLocation::Postgres(url) => url.as_secret_text().to_owned(),
        }
    }

    /// Opens the journal for running (creating or migrating it if needed).
    pub fn open(&self) -> Result<Arc<dyn JournalStore>, JournalError> {
        self.open_with(JournalOptions::default())
    }

    /// [`JournalLocation::open`] with `options`.
    pub fn open_with(
        &self,
        options: JournalOptions,
    ) -> Result<Arc<dyn JournalStore>, JournalError> {
        match self {
            JournalLocation::Sqlite(path) => Ok(Arc::new(SqliteJournal::open_with(path, options)?)),
            // Every commit of a PostgreSQL server is durable as its own settings say.
            JournalLocation::Postgres(url) => Ok(Arc::new(PgJournal::open(url)?)),
        }
    }

    /// Opens the journal for reading only: never creates, migrates or writes to it, and
    /// refuses what is not a browserflow journal. Every read command uses this.
    pub fn open_read_only(&self) -> Result<Arc<dyn JournalStore>, JournalError> {
        match self {
            JournalLocation::Sqlite(path) => Ok(Arc::new(SqliteJournal::open_read_only(path)?)),
            JournalLocation::Postgres(url) => Ok(Arc::new(PgJournal::open_read_only(url)?)),
        }
    }

    /// Opens the journal's schedules for changing them or firing them (creating or migrating
    /// the journal if needed).
    pub fn open_schedules(&self) -> Result<Arc<dyn ScheduleBook>, JournalError> {
        match self {
            JournalLocation::Sqlite(path) => Ok(Arc::new(SqliteJournal::open(path)?)),
            JournalLocation::Postgres(url) => Ok(Arc::new(PgJournal::open(url)?)),
        }
    }

    /// Opens the journal's schedules for reading only, as
    /// [`JournalLocation::open_read_only`] does.
    pub fn open_schedules_read_only(&self) -> Result<Arc<dyn ScheduleBook>, JournalError> {
        match self {
            JournalLocation::Sqlite(path) => Ok(Arc::new(SqliteJournal::open_read_only(path)?)),
            JournalLocation::Postgres(url) => Ok(Arc::new(PgJournal::open_read_only(url)?)),
        }
    }

    /// The folder every run's folder goes in by default (screenshots, reports, how a flow
    /// run was started): `runs/` beside a journal file; for a database, this machine's
    /// `<data dir>/browserflow/runs` (`./runs` without a data folder): a run's folder stays
    /// on the host that ran it.
    pub fn runs_folder(&self) -> PathBuf {
        match self {
            JournalLocation::Postgres(_) => dirs::data_dir()
                .map(|dir| dir.join("browserflow").join("runs"))
                .unwrap_or_else(|| PathBuf::from("runs")),
            JournalLocation::Sqlite(path) => path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .join("runs"),
        }
    }
}

impl std::str::FromStr for JournalLocation {
    type Err = JournalError;

    fn from_str(text: &str) -> Result<JournalLocation, JournalError> {
        JournalLocation::parse(text)
    }
}

impl std::fmt::Display for JournalLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JournalLocation::Sqlite(path) => write!(f, "{}", path.display()),
            JournalLocation::Postgres(url) => f.write_str(&url.describe()),
        }
    }
}

impl From<PathBuf> for JournalLocation {
    fn from(path: PathBuf) -> JournalLocation {
        JournalLocation::Sqlite(path)
    }
}

impl From<&Path> for JournalLocation {
    fn from(path: &Path) -> JournalLocation {
        JournalLocation::Sqlite(path.to_owned())
    }
}
