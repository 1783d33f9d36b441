//! A `for_each` step: one call of its tool per item, each journaled under its own step key.
//!
//! Item `k` of step `ID` runs as the step `ID[k]` (inside a composite, `outer/ID[k]`): its
//! row, its attempts, its effect and its idempotency key are those of a step of that id, at
//! the `for_each` step's position. So an item's effect is recorded once and replayed on
//! resume exactly as a step's is, with no journal table of its own; an item whose input
//! changed since it was recorded is a divergence, as a step's is. The step itself gets a row
//! (its collected output) once every item has finished.

use std::collections::BTreeMap;
use std::time::Instant;

use browserflow_flow::{Bound, ItemErrorKind, OnItemError, PlannedStep, Scope, output_entry};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::Value;

use crate::error::RunError;
use crate::journal::PendingStep;
use crate::rider::now_ms;

use super::RunState;

/// What each item's call is given: its inputs, or why they could not be evaluated.
pub(super) type ItemInputs = Vec<Result<BTreeMap<String, Bound>, RunError>>;

/// The step key of item `index` of the step whose key is `id`.
pub(crate) fn item_key(id: &str, index: usize) -> String {
    format!("{id}[{index}]")
}

/// The key of the plan step a recorded step key belongs to: `a[3]/b[0]` → `a/b`. Step ids
/// never hold `[`, so only item keys are changed.
pub(crate) fn plan_step_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut in_index = false;
    for c in key.chars() {
        match c {
            '[' => in_index = true,
            ']' if in_index => in_index = false,
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

/// Evaluates every item's inputs now, while the scope is at hand.
pub(super) fn evaluate_items(
    step: &PlannedStep,
    id: &str,
    scope: &mut Scope,
) -> Result<ItemInputs, RunError> {
    let eval = |key: String| {
        move |e: browserflow_flow::EvalError| RunError::Evaluation {
            step: key,
            message: e.to_string(),
        }
    };
    let items = step
        .for_each_items(scope)
        .map_err(eval(id.to_owned()))?
        .unwrap_or_default();
    let mut inputs = Vec::with_capacity(items.len());
    for (k, item) in items.into_iter().enumerate() {
        scope.set_item(Some(item));
        inputs.push(step.evaluate_inputs(scope).map_err(eval(item_key(id, k))));
    }
    scope.set_item(None);
    Ok(inputs)
}

/// The kind of an item's failure that `on_item_error: collect` may keep as an entry; `None`
/// for failures of the run itself (cancelled, the journal, a limit, a lost lease…), which
/// always stop the step.
fn collectable(error: &RunError) -> Option<ItemErrorKind> {
    match error {
        RunError::ToolFailed { .. } => Some(ItemErrorKind::ToolFailed),
        RunError::InvalidInput { .. } => Some(ItemErrorKind::InvalidInput),
        RunError::InvalidOutput { .. } => Some(ItemErrorKind::InvalidOutput),
        RunError::Evaluation { .. } => Some(ItemErrorKind::Evaluation),
        _ => None,
    }
}

impl RunState<'_> {
    /// Runs the items of `step` (`concurrency` at once, launched in item order) and collects
    /// their outputs in item order.
    pub(super) async fn run_for_each(
        &self,
        step: &PlannedStep,
        position: usize,
        id: String,
        items: ItemInputs,
    ) -> Result<Value, RunError> {
        let started = Instant::now();
        let started_ms = now_ms();
        let (concurrency, on_item_error) =
            step.for_each.as_ref().map_or((1, OnItemError::Fail), |f| {
                (f.concurrency.max(1) as usize, f.on_item_error)
            });
        let count = items.len();
        let mut results: Vec<Option<Result<Value, RunError>>> =
            std::iter::repeat_with(|| None).take(count).collect();
        let mut waiting = items.into_iter().enumerate();
        let mut running = FuturesUnordered::new();
        // Once an item fails a step that does not collect errors, no further item starts;
        // the running ones finish, so their outcomes are recorded.
        let mut stop = false;
        let stops = |result: &Result<Value, RunError>| match result {
            Ok(_) => false,
            Err(e) => on_item_error == OnItemError::Fail || collectable(e).is_none(),
        };
        loop {
            while !stop && running.len() < concurrency {
                let Some((k, inputs)) = waiting.next() else {
                    break;
                };
                if self.signal.is_cancelled() {
                    results[k] = Some(Err(RunError::Cancelled {
                        step: Some(id.clone()),
                    }));
                    stop = true;
                    break;
                }
                match inputs {
                    Ok(inputs) => {
                        let key = item_key(&id, k);
                        running.push(async move {
                            (k, self.run_step(step, position, key, inputs).await)
                        });
                    }
                    Err(e) => {
                        let result = Err(e);
                        stop |= stops(&result);
                        results[k] = Some(result);
                    }
                }
            }
            let Some((k, result)) = running.next().await else {
                break;
            };
            stop |= stops(&result);
            results[k] = Some(result);
        }
        let mut collected = Vec::with_capacity(count);
        for result in results {
            let Some(result) = result else {
                // Never started: an earlier item stopped the step.
                continue;
            };
            match (result, on_item_error) {
                (Ok(output), OnItemError::Fail) => collected.push(output),
                (Ok(output), OnItemError::Collect) => collected.push(output_entry(output)),
                (Err(e), OnItemError::Collect) if collectable(&e).is_some() => {
                    let kind = collectable(&e).unwrap_or(ItemErrorKind::ToolFailed);
                    collected.push(kind.entry(&e.to_string()));
                }
                (Err(e), _) => return Err(e),
            }
        }
        if collected.len() != count {
            return Err(RunError::Evaluation {
                step: id,
                message: format!(
                    "{} of {count} items have an outcome: the step stopped without saying why",
                    collected.len()
                ),
            });
        }
        let output = Value::Array(collected);
        self.check_size(&id, "collected output", &output)?;
        self.push_pending(PendingStep {
            step_id: id.clone(),
            position: position as i64,
            tool_ref: step.reference.to_string(),
            contract_digest: step.contract.contract_digest().to_string(),
            input_digest: None,
            effectful: !step.is_pure(),
            status: "succeeded",
            input: None,
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_keys_belong_to_their_plan_step() {
        assert_eq!(item_key("notify", 3), "notify[3]");
        assert_eq!(plan_step_key("notify[3]"), "notify");
        assert_eq!(
            plan_step_key("outer/notify[12]/inner[0]"),
            "outer/notify/inner"
        );
        assert_eq!(plan_step_key("plain-step"), "plain-step");
    }
}
