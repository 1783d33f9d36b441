//! The Rider: runs a compiled [`Plan`], journals effectful steps and resumes crashed runs.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use browserflow_flow::{Bound, Plan};
use serde_json::{Map, Value};

use crate::artifacts::Artifacts;
use crate::caps::fs::FsCap;
use crate::caps::net::NetCap;
use crate::caps::secrets::SecretsProvider;
use crate::clock::Clock;
use crate::ctx::EnvView;
use crate::error::{RunError, RunFailure};
use crate::events::RunEvent;
use crate::exec::RunState;
use crate::journal::lease::Heartbeat;
use crate::journal::{
    Claim, JournalError, JournalStore, LeaseAnswer, LeaseOwner, QueueOrigin, QueuedStart, RunEnd,
    RunStart,
};
use crate::options::RiderOptions;
use crate::plan_identity::{self, PlanChange};
use crate::redact::Redactor;
use crate::registry::ToolRegistry;
use crate::secret_input::{SECRET_TEMPLATE_KEY, parse_template};
use crate::signal::CancelHandle;

/// A run that completed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunOutcome {
    /// The run id (for `bflow journal show`).
    pub run_id: String,
    /// The flow's output.
    pub output: Value,
    /// Steps whose tool ran in this session.
    pub steps_run: usize,
    /// Effectful steps whose recorded outcome was reused instead (resume).
    pub steps_replayed: usize,
    /// What each step's tool call left to look at (reports, folders, screenshots), by step
    /// id; steps that left nothing are absent. Not serialised: they are for the caller.
    #[serde(skip)]
    pub artifacts: BTreeMap<String, Artifacts>,
}

