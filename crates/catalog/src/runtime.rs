//! A ready-to-run Rider for the shells: the catalog's tools, a journal, the standard secrets
//! provider (`BROWSERFLOW_SECRET_<NAME>` variables, then an optional 0600 secrets file), a
//! lazily launched Chromium, and a run folder for screenshots beside the journal.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use browserflow_cdp::BrowserConfig;
use browserflow_flow::{Bound, Plan};
use browserflow_replay::RUN_DIR_ENV;
use browserflow_replay::SharedBrowser;
#[cfg(feature = "test-hooks")]
use browserflow_rider::CrashPoint;
use browserflow_rider::{
    ChainSecrets, CrashHook, EventSink, Journal, Redactor, Rider, RiderOptions, SecretsCap,
    SecretsError, SecretsProvider,
};

use crate::Catalog;
use crate::invocation::runs_folder;

/// How to set up a run.
#[derive(Default, Clone)]
pub struct RunSetup {
    /// The journal file; `None`: the default journal in the user's data folder.
    pub journal: Option<PathBuf>,
    /// A secrets file (mode 0600) read after the environment.
    pub secrets_file: Option<PathBuf>,
    /// The browser: Chromium path, CDP endpoint, headless or visible.
    pub browser: BrowserConfig,
    /// Progress events.
    pub on_event: Option<EventSink>,
    /// Called at each crash point of an effectful step; see [`crash_hook_from_env`].
    pub crash_hook: Option<CrashHook>,
    /// The time all attempts of one step may take together; `None`: the Rider's default
    /// (see `RiderOptions::step_budget`).
    pub step_budget: Option<std::time::Duration>,
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

impl RunSetup {
    /// [`check_secrets`] with this setup's provider (the environment, then the secrets file).
    pub fn check_secrets(
        &self,
        plan: &Plan,
        inputs: &BTreeMap<String, Bound>,
    ) -> Result<(), SetupError> {
        let provider = Arc::new(ChainSecrets::standard(self.secrets_file.as_deref())?);
        check_secrets(provider, plan, inputs).map_err(SetupError::MissingSecrets)
    }
}

impl Catalog {
    /// A Rider that can run every tool of the catalog.
    pub fn rider(&self, setup: &RunSetup) -> Result<Rider, SetupError> {
        let tools = self.tools().map_err(SetupError::Tools)?;
        let journal = match &setup.journal {
            Some(path) => Journal::open(path)?,
            None => Journal::open_default()?,
        };
        let mut env = BTreeMap::new();
        env.insert(
            RUN_DIR_ENV.to_owned(),
            runs_folder(journal.path()).display().to_string(),
        );
        let secrets = ChainSecrets::standard(setup.secrets_file.as_deref())?;
        let browser = SharedBrowser::new(setup.browser.clone()).into_capability();
        let options = RiderOptions {
            browser: Some(browser),
            env,
            on_event: setup.on_event.clone(),
            crash_hook: setup.crash_hook.clone(),
            step_budget: setup
                .step_budget
                .unwrap_or(RiderOptions::default().step_budget),
            ..RiderOptions::default()
        };
        Ok(Rider::new(
            tools,
            Arc::new(journal),
            Arc::new(secrets),
            options,
        )?)
    }
}
