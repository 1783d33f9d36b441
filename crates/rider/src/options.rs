//! How a Rider is set up.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::caps::net::NetOptions;
use crate::caps::{BrowserCapability, ModelCapability};
use crate::crash::CrashHook;
use crate::events::EventSink;
use crate::retry::RetryPolicy;

/// The default [`RiderOptions::step_budget`]: 30 s for all attempts of a step together.
pub const DEFAULT_STEP_BUDGET: std::time::Duration = std::time::Duration::from_secs(30);

/// The settings of a [`Rider`](crate::Rider). `RiderOptions::default()` is a sensible start.
#[derive(Clone)]
pub struct RiderOptions {
    /// Independent steps run at most this many at a time.
    pub max_parallel: usize,
    /// A run executes at most this many steps (composite inner steps and each item of a
    /// `for_each` step included).
    pub max_steps: usize,
    /// No step input or output, and no flow output, may exceed this many bytes of JSON.
    pub max_payload_bytes: usize,
    /// The backoff of retryable kinds (`http`, `browser`, `model`).
    pub backoff: RetryPolicy,
    /// The time all attempts of one effectful step may take together, backoff included
    /// (a step of the flow may set its own). An attempt still running when it runs out is
    /// stopped, and no retry starts that could not finish in what is left.
    pub step_budget: std::time::Duration,
    /// Network settings of the `net` capability.
    pub net: NetOptions,
    /// The directory of the `fs` capability; without it a step declaring `fs` fails.
    pub fs_root: Option<PathBuf>,
    /// The programs the `spawn` capability may run.
    pub spawn_allow: Vec<String>,
    /// The `browser` capability; without it a step declaring `browser` fails.
    pub browser: Option<Arc<dyn BrowserCapability>>,
    /// The `model` capability; without it a step declaring `model` fails.
    pub model: Option<Arc<dyn ModelCapability>>,
    /// The folder every run's folder goes in (`<runs folder>/<run id>/`): a tool call's
    /// folder for its report and screenshots is given to it as
    /// [`ToolCtx::call_folder`](crate::ToolCtx::call_folder). `None`: calls write no folder.
    pub runs_folder: Option<PathBuf>,
    /// The variables a new run is given (tools read them through `ctx.env()`).
    pub env: BTreeMap<String, String>,
    /// Progress events.
    pub on_event: Option<EventSink>,
    /// Test only: called at each named crash point of effectful steps.
    pub crash_hook: Option<CrashHook>,
    /// How long a run's lease lasts without a heartbeat (renewed every third of it). An
    /// owner on another host is taken over only after this; keep it well above the clock
    /// difference between hosts sharing a journal.
    pub lease_ttl: std::time::Duration,
}

impl Default for RiderOptions {
    fn default() -> Self {
        RiderOptions {
            max_parallel: 4,
            max_steps: 10_000,
            max_payload_bytes: 16 * 1024 * 1024,
            backoff: RetryPolicy::BACKOFF,
            step_budget: DEFAULT_STEP_BUDGET,
            net: NetOptions::default(),
            fs_root: None,
            spawn_allow: Vec::new(),
            browser: None,
            model: None,
            runs_folder: None,
            env: BTreeMap::new(),
            on_event: None,
            crash_hook: None,
            lease_ttl: crate::journal::DEFAULT_LEASE_TTL,
        }
    }
}

impl std::fmt::Debug for RiderOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RiderOptions")
            .field("max_parallel", &self.max_parallel)
            .field("max_steps", &self.max_steps)
            .field("max_payload_bytes", &self.max_payload_bytes)
            .field("backoff", &self.backoff)
            .field("step_budget", &self.step_budget)
            .field("net", &self.net)
            .field("fs_root", &self.fs_root)
            .field("spawn_allow", &self.spawn_allow)
            .field("browser", &self.browser.is_some())
            .field("model", &self.model.is_some())
            .field("runs_folder", &self.runs_folder)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("lease_ttl", &self.lease_ttl)
            .finish_non_exhaustive()
    }
}
