//! What a step needs around it: its context, its tool, its journal rows, its limits.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Instant;

use browserflow_contract::Capability;
use browserflow_flow::{Bound, PlannedStep};
use serde_json::Value;

use crate::caps::secrets::SecretsCap;
use crate::caps::spawn::SpawnCap;
use crate::crash::CrashPoint;
use crate::ctx::ToolCtx;
use crate::error::RunError;
use crate::events::RunEvent;
use crate::journal::{PendingStep, RecordedStep};
use crate::registry;
use crate::rider::now_ms;

use super::{Prepared, RunState, lock};

impl RunState<'_> {
    /// The context of one step: exactly the capabilities it declares.
    pub(super) fn ctx_for(
        &self,
        step: &PlannedStep,
        id: &str,
        inputs: &BTreeMap<String, Bound>,
    ) -> Result<ToolCtx, RunError> {
        let rider = self.rider;
        let redactor = rider.redactor().clone();
        let mut builder = ToolCtx::builder_with(&self.run_id, id, redactor.clone())
            .clock(self.clock)
            .env(self.env.clone())
            .signal(self.signal.clone());
        if let Some(root) = &rider.options.runs_folder {
            let reference = step.reference.to_string();
            builder = builder.call_folder(crate::artifacts::call_folder(
                root,
                &self.run_id,
                id,
                &reference,
            ));
        }
        let unavailable = |capability, hint| RunError::CapabilityUnavailable {
            step: id.to_owned(),
            capability,
            hint,
        };
        for capability in &step.effective_capabilities {
            builder = match capability {
                Capability::Net => builder.net(rider.net.clone()),
                Capability::Fs => builder.fs(rider.fs.clone().ok_or_else(|| {
                    unavailable(
                        Capability::Fs,
                        "set RiderOptions::fs_root to the directory tools may use",
                    )
                })?),
                Capability::Browser => {
                    builder.browser(rider.options.browser.clone().ok_or_else(|| {
                        unavailable(
                            Capability::Browser,
                            "give the Rider a browser (RiderOptions::browser)",
                        )
                    })?)
                }
                Capability::Model => {
                    builder.model(rider.options.model.clone().ok_or_else(|| {
                        unavailable(
                            Capability::Model,
                            "give the Rider a model (RiderOptions::model)",
                        )
                    })?)
                }
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
                    builder.secrets(SecretsCap::new(
                        rider.secrets.clone(),
                        redactor.clone(),
                        Some(names),
                    ))
                }
            };
        }
        Ok(builder.build())
    }

    /// The run's instance of the step's tool, checked against the plan.
    pub(super) fn prepare(
        &self,
        step: &PlannedStep,
        id: &str,
        reference: &str,
    ) -> Result<Arc<Prepared>, RunError> {
        let mut tools = lock(&self.tools);
        // Within one plan a reference always carries the same contract (the compiler resolved
        // it once), so the first check of a reference holds for every later step using it.
        if let Some(prepared) = tools.get(reference) {
            return Ok(prepared.clone());
        }
        let entry = self
            .rider
            .registry
            .entry(reference)
            .ok_or_else(|| RunError::UnknownTool {
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

    pub(super) fn contract_digest(&self, step: &PlannedStep, reference: &str) -> String {
        let mut digests = lock(&self.digests);
        if let Some(d) = digests.get(reference) {
            return d.clone();
        }
        let digest = step.contract.contract_digest().to_string();
        digests.insert(reference.to_owned(), digest.clone());
        digest
    }

    pub(super) fn record_skip(&self, step: &PlannedStep, position: usize, id: &str) {
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
            warnings: Vec::new(),
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

    pub(super) fn push_pending(&self, step: PendingStep) {
        lock(&self.pending).push(step);
    }

    pub(super) fn check_size(&self, id: &str, what: &str, value: &Value) -> Result<(), RunError> {
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

    pub(super) fn crash_point(&self, point: CrashPoint, id: &str) {
        if let Some(hook) = &self.rider.options.crash_hook {
            hook(point, id);
        }
    }

    pub(super) fn emit_finished(&self, id: &str, status: &'static str, started: Instant) {
        self.rider.emit(&RunEvent::StepFinished {
            step_id: id.to_owned(),
            status,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        });
    }
}

pub(super) fn check_position(
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
        return diverged(
            "contract digest",
            recorded.contract_digest.clone(),
            contract_digest.to_owned(),
        );
    }
    if recorded
        .input_digest
        .as_deref()
        .is_some_and(|d| d != input_digest)
    {
        return diverged(
            "input digest",
            recorded.input_digest.clone().unwrap_or_default(),
            input_digest.to_owned(),
        );
    }
    if recorded.position != position as i64 {
        return diverged(
            "position",
            recorded.position.to_string(),
            position.to_string(),
        );
    }
    Ok(())
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
