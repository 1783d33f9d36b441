//! The engine of one run session: scheduling, step execution, journaling, resume checks.

mod for_each;
mod setup;
mod step;

pub(crate) use for_each::plan_step_key;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use browserflow_contract::{Digest, canonical_json};
use browserflow_flow::{Bound, Plan, PlannedStep, Scope};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::Value;

use crate::artifacts::Artifacts;
use crate::clock::Clock;
use crate::ctx::EnvView;
use crate::error::RunError;
use crate::journal::{Fence, PendingStep, RecordedStep};
use crate::rider::Rider;
use crate::signal::{CancelHandle, CancelSignal};
use crate::tool::DynTool;
use crate::validate::CompiledContract;

type StepFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, RunError>> + Send + 'a>>;

/// A tool made for this run, with its compiled contract.
struct Prepared {
    tool: DynTool,
    compiled: Arc<CompiledContract>,
}

/// One session of one run.
pub(crate) struct RunState<'r> {
    rider: &'r Rider,
    pub(crate) run_id: String,
    /// The lease this session acts under: every write and every effect start is fenced on
    /// it.
    pub(crate) fence: Fence,
    session: i64,
    clock: Clock,
    env: EnvView,
    recorded: HashMap<String, RecordedStep>,
    signal: CancelSignal,
    pending: Mutex<Vec<PendingStep>>,
    /// What each step's tool call left to look at (the last attempt's), by step id.
    artifacts: Mutex<BTreeMap<String, Artifacts>>,
    tools: Mutex<HashMap<String, Arc<Prepared>>>,
    digests: Mutex<HashMap<String, String>>,
    steps_started: AtomicUsize,
    pub(crate) steps_run: AtomicUsize,
    pub(crate) steps_replayed: AtomicUsize,
}

