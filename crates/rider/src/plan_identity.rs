//! A plan's identity, step by step: recorded when a run starts, compared with the whole
//! current plan when it resumes, before any step runs.
//!
//! A step's identity is its id, its tool ref, its contract digest (the pin), the digest of
//! each slot's binding, its `when` and its position. Positions are those of the flattened
//! plan: each step, then (for a composite) its inner steps as `outer/inner`, in plan order.
//!
//! The rule: every step at or before the *last recorded position* (the furthest step the
//! journal holds a row for) must be identical. Those steps produced the recorded effects and
//! decided which steps ran; a different step there would mean the journal answers for a
//! flow that is not the one running (an inserted first step would post before the resume
//! noticed; a `when` turned false would report a recorded effect as skipped). Steps after
//! that position have never run, so they may differ: they run as the flow now says.

use std::collections::{BTreeMap, HashMap};

use browserflow_flow::Plan;
use serde_json::Value;

use crate::exec::digest_of;

/// The pseudo-slot of a step's identity that holds its `for_each` (a slot name is an
/// identifier, so it cannot collide).
const FOR_EACH_SLOT: &str = "(for_each)";

/// One step's identity, as a journal records it when a run starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepIdentity {
    /// Its position in the plan.
    pub position: usize,
    /// The step id.
    pub step_id: String,
    /// Its tool, `name@version`.
    pub tool_ref: String,
    /// Its tool's contract digest.
    pub contract_digest: String,
    /// Slot → digest of its binding (a digest, so literal values never reach the journal).
    pub bindings: BTreeMap<String, String>,
    /// Digest of the `when` condition, and its text for messages.
    pub when: Option<(String, String)>,
}

/// What differs between the recorded plan and the current one, at one step.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlanChange {
    /// A step the run did not have.
    Inserted {
        /// The new step.
        step: String,
        /// Its position now.
        position: usize,
    },
    /// A recorded step the flow no longer has.
    Removed {
        /// The step.
        step: String,
        /// Its recorded position.
        position: usize,
    },
    /// A step with a new id in the place of one the flow no longer has.
    Renamed {
        /// The recorded id.
        from: String,
        /// The id now.
        to: String,
        /// The position.
        position: usize,
    },
    /// A step at another position.
    Moved {
        /// The step.
        step: String,
        /// Its recorded position.
        recorded: usize,
        /// Its position now.
        current: usize,
    },
    /// Another tool (or tool version).
    Tool {
        /// The step.
        step: String,
        /// The recorded ref.
        recorded: String,
        /// The ref now.
        current: String,
    },
    /// Another contract digest (the pin changed).
    Pin {
        /// The step.
        step: String,
        /// The recorded digest.
        recorded: String,
        /// The digest now.
        current: String,
    },
    /// Slots bound differently.
    Rewired {
        /// The step.
        step: String,
        /// The slots whose binding changed, appeared or disappeared.
        slots: Vec<String>,
    },
    /// Another `when` (added, removed or changed).
    When {
        /// The step.
        step: String,
        /// The recorded condition (`None`: always runs).
        recorded: Option<String>,
        /// The condition now.
        current: Option<String>,
    },
}

impl std::fmt::Display for PlanChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let when = |c: &Option<String>| match c {
            Some(c) => format!("`{c}`"),
            None => "none (always runs)".to_owned(),
        };
        match self {
            PlanChange::Inserted { step, position } => {
                write!(f, "step `{step}` was inserted at position {position}")
            }
            PlanChange::Removed { step, position } => write!(
                f,
                "step `{step}` (position {position}) is absent from the flow"
            ),
            PlanChange::Renamed { from, to, position } => {
                write!(f, "step `{from}` (position {position}) was renamed `{to}`")
            }
            PlanChange::Moved {
                step,
                recorded,
                current,
            } => write!(
                f,
                "step `{step}` moved from position {recorded} to {current}"
            ),
            PlanChange::Tool {
                step,
                recorded,
                current,
            } => write!(
                f,
                "step `{step}`: the tool was {recorded} and is now {current}"
            ),
            PlanChange::Pin {
                step,
                recorded,
                current,
            } => write!(
                f,
                "step `{step}`: the contract digest was {recorded} and is now {current}"
            ),
            PlanChange::Rewired { step, slots } => write!(
                f,
                "step `{step}`: the binding of {} changed",
                slots
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            PlanChange::When {
                step,
                recorded,
                current,
            } => write!(
                f,
                "step `{step}`: its `when` was {} and is now {}",
                when(recorded),
                when(current)
            ),
        }
    }
}

