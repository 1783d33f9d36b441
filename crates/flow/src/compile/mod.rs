//! The flow compiler: from a [`FlowSpec`] and a [`Registry`] to a [`Plan`], or every
//! [`Diagnostic`] found.
//!
//! Checks, each with its code: pins (`unknown_tool`, `digest_mismatch`, `unpinned_tool`,
//! `duplicate_require`), names (`invalid_id`, `duplicate_step`, `duplicate_input`), wires
//! (`type_mismatch`, `missing_input`, `unknown_slot`, `unknown_step`, `unknown_input`,
//! `bad_path`, `skipped_input`), the secret boundary (`secret_leak`, `secret_expected`),
//! conditions (`type_mismatch`, `secret_leak`), and the order (`cycle`).

mod graph;
mod typing;
mod when;
mod wires;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use browserflow_contract::{Capability, Rule, Schema, ToolName, ToolRef, push_pointer};

use crate::diagnostic::{Code, Diagnostic, Diagnostics};
use crate::for_each::collected_schema;
use crate::plan::{Plan, PlannedStep};
use crate::reference::{Reference, is_identifier};
use crate::registry::{RegisteredTool, Registry};
use crate::spec::FlowSpec;
use graph::Edge;
use typing::{Typed, at_path};

/// Compiles `spec` against the tools in `registry`.
pub fn compile(spec: &FlowSpec, registry: &Registry) -> Result<Plan, Diagnostics> {
    let mut c = Compiler::new(spec, registry);
    c.check_names();
    c.resolve_tools();
    let mut effects = Vec::with_capacity(spec.steps.len());
    let mut edges = Vec::new();
    for i in 0..spec.steps.len() {
        effects.push(c.check_step(i, &mut edges));
    }
    let output_schema = c.check_output();
    let order = match graph::order(spec.steps.len(), &edges) {
        Ok(order) => order,
        Err(cycles) => {
            for (cycle, edge) in cycles {
                c.report_cycle(&cycle, &edge);
            }
            Vec::new()
        }
    };
    Diagnostics::check(std::mem::take(&mut c.out))?;
    Ok(c.plan(&order, &edges, effects, output_schema))
}

/// Reads (strictly and bounded: at most
/// [`MAX_DOCUMENT_BYTES`](browserflow_contract::MAX_DOCUMENT_BYTES)), parses and compiles the
/// flow file at `path`.
pub fn check_file(path: impl AsRef<Path>, registry: &Registry) -> Result<Plan, Diagnostics> {
    use browserflow_contract::JsonError;
    let path = path.as_ref();
    let value = browserflow_contract::read_json_file(path).map_err(|e| {
        Diagnostics(vec![match e.reason {
            JsonError::Io(_) | JsonError::TooLarge { .. } => {
                Diagnostic::new(Code::BadFile, "", format!("cannot read {e}"))
            }
            reason => Diagnostic::from(reason.to_problem()),
        }])
    })?;
    compile(&FlowSpec::from_json(&value)?, registry)
}

/// Parses and compiles a flow from JSON text.
pub fn check_str(text: &str, registry: &Registry) -> Result<Plan, Diagnostics> {
    let spec = FlowSpec::from_json_str(text)?;
    compile(&spec, registry)
}

/// What checking a step's wires found out about its effects.
#[derive(Debug, Default)]
pub(crate) struct StepEffects {
    /// A secret is bound to a non-secret slot of an `http` tool: it gains `secrets`.
    adds_secrets: bool,
    /// Slots carrying a secret in this step.
    secret_slots: BTreeSet<String>,
    /// The step's bindings: its `with`, and for a `for_each` step the slots filled from the
    /// item's fields of the same name.
    bindings: BTreeMap<String, crate::binding::Binding>,
}

/// Where a diagnostic belongs.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    at: String,
    step: Option<String>,
    slot: Option<String>,
}

impl Site {
    fn diag(&self, code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            file: None,
            step: self.step.clone(),
            slot: self.slot.clone(),
            pointer: self.at.clone(),
            message: message.into(),
        }
    }
}

