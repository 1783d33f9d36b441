//! The evaluation scope of a run, and the errors of evaluation.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::secret::Bound;

/// What has happened to a step so far.
#[derive(Debug, Clone, PartialEq)]
pub enum StepState {
    /// It ran and returned this output.
    Finished(Value),
    /// Its `when` condition was false: its output reads as `null`.
    Skipped,
}

/// What bindings and conditions can see: the flow's inputs and the outcome of every step
/// that has finished or been skipped. The rider fills it as the run proceeds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scope {
    inputs: BTreeMap<String, Bound>,
    steps: BTreeMap<String, StepState>,
    /// In one call of a `for_each` step: the item it is for.
    item: Option<Value>,
}

impl Scope {
    /// An empty scope. Prefer [`Plan::start_scope`](crate::Plan::start_scope), which checks
    /// the inputs and applies defaults.
    pub fn new() -> Scope {
        Scope::default()
    }

    /// Sets a flow input. A secret input is a [`Bound::Secret`].
    pub fn set_input(&mut self, name: impl Into<String>, value: Bound) {
        self.inputs.insert(name.into(), value);
    }

    /// A flow input.
    pub fn input(&self, name: &str) -> Option<&Bound> {
        self.inputs.get(name)
    }

    /// Every flow input.
    pub fn inputs(&self) -> &BTreeMap<String, Bound> {
        &self.inputs
    }

    /// Records that step `id` finished with `output`.
    pub fn finish(&mut self, id: impl Into<String>, output: Value) {
        self.steps.insert(id.into(), StepState::Finished(output));
    }

    /// Records that step `id` was skipped.
    pub fn skip(&mut self, id: impl Into<String>) {
        self.steps.insert(id.into(), StepState::Skipped);
    }

    /// Sets (or with `None` clears) the `item` that `item` references read: one call of a
    /// `for_each` step. Set in place, not on a copy: a scope holds every step's output, and
    /// copying it once per item would copy a large list once per item.
    pub fn set_item(&mut self, item: Option<Value>) {
        self.item = item;
    }

    /// The item of the `for_each` call this scope is for, if any.
    pub fn item(&self) -> Option<&Value> {
        self.item.as_ref()
    }

    /// What happened to step `id`, if it has finished or been skipped.
    pub fn step(&self, id: &str) -> Option<&StepState> {
        self.steps.get(id)
    }
}

/// Why a binding, condition or input could not be evaluated at run time. The compiler rules
/// out most of these; they remain for plans run against scopes that do not match them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The flow has no such input in scope.
    #[error("flow input `{name}` is not set")]
    MissingInput {
        /// The input.
        name: String,
    },
    /// A flow input that the flow does not declare.
    #[error("`{name}` is not an input of this flow")]
    UnknownInput {
        /// The input.
        name: String,
    },
    /// A flow input whose value does not match its schema.
    #[error("flow input `{name}`: {message}")]
    InvalidInput {
        /// The input.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A `secret: true` flow input given as a plain value, or the reverse.
    #[error("flow input `{name}` {message}")]
    SecretMismatch {
        /// The input.
        name: String,
        /// What is wrong.
        message: &'static str,
    },
    /// A reference to a step that has neither finished nor been skipped.
    #[error("step `{step}` has not run yet")]
    StepNotFinished {
        /// The step.
        step: String,
    },
    /// An `item` reference evaluated outside a call of a `for_each` step.
    #[error("`{reference}` is read outside a `for_each` step, where there is no item")]
    NoItem {
        /// The reference.
        reference: String,
    },
    /// A `for_each` whose value is not an array.
    #[error("`for_each` of step `{step}`: `{reference}` is {found}, not an array")]
    NotAnArray {
        /// The step.
        step: String,
        /// The reference it maps over.
        reference: String,
        /// The JSON type found.
        found: &'static str,
    },
    /// A path that runs into a value that has no members.
    #[error("`{reference}`: cannot read `{segment}` inside a {found}")]
    BadPath {
        /// The reference.
        reference: String,
        /// The segment that could not be read.
        segment: String,
        /// The JSON type found there.
        found: &'static str,
    },
    /// A path into a secret, which has no inner structure.
    #[error("`{reference}`: a secret has no fields to read")]
    SecretPath {
        /// The reference.
        reference: String,
    },
    /// A template part that is not a string, number or boolean.
    #[error("`{reference}` is {found} and cannot be put into text")]
    Interpolate {
        /// The reference.
        reference: String,
        /// The JSON type found.
        found: &'static str,
    },
    /// A condition operand that is not a boolean.
    #[error("`{expression}` is {found}, not a boolean")]
    NotBoolean {
        /// The operand.
        expression: String,
        /// The JSON type found.
        found: &'static str,
    },
    /// An ordering comparison between values that have no order.
    #[error("`{expression}` compares {left} with {right}")]
    Compare {
        /// The comparison.
        expression: String,
        /// The left JSON type.
        left: &'static str,
        /// The right JSON type.
        right: &'static str,
    },
    /// A secret used where only plain values may go (a condition, the flow output).
    #[error("`{reference}` carries a secret and cannot be used {place}")]
    SecretNotAllowed {
        /// The reference or expression.
        reference: String,
        /// Where it was used.
        place: &'static str,
    },
}