/// The identity of every step of `plan`, flattened.
pub(crate) fn identities(plan: &Plan) -> Vec<StepIdentity> {
    let mut out = Vec::new();
    flatten(plan, "", &mut out);
    out
}

fn flatten(plan: &Plan, prefix: &str, out: &mut Vec<StepIdentity>) {
    for step in &plan.steps {
        let step_id = format!("{prefix}{}", step.id);
        let mut bindings: BTreeMap<String, String> = step
            .bindings
            .iter()
            .map(|(slot, binding)| (slot.clone(), digest_of(&binding.to_json())))
            .collect();
        // What a for_each maps over and does with a failed item decide its items' calls and
        // its output, so they are part of its identity (as a pseudo-slot no slot name can
        // be); its concurrency changes neither.
        if let Some(for_each) = &step.for_each {
            let identity = serde_json::json!({
                "over": for_each.over.to_string(),
                "on_item_error": for_each.on_item_error.as_str(),
            });
            bindings.insert(FOR_EACH_SLOT.to_owned(), digest_of(&identity));
        }
        let when = step.when.as_ref().map(|c| {
            let text = c.to_string();
            (digest_of(&Value::String(text.clone())), text)
        });
        out.push(StepIdentity {
            position: out.len(),
            step_id: step_id.clone(),
            tool_ref: step.reference.to_string(),
            contract_digest: step.contract.contract_digest().to_string(),
            bindings,
            when,
        });
        if let Some(inner) = &step.composite {
            flatten(inner, &format!("{step_id}/"), out);
        }
    }
}

/// The result of comparing a recorded plan with the current one.
#[derive(Debug, Default)]
pub(crate) struct Comparison {
    /// Changes at or before the last recorded position: the resume must stop.
    pub blocking: Vec<PlanChange>,
    /// Changes only after it: the resume may run them.
    pub later: Vec<PlanChange>,
}

