//! The compiled [`Plan`]: what the rider executes, and how (documented on [`Plan`]).

use std::collections::{BTreeMap, BTreeSet};

use browserflow_contract::{
    Capability, CompiledSchema, Digest, InputDecl, Require, Schema, ToolContract, ToolRef,
};
use serde_json::Value;

use crate::binding::Binding;
use crate::condition::Condition;
use crate::for_each::ForEach;
use crate::reference::Reference;
use crate::scope::{EvalError, Scope};
use crate::secret::Bound;

/// A compiled flow: steps in a valid order with resolved contracts and typed bindings.
///
/// # Running a plan (the contract for the rider)
///
/// A `Plan` is self-sufficient: the rider needs nothing else from this crate and re-implements
/// none of its rules.
///
/// 1. `plan.start_scope(inputs)` checks the flow inputs (unknown, missing, schema, secrecy),
///    applies defaults and returns the [`Scope`]. Secret inputs are [`Bound::Secret`].
/// 2. For each step of `plan.steps`, **in order** (a topological order: every step comes after
///    the steps in its `depends_on`):
///    - `step.should_run(&scope)?` — `false`: call `scope.skip(&step.id)` and go on;
///    - `step.evaluate_inputs(&scope)?` gives every slot's value (bindings, then contract
///      defaults for unbound slots). A [`Bound::Secret`] is a [`SecretTemplate`](crate::SecretTemplate) naming
///      secrets; resolve it only inside the tool (which then holds `secrets`:
///      `step.effective_capabilities` says so) and redact before writing anything;
///    - run the tool `step.reference` (its registry contract is `step.contract`; build its
///      context from `step.effective_capabilities`, which may add `secrets` to the contract's
///      own list — see `std/http` in the crate docs; `step.secret_slots` names the slots that
///      carry a secret for this run). A composite step carries its inner plan in
///      `step.composite`: run it recursively, starting its scope from the evaluated inputs;
///    - a step with `for_each` instead calls its tool once per element of
///      `step.for_each_items(&scope)?`, each call's inputs evaluated in
///      `scope` after `scope.set_item(Some(element))` (cleared after), at most `for_each.concurrency` at once, and finishes with
///      the array of outputs in item order (for `on_item_error: collect`, each an
///      [`output_entry`](crate::output_entry) or an [`ItemErrorKind::entry`](crate::ItemErrorKind::entry));
///    - `scope.finish(&step.id, output)`.
/// 3. `plan.evaluate_output(&scope)` gives the flow's output (never secret-bearing).
///
/// A skipped step's output reads as `null`. The compiler has made sure every wire is typed,
/// so evaluation errors ([`EvalError`]) mean the scope does not match the plan.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Plan {
    /// The flow name (also the composite tool name).
    pub name: String,
    /// The flow version.
    pub version: semver::Version,
    /// The flow description.
    pub description: String,
    /// `sha256:` of the RFC 8785 canonical JSON of the normalised FlowSpec.
    pub flow_digest: Digest,
    /// The flow's inputs.
    pub inputs: Vec<InputDecl>,
    /// The flow's pins.
    pub requires: Vec<Require>,
    /// The steps, in a topological order.
    pub steps: Vec<PlannedStep>,
    /// What the flow returns.
    #[serde(serialize_with = "crate::spec::serialize_binding")]
    pub output: Binding,
    /// The type of the output.
    pub output_schema: Schema,
    /// The union of every step's effective capabilities, sorted.
    pub capabilities: Vec<Capability>,
}

/// One step of a [`Plan`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct PlannedStep {
    /// The step id, unique in the flow.
    pub id: String,
    /// The tool it calls.
    #[serde(rename = "uses")]
    pub reference: ToolRef,
    /// The tool's contract, as in the registry (its digest matches the flow's pin).
    pub contract: ToolContract,
    /// The capabilities the tool gets for this step: the contract's, plus `secrets` for an
    /// `http` tool with a secret bound to one of its slots. Sorted.
    pub effective_capabilities: Vec<Capability>,
    /// The slots carrying a secret in this step (declared `secret: true`, or an `http` slot
    /// bound to a secret).
    pub secret_slots: Vec<String>,
    /// Slot → binding. Unbound slots take their schema's `default`.
    #[serde(serialize_with = "crate::spec::serialize_bindings")]
    pub bindings: BTreeMap<String, Binding>,
    /// The step runs only when this holds.
    #[serde(serialize_with = "crate::spec::serialize_condition")]
    pub when: Option<Condition>,
    /// The time all attempts of the step may take together, in milliseconds (`None`: the
    /// run's budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The step calls its tool once per element of this array (see
    /// [`ForEach`](crate::ForEach)); its output is then the array of what the calls
    /// returned, in item order ([`collected_schema`](crate::collected_schema)). Its
    /// `bindings` (which may read `item`) are evaluated once per item in
    /// [`Scope::set_item`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub for_each: Option<ForEach>,
    /// The steps whose outputs its bindings or condition read, in plan order.
    pub depends_on: Vec<String>,
    /// For a composite tool: the inner flow's plan.
    pub composite: Option<Box<Plan>>,
}

