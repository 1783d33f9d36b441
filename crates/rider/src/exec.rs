//! The engine of one run session: scheduling, step execution, journaling, resume checks.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use browserflow_contract::{Capability, CompiledSchema, Digest, canonical_json};
use browserflow_flow::{Bound, Plan, PlannedStep, Scope};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::{Map, Value};

use crate::caps::secrets::SecretsCap;
use crate::caps::spawn::SpawnCap;
use crate::clock::Clock;
use crate::crash::CrashPoint;
use crate::ctx::{EnvView, ToolCtx, idempotency_key};
use crate::error::RunError;
use crate::events::RunEvent;
use crate::journal::{PendingStep, RecordedStep, StepStart};
use crate::logger::Logger;
use crate::registry;
use crate::retry::RetryPolicy;
use crate::rider::{Rider, now_ms};
use crate::signal::{CancelHandle, CancelSignal};
use crate::tool::{DynTool, ErrorClass, ToolError};
use crate::validate::{CompiledContract, Violation};

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
    session: i64,
    clock: Clock,
    env: EnvView,
    recorded: HashMap<String, RecordedStep>,
    signal: CancelSignal,
    pending: Mutex<Vec<PendingStep>>,
    tools: Mutex<HashMap<String, Arc<Prepared>>>,
    digests: Mutex<HashMap<String, String>>,
    steps_started: AtomicUsize,
    pub(crate) steps_run: AtomicUsize,
    pub(crate) steps_replayed: AtomicUsize,
}