/// Compares `current` with `recorded`, where `last` is the last recorded position (`None`:
/// no step was recorded, so nothing can contradict the journal).
pub(crate) fn compare(
    recorded: &[StepIdentity],
    current: &[StepIdentity],
    last: Option<usize>,
) -> Comparison {
    let in_prefix = |position: usize| last.is_some_and(|last| position <= last);
    let recorded_by_id: HashMap<&str, &StepIdentity> =
        recorded.iter().map(|s| (s.step_id.as_str(), s)).collect();
    let current_by_id: HashMap<&str, &StepIdentity> =
        current.iter().map(|s| (s.step_id.as_str(), s)).collect();
    let mut comparison = Comparison::default();
    let mut push = |blocking: bool, change: PlanChange| {
        if blocking {
            comparison.blocking.push(change);
        } else {
            comparison.later.push(change);
        }
    };
    let mut renamed_to: Vec<&str> = Vec::new();
    for r in recorded {
        let Some(c) = current_by_id.get(r.step_id.as_str()) else {
            // In the same place, a step the record does not know: a rename.
            match current.get(r.position) {
                Some(c) if !recorded_by_id.contains_key(c.step_id.as_str()) => {
                    renamed_to.push(&c.step_id);
                    push(
                        in_prefix(r.position),
                        PlanChange::Renamed {
                            from: r.step_id.clone(),
                            to: c.step_id.clone(),
                            position: r.position,
                        },
                    );
                }
                _ => push(
                    in_prefix(r.position),
                    PlanChange::Removed {
                        step: r.step_id.clone(),
                        position: r.position,
                    },
                ),
            }
            continue;
        };
        let blocking = in_prefix(r.position) || in_prefix(c.position);
        if r.position != c.position {
            push(
                blocking,
                PlanChange::Moved {
                    step: r.step_id.clone(),
                    recorded: r.position,
                    current: c.position,
                },
            );
        }
        if r.tool_ref != c.tool_ref {
            push(
                blocking,
                PlanChange::Tool {
                    step: r.step_id.clone(),
                    recorded: r.tool_ref.clone(),
                    current: c.tool_ref.clone(),
                },
            );
        }
        if r.contract_digest != c.contract_digest {
            push(
                blocking,
                PlanChange::Pin {
                    step: r.step_id.clone(),
                    recorded: r.contract_digest.clone(),
                    current: c.contract_digest.clone(),
                },
            );
        }
        let mut slots: Vec<String> = r
            .bindings
            .iter()
            .filter(|(slot, digest)| c.bindings.get(*slot) != Some(digest))
            .map(|(slot, _)| slot.clone())
            .chain(
                c.bindings
                    .keys()
                    .filter(|slot| !r.bindings.contains_key(*slot))
                    .cloned(),
            )
            .collect();
        slots.sort();
        if !slots.is_empty() {
            push(
                blocking,
                PlanChange::Rewired {
                    step: r.step_id.clone(),
                    slots,
                },
            );
        }
        let digest = |w: &Option<(String, String)>| w.as_ref().map(|(d, _)| d.clone());
        if digest(&r.when) != digest(&c.when) {
            let text = |w: &Option<(String, String)>| w.as_ref().map(|(_, t)| t.clone());
            push(
                blocking,
                PlanChange::When {
                    step: r.step_id.clone(),
                    recorded: text(&r.when),
                    current: text(&c.when),
                },
            );
        }
    }
    for c in current {
        if !recorded_by_id.contains_key(c.step_id.as_str())
            && !renamed_to.contains(&c.step_id.as_str())
        {
            push(
                in_prefix(c.position),
                PlanChange::Inserted {
                    step: c.step_id.clone(),
                    position: c.position,
                },
            );
        }
    }
    comparison
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(position: usize, id: &str) -> StepIdentity {
        StepIdentity {
            position,
            step_id: id.to_owned(),
            tool_ref: "t@1.0.0".to_owned(),
            contract_digest: "sha256:c".to_owned(),
            bindings: [("x".to_owned(), "sha256:x".to_owned())].into(),
            when: None,
        }
    }

    fn plan(ids: &[&str]) -> Vec<StepIdentity> {
        ids.iter().enumerate().map(|(i, id)| step(i, id)).collect()
    }

    #[test]
    fn the_same_plan_has_no_change() {
        let c = compare(&plan(&["a", "b"]), &plan(&["a", "b"]), Some(1));
        assert!(c.blocking.is_empty() && c.later.is_empty());
    }

    #[test]
    fn a_step_appended_after_the_last_recorded_position_may_run() {
        let c = compare(&plan(&["a", "b"]), &plan(&["a", "b", "c"]), Some(1));
        assert!(c.blocking.is_empty());
        assert_eq!(
            c.later,
            [PlanChange::Inserted {
                step: "c".into(),
                position: 2
            }]
        );
    }

    #[test]
    fn with_nothing_recorded_every_change_may_run() {
        let c = compare(&plan(&["a"]), &plan(&["z", "a"]), None);
        assert!(c.blocking.is_empty());
        assert_eq!(c.later.len(), 2);
    }

    #[test]
    fn an_edit_after_the_last_recorded_position_is_not_blocking() {
        let recorded = plan(&["a", "b", "c"]);
        let mut current = plan(&["a", "b", "c"]);
        current[2].when = Some(("sha256:w".into(), "input.go".into()));
        let c = compare(&recorded, &current, Some(1));
        assert!(c.blocking.is_empty());
        assert_eq!(c.later.len(), 1);
    }
}
