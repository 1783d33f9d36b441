//! Wires: every binding of every slot typed and checked against the secret boundary, and
//! the flow output.

use browserflow_contract::{
    CompiledSchema, InputDecl, Kind, Mismatch, Schema, check_assignable, push_pointer,
};

use super::graph::Edge;
use super::typing::{Typed, interpolable, literal_schema};
use super::{Compiler, Site, StepEffects, step_at};
use crate::binding::{Binding, TemplatePart};
use crate::diagnostic::Code;
use crate::for_each::ForEach;
use crate::reference::Reference;
use crate::registry::RegisteredTool;
use browserflow_contract::Capability;

impl Compiler<'_> {
    /// Checks step `i`: its bindings, its missing slots, its condition; records the steps it
    /// reads in `edges`.
    pub(super) fn check_step(&mut self, i: usize, edges: &mut Vec<Edge>) -> StepEffects {
        let step = &self.spec.steps[i];
        let mut effects = StepEffects::default();
        let with_at = push_pointer(&step_at(i), "with");
        let for_each_at = push_pointer(&step_at(i), "for_each");
        let tool = self.tools[i];
        // A for_each step's bindings read `item`; its unbound slots may come from the item.
        self.item = step
            .for_each
            .as_ref()
            .and_then(|f| self.check_for_each(i, f, edges));
        self.item_unknown = step.for_each.is_some() && self.item.is_none();
        let mut with = step.with.clone();
        let mut implicit = Vec::new();
        if let (Some(tool), Some(item)) = (tool, &self.item) {
            for decl in tool.contract.inputs() {
                if !with.contains_key(&decl.name)
                    && !decl.secret
                    && item.properties.contains_key(&decl.name)
                {
                    with.insert(
                        decl.name.clone(),
                        Binding::Ref(Reference::Item {
                            path: vec![decl.name.clone()],
                        }),
                    );
                    implicit.push(decl.name.clone());
                }
            }
        }
        for (slot, binding) in &with {
            let site = Site {
                at: if implicit.contains(slot) {
                    for_each_at.clone()
                } else {
                    push_pointer(&with_at, slot)
                },
                step: Some(step.id.clone()),
                slot: Some(slot.clone()),
            };
            self.record_edges(i, binding.references(), &site.at, edges);
            let Some(tool) = tool else {
                // Unknown tool (reported): still report bad references.
                self.type_binding(binding, &site, true);
                continue;
            };
            let Some(decl) = tool.contract.input(slot) else {
                let known: Vec<&str> = tool
                    .contract
                    .inputs()
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect();
                self.out.push(site.diag(
                    Code::UnknownSlot,
                    format!(
                        "`{}` has no input slot `{slot}` (slots: {})",
                        tool.contract.reference(),
                        super::or_none(&known)
                    ),
                ));
                self.type_binding(binding, &site, true);
                continue;
            };
            self.check_slot(
                tool,
                decl,
                binding,
                &site,
                step.when.is_some(),
                &mut effects,
            );
        }
        if let Some(tool) = tool {
            for decl in tool.contract.inputs() {
                if !with.contains_key(&decl.name)
                    && decl.schema.default.is_none()
                    && let (Some(for_each), Some(_)) = (&step.for_each, &self.item)
                {
                    self.out.push(
                        Site { at: for_each_at.clone(), step: Some(step.id.clone()), slot: Some(decl.name.clone()) }.diag(
                            Code::MissingInput,
                            format!(
                                "step `{}`: the items of `{}` have no field `{}`, which `{}` needs ({}, no default), and `with` does not bind it (bind it, e.g. {{\"from\": \"item.…\"}})",
                                step.id,
                                for_each.over,
                                decl.name,
                                tool.contract.reference(),
                                decl.schema.describe(),
                            ),
                        ),
                    );
                } else if !with.contains_key(&decl.name) && decl.schema.default.is_none() {
                    let secret = if decl.secret { "secret " } else { "" };
                    self.out.push(
                        Site { at: with_at.clone(), step: Some(step.id.clone()), slot: Some(decl.name.clone()) }.diag(
                            Code::MissingInput,
                            format!(
                                "`{}` needs its {secret}input `{}` ({}), which has no default, and step `{}` does not bind it",
                                tool.contract.reference(),
                                decl.name,
                                decl.schema.describe(),
                                step.id
                            ),
                        ),
                    );
                }
            }
        }
        // `item` means nothing in the step's `when` (it decides for every item at once).
        self.item = None;
        self.item_unknown = false;
        effects.bindings = with;
        if let Some(when) = &step.when {
            let site = Site {
                at: push_pointer(&step_at(i), "when"),
                step: Some(step.id.clone()),
                slot: None,
            };
            self.record_edges(i, when.references(), &site.at, edges);
            self.check_condition(when, &site);
        }
        effects
    }

    /// Checks a `for_each`: a plain reference whose type is an array. Gives the item's type.
    fn check_for_each(
        &mut self,
        i: usize,
        for_each: &ForEach,
        edges: &mut Vec<Edge>,
    ) -> Option<Schema> {
        let step = &self.spec.steps[i];
        let site = Site {
            at: push_pointer(&step_at(i), "for_each"),
            step: Some(step.id.clone()),
            slot: None,
        };
        let over = &for_each.over;
        self.record_edges(i, vec![over], &site.at, edges);
        let typed = match self.type_of(over) {
            Ok(Some(t)) => t,
            Ok(None) => return None,
            Err((code, message)) => {
                self.out
                    .push(site.diag(code, format!("`for_each` of step `{}`: {message}", step.id)));
                return None;
            }
        };
        if let Some(carrier) = &typed.secret {
            self.out.push(site.diag(
                Code::BadForEach,
                format!(
                    "`for_each` of step `{}`: `{over}` carries the secret `{carrier}`, which has no items",
                    step.id
                ),
            ));
            return None;
        }
        let source = if step.when.is_some() {
            typed.schema.clone()
        } else {
            typed.with_skip()
        };
        if let Err(m) = check_assignable(&source, &Schema::array(Schema::any())) {
            let skipped = match &typed.conditional {
                Some(from) if step.when.is_none() => format!(
                    " (step `{from}` is conditional and may be skipped, leaving null: give step `{}` a `when` too)",
                    step.id
                ),
                _ => String::new(),
            };
            self.out.push(site.diag(
                Code::BadForEach,
                format!(
                    "`for_each` of step `{}`: `{over}` is {}, not an array: {}{skipped}",
                    step.id,
                    source.describe(),
                    reason(&m)
                ),
            ));
            return None;
        }
        let item = super::typing::member(&typed.schema, "0")
            .map(|(items, _)| items)
            .unwrap_or_default();
        Some(item)
    }

    fn record_edges(&self, from: usize, refs: Vec<&Reference>, at: &str, edges: &mut Vec<Edge>) {
        for r in refs {
            if let Some(to) = r.step().and_then(|s| self.ids.get(s)) {
                edges.push(Edge {
                    from,
                    to: *to,
                    pointer: at.to_owned(),
                });
            }
        }
    }

    fn check_slot(
        &mut self,
        tool: &RegisteredTool,
        decl: &InputDecl,
        binding: &Binding,
        site: &Site,
        guarded: bool,
        effects: &mut StepEffects,
    ) {
        let contract = &tool.contract;
        let tool_name = contract.reference();
        let slot = &decl.name;
        if let Binding::Literal(value) = binding {
            if decl.secret {
                self.out.push(site.diag(
                    Code::SecretExpected,
                    format!(
                        "slot `{slot}` of `{tool_name}` is `secret: true`: bind a secret reference (`secret.NAME`) or a secret flow input, never a literal, which would be written in the flow"
                    ),
                ));
                return;
            }
            match CompiledSchema::new(&decl.schema).map(|c| c.validate(value)) {
                Ok(Ok(())) => {}
                Ok(Err(errors)) => {
                    let why: Vec<String> = errors.iter().map(ToString::to_string).collect();
                    self.out.push(site.diag(
                        Code::TypeMismatch,
                        format!(
                            "the literal {value} does not fit slot `{slot}` of `{tool_name}` ({}): {}",
                            decl.schema.describe(),
                            why.join("; ")
                        ),
                    ));
                }
                Err(problems) => self
                    .out
                    .push(site.diag(Code::TypeMismatch, problems.to_string())),
            }
            return;
        }
        let Some(source) = self.type_binding(binding, site, guarded) else {
            return;
        };
        match (&source.secret, decl.secret) {
            (Some(_), true) if contract.has(Capability::Secrets) => {
                effects.secret_slots.insert(slot.clone());
            }
            (Some(carrier), true) => {
                self.out.push(site.diag(
                    Code::SecretLeak,
                    format!(
                        "`{binding}` carries the secret `{carrier}` into slot `{slot}` of `{tool_name}`, which is `secret: true` but the tool lacks the `secrets` capability, so nothing may resolve it"
                    ),
                ));
                return;
            }
            (Some(_), false) if contract.kind() == Kind::Http => {
                // The http rule: a secret-bearing input makes the step hold `secrets`.
                effects.secret_slots.insert(slot.clone());
                effects.adds_secrets = true;
            }
            (Some(carrier), false) => {
                self.out.push(site.diag(
                    Code::SecretLeak,
                    format!(
                        "`{binding}` carries the secret `{carrier}` into slot `{slot}` of `{tool_name}` ({} tool), which is not `secret: true`: the secret would cross the boundary as plain data",
                        contract.kind()
                    ),
                ));
                return;
            }
            (None, true) => {
                self.out.push(site.diag(
                    Code::SecretExpected,
                    format!(
                        "slot `{slot}` of `{tool_name}` is `secret: true` and takes a secret (`secret.NAME` or a secret flow input), but `{binding}` is a plain value"
                    ),
                ));
                return;
            }
            (None, false) => {}
        }
        // A secret's text is opaque until a tool resolves it (and the rider validates it
        // then): check only that the slot takes a string, not its format or pattern.
        let opaque =
            source.secret.is_some() && !matches!(binding, Binding::Ref(Reference::Input { .. }));
        let relaxed;
        let target = if opaque {
            relaxed = Schema {
                format: None,
                pattern: None,
                min_length: None,
                max_length: None,
                ..decl.schema.clone()
            };
            &relaxed
        } else {
            &decl.schema
        };
        let plain = check_assignable(&source.schema, target);
        let full = if guarded {
            plain.clone()
        } else {
            check_assignable(&source.with_skip(), target)
        };
        match (plain, full) {
            (Ok(()), Ok(())) => {}
            (Ok(()), Err(_)) => {
                let from = source.conditional.clone().unwrap_or_default();
                let step = site.step.clone().unwrap_or_default();
                self.out.push(site.diag(
                    Code::SkippedInput,
                    format!(
                        "`{binding}` reads step `{from}`, which is conditional and may be skipped (leaving null), but slot `{slot}` of `{tool_name}` ({}) does not accept null: give step `{step}` a `when` condition too, or bind a slot that accepts null",
                        target.describe()
                    ),
                ));
            }
            (Err(m), _) => self.out.push(site.diag(
                Code::TypeMismatch,
                format!(
                    "`{binding}` ({}) does not fit slot `{slot}` of `{tool_name}` ({}): {}",
                    source.schema.describe(),
                    target.describe(),
                    reason(&m)
                ),
            )),
        }
    }

    /// The type of a reference or template binding, reporting bad references; `None` when it
    /// cannot be known. Literals are checked by value, not here.
    pub(super) fn type_binding(
        &mut self,
        binding: &Binding,
        site: &Site,
        guarded: bool,
    ) -> Option<Typed> {
        match binding {
            Binding::Literal(v) => Some(Typed::plain(literal_schema(v))),
            Binding::Ref(r) => match self.type_of(r) {
                Ok(t) => t,
                Err((code, message)) => {
                    self.out.push(site.diag(code, message));
                    None
                }
            },
            Binding::Template(parts) => {
                let mut known = true;
                let mut secret = None;
                for part in parts {
                    let TemplatePart::Ref(r) = part else { continue };
                    let typed = match self.type_of(r) {
                        Ok(Some(t)) => t,
                        Ok(None) => {
                            known = false;
                            continue;
                        }
                        Err((code, message)) => {
                            self.out.push(site.diag(code, message));
                            known = false;
                            continue;
                        }
                    };
                    if let Some(carrier) = typed.secret {
                        secret.get_or_insert(carrier);
                        continue;
                    }
                    if let Err(m) = check_assignable(&typed.schema, &interpolable()) {
                        known = false;
                        self.out.push(site.diag(
                            Code::TypeMismatch,
                            format!(
                                "`{r}` ({}) cannot be put into text: only strings, numbers and booleans can ({})",
                                typed.schema.describe(),
                                reason(&m)
                            ),
                        ));
                    } else if !guarded && let Some(from) = &typed.conditional {
                        known = false;
                        self.out.push(site.diag(
                            Code::SkippedInput,
                            format!(
                                "the template reads `{r}` from step `{from}`, which is conditional and may be skipped, leaving null, which cannot be put into text: make this step conditional too"
                            ),
                        ));
                    }
                }
                known.then(|| Typed {
                    schema: Schema::string(),
                    secret,
                    conditional: None,
                })
            }
        }
    }

    /// Checks the flow output and returns its type.
    pub(super) fn check_output(&mut self) -> Schema {
        let output = &self.spec.output;
        let site = Site {
            at: "/output".to_owned(),
            step: None,
            slot: None,
        };
        let Some(typed) = self.type_binding(output, &site, false) else {
            return Schema::any();
        };
        if let Some(carrier) = &typed.secret {
            self.out.push(site.diag(
                Code::SecretLeak,
                format!("the flow output `{output}` carries the secret `{carrier}`: it would be returned and written as plain data"),
            ));
        }
        typed.with_skip()
    }
}

/// A mismatch as a clause: the path only when it is inside the value.
fn reason(m: &Mismatch) -> String {
    if m.path.is_empty() {
        m.reason.clone()
    } else {
        m.to_string()
    }
}
