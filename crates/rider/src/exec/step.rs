//! Executing one step: pure, effectful (journaled, retried), or composite.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use browserflow_contract::CompiledSchema;
use browserflow_flow::{Bound, Plan, PlannedStep};
use serde_json::{Map, Value};

use crate::crash::CrashPoint;
use crate::ctx::{ToolCtx, idempotency_key};
use crate::error::RunError;
use crate::events::RunEvent;
use crate::journal::{Attempt, AttemptOutcome, EffectStart, PendingStep, StepStart};
use crate::retry::RetryPolicy;
use crate::rider::now_ms;
use crate::tool::{ErrorClass, ToolError};
use crate::validate::Violation;

use super::setup::check_position;
use super::{Call, Prepared, RunState, digest_of, lock};

impl RunState<'_> {
    pub(super) async fn run_step(
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
            check_position(
                &id,
                position,
                &reference,
                &contract_digest,
                &input_digest,
                recorded,
            )?;
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

    pub(super) async fn run_pure(&self, call: Call<'_>) -> Result<Value, RunError> {
        let started_ms = now_ms();
        let ctx = self.ctx_for(call.step, call.id, call.inputs)?;
        let result = self.invoke(call.prepared, call.input.clone(), ctx).await;
        let mut warnings = Vec::new();
        let result = match result {
            Ok(invoked) => {
                warnings = invoked.warnings;
                self.check_output(&call, invoked.value)
            }
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
            warnings,
            attempts: 1,
            started_at_ms: started_ms,
            duration_us: call.started.elapsed().as_micros() as i64,
        });
        self.emit_finished(call.id, status, call.started);
        result
    }

    pub(super) async fn run_effectful(
        &self,
        call: Call<'_>,
        attempts_before: i64,
    ) -> Result<Value, RunError> {
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
        let budget = call
            .step
            .timeout_ms
            .map_or(rider.options.step_budget, std::time::Duration::from_millis);
        // All attempts of this session share the budget, backoff included: a hanging tool
        // fails once in `budget`, not once per attempt.
        let deadline = Instant::now() + budget;
        // The tool is asked to stop a little before the budget ends, so that its own error
        // (saying where it was) arrives before the attempt is cut.
        let headroom = (budget / 10).min(std::time::Duration::from_secs(1));
        let tool_deadline = deadline.checked_sub(headroom).unwrap_or(deadline);
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let number = attempts_before + i64::from(attempt);
            let record = Attempt {
                run_id: &self.run_id,
                fence: &self.fence,
                step: &start,
                number,
                session: self.session,
            };
            let started = {
                let mut pending = lock(&self.pending);
                journal.effect_started(&record, now_ms(), &mut pending)?
            };
            if let EffectStart::Recorded(output) = started {
                // Recorded since this session read the run: never attempted again.
                self.steps_replayed.fetch_add(1, Ordering::Relaxed);
                self.emit_finished(call.id, "replayed", call.started);
                return Ok(output);
            }
            rider.emit(&RunEvent::StepStarted {
                step_id: call.id.to_owned(),
                tool: call.reference.to_owned(),
                attempt,
            });
            self.crash_point(CrashPoint::BeforeEffect, call.id);
            // The last check before the effect: a session deposed since its intent was
            // committed (stopped, then taken over) starts nothing.
            journal.check_fence(&self.run_id, &self.fence)?;
            let attempt_started = Instant::now();
            let mut ctx = self.ctx_for(call.step, call.id, call.inputs)?;
            ctx.deadline = Some(tool_deadline);
            let remaining = deadline.saturating_duration_since(Instant::now());
            let attempted = tokio::time::timeout(
                remaining,
                self.invoke(call.prepared, call.input.clone(), ctx),
            )
            .await;
            let out_of_time = attempted.is_err();
            // An attempt still running when the budget ends is stopped (its future dropped).
            let invoked = attempted.unwrap_or_else(|_| {
                Err(ToolError::transient(format!(
                    "stopped: the step's time budget of {} (all attempts together) ran out \
                     during attempt {attempt}",
                    seconds(budget)
                )))
            });
            let result = match invoked {
                Ok(Invoked { value, warnings }) => self
                    .check_output(&call, value)
                    .map(|output| (output, warnings))
                    .map_err(|e| (e, None)),
                Err(e) => Err((self.tool_failed(&call, e.clone(), attempt), Some(e))),
            };
            let duration_us = attempt_started.elapsed().as_micros() as i64;
            match result {
                Ok((output, warnings)) => {
                    self.crash_point(CrashPoint::AfterEffect, call.id);
                    let recorded = journal.effect_finished(
                        &record,
                        AttemptOutcome::Succeeded {
                            output: &output,
                            warnings: &warnings,
                        },
                        duration_us,
                        now_ms(),
                    )?;
                    self.crash_point(CrashPoint::AfterCommit, call.id);
                    self.steps_run.fetch_add(1, Ordering::Relaxed);
                    self.emit_finished(call.id, "succeeded", call.started);
                    return Ok(recorded.unwrap_or(output));
                }
                Err((mut run_error, tool_error)) => {
                    let mut delay = match (&tool_error, self.signal.is_cancelled()) {
                        (Some(e), false) => policy.delay_before(attempt + 1, e),
                        _ => None,
                    };
                    // No retry that would start after the tool's share of the budget ends;
                    // a failure then says which budget it met (the tool cannot know it).
                    let now = Instant::now();
                    let spent = now + delay.unwrap_or_default() >= tool_deadline;
                    if let (true, Some(e)) = (spent, &tool_error) {
                        delay = None;
                        if !out_of_time {
                            let noted = ToolError {
                                class: e.class,
                                artifacts: e.artifacts.clone(),
                                message: format!(
                                    "{}; the step's time budget of {} (all attempts together) \
                                     is used up",
                                    e.message,
                                    seconds(budget)
                                ),
                            };
                            run_error = self.tool_failed(&call, noted, attempt);
                        }
                    }
                    let message = run_error.to_string();
                    let status = match (&run_error, delay) {
                        (RunError::Cancelled { .. }, _) => "cancelled",
                        (_, None) => "failed",
                        (_, Some(_)) => "retrying",
                    };
                    journal.effect_finished(
                        &record,
                        AttemptOutcome::Failed {
                            status,
                            message: &message,
                        },
                        duration_us,
                        now_ms(),
                    )?;
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

    pub(super) async fn run_composite(
        &self,
        step: &PlannedStep,
        inner: &Plan,
        position: usize,
        id: String,
        inputs: BTreeMap<String, Bound>,
    ) -> Result<Value, RunError> {
        let started = Instant::now();
        let started_ms = now_ms();
        let scope = inner
            .start_scope(inputs.clone())
            .map_err(|e| RunError::Evaluation {
                step: id.clone(),
                message: e.to_string(),
            })?;
        let prefix = format!("{id}/");
        let output = self.run_plan(inner, scope, &prefix).await?;
        let compiled =
            CompiledSchema::new(step.contract.output()).map_err(|p| RunError::Registry {
                step: id.clone(),
                message: p.to_string(),
            })?;
        compiled
            .validate(&output)
            .map_err(|errors| RunError::InvalidOutput {
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
            warnings: Vec::new(),
            attempts: 1,
            started_at_ms: started_ms,
            duration_us: started.elapsed().as_micros() as i64,
        });
        self.emit_finished(&id, "succeeded", started);
        Ok(output)
    }

    /// The tool's future, raced against cancellation.
    pub(super) async fn invoke(
        &self,
        prepared: &Prepared,
        input: Value,
        ctx: ToolCtx,
    ) -> Result<Invoked, ToolError> {
        if self.signal.is_cancelled() {
            return Err(ToolError::cancelled());
        }
        let step_id = ctx.step_id().to_owned();
        let result = tokio::select! {
            result = prepared.tool.call(input, ctx) => result,
            _ = self.signal.cancelled() => Err(ToolError::cancelled()),
        };
        // The last attempt's artifacts are the step's: they show the outcome that counted.
        let artifacts = match &result {
            Ok(output) => Some(output.artifacts.clone()),
            Err(error) => error.artifacts.as_deref().cloned(),
        };
        if let Some(artifacts) = artifacts.filter(|a| !a.is_empty()) {
            lock(&self.artifacts).insert(step_id, artifacts);
        }
        result.map(|output| Invoked {
            value: output.value,
            warnings: output
                .warnings
                .iter()
                .map(|w| self.rider.redactor().redact_string(w))
                .collect(),
        })
    }

    pub(super) fn check_output(&self, call: &Call<'_>, output: Value) -> Result<Value, RunError> {
        call.prepared
            .compiled
            .check_output(&output)
            .map_err(|violations| {
                let violations = violations
                    .into_iter()
                    .map(|mut v| {
                        v.message = self.rider.redactor().redact_string(&v.message);
                        v
                    })
                    .collect();
                RunError::InvalidOutput {
                    step: call.id.to_owned(),
                    tool: call.reference.to_owned(),
                    violations,
                }
            })?;
        self.check_size(call.id, "output", &output)?;
        Ok(output)
    }

    pub(super) fn tool_failed(&self, call: &Call<'_>, error: ToolError, attempts: u32) -> RunError {
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
}

/// `d` for people: whole seconds as `30 s`, otherwise milliseconds.
fn seconds(d: std::time::Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// What a tool call gave back to the Rider: its value (not yet checked against the contract)
/// and its warnings, redacted.
pub(super) struct Invoked {
    pub(super) value: Value,
    pub(super) warnings: Vec<String>,
}
