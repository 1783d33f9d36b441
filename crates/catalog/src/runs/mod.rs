//! Starting runs: the one way the shells get a ready Rider.
//!
//! [`RunSetup`] says where the journal is, where run folders go, the secrets file, the
//! browser and the Rider's settings; [`RunSetup::rider`] builds the Rider from it — the only
//! place a Rider is made for `bflow run`, `bflow flow run`/`resume`, the app's preview and
//! the demo. Secrets come from one chain for all of them: `BROWSERFLOW_SECRET_<NAME>`
//! variables, then the secrets file when one is given ([`ChainSecrets::standard`]). The
//! browser given is both the Rider's `browser` capability and the browser every browser tool
//! drives. Run inputs are typed ([`RunInput`]): a literal JSON value or a secret reference;
//! only the command line parses `name=value`.
//!
//! - [`run_tool`]: one tool as a one-step flow (`bflow run`, the preview, the demo);
//! - [`batch`]: one tool over many rows of inputs (`bflow run --inputs rows.csv`), on one
//!   browser;
//! - [`invocation`]: how a flow run was started, kept in its run folder for `resume`.

pub mod batch;
mod inputs;
pub(crate) mod invocation;
pub mod run_tool;
pub(crate) mod tools;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;

use browserflow_flow::{Bound, Plan};
use browserflow_replay::SharedBrowser;
#[cfg(feature = "test-hooks")]
use browserflow_rider::CrashPoint;
use browserflow_rider::{
    ChainSecrets, CrashHook, JournalLocation, JournalStore, Redactor, Rider, RiderOptions,
    SecretsCap, SecretsError, SecretsProvider, ToolRegistry,
};

use crate::Catalog;
pub use inputs::{InputError, RunInput, RunInputs, bind_inputs};

/// Where a run's journal is.
#[derive(Debug, Clone, Default)]
pub enum JournalAt {
    /// The user's journal in their data folder ([`JournalLocation::user_default`]).
    UserDefault,
    /// This journal (`--journal`).
    At(JournalLocation),
    /// A throw-away journal in a temporary folder, gone with the [`ReadyRider`] (one-tool
    /// runs, which nothing resumes; the default, so that no setup writes to the user's
    /// journal unless it says so).
    #[default]
    Temporary,
}

/// Where the runs' folders (a tool call's screenshots and `report.json`) go.
#[derive(Debug, Clone, Default)]
pub enum RunsFolder {
    /// No run folders.
    #[default]
    None,
    /// The journal's own runs folder ([`JournalAt::runs_folder`]: for a journal file,
    /// `runs/` beside it); flows keep their invocation there too.
    OfJournal,
    /// This folder (created if missing; checked before the browser starts).
    At(PathBuf),
}

/// How to set up a run: everything [`RunSetup::rider`] needs.
#[derive(Clone)]
pub struct RunSetup {
    /// The journal.
    pub journal: JournalAt,
    /// Where run folders go.
    pub runs_folder: RunsFolder,
    /// A secrets file (mode 0600) read after the environment.
    pub secrets_file: Option<PathBuf>,
    /// The browser: the Rider's `browser` capability and the one every browser tool drives
    /// (launched on first use; share one across runs).
    pub browser: Arc<SharedBrowser>,
    /// The Rider's other settings (progress events, crash hook, step budget, backoff …);
    /// `browser` and `runs_folder` are filled in from this setup.
    pub rider: RiderOptions,
    /// A redactor that learns every secret the run resolves (the process's log writer's,
    /// made before this run's Rider existed).
    pub log_redactor: Option<Redactor>,
}

impl Default for RunSetup {
    fn default() -> Self {
        RunSetup {
            journal: JournalAt::default(),
            runs_folder: RunsFolder::default(),
            secrets_file: None,
            browser: Arc::new(SharedBrowser::new(browserflow_cdp::BrowserConfig::default())),
            rider: RiderOptions::default(),
            log_redactor: None,
        }
    }
}

/// A Rider built by [`RunSetup::rider`], with the temporary journal folder it may use.
pub struct ReadyRider {
    rider: Rider,
    _temporary: Option<tempfile::TempDir>,
}

