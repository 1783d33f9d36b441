//! `ToolCtx`: what a tool's `run` receives. Capability objects are present exactly when the
//! step's contract declares them; the deterministic substrate is always there.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::caps::fs::FsCap;
use crate::caps::net::NetCap;
use crate::caps::secrets::SecretsCap;
use crate::caps::spawn::SpawnCap;
use crate::caps::{BrowserCapability, ModelCapability};
use crate::clock::Clock;
use crate::logger::Logger;
use crate::random::Random;
use crate::signal::CancelSignal;
use crate::tool::ToolError;

/// A read-only view of the variables the run was given (not the process environment).
#[derive(Debug, Clone, Default)]
pub struct EnvView {
    vars: Arc<BTreeMap<String, String>>,
}

impl EnvView {
    /// A view of `vars`.
    pub fn new(vars: BTreeMap<String, String>) -> EnvView {
        EnvView {
            vars: Arc::new(vars),
        }
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// Every variable, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// The context of one step's execution. Cheap to clone.
#[derive(Clone)]
pub struct ToolCtx {
    pub(crate) net: Option<NetCap>,
    pub(crate) fs: Option<FsCap>,
    pub(crate) browser: Option<Arc<dyn BrowserCapability>>,
    pub(crate) secrets: Option<SecretsCap>,
    pub(crate) spawn: Option<SpawnCap>,
    pub(crate) model: Option<Arc<dyn ModelCapability>>,
    pub(crate) clock: Clock,
    pub(crate) random: Random,
    pub(crate) env: EnvView,
    pub(crate) run_id: Arc<str>,
    pub(crate) step_id: Arc<str>,
    pub(crate) idempotency_key: String,
    pub(crate) logger: Logger,
    pub(crate) signal: CancelSignal,
    pub(crate) deadline: Option<std::time::Instant>,
    pub(crate) call_folder: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for ToolCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCtx")
            .field("net", &self.net.is_some())
            .field("fs", &self.fs.is_some())
            .field("browser", &self.browser.is_some())
            .field("secrets", &self.secrets.is_some())
            .field("spawn", &self.spawn.is_some())
            .field("model", &self.model.is_some())
            .field("clock", &self.clock)
            .field("idempotency_key", &self.idempotency_key)
            .finish_non_exhaustive()
    }
}

macro_rules! capability_accessors {
    ($($field:ident, $require:ident, $ty:ty, $doc:literal;)*) => {
        $(
            #[doc = concat!("The `", stringify!($field), "` capability: ", $doc, " `None` unless the contract declares it.")]
            pub fn $field(&self) -> Option<&$ty> {
                self.$field.as_ref()
            }

            #[doc = concat!("The `", stringify!($field), "` capability, or a terminal error saying the contract does not declare it.")]
            pub fn $require(&self) -> Result<&$ty, ToolError> {
                self.$field
                    .as_ref()
                    .ok_or_else(|| ToolError::missing_capability(stringify!($field)))
            }
        )*
    };
}

impl ToolCtx {
    capability_accessors! {
        net, require_net, NetCap, "an HTTP client.";
        fs, require_fs, FsCap, "a rooted directory.";
        browser, require_browser, Arc<dyn BrowserCapability>, "a browser.";
        secrets, require_secrets, SecretsCap, "resolves `secret.NAME` references.";
        spawn, require_spawn, SpawnCap, "runs allowed programs.";
        model, require_model, Arc<dyn ModelCapability>, "model calls.";
    }

    /// The run's recorded logical time.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Randomness seeded from (run id, step id).
    pub fn random(&self) -> &Random {
        &self.random
    }

    /// The variables the run was given.
    pub fn env(&self) -> &EnvView {
        &self.env
    }

    /// The run this step belongs to.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The step's id in the flow (for a composite's inner step, its path).
    pub fn step_id(&self) -> &str {
        &self.step_id
    }

    /// Derived from (run id, step id); the same on every attempt and every resume. Send it
    /// with effects (an `Idempotency-Key` header) so a receiver can drop repeats.
    pub fn idempotency_key(&self) -> &str {
        &self.idempotency_key
    }

    /// The step's logger (redacted, with run and step ids).
    pub fn logger(&self) -> &Logger {
        &self.logger
    }

    /// The run's redactor: what a tool writes itself (a run folder, a report) passes through
    /// it, like everything the Rider writes.
    pub fn redactor(&self) -> &crate::redact::Redactor {
        self.logger.redactor()
    }

    /// Fires when the run is cancelled.
    pub fn signal(&self) -> &CancelSignal {
        &self.signal
    }