/// Why a Rider could not be built.
#[derive(Debug, thiserror::Error)]
pub enum RiderError {
    /// The HTTP client could not be built.
    #[error(transparent)]
    Net(#[from] crate::caps::net::NetError),
    /// The fs root is unusable.
    #[error(transparent)]
    Fs(#[from] crate::caps::fs::FsError),
}

/// The runtime. One Rider can run many flows, one after another or at once.
pub struct Rider {
    pub(crate) registry: Arc<ToolRegistry>,
    pub(crate) journal: Arc<dyn JournalStore>,
    pub(crate) secrets: Arc<dyn SecretsProvider>,
    pub(crate) options: RiderOptions,
    pub(crate) net: NetCap,
    pub(crate) fs: Option<FsCap>,
}

impl std::fmt::Debug for Rider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rider")
            .field("registry", &self.registry)
            .field("journal", &self.journal)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Rider {
    /// A Rider running tools from `registry`, journaling to `journal`, resolving secrets
    /// through `secrets`.
    pub fn new(
        registry: impl Into<Arc<ToolRegistry>>,
        journal: Arc<dyn JournalStore>,
        secrets: Arc<dyn SecretsProvider>,
        options: RiderOptions,
    ) -> Result<Rider, RiderError> {
        let net = NetCap::new(&options.net)?;
        let fs = options.fs_root.as_ref().map(FsCap::new).transpose()?;
        Ok(Rider {
            registry: registry.into(),
            journal,
            secrets,
            options,
            net,
            fs,
        })
    }

    /// The journal.
    pub fn journal(&self) -> &Arc<dyn JournalStore> {
        &self.journal
    }

    /// The redactor guarding every writer (shared with the journal). Install
    /// [`Redactor::make_writer`] in your `tracing` subscriber so log output passes through it.
    pub fn redactor(&self) -> &Redactor {
        self.journal.redactor()
    }

    /// The tool registry.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// Runs `plan` with `inputs` (secret inputs as [`Bound::Secret`]).
    pub async fn run(
        &self,
        plan: &Plan,
        inputs: BTreeMap<String, Bound>,
    ) -> Result<RunOutcome, RunFailure> {
        self.run_with(plan, inputs, &CancelHandle::new()).await
    }

    /// [`Rider::run`], cancellable through `cancel`.
    pub async fn run_with(
        &self,
        plan: &Plan,
        inputs: BTreeMap<String, Bound>,
        cancel: &CancelHandle,
    ) -> Result<RunOutcome, RunFailure> {
        self.run_as(&new_run_id(), plan, inputs, cancel).await
    }

    /// [`Rider::run_with`] under the id `run_id`, which the caller chose so that one piece of
    /// work maps to one run (a schedule's slot). The journal records a run id once: when
    /// `run_id` is already recorded, nothing runs and the error is
    /// [`JournalError::RunExists`] (resume that run instead).
    pub async fn run_as(
        &self,
        run_id: &str,
        plan: &Plan,
        inputs: BTreeMap<String, Bound>,
        cancel: &CancelHandle,
    ) -> Result<RunOutcome, RunFailure> {
        let scope = plan
            .start_scope(inputs.clone())
            .map_err(|e| self.failure(None, RunError::FlowInput(e.to_string())))?;
        let run_id = run_id.to_owned();
        let clock = Clock::now_wall();
        let env = self.options.env.clone();
        let env_json = Value::Object(
            env.iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        );
        let owner = LeaseOwner::this_process(self.options.lease_ttl);
        let start = RunStart {
            plan: &plan_identity::identities(plan),
            owner: &owner,
            run_id: &run_id,
            flow: &plan.reference(),
            flow_digest: plan.flow_digest.as_str(),
            inputs: &tag_inputs(&inputs),
            env: &env_json,
            clock_ms: clock.unix_millis(),
            started_at_ms: now_ms(),
        };
        let fence = self
            .journal
            .begin_run(&start)
            .map_err(|e| self.failure(None, e.into()))?;
        let lost = CancelHandle::new();
        let _heartbeat = Heartbeat::start(
            self.journal.clone(),
            run_id.clone(),
            &owner,
            fence.clone(),
            lost.clone(),
        );
        let mut state = RunState::new(
            self,
            run_id,
            fence,
            1,
            clock,
            EnvView::new(env),
            HashMap::new(),
            cancel,
        );
        state.stop_also_on(&lost);
        self.execute(plan, scope, state, false).await
    }

    /// The inputs run `run_id` was started with, as journaled (secret inputs as their
    /// references, never values): what a resume will bind, so that a caller can check every
    /// secret it names before anything runs.
    pub fn recorded_inputs(&self, run_id: &str) -> Result<BTreeMap<String, Bound>, RunError> {
        let record = self.journal.read_run(run_id)?;
        untag_inputs(&record.inputs).map_err(RunError::FlowInput)
    }

    /// Resumes run `run_id` with `plan`. First, before any step runs: the run's lease is
    /// taken (refused while another live process executes it) and the whole plan is compared
    /// with the one recorded when the run started; a change at or before the last step the
    /// run recorded stops it with a `divergence` error listing every change. Then pure steps
    /// are re-run and effectful steps return their recorded outcome.
    pub async fn resume(&self, run_id: &str, plan: &Plan) -> Result<RunOutcome, RunFailure> {
        self.resume_with(run_id, plan, &CancelHandle::new()).await
    }

    /// [`Rider::resume`], cancellable through `cancel`.
    pub async fn resume_with(
        &self,
        run_id: &str,
        plan: &Plan,
        cancel: &CancelHandle,
    ) -> Result<RunOutcome, RunFailure> {
        let fail = |e: RunError| self.failure(Some(run_id.to_owned()), e);
        let owner = LeaseOwner::this_process(self.options.lease_ttl);
        // The lease first: a refused resume changes nothing in the run.
        let fence = match self.journal.take_lease(run_id, &owner, now_ms()) {
            Ok(LeaseAnswer::Granted(grant)) => {
                if let Some((previous, why)) = grant.taken_over {
                    tracing::warn!(
                        "run {run_id}: taking over the lease of {previous} ({})",
                        match why {
                            crate::journal::Takeover::DeadProcess => "its process is gone",
                            crate::journal::Takeover::Expired => "its heartbeat expired",
                        }
                    );
                }
                grant.fence
            }
            Ok(LeaseAnswer::Held(holder)) => {
                return Err(fail(RunError::LeaseHeld {
                    run_id: run_id.to_owned(),
                    holder: Box::new(holder),
                }));
            }
            Err(e) => return Err(fail(e.into())),
        };
        self.resume_under(run_id, plan, &owner, fence, cancel, PlanCheck::Resume)
            .await
    }

    /// Queues a run of `plan` with `inputs` (secret inputs as references), to be executed
    /// by a worker that claims it ([`JournalStore::claim_queued`]): its inputs and its
    /// plan's identity are recorded now, so a worker that finds the flow changed refuses it
    /// as a divergence. Returns the run's id.
    pub fn enqueue(
        &self,
        plan: &Plan,
        inputs: BTreeMap<String, Bound>,
        origin: &QueueOrigin,
    ) -> Result<String, RunError> {
        plan.start_scope(inputs.clone())
            .map_err(|e| RunError::FlowInput(e.to_string()))?;
        let run_id = new_run_id();
        let env_json = Value::Object(
            self.options
                .env
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        );
        let now = now_ms();
        self.journal.enqueue_run(&QueuedStart {
            run_id: &run_id,
            flow: &plan.reference(),
            flow_digest: plan.flow_digest.as_str(),
            inputs: &tag_inputs(&inputs),
            env: &env_json,
            clock_ms: Clock::now_wall().unix_millis(),
            enqueued_at_ms: now,
            plan: &plan_identity::identities(plan),
            origin,
        })?;
        Ok(run_id)
    }

    /// Executes the queued run a worker claimed ([`JournalStore::claim_queued`]) under the
    /// lease the claim took for `owner`. The plan must be the one recorded when the run was
    /// queued, every step of it and its digest: any change is a divergence, refused before
    /// any step (never run half-old). Steps whose effects a previous worker recorded return
    /// their recorded outcomes, as on resume.
    pub async fn run_claimed(
        &self,
        claim: &Claim,
        owner: &LeaseOwner,
        plan: &Plan,
        cancel: &CancelHandle,
    ) -> Result<RunOutcome, RunFailure> {
        self.resume_under(
            &claim.run_id,
            plan,
            owner,
            claim.fence.clone(),
            cancel,
            PlanCheck::Queued,
        )
        .await
    }

    /// A session of a recorded run whose lease `fence` holds: checks the plan (as `check`
    /// says), opens the session and executes the plan.
    async fn resume_under(
        &self,
        run_id: &str,
        plan: &Plan,
        owner: &LeaseOwner,
        fence: crate::journal::Fence,
        cancel: &CancelHandle,
        check: PlanCheck,
    ) -> Result<RunOutcome, RunFailure> {
        let fail = |e: RunError| self.failure(Some(run_id.to_owned()), e);
        let lost = CancelHandle::new();
        let _heartbeat = Heartbeat::start(
            self.journal.clone(),
            run_id.to_owned(),
            owner,
            fence.clone(),
            lost.clone(),
        );
        // Stops the resume before any step: the run is marked failed with why, and the
        // lease released.
        let stop = |e: RunError| {
            let failure = fail(e);
            let end = RunEnd {
                status: "failed",
                output: None,
                error: Some((failure.code(), &failure.message)),
                finished_at_ms: now_ms(),
            };
            let _ = self
                .journal
                .finish_run(run_id, &fence, &end, &mut Vec::new());
            failure
        };
        let record = match self.journal.read_run(run_id) {
            Ok(record) => record,
            Err(e) => return Err(stop(e.into())),
        };
        if record.flow != plan.reference() {
            return Err(stop(RunError::Divergence {
                step: "(flow)".to_owned(),
                what: "flow",
                recorded: record.flow,
                current: plan.reference(),
            }));
        }
        match check {
            PlanCheck::Resume if !record.plan.is_empty() => {
                check_plan(run_id, &record, plan).map_err(stop)?;
            }
            PlanCheck::Resume => {}
            PlanCheck::Queued => {
                let recorded_digest = match self.journal.show(run_id) {
                    Ok(report) => report.flow_digest,
                    Err(e) => return Err(stop(e.into())),
                };
                check_queued_plan(&record, &recorded_digest, plan).map_err(stop)?;
            }
        }
        let inputs = untag_inputs(&record.inputs).map_err(|m| stop(RunError::FlowInput(m)))?;
        let scope = plan
            .start_scope(inputs)
            .map_err(|e| stop(RunError::FlowInput(e.to_string())))?;
        let env = match &record.env {
            Value::Object(map) => map
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                .collect(),
            _ => BTreeMap::new(),
        };
        let session = self
            .journal
            .open_session(run_id, &fence)
            .map_err(|e| stop(e.into()))?;
        let mut state = RunState::new(
            self,
            run_id.to_owned(),
            fence.clone(),
            session,
            Clock::at_unix_millis(record.clock_ms),
            EnvView::new(env),
            record.steps,
            cancel,
        );
        state.stop_also_on(&lost);
        self.execute(plan, scope, state, true).await
    }

    async fn execute(
        &self,
        plan: &Plan,
        scope: browserflow_flow::Scope,
        state: RunState<'_>,
        resumed: bool,
    ) -> Result<RunOutcome, RunFailure> {
        let run_id = state.run_id.clone();
        self.emit(&RunEvent::RunStarted {
            run_id: run_id.clone(),
            flow: plan.reference(),
            steps: plan.steps.len(),
            resumed,
        });
        let result = match state.check_unknown_steps(plan) {
            Ok(()) => state.run_plan(plan, scope, "").await,
            Err(e) => Err(e),
        };
        let mut pending = state.take_pending();
        let artifacts = state.take_artifacts();
        let (status, outcome) = match result {
            Ok(output) => {
                let end = RunEnd {
                    status: "succeeded",
                    output: Some(&output),
                    error: None,
                    finished_at_ms: now_ms(),
                };
                let written = self
                    .journal
                    .finish_run(&run_id, &state.fence, &end, &mut pending);
                match written {
                    Ok(()) => (
                        "succeeded",
                        Ok(RunOutcome {
                            run_id: run_id.clone(),
                            output: self.redactor().redact_json(&output),
                            steps_run: state.steps_run.load(Ordering::Relaxed),
                            steps_replayed: state.steps_replayed.load(Ordering::Relaxed),
                            artifacts,
                        }),
                    ),
                    Err(e) => ("failed", Err(self.failure(Some(run_id.clone()), e.into()))),
                }
            }
            Err(error) => {
                // A session deposed meanwhile says so, whatever its steps met on the way
                // (its tools were stopped once the heartbeat found the lease gone).
                let error = match self.journal.check_fence(&run_id, &state.fence) {
                    Err(lost @ JournalError::LeaseLost { .. }) => lost.into(),
                    _ => error,
                };
                let status = if matches!(error, RunError::Cancelled { .. }) {
                    "cancelled"
                } else {
                    "failed"
                };
                let mut failure = self.failure(Some(run_id.clone()), error);
                failure.artifacts = artifacts;
                // The run's outcome is best effort here: the step rows already committed
                // are what resume relies on. (A deposed session's is refused by the fence.)
                let end = RunEnd {
                    status,
                    output: None,
                    error: Some((failure.code(), &failure.message)),
                    finished_at_ms: now_ms(),
                };
                let _ = self
                    .journal
                    .finish_run(&run_id, &state.fence, &end, &mut pending);
                (status, Err(failure))
            }
        };
        self.emit(&RunEvent::RunFinished { run_id, status });
        outcome
    }

    pub(crate) fn emit(&self, event: &RunEvent) {
        if let Some(sink) = &self.options.on_event {
            sink(event);
        }
    }

    pub(crate) fn failure(&self, run_id: Option<String>, error: RunError) -> RunFailure {
        let message = self.redactor().redact_string(&error.to_string());
        RunFailure {
            run_id,
            error,
            message,
            artifacts: BTreeMap::new(),
        }
    }
}

/// How a session compares the flow with the recorded plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PlanCheck {
    /// A resume: changes after the last recorded step are said and run.
    Resume,
    /// A queued run: any change, the flow's digest included, is a divergence.
    Queued,
}

/// A queued run's plan as recorded when it was queued, against the flow now: equal, or a
/// divergence naming every change.
fn check_queued_plan(
    record: &crate::journal::RunRecord,
    recorded_digest: &str,
    plan: &Plan,
) -> Result<(), RunError> {
    // Every position counts as recorded: the whole plan was fixed at enqueue time.
    let comparison = plan_identity::compare(
        &record.plan,
        &plan_identity::identities(plan),
        Some(usize::MAX),
    );
    let mut changes: Vec<String> = comparison
        .blocking
        .iter()
        .chain(&comparison.later)
        .map(ToString::to_string)
        .collect();
    if changes.is_empty() && recorded_digest != plan.flow_digest.as_str() {
        changes.push(format!(
            "the flow's digest was {recorded_digest} and is now {}",
            plan.flow_digest.as_str()
        ));
    }
    if changes.is_empty() {
        return Ok(());
    }
    Err(RunError::ChangedSinceQueued {
        changes: changes.join("; "),
    })
}

/// Compares the whole current plan with the one recorded for `run_id`: a change at or
/// before the last recorded step is a divergence; changes after it are said and run.
fn check_plan(
    run_id: &str,
    record: &crate::journal::RunRecord,
    plan: &Plan,
) -> Result<(), RunError> {
    // An item's row (`ID[k]`) records its for_each step `ID`.
    let recorded_keys: std::collections::HashSet<String> = record
        .steps
        .keys()
        .map(|key| crate::exec::plan_step_key(key))
        .collect();
    let last = record
        .plan
        .iter()
        .filter(|s| recorded_keys.contains(&s.step_id))
        .map(|s| s.position)
        .max();
    let comparison = plan_identity::compare(&record.plan, &plan_identity::identities(plan), last);
    let last_step = || {
        last.and_then(|p| record.plan.get(p))
            .map(|s| s.step_id.clone())
            .unwrap_or_default()
    };
    if !comparison.blocking.is_empty() {
        return Err(RunError::PlanChanged {
            last_recorded: last_step(),
            changes: comparison.blocking,
        });
    }
    if !comparison.later.is_empty() {
        let list = |changes: &[PlanChange]| {
            changes
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        match last {
            Some(_) => tracing::warn!(
                "run {run_id}: the flow changed after step `{}`, the last step this run recorded; those steps run as the flow is now: {}",
                last_step(),
                list(&comparison.later)
            ),
            None => tracing::warn!(
                "run {run_id}: the flow changed since the run started, before it recorded any step; every step runs as the flow is now: {}",
                list(&comparison.later)
            ),
        }
    }
    Ok(())
}

/// The flow inputs as journaled: `{"name": {"value": …}}` or `{"name": {"secret_template": "…"}}`.
fn tag_inputs(inputs: &BTreeMap<String, Bound>) -> Value {
    let mut map = Map::new();
    for (name, bound) in inputs {
        let tagged = match bound {
            Bound::Value(v) => serde_json::json!({ "value": v }),
            Bound::Secret(t) => serde_json::json!({ SECRET_TEMPLATE_KEY: t.to_string() }),
        };
        map.insert(name.clone(), tagged);
    }
    Value::Object(map)
}

fn untag_inputs(tagged: &Value) -> Result<BTreeMap<String, Bound>, String> {
    let Value::Object(map) = tagged else {
        return Err("the journaled inputs are not an object".to_owned());
    };
    let mut inputs = BTreeMap::new();
    for (name, value) in map {
        let bound = match value {
            Value::Object(m) if m.len() == 1 && m.contains_key("value") => {
                Bound::Value(m.get("value").cloned().unwrap_or(Value::Null))
            }
            Value::Object(m) if m.len() == 1 => match m.get(SECRET_TEMPLATE_KEY) {
                Some(Value::String(text)) => Bound::Secret(
                    parse_template(text).map_err(|e| format!("journaled input `{name}`: {e}"))?,
                ),
                _ => return Err(format!("journaled input `{name}` is malformed")),
            },
            _ => return Err(format!("journaled input `{name}` is malformed")),
        };
        inputs.insert(name.clone(), bound);
    }
    Ok(inputs)
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// `20261130T024751Z-3f9a1c2e5b7d`: sortable by start time, unique by its random part.
fn new_run_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    hasher.write_u32(std::process::id());
    hasher.write_usize(COUNTER.fetch_add(1, Ordering::Relaxed));
    let stamp = Clock::now_wall().rfc3339();
    // 2026-11-30T02:47:51.123Z → 20261130T024751Z
    let compact: String = stamp[..19]
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    format!("{compact}Z-{:012x}", hasher.finish() & 0xFFFF_FFFF_FFFF)
}