impl PlannedStep {
    /// Whether the step runs: its `when` condition, or `true` without one.
    pub fn should_run(&self, scope: &Scope) -> Result<bool, EvalError> {
        self.when.as_ref().map_or(Ok(true), |c| c.evaluate(scope))
    }

    /// Every slot's value: the bindings, then each unbound slot's schema `default`.
    pub fn evaluate_inputs(&self, scope: &Scope) -> Result<BTreeMap<String, Bound>, EvalError> {
        let mut values = BTreeMap::new();
        for (slot, binding) in &self.bindings {
            values.insert(slot.clone(), binding.evaluate(scope)?);
        }
        for decl in self.contract.inputs() {
            if let (false, Some(default)) = (values.contains_key(&decl.name), &decl.schema.default)
            {
                values.insert(decl.name.clone(), Bound::Value(default.clone()));
            }
        }
        Ok(values)
    }

    /// The array a `for_each` step maps its tool over, read from `scope`.
    pub fn for_each_items(&self, scope: &Scope) -> Result<Option<Vec<Value>>, EvalError> {
        let Some(for_each) = &self.for_each else {
            return Ok(None);
        };
        match for_each.over.resolve(scope)? {
            Bound::Value(Value::Array(items)) => Ok(Some(items)),
            Bound::Value(other) => Err(EvalError::NotAnArray {
                step: self.id.clone(),
                reference: for_each.over.to_string(),
                found: crate::json_type_name(&other),
            }),
            Bound::Secret(_) => Err(EvalError::SecretNotAllowed {
                reference: for_each.over.to_string(),
                place: "as a `for_each`",
            }),
        }
    }

    /// Whether the step is pure (no effective capability): re-run it, never journal it.
    pub fn is_pure(&self) -> bool {
        self.effective_capabilities.is_empty()
    }

    /// Whether the step gets `capability`.
    pub fn has(&self, capability: Capability) -> bool {
        self.effective_capabilities.contains(&capability)
    }
}

impl Plan {
    /// `name@version`.
    pub fn reference(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    /// The step with this id.
    pub fn step(&self, id: &str) -> Option<&PlannedStep> {
        self.steps.iter().find(|s| s.id == id)
    }

    /// Checks the flow inputs and builds the starting scope: every declared input present
    /// (or defaulted), none unknown, plain inputs valid against their schema, secret inputs
    /// (and only those) given as [`Bound::Secret`].
    pub fn start_scope(&self, inputs: BTreeMap<String, Bound>) -> Result<Scope, EvalError> {
        if let Some(name) = inputs
            .keys()
            .find(|n| !self.inputs.iter().any(|d| &d.name == *n))
        {
            return Err(EvalError::UnknownInput { name: name.clone() });
        }
        let mut scope = Scope::new();
        for decl in &self.inputs {
            let given = inputs.get(&decl.name).cloned();
            let value = match (given, &decl.schema.default) {
                (Some(v), _) => v,
                (None, Some(default)) if !decl.secret => Bound::Value(default.clone()),
                (None, _) => {
                    return Err(EvalError::MissingInput {
                        name: decl.name.clone(),
                    });
                }
            };
            match (&value, decl.secret) {
                (Bound::Secret(_), true) => {}
                (Bound::Value(_), true) => {
                    return Err(EvalError::SecretMismatch {
                        name: decl.name.clone(),
                        message: "is `secret: true` and takes a secret reference, not a plain value",
                    });
                }
                (Bound::Secret(_), false) => {
                    return Err(EvalError::SecretMismatch {
                        name: decl.name.clone(),
                        message: "is not `secret: true` and cannot take a secret",
                    });
                }
                (Bound::Value(v), false) => validate_input(decl, v)?,
            }
            scope.set_input(decl.name.clone(), value);
        }
        Ok(scope)
    }

    /// The flow's output, once the steps have run.
    pub fn evaluate_output(&self, scope: &Scope) -> Result<Value, EvalError> {
        match self.output.evaluate(scope)? {
            Bound::Value(v) => Ok(v),
            Bound::Secret(_) => Err(EvalError::SecretNotAllowed {
                reference: self.output.to_string(),
                place: "as the flow output",
            }),
        }
    }

    /// Every `secret.NAME` the plan (and any composite inside it) names directly, sorted.
    pub fn secret_names(&self) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for step in &self.steps {
            let refs = step
                .bindings
                .values()
                .flat_map(Binding::references)
                .chain(step.when.iter().flat_map(Condition::references));
            for r in refs {
                if let Reference::Secret { name } = r {
                    names.insert(name.clone());
                }
            }
            if let Some(inner) = &step.composite {
                names.extend(inner.secret_names());
            }
        }
        names
    }
}

fn validate_input(decl: &InputDecl, value: &Value) -> Result<(), EvalError> {
    let invalid = |message: String| EvalError::InvalidInput {
        name: decl.name.clone(),
        message,
    };
    let compiled = CompiledSchema::new(&decl.schema).map_err(|p| invalid(p.to_string()))?;
    compiled.validate(value).map_err(|errors| {
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        invalid(text.join("; "))
    })
}