    /// When this attempt should have given up by, with its own error: the step's time
    /// budget (shared by all its attempts) ends a little after. A tool that can stop
    /// cleanly, saying where it was, should; the Rider stops an attempt still running when
    /// the budget ends.
    pub fn deadline(&self) -> Option<std::time::Instant> {
        self.deadline
    }

    /// The folder this call may write its report and screenshots into
    /// (`<runs folder>/<run id>/<step id>-<name>@<version>`, see [`crate::call_folder`]),
    /// when the Rider has a runs folder ([`RiderOptions::runs_folder`](crate::RiderOptions::runs_folder)).
    /// A tool that writes there says so in its [`Artifacts`](crate::Artifacts).
    pub fn call_folder(&self) -> Option<&std::path::Path> {
        self.call_folder.as_deref()
    }
}

/// The idempotency key of step `step_id` in run `run_id`: stable across attempts and resumes.
pub fn idempotency_key(run_id: &str, step_id: &str) -> String {
    use sha2::{Digest as _, Sha256};
    let digest = Sha256::new()
        .chain_update(run_id.as_bytes())
        .chain_update([0u8])
        .chain_update(step_id.as_bytes())
        .finalize();
    format!("bf-{}", hex::encode(&digest[..16]))
}

/// Builds a [`ToolCtx`]: the Rider uses it for every step, and tool authors use it to test a
/// tool on its own.
pub struct ToolCtxBuilder {
    ctx: ToolCtx,
}

impl ToolCtx {
    /// A context for `step_id` of `run_id` with no capability, the clock at `clock`, an empty
    /// env and a signal that never fires unless [`ToolCtxBuilder::signal`] sets one.
    pub fn builder(run_id: &str, step_id: &str) -> ToolCtxBuilder {
        ToolCtx::builder_with(run_id, step_id, crate::redact::Redactor::new())
    }

    /// [`ToolCtx::builder`] whose logger redacts through `redactor`.
    pub fn builder_with(
        run_id: &str,
        step_id: &str,
        redactor: crate::redact::Redactor,
    ) -> ToolCtxBuilder {
        ToolCtxBuilder {
            ctx: ToolCtx {
                net: None,
                fs: None,
                browser: None,
                secrets: None,
                spawn: None,
                model: None,
                clock: Clock::at_unix_millis(0),
                random: Random::for_step(run_id, step_id),
                env: EnvView::default(),
                run_id: Arc::from(run_id),
                step_id: Arc::from(step_id),
                idempotency_key: idempotency_key(run_id, step_id),
                logger: Logger::new(run_id, step_id, redactor),
                signal: crate::signal::CancelHandle::new().signal(),
                deadline: None,
                call_folder: None,
            },
        }
    }
}

impl ToolCtxBuilder {
    /// Gives the context an HTTP client.
    pub fn net(mut self, net: NetCap) -> Self {
        self.ctx.net = Some(net);
        self
    }

    /// Gives the context a rooted directory.
    pub fn fs(mut self, fs: FsCap) -> Self {
        self.ctx.fs = Some(fs);
        self
    }

    /// Gives the context a browser.
    pub fn browser(mut self, browser: Arc<dyn BrowserCapability>) -> Self {
        self.ctx.browser = Some(browser);
        self
    }

    /// Gives the context secret resolution.
    pub fn secrets(mut self, secrets: SecretsCap) -> Self {
        self.ctx.secrets = Some(secrets);
        self
    }

    /// Gives the context program spawning.
    pub fn spawn(mut self, spawn: SpawnCap) -> Self {
        self.ctx.spawn = Some(spawn);
        self
    }

    /// Gives the context model calls.
    pub fn model(mut self, model: Arc<dyn ModelCapability>) -> Self {
        self.ctx.model = Some(model);
        self
    }

    /// Sets the clock.
    pub fn clock(mut self, clock: Clock) -> Self {
        self.ctx.clock = clock;
        self
    }

    /// Sets the env view.
    pub fn env(mut self, env: EnvView) -> Self {
        self.ctx.env = env;
        self
    }

    /// Sets the cancellation signal.
    pub fn signal(mut self, signal: CancelSignal) -> Self {
        self.ctx.signal = signal;
        self
    }

    /// Sets when the tool should have given up by (see [`ToolCtx::deadline`]).
    pub fn deadline(mut self, deadline: std::time::Instant) -> Self {
        self.ctx.deadline = Some(deadline);
        self
    }

    /// Sets the call's folder (see [`ToolCtx::call_folder`]).
    pub fn call_folder(mut self, folder: std::path::PathBuf) -> Self {
        self.ctx.call_folder = Some(folder);
        self
    }

    /// Sets the logger (to share a redactor).
    pub fn logger(mut self, logger: Logger) -> Self {
        self.ctx.logger = logger;
        self
    }

    /// The context.
    pub fn build(self) -> ToolCtx {
        self.ctx
    }
}