impl Deref for ReadyRider {
    type Target = Rider;
    fn deref(&self) -> &Rider {
        &self.rider
    }
}

/// The variable that makes a run stop dead at a crash point, for crash tests of the shells:
/// `point:step` (`before-effect`, `after-effect` or `after-commit`, and a step id).
pub const CRASH_AT_ENV: &str = "BROWSERFLOW_TEST_CRASH_AT";

/// The crash hook [`CRASH_AT_ENV`] asks for, if set: at that point of that step it prints
/// `CRASH_POINT <point> <step>` on stderr and blocks for good, so the test that set it can
/// SIGKILL the process exactly there. An unparsable value is ignored with a warning.
///
/// Only with the `test-hooks` feature (which the CLI's tests turn on); without it this is
/// always `None`, so a shipped `bflow` can never be told to hang by a stray variable.
#[cfg(feature = "test-hooks")]
pub fn crash_hook_from_env() -> Option<CrashHook> {
    let value = std::env::var(CRASH_AT_ENV).ok()?;
    let parsed = value
        .split_once(':')
        .and_then(|(point, step)| Some((CrashPoint::parse(point)?, step.to_owned())));
    let Some((point, step)) = parsed else {
        tracing::warn!("{CRASH_AT_ENV}={value:?} is not `point:step`; ignored");
        return None;
    };
    Some(Arc::new(move |at: CrashPoint, at_step: &str| {
        if at == point && at_step == step {
            eprintln!("CRASH_POINT {} {at_step}", at.as_str());
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
    }))
}

/// Without the `test-hooks` feature there is no crash hook: [`CRASH_AT_ENV`] is ignored.
#[cfg(not(feature = "test-hooks"))]
pub fn crash_hook_from_env() -> Option<CrashHook> {
    None
}

/// The variable that shortens a run's lease, for the lease tests of the shells: its time to
/// live in milliseconds (the default is 30 s), so a test that stops a `bflow` with SIGSTOP
/// sees its lease expire and taken over in about a second.
pub const LEASE_TTL_ENV: &str = "BROWSERFLOW_TEST_LEASE_TTL_MS";

/// The lease time to live [`LEASE_TTL_ENV`] asks for, if set (at least 100 ms). Only with
/// the `test-hooks` feature; without it this is always `None`.
#[cfg(feature = "test-hooks")]
pub fn lease_ttl_from_env() -> Option<std::time::Duration> {
    let value = std::env::var(LEASE_TTL_ENV).ok()?;
    match value.parse::<u64>() {
        Ok(ms) => Some(std::time::Duration::from_millis(ms.max(100))),
        Err(_) => {
            tracing::warn!("{LEASE_TTL_ENV}={value:?} is not a number of milliseconds; ignored");
            None
        }
    }
}

/// Without the `test-hooks` feature the lease lasts as configured: [`LEASE_TTL_ENV`] is
/// ignored.
#[cfg(not(feature = "test-hooks"))]
pub fn lease_ttl_from_env() -> Option<std::time::Duration> {
    None
}

/// Why a Rider could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A tool file did not load.
    #[error("{0}")]
    Tools(browserflow_flow::Diagnostics),
    /// The journal could not be opened.
    #[error("journal: {0}")]
    Journal(#[from] browserflow_rider::JournalError),
    /// The secrets file could not be read.
    #[error("secrets: {0}")]
    Secrets(#[from] browserflow_rider::SecretsError),
    /// The Rider refused its options.
    #[error(transparent)]
    Rider(#[from] browserflow_rider::RiderError),
    /// The temporary journal folder could not be made.
    #[error("cannot make a temporary journal: {0}")]
    Temporary(std::io::Error),
    /// A temporary journal's location (or runs folder) was asked for before the journal
    /// was made.
    #[error("a temporary journal has no location until it is made")]
    TemporaryJournal,
    /// Secrets the run references are not set (or their names are not secret names).
    #[error("{}", missing_text(.0))]
    MissingSecrets(Vec<SecretsError>),
}

fn missing_text(missing: &[SecretsError]) -> String {
    let each: Vec<String> = missing.iter().map(ToString::to_string).collect();
    format!("{}; nothing ran", each.join("; "))
}

/// Every secret `plan` binds and every secret reference among `inputs`, checked present in
/// `provider` before the first step runs: a secret missing at its step would be noticed only
/// after earlier steps' effects. Values are looked up, never kept or shown.
pub fn check_secrets(
    provider: Arc<dyn SecretsProvider>,
    plan: &Plan,
    inputs: &BTreeMap<String, Bound>,
) -> Result<(), Vec<SecretsError>> {
    let mut names: BTreeSet<String> = plan.secret_names();
    for bound in inputs.values() {
        if let Bound::Secret(template) = bound {
            names.extend(template.secret_names().into_iter().map(str::to_owned));
        }
    }
    // A throwaway redactor: the values found are dropped at once, never written anywhere.
    let secrets = SecretsCap::new(provider, Redactor::new(), None);
    let missing: Vec<SecretsError> = names
        .iter()
        .filter_map(|name| secrets.resolve(name).err())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

impl JournalAt {
    /// The location this names; a temporary journal has none until it is made.
    fn location(&self) -> Result<JournalLocation, SetupError> {
        match self {
            JournalAt::UserDefault => Ok(JournalLocation::user_default()?),
            JournalAt::At(location) => Ok(location.clone()),
            JournalAt::Temporary => Err(SetupError::TemporaryJournal),
        }
    }

    /// Where this journal's runs keep their folders (screenshots, reports, how a flow run
    /// was started): the location's own ([`JournalLocation::runs_folder`]). A temporary
    /// journal's is made with it, so it has none to name beforehand.
    pub fn runs_folder(&self) -> Result<PathBuf, SetupError> {
        Ok(self.location()?.runs_folder())
    }
}

impl RunSetup {
    /// The one secrets chain: `BROWSERFLOW_SECRET_<NAME>` variables, then the secrets file.
    pub fn secrets(&self) -> Result<Arc<dyn SecretsProvider>, SetupError> {
        Ok(Arc::new(ChainSecrets::standard(
            self.secrets_file.as_deref(),
        )?))
    }

    /// [`check_secrets`] with this setup's secrets chain.
    pub fn check_secrets(
        &self,
        plan: &Plan,
        inputs: &BTreeMap<String, Bound>,
    ) -> Result<(), SetupError> {
        check_secrets(self.secrets()?, plan, inputs).map_err(SetupError::MissingSecrets)
    }

    /// The Rider for `tools`: the only place the shells' Riders are made. A registry built
    /// once can be shared by many Riders (`Arc<ToolRegistry>`: the MCP server's calls).
    pub fn rider(&self, tools: impl Into<Arc<ToolRegistry>>) -> Result<ReadyRider, SetupError> {
        let (location, temporary) = match &self.journal {
            JournalAt::Temporary => {
                let dir = tempfile::tempdir().map_err(SetupError::Temporary)?;
                let location = JournalLocation::Sqlite(dir.path().join("journal.sqlite"));
                (location, Some(dir))
            }
            other => (other.location()?, None),
        };
        let journal: Arc<dyn JournalStore> = location.open()?;
        let runs_folder = match &self.runs_folder {
            RunsFolder::None => None,
            RunsFolder::OfJournal => Some(location.runs_folder()),
            RunsFolder::At(dir) => Some(dir.clone()),
        };
        let options = RiderOptions {
            browser: Some(self.browser.clone()),
            runs_folder,
            ..self.rider.clone()
        };
        let rider = Rider::new(tools, journal, self.secrets()?, options)?;
        if let Some(logs) = &self.log_redactor {
            rider.redactor().forward_to(logs);
        }
        Ok(ReadyRider {
            rider,
            _temporary: temporary,
        })
    }
}

impl Catalog {
    /// A Rider that can run every tool of the catalog, set up by `setup`.
    pub fn rider(&self, setup: &RunSetup) -> Result<ReadyRider, SetupError> {
        let tools = self.tools(&setup.browser).map_err(SetupError::Tools)?;
        setup.rider(tools)
    }
}