impl<'r> RunState<'r> {
    pub(crate) fn new(
        rider: &'r Rider,
        run_id: String,
        session: i64,
        clock: Clock,
        env: EnvView,
        recorded: HashMap<String, RecordedStep>,
        cancel: &CancelHandle,
    ) -> RunState<'r> {
        RunState {
            rider,
            run_id,
            session,
            clock,
            env,
            recorded,
            signal: cancel.signal(),
            pending: Mutex::new(Vec::new()),
            tools: Mutex::new(HashMap::new()),
            digests: Mutex::new(HashMap::new()),
            steps_started: AtomicUsize::new(0),
            steps_run: AtomicUsize::new(0),
            steps_replayed: AtomicUsize::new(0),
        }
    }

    pub(crate) fn take_pending(&self) -> Vec<PendingStep> {
        std::mem::take(&mut *lock(&self.pending))
    }

    /// On resume: a recorded step the flow no longer has is a divergence.
    pub(crate) fn check_unknown_steps(&self, plan: &Plan) -> Result<(), RunError> {
        if self.recorded.is_empty() {
            return Ok(());
        }
        let mut ids = BTreeSet::new();
        collect_ids(plan, "", &mut ids);
        let mut missing: Vec<&String> = self.recorded.keys().filter(|id| !ids.contains(*id)).collect();
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
    pub(crate) fn run_plan<'a>(&'a self, plan: &'a Plan, mut scope: Scope, prefix: &'a str) -> StepFuture<'a> {
        Box::pin(async move {
            let n = plan.steps.len();
            let index: HashMap<&str, usize> = plan
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| (s.id.as_str(), i))
                .collect();
            let deps: Vec<Vec<usize>> = plan
                .steps
                .iter()
                .map(|s| s.depends_on.iter().filter_map(|d| index.get(d.as_str()).copied()).collect())
                .collect();
            let max_parallel = self.rider.options.max_parallel.max(1);
            let mut done = vec![false; n];
            let mut launched = vec![false; n];
            let mut first_unlaunched = 0;
            let mut running = FuturesUnordered::new();
            let mut first_error: Option<RunError> = None;
            loop {
                while first_error.is_none() && first_unlaunched < n && launched[first_unlaunched] {
                    first_unlaunched += 1;
                }
                let mut i = first_unlaunched;
                while first_error.is_none() && i < n && running.len() < max_parallel {
                    if launched[i] || !deps[i].iter().all(|&d| done[d]) {
                        i += 1;
                        continue;
                    }
                    if self.signal.is_cancelled() {
                        first_error = Some(RunError::Cancelled { step: None });
                        break;
                    }
                    launched[i] = true;
                    let step = &plan.steps[i];
                    let id = format!("{prefix}{}", step.id);
                    let eval = |e: browserflow_flow::EvalError| RunError::Evaluation {
                        step: id.clone(),
                        message: e.to_string(),
                    };
                    match step.should_run(&scope).map_err(eval) {
                        Ok(true) => {}
                        Ok(false) => {
                            scope.skip(step.id.clone());
                            done[i] = true;
                            self.record_skip(step, i, &id);
                            i += 1;
                            continue;
                        }
                        Err(e) => {
                            first_error = Some(e);
                            break;
                        }
                    }
                    match step.evaluate_inputs(&scope).map_err(eval) {
                        Ok(inputs) => {
                            running.push(async move { (i, self.run_step(step, i, id, inputs).await) });
                        }
                        Err(e) => {
                            first_error = Some(e);
                            break;
                        }
                    }
                    i += 1;
                }
                // Let running steps finish even after an error, so their outcomes are recorded.
                let Some((i, result)) = running.next().await else {
                    break;
                };
                match result {
                    Ok(output) => {
                        scope.finish(plan.steps[i].id.clone(), output);
                        done[i] = true;
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
                    message: "never became ready: the plan's dependencies are inconsistent".to_owned(),
                });
            }
            let output = plan.evaluate_output(&scope).map_err(|e| RunError::Evaluation {
                step: format!("{prefix}(output)"),
                message: e.to_string(),
            })?;
            self.check_size(&format!("{prefix}(output)"), "flow output", &output)?;
            Ok(output)
        })
    }

    async fn run_step(
        &self,
        step: &PlannedStep,
        position: usize,
        id: String,
        inputs: BTreeMap<String, Bound>,
    ) -> Result<Value, RunError> {
        if let Some(inner) = &step.composite {
            return self.run_composite(step, inner, position, id, inputs).await;
        }
        let started = Instant::now();
        let limit = self.rider.options.max_steps;
        if self.steps_started.fetch_add(1, Ordering::Relaxed) >= limit {
            return Err(RunError::LimitExceeded(format!(
                "the run reached its limit of {limit} steps at step `{id}` (raise max_steps)"
            )));
        }
        let input = Value::Object(
            inputs
                .iter()
                .map(|(slot, bound)| (slot.clone(), bound.to_redacted_json()))
                .collect::<Map<String, Value>>(),
        );
        self.check_size(&id, "input", &input)?;
        let reference = step.reference.to_string();
        let contract_digest = self.contract_digest(step, &reference);
        let input_digest = digest_of(&input);
        let recorded = self.recorded.get(&id);
        if let Some(recorded) = recorded {
            check_position(&id, position, &reference, &contract_digest, &input_digest, recorded)?;
            if let (Some(output), false) = (&recorded.effect, step.is_pure()) {
                self.steps_replayed.fetch_add(1, Ordering::Relaxed);
                self.emit_finished(&id, "replayed", started);
                return Ok(output.clone());
            }
        }
        let prepared = self.prepare(step, &id, &reference)?;
        if let Value::Object(map) = &input {
            prepared
                .compiled
                .check_input(map, &step.secret_slots)
                .map_err(|violations| RunError::InvalidInput {
                    step: id.clone(),
                    violations,
                })?;
        }
        let call = Call {
            step,
            position,
            id: &id,
            reference: &reference,
            contract_digest: &contract_digest,
            input_digest: &input_digest,
            input: &input,
            inputs: &inputs,
            prepared: &prepared,
            started,
        };
        if step.is_pure() {
            self.run_pure(call).await
        } else {
            let attempts_before = recorded.map_or(0, |r| r.attempts);
            self.run_effectful(call, attempts_before).await
        }
    }

    async fn run_pure(&self, call: Call<'_>) -> Result<Value, RunError> {
        let started_ms = now_ms();
        let ctx = self.ctx_for(call.step, call.id, call.inputs)?;
        let result = self.invoke(call.prepared, call.input.clone(), ctx).await;
        let result = match result {
            Ok(output) => self.check_output(&call, output).map_err(|(e, _)| e),
            Err(e) => Err(self.tool_failed(&call, e, 1)),
        };
        let (status, output, error) = match &result {
            Ok(output) => ("succeeded", Some(output.clone()), None),
            Err(RunError::Cancelled { .. }) => ("cancelled", None, Some("cancelled".to_owned())),
            Err(e) => ("failed", None, Some(e.to_string())),
        };
        self.steps_run.fetch_add(1, Ordering::Relaxed);
        self.push_pending(PendingStep {
            step_id: call.id.to_owned(),
            position: call.position as i64,
            tool_ref: call.reference.to_owned(),
            contract_digest: call.contract_digest.to_owned(),
            input_digest: Some(call.input_digest.to_owned()),
            effectful: false,
            status,
            input: Some(call.input.clone()),
            output,
            error,
            attempts: 1,
            started_at_ms: started_ms,
            duration_us: call.started.elapsed().as_micros() as i64,
        });
        self.emit_finished(call.id, status, call.started);
        result
    }

    async fn run_effectful(&self, call: Call<'_>, attempts_before: i64) -> Result<Value, RunError> {
        let rider = self.rider;
        let journal = &rider.journal;
        let policy = RetryPolicy::for_step(call.step.contract.kind(), false, rider.options.backoff);
        let key = idempotency_key(&self.run_id, call.id);
        let start = StepStart {
            step_id: call.id,
            position: call.position as i64,
            tool_ref: call.reference,
            contract_digest: call.contract_digest,
            input_digest: call.input_digest,
            input: call.input,
            idempotency_key: &key,
        };
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let number = attempts_before + i64::from(attempt);
            {
                let mut pending = lock(&self.pending);
                journal.effect_started(&self.run_id, &start, number, self.session, now_ms(), &mut pending)?;
            }
            rider.emit(&RunEvent::StepStarted {
                step_id: call.id.to_owned(),
                tool: call.reference.to_owned(),
                attempt,
            });
            self.crash_point(CrashPoint::BeforeEffect, call.id);
            let attempt_started = Instant::now();
            let ctx = self.ctx_for(call.step, call.id, call.inputs)?;
            let result = match self.invoke(call.prepared, call.input.clone(), ctx).await {
                Ok(output) => self.check_output(&call, output),
                Err(e) => Err((self.tool_failed(&call, e.clone(), attempt), Some(e))),
            };
            let duration_us = attempt_started.elapsed().as_micros() as i64;
            match result {
                Ok(output) => {
                    self.crash_point(CrashPoint::AfterEffect, call.id);
                    let recorded =
                        journal.effect_finished(&self.run_id, &start, number, Ok(&output), "succeeded", duration_us, now_ms())?;
                    self.crash_point(CrashPoint::AfterCommit, call.id);
                    self.steps_run.fetch_add(1, Ordering::Relaxed);
                    self.emit_finished(call.id, "succeeded", call.started);
                    return Ok(recorded.unwrap_or(output));
                }
                Err((run_error, tool_error)) => {
                    let delay = match (&tool_error, self.signal.is_cancelled()) {
                        (Some(e), false) => policy.delay_before(attempt + 1, e),
                        _ => None,
                    };
                    let message = run_error.to_string();
                    let status = match (&run_error, delay) {
                        (RunError::Cancelled { .. }, _) => "cancelled",
                        (_, None) => "failed",
                        (_, Some(_)) => "retrying",
                    };
                    journal.effect_finished(&self.run_id, &start, number, Err(&message), status, duration_us, now_ms())?;
                    let Some(delay) = delay else {
                        self.emit_finished(call.id, status, call.started);
                        return Err(run_error);
                    };
                    self.emit_finished(call.id, "retrying", attempt_started);
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {}
                        _ = self.signal.cancelled() => {
                            return Err(RunError::Cancelled { step: Some(call.id.to_owned()) });
                        }
                    }
                }
            }
        }
    }

    async fn run_composite(
        &self,
        step: &PlannedStep,
        inner: &Plan,
        position: usize,
        id: String,
        inputs: BTreeMap<String, Bound>,
    ) -> Result<Value, RunError> {
        let started = Instant::now();
        let started_ms = now_ms();
        let scope = inner.start_scope(inputs.clone()).map_err(|e| RunError::Evaluation {
            step: id.clone(),
            message: e.to_string(),
        })?;
        let prefix = format!("{id}/");
        let output = self.run_plan(inner, scope, &prefix).await?;
        let compiled = CompiledSchema::new(step.contract.output()).map_err(|p| RunError::Registry {
            step: id.clone(),
            message: p.to_string(),
        })?;
        compiled.validate(&output).map_err(|errors| RunError::InvalidOutput {
            step: id.clone(),
            tool: step.reference.to_string(),
            violations: errors
                .into_iter()
                .map(|e| Violation {
                    slot: None,
                    pointer: e.pointer,
                    message: e.message,
                })
                .collect(),
        })?;
        let input: Map<String, Value> = inputs
            .iter()
            .map(|(k, b)| (k.clone(), b.to_redacted_json()))
            .collect();
        let input = Value::Object(input);
        self.push_pending(PendingStep {
            step_id: id.clone(),
            position: position as i64,
            tool_ref: step.reference.to_string(),
            contract_digest: step.contract.contract_digest().to_string(),
            input_digest: Some(digest_of(&input)),
            effectful: !step.is_pure(),
            status: "succeeded",
            input: Some(input),
            output: Some(output.clone()),
            error: None,
            attempts: 1,
            started_at_ms: started_ms,
            duration_us: started.elapsed().as_micros() as i64,
        });
        self.emit_finished(&id, "succeeded", started);
        Ok(output)
    }

    /// The tool's future, raced against cancellation.
    async fn invoke(&self, prepared: &Prepared, input: Value, ctx: ToolCtx) -> Result<Value, ToolError> {
        if self.signal.is_cancelled() {
            return Err(ToolError::cancelled());
        }
        tokio::select! {
            result = prepared.tool.run(input, ctx) => result,
            _ = self.signal.cancelled() => Err(ToolError::cancelled()),
        }
    }

    fn check_output(&self, call: &Call<'_>, output: Value) -> Result<Value, (RunError, Option<ToolError>)> {
        call.prepared.compiled.check_output(&output).map_err(|violations| {
            let violations = violations
                .into_iter()
                .map(|mut v| {
                    v.message = self.rider.redactor().redact_string(&v.message);
                    v
                })
                .collect();
            (
                RunError::InvalidOutput {
                    step: call.id.to_owned(),
                    tool: call.reference.to_owned(),
                    violations,
                },
                None,
            )
        })?;
        self.check_size(call.id, "output", &output).map_err(|e| (e, None))?;
        Ok(output)
    }

    fn tool_failed(&self, call: &Call<'_>, error: ToolError, attempts: u32) -> RunError {
        if error.class == ErrorClass::Cancelled || self.signal.is_cancelled() {
            return RunError::Cancelled {
                step: Some(call.id.to_owned()),
            };
        }
        RunError::ToolFailed {
            step: call.id.to_owned(),
            tool: call.reference.to_owned(),
            class: error.class,
            attempts,
            message: self.rider.redactor().redact_string(&error.message),
        }
    }

    /// The context of one step: exactly the capabilities it declares.
    fn ctx_for(&self, step: &PlannedStep, id: &str, inputs: &BTreeMap<String, Bound>) -> Result<ToolCtx, RunError> {
        let rider = self.rider;
        let redactor = rider.redactor().clone();
        let mut builder = ToolCtx::builder_with(&self.run_id, id, redactor.clone())
            .clock(self.clock)
            .env(self.env.clone())
            .signal(self.signal.clone())
            .logger(Logger::new(&self.run_id, id, redactor.clone()));
        let unavailable = |capability, hint| RunError::CapabilityUnavailable {
            step: id.to_owned(),
            capability,
            hint,
        };
        for capability in &step.effective_capabilities {
            builder = match capability {
                Capability::Net => builder.net(rider.net.clone()),
                Capability::Fs => builder.fs(
                    rider
                        .fs
                        .clone()
                        .ok_or_else(|| unavailable(Capability::Fs, "set RiderOptions::fs_root to the directory tools may use"))?,
                ),
                Capability::Browser => builder.browser(
                    rider
                        .options
                        .browser
                        .clone()
                        .ok_or_else(|| unavailable(Capability::Browser, "give the Rider a browser (RiderOptions::browser)"))?,
                ),
                Capability::Model => builder.model(
                    rider
                        .options
                        .model
                        .clone()
                        .ok_or_else(|| unavailable(Capability::Model, "give the Rider a model (RiderOptions::model)"))?,
                ),
                Capability::Spawn => builder.spawn(SpawnCap::new(
                    rider.options.spawn_allow.iter().cloned(),
                    self.signal.clone(),
                )),
                Capability::Secrets => {
                    let names: BTreeSet<String> = inputs
                        .values()
                        .filter_map(|b| match b {
                            Bound::Secret(t) => Some(t.secret_names()),
                            Bound::Value(_) => None,
                        })
                        .flatten()
                        .map(str::to_owned)
                        .collect();
                    builder.secrets(SecretsCap::new(rider.secrets.clone(), redactor.clone(), Some(names)))
                }
            };
        }
        Ok(builder.build())
    }

    /// The run's instance of the step's tool, checked against the plan.
    fn prepare(&self, step: &PlannedStep, id: &str, reference: &str) -> Result<Arc<Prepared>, RunError> {
        let mut tools = lock(&self.tools);
        if let Some(prepared) = tools.get(reference) {
            if prepared.tool.contract() == &step.contract {
                return Ok(prepared.clone());
            }
        }
        let entry = self.rider.registry.entry(reference).ok_or_else(|| RunError::UnknownTool {
            step: id.to_owned(),
            tool: reference.to_owned(),
        })?;
        if entry.contract != step.contract {
            return Err(RunError::ContractMismatch {
                step: id.to_owned(),
                tool: reference.to_owned(),
                registered: entry.digest.to_string(),
                planned: step.contract.contract_digest().to_string(),
            });
        }
        let tool = registry::make(entry, reference).map_err(|e| RunError::Registry {
            step: id.to_owned(),
            message: e.to_string(),
        })?;
        let prepared = Arc::new(Prepared {
            tool,
            compiled: entry.compiled.clone(),
        });
        tools.insert(reference.to_owned(), prepared.clone());
        Ok(prepared)
    }

    fn contract_digest(&self, step: &PlannedStep, reference: &str) -> String {
        let mut digests = lock(&self.digests);
        if let Some(d) = digests.get(reference) {
            return d.clone();
        }
        let digest = step.contract.contract_digest().to_string();
        digests.insert(reference.to_owned(), digest.clone());
        digest
    }

    fn record_skip(&self, step: &PlannedStep, position: usize, id: &str) {
        self.push_pending(PendingStep {
            step_id: id.to_owned(),
            position: position as i64,
            tool_ref: step.reference.to_string(),
            contract_digest: step.contract.contract_digest().to_string(),
            input_digest: None,
            effectful: !step.is_pure(),
            status: "skipped",
            input: None,
            output: None,
            error: None,
            attempts: 0,
            started_at_ms: now_ms(),
            duration_us: 0,
        });
        self.rider.emit(&RunEvent::StepFinished {
            step_id: id.to_owned(),
            status: "skipped",
            duration_ms: 0.0,
        });
    }

    fn push_pending(&self, step: PendingStep) {
        lock(&self.pending).push(step);
    }

    fn check_size(&self, id: &str, what: &str, value: &Value) -> Result<(), RunError> {
        let limit = self.rider.options.max_payload_bytes;
        let mut counter = ByteCounter(0);
        // Writing to a counter cannot fail.
        let _ = serde_json::to_writer(&mut counter, value);
        if counter.0 > limit {
            return Err(RunError::LimitExceeded(format!(
                "step `{id}`: the {what} is {} bytes of JSON, over the limit of {limit} bytes (raise max_payload_bytes)",
                counter.0
            )));
        }
        Ok(())
    }

    fn crash_point(&self, point: CrashPoint, id: &str) {
        if let Some(hook) = &self.rider.options.crash_hook {
            hook(point, id);
        }
    }

    fn emit_finished(&self, id: &str, status: &'static str, started: Instant) {
        self.rider.emit(&RunEvent::StepFinished {
            step_id: id.to_owned(),
            status,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        });
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

fn check_position(
    id: &str,
    position: usize,
    reference: &str,
    contract_digest: &str,
    input_digest: &str,
    recorded: &RecordedStep,
) -> Result<(), RunError> {
    let diverged = |what, recorded: String, current: String| {
        Err(RunError::Divergence {
            step: id.to_owned(),
            what,
            recorded,
            current,
        })
    };
    if recorded.tool_ref != reference {
        return diverged("tool", recorded.tool_ref.clone(), reference.to_owned());
    }
    if recorded.contract_digest != contract_digest {
        return diverged("contract digest", recorded.contract_digest.clone(), contract_digest.to_owned());
    }
    if recorded.input_digest.as_deref().is_some_and(|d| d != input_digest) {
        return diverged(
            "input digest",
            recorded.input_digest.clone().unwrap_or_default(),
            input_digest.to_owned(),
        );
    }
    if recorded.position != position as i64 {
        return diverged("position", recorded.position.to_string(), position.to_string());
    }
    Ok(())
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
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