impl<'r> RunState<'r> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        rider: &'r Rider,
        run_id: String,
        fence: Fence,
        session: i64,
        clock: Clock,
        env: EnvView,
        recorded: HashMap<String, RecordedStep>,
        cancel: &CancelHandle,
    ) -> RunState<'r> {
        RunState {
            rider,
            run_id,
            fence,
            session,
            clock,
            env,
            recorded,
            signal: cancel.signal(),
            pending: Mutex::new(Vec::new()),
            artifacts: Mutex::new(BTreeMap::new()),
            tools: Mutex::new(HashMap::new()),
            digests: Mutex::new(HashMap::new()),
            steps_started: AtomicUsize::new(0),
            steps_run: AtomicUsize::new(0),
            steps_replayed: AtomicUsize::new(0),
        }
    }

    /// Stops this session's tools also when `lost` is cancelled (its lease gone).
    pub(crate) fn stop_also_on(&mut self, lost: &CancelHandle) {
        self.signal = self.signal.clone().or(lost);
    }

    /// Whether someone asked the journal to cancel this run (`bflow runs cancel`), read at
    /// each step boundary; a journal that cannot say is not a cancel.
    fn cancel_requested(&self) -> bool {
        match self.rider.journal.cancel_requested(&self.run_id) {
            Ok(requested) => requested,
            Err(e) => {
                tracing::warn!("run {}: cannot read its cancel request: {e}", self.run_id);
                false
            }
        }
    }

    pub(crate) fn take_pending(&self) -> Vec<PendingStep> {
        std::mem::take(&mut *lock(&self.pending))
    }

    /// The artifacts of every step that left some.
    pub(crate) fn take_artifacts(&self) -> BTreeMap<String, Artifacts> {
        std::mem::take(&mut *lock(&self.artifacts))
    }

    /// On resume: a recorded step the flow no longer has is a divergence.
    pub(crate) fn check_unknown_steps(&self, plan: &Plan) -> Result<(), RunError> {
        if self.recorded.is_empty() {
            return Ok(());
        }
        let mut ids = BTreeSet::new();
        collect_ids(plan, "", &mut ids);
        // An item's row (`ID[k]`) belongs to its for_each step `ID`.
        let mut missing: Vec<&String> = self
            .recorded
            .keys()
            .filter(|id| !ids.contains(&plan_step_key(id)))
            .collect();
        missing.sort();
        match missing.first() {
            Some(id) => Err(RunError::Divergence {
                step: (*id).clone(),
                what: "step",
                recorded: format!("a step of the run (tool {})", self.recorded[*id].tool_ref),
                current: "absent from the flow".to_owned(),
            }),
            None => Ok(()),
        }
    }

    /// Runs the steps of `plan` (ids prefixed with `prefix` inside a composite), with at most
    /// `max_parallel` at once, and evaluates its output.
    pub(crate) fn run_plan<'a>(
        &'a self,
        plan: &'a Plan,
        mut scope: Scope,
        prefix: &'a str,
    ) -> StepFuture<'a> {
        Box::pin(async move {
            let n = plan.steps.len();
            let index: HashMap<&str, usize> = plan
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| (s.id.as_str(), i))
                .collect();
            // Kahn's algorithm: a step is ready when all the steps it depends on are done.
            let mut waiting_on = vec![0usize; n];
            let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
            for (i, step) in plan.steps.iter().enumerate() {
                for dep in step.depends_on.iter().filter_map(|d| index.get(d.as_str())) {
                    waiting_on[i] += 1;
                    dependents[*dep].push(i);
                }
            }
            // Ready steps, launched in plan order.
            let mut ready: BTreeSet<usize> = (0..n).filter(|&i| waiting_on[i] == 0).collect();
            let mut done = vec![false; n];
            let mut mark_done = |i: usize, done: &mut Vec<bool>, ready: &mut BTreeSet<usize>| {
                done[i] = true;
                for &next in &dependents[i] {
                    waiting_on[next] -= 1;
                    if waiting_on[next] == 0 {
                        ready.insert(next);
                    }
                }
            };
            let max_parallel = self.rider.options.max_parallel.max(1);
            let mut running = FuturesUnordered::new();
            let mut first_error: Option<RunError> = None;
            loop {
                while first_error.is_none() && running.len() < max_parallel {
                    let Some(i) = ready.pop_first() else { break };
                    if self.signal.is_cancelled() || self.cancel_requested() {
                        first_error = Some(RunError::Cancelled { step: None });
                        break;
                    }
                    let step = &plan.steps[i];
                    let id = format!("{prefix}{}", step.id);
                    let eval = |e: browserflow_flow::EvalError| RunError::Evaluation {
                        step: id.clone(),
                        message: e.to_string(),
                    };
                    let runs = step.should_run(&scope).map_err(eval);
                    if step.for_each.is_some() && matches!(runs, Ok(true)) {
                        match for_each::evaluate_items(step, &id, &mut scope) {
                            Ok(items) => running.push(Box::pin(async move {
                                (i, self.run_for_each(step, i, id, items).await)
                            })
                                as Pin<Box<dyn Future<Output = _> + Send + '_>>),
                            Err(e) => first_error = Some(e),
                        }
                        continue;
                    }
                    let inputs = match runs {
                        Ok(true) => step.evaluate_inputs(&scope).map_err(eval),
                        Ok(false) => {
                            scope.skip(step.id.clone());
                            self.record_skip(step, i, &id);
                            mark_done(i, &mut done, &mut ready);
                            continue;
                        }
                        Err(e) => Err(e),
                    };
                    match inputs {
                        Ok(inputs) => running.push(Box::pin(async move {
                            (i, self.run_step(step, i, id, inputs).await)
                        })),
                        Err(e) => first_error = Some(e),
                    }
                }
                // Let running steps finish even after an error, so their outcomes are recorded.
                let Some((i, result)) = running.next().await else {
                    break;
                };
                match result {
                    Ok(output) => {
                        scope.finish(plan.steps[i].id.clone(), output);
                        mark_done(i, &mut done, &mut ready);
                    }
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            if let Some(e) = first_error {
                return Err(e);
            }
            if let Some(i) = done.iter().position(|d| !d) {
                return Err(RunError::Evaluation {
                    step: format!("{prefix}{}", plan.steps[i].id),
                    message: "never became ready: the plan's dependencies are inconsistent"
                        .to_owned(),
                });
            }
            let output = plan
                .evaluate_output(&scope)
                .map_err(|e| RunError::Evaluation {
                    step: format!("{prefix}(output)"),
                    message: e.to_string(),
                })?;
            self.check_size(&format!("{prefix}(output)"), "flow output", &output)?;
            Ok(output)
        })
    }
}

/// Everything about one step execution.
struct Call<'a> {
    step: &'a PlannedStep,
    position: usize,
    id: &'a str,
    reference: &'a str,
    contract_digest: &'a str,
    input_digest: &'a str,
    input: &'a Value,
    inputs: &'a BTreeMap<String, Bound>,
    prepared: &'a Prepared,
    started: Instant,
}

/// `sha256:` of the canonical JSON of `value`.
pub(crate) fn digest_of(value: &Value) -> String {
    let text = canonical_json(value).unwrap_or_else(|_| value.to_string());
    Digest::of_bytes(text.as_bytes()).to_string()
}

fn collect_ids(plan: &Plan, prefix: &str, ids: &mut BTreeSet<String>) {
    for step in &plan.steps {
        let id = format!("{prefix}{}", step.id);
        if let Some(inner) = &step.composite {
            collect_ids(inner, &format!("{id}/"), ids);
        }
        ids.insert(id);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