pub(crate) struct Compiler<'a> {
    spec: &'a FlowSpec,
    registry: &'a Registry,
    /// Step id → index of its first declaration.
    ids: BTreeMap<&'a str, usize>,
    /// Each step's resolved tool.
    tools: Vec<Option<&'a RegisteredTool>>,
    /// While the bindings of a `for_each` step are checked: the type of its item.
    item: Option<Schema>,
    /// While the bindings of a `for_each` step whose `for_each` is wrong (reported) are
    /// checked: `item` has no known type, and reading it is no further error.
    item_unknown: bool,
    out: Vec<Diagnostic>,
}

fn step_at(i: usize) -> String {
    push_pointer("/steps", &i.to_string())
}

impl<'a> Compiler<'a> {
    fn new(spec: &'a FlowSpec, registry: &'a Registry) -> Compiler<'a> {
        let mut ids = BTreeMap::new();
        for (i, step) in spec.steps.iter().enumerate() {
            ids.entry(step.id.as_str()).or_insert(i);
        }
        Compiler {
            spec,
            registry,
            ids,
            tools: vec![None; spec.steps.len()],
            item: None,
            item_unknown: false,
            out: Vec::new(),
        }
    }

    fn check_names(&mut self) {
        if let Err(problems) = ToolName::parse(&self.spec.name) {
            for p in problems.0 {
                self.out.push(Diagnostic::new(
                    Code::Invalid(Rule::InvalidName),
                    "/name",
                    p.message,
                ));
            }
        }
        for (i, input) in self.spec.inputs.iter().enumerate() {
            let at = push_pointer(&push_pointer("/inputs", &i.to_string()), "name");
            if !is_identifier(&input.name) {
                self.out.push(Diagnostic::new(
                    Code::InvalidId,
                    at,
                    format!("`{}` is not an input name: use letters, digits, `_` and `-`, starting with a letter or `_`", input.name),
                ));
            } else if self.spec.inputs[..i].iter().any(|o| o.name == input.name) {
                self.out.push(Diagnostic::new(
                    Code::DuplicateInput,
                    at,
                    format!("input `{}` is declared twice", input.name),
                ));
            }
            if input.secret && input.schema.default.is_some() {
                self.out.push(Diagnostic::new(
                    Code::SecretLeak,
                    format!("{}/schema/default", push_pointer("/inputs", &i.to_string())),
                    format!(
                        "secret input `{}` has a default: its value would be written in the flow",
                        input.name
                    ),
                ));
            }
        }
        for (i, step) in self.spec.steps.iter().enumerate() {
            let at = push_pointer(&step_at(i), "id");
            if !is_identifier(&step.id) {
                self.out.push(
                    Diagnostic::new(
                        Code::InvalidId,
                        at,
                        format!("`{}` is not a step id: use letters, digits, `_` and `-`, starting with a letter or `_`", step.id),
                    )
                    .step(step.id.clone()),
                );
            } else if self.ids.get(step.id.as_str()) != Some(&i) {
                let first = self.ids.get(step.id.as_str()).copied().unwrap_or_default();
                self.out.push(
                    Diagnostic::new(
                        Code::DuplicateStep,
                        at,
                        format!("step id `{}` is already used by step {first}", step.id),
                    )
                    .step(step.id.clone()),
                );
            }
        }
    }

    fn resolve_tools(&mut self) {
        let spec = self.spec;
        let mut pins: BTreeMap<&ToolRef, usize> = BTreeMap::new();
        for (j, require) in spec.requires.iter().enumerate() {
            let at = push_pointer("/requires", &j.to_string());
            if pins.contains_key(&require.reference) {
                self.out.push(Diagnostic::new(
                    Code::DuplicateRequire,
                    push_pointer(&at, "ref"),
                    format!("`{}` is pinned twice", require.reference),
                ));
                continue;
            }
            pins.insert(&require.reference, j);
            let users: Vec<&str> = spec
                .steps
                .iter()
                .filter(|s| s.uses == require.reference)
                .map(|s| s.id.as_str())
                .collect();
            match self.registry.get(&require.reference) {
                None if users.is_empty() => self.out.push(Diagnostic::new(
                    Code::UnknownTool,
                    push_pointer(&at, "ref"),
                    self.unknown_tool_message(&require.reference),
                )),
                None => {}
                Some(tool) if tool.digest != require.contract_digest => {
                    let mut d = Diagnostic::new(
                        Code::DigestMismatch,
                        push_pointer(&at, "contract_digest"),
                        format!(
                            "`{}` is pinned to {}, but its contract in the registry has {}: the tool's interface (inputs, output or capabilities) changed; review the change and update the pin",
                            require.reference, require.contract_digest, tool.digest
                        ),
                    );
                    if let Some(first) = users.first() {
                        d = d.step(*first);
                    }
                    self.out.push(d);
                }
                Some(_) => {}
            }
        }
        for (i, step) in spec.steps.iter().enumerate() {
            let at = push_pointer(&step_at(i), "uses");
            let tool = self.registry.get(&step.uses);
            if !pins.contains_key(&step.uses) {
                let digest = tool.map_or_else(|| "sha256:…".to_owned(), |t| t.digest.to_string());
                self.out.push(
                    Diagnostic::new(
                        Code::UnpinnedTool,
                        at.clone(),
                        format!(
                            "`{}` is not pinned: add {{\"ref\": \"{}\", \"contract_digest\": \"{digest}\"}} to `requires`",
                            step.uses, step.uses
                        ),
                    )
                    .step(step.id.clone()),
                );
            }
            match tool {
                Some(t) => self.tools[i] = Some(t),
                None => self.out.push(
                    Diagnostic::new(Code::UnknownTool, at, self.unknown_tool_message(&step.uses))
                        .step(step.id.clone()),
                ),
            }
        }
    }

    fn unknown_tool_message(&self, reference: &ToolRef) -> String {
        let versions = self.registry.versions(reference.name.as_str());
        if versions.is_empty() {
            format!(
                "no tool `{reference}` in the registry (no version of `{}` is known)",
                reference.name
            )
        } else {
            let list: Vec<String> = versions.iter().map(ToString::to_string).collect();
            format!(
                "no tool `{reference}` in the registry (known versions: {})",
                list.join(", ")
            )
        }
    }

    /// The static type of a reference; `Ok(None)` when it reads a step whose tool is unknown
    /// (already reported).
    pub(crate) fn type_of(&self, r: &Reference) -> Result<Option<Typed>, (Code, String)> {
        let bad_path = |whole: &str, (depth, why): (usize, String)| {
            let thing = if depth == 0 {
                whole.to_owned()
            } else {
                format!("`{}`", cut_ref(r, depth))
            };
            (Code::BadPath, format!("`{r}`: {thing} {why}"))
        };
        match r {
            Reference::Secret { .. } => Ok(Some(Typed {
                schema: Schema::string(),
                secret: Some(r.to_string()),
                conditional: None,
            })),
            Reference::Input { name, path } => {
                let Some(decl) = self.spec.inputs.iter().find(|d| &d.name == name) else {
                    let known: Vec<&str> =
                        self.spec.inputs.iter().map(|d| d.name.as_str()).collect();
                    return Err((
                        Code::UnknownInput,
                        format!(
                            "`{r}`: the flow has no input `{name}` (inputs: {})",
                            or_none(&known)
                        ),
                    ));
                };
                if decl.secret {
                    if !path.is_empty() {
                        return Err((
                            Code::BadPath,
                            format!("`{r}`: input `{name}` is a secret and has no fields"),
                        ));
                    }
                    return Ok(Some(Typed {
                        schema: decl.schema.clone(),
                        secret: Some(format!("input.{name}")),
                        conditional: None,
                    }));
                }
                let schema = at_path(&decl.schema, path)
                    .map_err(|e| bad_path(&format!("input `{name}`"), e))?;
                Ok(Some(Typed::plain(schema)))
            }
            Reference::Item { path } => {
                let Some(item) = &self.item else {
                    if self.item_unknown {
                        return Ok(None);
                    }
                    return Err((
                        Code::BadForEach,
                        format!(
                            "`{r}`: `item` is read only in the `with` of a step with `for_each` (not in `when`, nor in another step, nor in the flow output)"
                        ),
                    ));
                };
                let schema = at_path(item, path).map_err(|e| bad_path("the item", e))?;
                Ok(Some(Typed::plain(schema)))
            }
            Reference::Step { step, path } => {
                let Some(&j) = self.ids.get(step.as_str()) else {
                    let known: Vec<&str> = self.ids.keys().copied().collect();
                    return Err((
                        Code::UnknownStep,
                        format!(
                            "`{r}`: the flow has no step `{step}` (steps: {})",
                            or_none(&known)
                        ),
                    ));
                };
                let Some(tool) = self.tools[j] else {
                    return Ok(None);
                };
                let whole = format!(
                    "the output of step `{step}` ({})",
                    tool.contract.reference()
                );
                let output = match &self.spec.steps[j].for_each {
                    Some(f) => collected_schema(tool.contract.output(), f.on_item_error),
                    None => tool.contract.output().clone(),
                };
                let schema = at_path(&output, path).map_err(|e| bad_path(&whole, e))?;
                let conditional = self.spec.steps[j].when.as_ref().map(|_| step.clone());
                Ok(Some(Typed {
                    schema,
                    secret: None,
                    conditional,
                }))
            }
        }
    }

    fn report_cycle(&mut self, cycle: &[usize], edge: &Edge) {
        let mut names: Vec<&str> = cycle
            .iter()
            .map(|i| self.spec.steps[*i].id.as_str())
            .collect();
        names.push(names[0]);
        let first = names[0].to_owned();
        self.out.push(
            Diagnostic::new(
                Code::Cycle,
                edge.pointer.clone(),
                format!(
                    "steps depend on each other in a loop: {}",
                    names.join(" → ")
                ),
            )
            .step(first),
        );
    }

    fn plan(
        &self,
        order: &[usize],
        edges: &[Edge],
        effects: Vec<StepEffects>,
        output_schema: Schema,
    ) -> Plan {
        let spec = self.spec;
        let position: BTreeMap<usize, usize> =
            order.iter().enumerate().map(|(p, i)| (*i, p)).collect();
        let mut effects: Vec<Option<StepEffects>> = effects.into_iter().map(Some).collect();
        let mut capabilities: BTreeSet<Capability> = BTreeSet::new();
        let mut steps = Vec::with_capacity(order.len());
        for &i in order {
            let step = &spec.steps[i];
            // Every step has a tool here: an unknown one would have been reported.
            let Some(tool) = self.tools[i] else { continue };
            let effect = effects[i].take().unwrap_or_default();
            let mut effective: BTreeSet<Capability> =
                tool.contract.capabilities().iter().copied().collect();
            if effect.adds_secrets {
                effective.insert(Capability::Secrets);
            }
            capabilities.extend(effective.iter().copied());
            let mut deps: Vec<usize> = edges.iter().filter(|e| e.from == i).map(|e| e.to).collect();
            deps.sort_by_key(|d| position.get(d).copied().unwrap_or_default());
            deps.dedup();
            steps.push(PlannedStep {
                id: step.id.clone(),
                reference: step.uses.clone(),
                contract: tool.contract.clone(),
                effective_capabilities: effective.into_iter().collect(),
                secret_slots: effect.secret_slots.into_iter().collect(),
                bindings: effect.bindings,
                when: step.when.clone(),
                timeout_ms: step.timeout_ms,
                for_each: step.for_each.clone(),
                depends_on: deps.into_iter().map(|d| spec.steps[d].id.clone()).collect(),
                composite: tool.composite.clone(),
            });
        }
        Plan {
            name: spec.name.clone(),
            version: spec.version.clone(),
            description: spec.description.clone(),
            flow_digest: spec.digest(),
            inputs: spec.inputs.clone(),
            requires: spec.requires.clone(),
            steps,
            output: spec.output.clone(),
            output_schema,
            capabilities: capabilities.into_iter().collect(),
        }
    }
}

/// The text of `r` cut after `depth` path segments.
fn cut_ref(r: &Reference, depth: usize) -> String {
    let cut = |path: &[String]| path[..depth.min(path.len())].to_vec();
    match r {
        Reference::Input { name, path } => Reference::Input {
            name: name.clone(),
            path: cut(path),
        }
        .to_string(),
        Reference::Step { step, path } => Reference::Step {
            step: step.clone(),
            path: cut(path),
        }
        .to_string(),
        Reference::Item { path } => Reference::Item { path: cut(path) }.to_string(),
        Reference::Secret { .. } => r.to_string(),
    }
}

fn or_none(list: &[&str]) -> String {
    if list.is_empty() {
        "none".to_owned()
    } else {
        list.join(", ")
    }
}
