//! Post-state checks (browserflow-steps' `StateCheck`): after a step's action, the replayer
//! waits until the page shows what the recorded step did, or fails the step naming the expected
//! and the actual state. This is what makes a replay that did something else (another option,
//! the slider moved by another amount, a click that reached nothing) fail at that step instead
//! of returning an output made by a different interaction.
//!
//! Cost: the element's states before the action are read by the resolver in the evaluation
//! that finds the element (`watch` in its request); after the action one evaluation waits for
//! every check. A step without checks costs nothing more. A step that navigated has its
//! navigation checked instead: its element's document is gone.

use std::sync::Mutex;

use browserflow_cdp::injected::RESOLVE_JS;
use browserflow_cdp::page::{EvalError, ExecContext, Page};
use browserflow_steps::StateCheck;
use serde::Deserialize;

use crate::failure::{Failure, FailureKind};
use crate::js;
use crate::run::Run;

/// Whether the step running has checks, and where its element was watched.
#[derive(Debug, Default)]
pub(crate) struct Watch {
    /// The next element found is the step's: snapshot it.
    pending: bool,
    /// The isolated world the step's element was found (and watched) in.
    world: Option<ExecContext>,
}

impl Watch {
    /// A new step starts: watch its element when it has checks.
    pub(crate) fn begin(slot: &Mutex<Watch>, has_checks: bool) {
        if let Ok(mut watch) = slot.lock() {
            *watch = Watch {
                pending: has_checks,
                world: None,
            };
        }
    }

    /// Whether the element being found now is to be watched (the first one of the step).
    pub(crate) fn wanted(slot: &Mutex<Watch>) -> bool {
        slot.lock().map(|w| w.pending).unwrap_or(false)
    }

    /// The step's element was found and watched in `world`.
    pub(crate) fn watched(slot: &Mutex<Watch>, world: ExecContext) {
        if let Ok(mut watch) = slot.lock()
            && watch.pending
        {
            watch.pending = false;
            watch.world = Some(world);
        }
    }

    fn world(slot: &Mutex<Watch>) -> Option<ExecContext> {
        slot.lock().ok().and_then(|w| w.world.clone())
    }
}

#[derive(Deserialize)]
struct CheckAnswer {
    ok: bool,
    #[serde(default)]
    missing: bool,
    #[serde(default)]
    actual: Vec<Option<String>>,
}

impl Run<'_> {
    /// Before a key press with checks and no element of its own: the focused element is the
    /// one watched.
    pub(crate) async fn watch_focused(&self, page: &Page) -> Result<(), Failure> {
        let (world, _) = page
            .utility_world(page.target_id())
            .await
            .map_err(|e| Failure::eval(FailureKind::Browser, &e, format!("{e}")))?;
        // The resolver (and its states) may not be installed in this document yet.
        let expression = format!(
            "(typeof globalThis.__browserflowResolve === 'function' \
             || (globalThis.__browserflowResolve = ({RESOLVE_JS})), {})",
            js::WATCH_FOCUSED.trim_end()
        );
        page.evaluate(&world, &expression, false)
            .await
            .map_err(|e| Failure::eval(FailureKind::Browser, &e, format!("{e}")))?;
        Watch::watched(&self.watch, world);
        Ok(())
    }

    /// Waits until every check of the step holds, within `budget`.
    pub(crate) async fn check_post_state(
        &self,
        page: &Page,
        checks: &[StateCheck],
        timeout_ms: Option<u64>,
    ) -> Result<(), Failure> {
        let Some(world) = Watch::world(&self.watch) else {
            return Err(Failure::new(
                FailureKind::StateMismatch,
                "the step's element was not watched before its action, so what it did cannot be \
                 checked",
            ));
        };
        let budget = self.budget(timeout_ms);
        let checks_json = serde_json::to_string(checks).map_err(|e| {
            Failure::new(FailureKind::InvalidStep, format!("unsendable checks: {e}"))
        })?;
        let expression = js::call(
            js::CHECK_STATE,
            &[&checks_json, &budget.as_millis().to_string()],
        );
        let answer = match page.evaluate(&world, &expression, true).await {
            Ok(answer) => answer,
            // The action replaced the element's document (a frame or same-tab navigation the
            // recording did not have): what comes next finds out whether it is the right page.
            Err(EvalError::Navigated) => {
                tracing::debug!("the step's document was replaced; its post-state is not checked");
                return Ok(());
            }
            Err(e) => {
                return Err(Failure::eval(
                    FailureKind::Browser,
                    &e,
                    format!("checking what the step did failed: {e}"),
                ));
            }
        };
        let answer: CheckAnswer = serde_json::from_value(answer).map_err(|e| {
            Failure::new(
                FailureKind::Browser,
                format!("unexpected answer from the post-state check: {e}"),
            )
        })?;
        if answer.ok {
            return Ok(());
        }
        if answer.missing {
            return Err(Failure::new(
                FailureKind::StateMismatch,
                "the page's resolver is gone, so what the step did cannot be checked",
            ));
        }
        Err(Failure::new(
            FailureKind::StateMismatch,
            mismatch_message(checks, &answer.actual, budget.as_millis()),
        ))
    }
}

/// `the step did not do what it did when recorded (waited 5000 ms):` and one line per check
/// that did not hold, expected then actual.
fn mismatch_message(checks: &[StateCheck], actual: &[Option<String>], waited_ms: u128) -> String {
    let mut message =
        format!("the step did not do what it did when recorded (waited {waited_ms} ms):");
    for (check, found) in checks.iter().zip(actual) {
        if let Some(found) = found {
            message.push_str(&format!(
                "\n  expected {}; actual: {found}",
                check.describe()
            ));
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use browserflow_steps::CheckedState;

    #[test]
    fn the_message_names_each_check_that_failed_with_what_was_found() {
        let checks = [
            StateCheck::equals(CheckedState::AriaValuenow, "116"),
            StateCheck::changes(CheckedState::Page),
        ];
        let message = mismatch_message(&checks, &[Some("\"332\"".into()), None], 5000);
        assert_eq!(
            message,
            "the step did not do what it did when recorded (waited 5000 ms):\n  expected \
             aria-valuenow is \"116\"; actual: \"332\""
        );
    }
}
