//! Where a journal is: the one place that knows which backend a location names, how to
//! open it, and where the runs' folders go beside it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::sqlite::{JournalOptions, SqliteJournal};
use super::{JournalError, JournalStore, ScheduleBook};

/// A journal's location, as configuration gives it (`--journal`, a setup). Today every
/// location is a SQLite file; a database URL becomes another variant (issue #29), and
/// callers that open journals and find run folders through this type need no change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalLocation {
    /// A SQLite file.
    Sqlite(PathBuf),
}

impl JournalLocation {
    /// The user's journal: `<data dir>/browserflow/journal.sqlite` (on Linux
    /// `$XDG_DATA_HOME/browserflow/journal.sqlite`, else `~/.local/share/…`).
    pub fn user_default() -> Result<JournalLocation, JournalError> {
        dirs::data_dir()
            .map(|dir| JournalLocation::Sqlite(dir.join("browserflow").join("journal.sqlite")))
            .ok_or(JournalError::NoDataDir)
    }

    /// The location `text` names (a path, today).
    pub fn parse(text: &str) -> JournalLocation {
        JournalLocation::Sqlite(PathBuf::from(text))
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
        }
    }

    /// Opens the journal for reading only: never creates, migrates or writes to it, and
    /// refuses what is not a browserflow journal. Every read command uses this.
    pub fn open_read_only(&self) -> Result<Arc<dyn JournalStore>, JournalError> {
        match self {
            JournalLocation::Sqlite(path) => Ok(Arc::new(SqliteJournal::open_read_only(path)?)),
        }
    }

    /// Opens the journal's schedules for changing them or firing them (creating or migrating
    /// the journal if needed).
    pub fn open_schedules(&self) -> Result<Arc<dyn ScheduleBook>, JournalError> {
        match self {
            JournalLocation::Sqlite(path) => Ok(Arc::new(SqliteJournal::open(path)?)),
        }
    }

    /// Opens the journal's schedules for reading only, as
    /// [`JournalLocation::open_read_only`] does.
    pub fn open_schedules_read_only(&self) -> Result<Arc<dyn ScheduleBook>, JournalError> {
        match self {
            JournalLocation::Sqlite(path) => Ok(Arc::new(SqliteJournal::open_read_only(path)?)),
        }
    }

    /// The folder every run's folder goes in by default (screenshots, reports, how a flow
    /// run was started): `runs/` beside a journal file.
    pub fn runs_folder(&self) -> PathBuf {
        match self {
            JournalLocation::Sqlite(path) => path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .join("runs"),
        }
    }
}

impl std::str::FromStr for JournalLocation {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<JournalLocation, std::convert::Infallible> {
        Ok(JournalLocation::parse(text))
    }
}

impl std::fmt::Display for JournalLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JournalLocation::Sqlite(path) => write!(f, "{}", path.display()),
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
