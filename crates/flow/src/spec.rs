//! `FlowSpec`: the flow document on disk, read strictly.
//!
//! ```json
//! {
//!   "name": "daily-price-watch", "version": "1.0.0", "description": "…",
//!   "inputs": [{"name": "query", "schema": {"type": "string"}, "secret": false}],
//!   "requires": [{"ref": "search-price@1.2.0", "contract_digest": "sha256:…"}],
//!   "steps": [
//!     {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
//!     {"id": "notify", "uses": "std/http.post@1.0.0", "when": "steps.search.output.price < 20",
//!      "with": {"url": {"from": "secret.WEBHOOK_URL"}, "body": {"template": "{steps.search.output.name}"}}}
//!   ],
//!   "output": {"from": "steps.search.output"}
//! }
//! ```
//!
//! `name`, `version`, `steps` and `output` are required; `description` (default `""`),
//! `inputs` and `requires` (default `[]`) may be left out; a step's `with`, `when`,
//! `timeout_ms` and `for_each` (with `concurrency` and `on_item_error`: see
//! [`ForEach`](crate::ForEach)) are optional. Any other field is refused. Bindings are described at [`Binding`](crate::Binding),
//! conditions at [`Condition`](crate::Condition).

use std::collections::BTreeMap;

use browserflow_contract::{
    Digest, Fields, InputDecl, Require, Rule, Schema, ToolName, ToolRef, canonical_json,
    push_pointer,
};
use serde_json::{Map, Value};

use crate::binding::Binding;
use crate::condition::Condition;
use crate::diagnostic::{Code, Diagnostic, Diagnostics};
use crate::for_each::{ForEach, MAX_CONCURRENCY, OnItemError};
use crate::reference::Reference;

/// A flow: typed inputs, pinned tools, steps wired by bindings, an output.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowSpec {
    /// The flow name; a valid tool name, since a flow can be published as a composite tool.
    pub name: String,
    /// The flow version.
    pub version: semver::Version,
    /// What the flow does, for people.
    pub description: String,
    /// The flow's inputs.
    pub inputs: Vec<InputDecl>,
    /// Pinned tool dependencies: exact ref and contract digest.
    pub requires: Vec<Require>,
    /// The steps, in the author's order.
    pub steps: Vec<StepSpec>,
    /// What the flow returns.
    pub output: Binding,
}

/// One step of a flow.
#[derive(Debug, Clone, PartialEq)]
pub struct StepSpec {
    /// Unique id within the flow: a letter or `_`, then letters, digits, `_`, `-`.
    pub id: String,
    /// The tool it calls, `name@version`.
    pub uses: ToolRef,
    /// Slot → binding.
    pub with: BTreeMap<String, Binding>,
    /// The step runs only when this holds.
    pub when: Option<Condition>,
    /// The time all attempts of the step may take together, in milliseconds (`None`: the
    /// run's budget).
    pub timeout_ms: Option<u64>,
    /// The step calls its tool once per element of this array.
    pub for_each: Option<ForEach>,
}

/// The longest step budget a flow may ask for: one day.
const MAX_STEP_TIMEOUT_MS: u64 = 86_400_000;

/// Re-roots a problem found in a sub-document at `at`.
fn rebased(at: &str, problem: browserflow_contract::Problem) -> Diagnostic {
    let mut d = Diagnostic::from(problem);
    d.pointer = format!("{at}{}", d.pointer);
    d
}

impl FlowSpec {
    /// Parses a flow from JSON text, reporting every problem with its location.
    pub fn from_json_str(text: &str) -> Result<FlowSpec, Diagnostics> {
        // Strict JSON: bounded depth and size, a repeated key refused with its pointer.
        let value = browserflow_contract::parse_json_str(text)
            .map_err(|e| Diagnostics(vec![Diagnostic::from(e.to_problem())]))?;
        FlowSpec::from_json(&value)
    }

    /// Parses a flow from a JSON value, reporting every problem with its location.
    pub fn from_json(value: &Value) -> Result<FlowSpec, Diagnostics> {
        let mut out = Vec::new();
        let spec = parse(value, &mut out);
        Diagnostics::check(out)?;
        spec.ok_or_else(|| {
            Diagnostics(vec![Diagnostic::new(
                Code::Invalid(Rule::WrongType),
                "",
                "not a flow",
            )])
        })
    }

    /// The normalised document: schemas normalised, pins sorted by ref, conditions and
    /// templates re-rendered. Written to disk pretty-printed, and hashed for the digest.
    pub fn to_json(&self) -> Value {
        let mut requires: Vec<&Require> = self.requires.iter().collect();
        requires.sort_by_key(|r| r.reference.to_string());
        let mut map = Map::new();
        map.insert("name".into(), Value::String(self.name.clone()));
        map.insert("version".into(), Value::String(self.version.to_string()));
        map.insert(
            "description".into(),
            Value::String(self.description.clone()),
        );
        map.insert(
            "inputs".into(),
            Value::Array(self.inputs.iter().map(input_json).collect()),
        );
        map.insert(
            "requires".into(),
            Value::Array(requires.into_iter().map(Require::to_json).collect()),
        );
        map.insert(
            "steps".into(),
            Value::Array(self.steps.iter().map(StepSpec::to_json).collect()),
        );
        map.insert("output".into(), self.output.to_json());
        Value::Object(map)
    }

    /// [`FlowSpec::to_json`], pretty-printed with a final newline.
    pub fn to_pretty_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The flow digest: `sha256:` of the RFC 8785 canonical JSON of [`FlowSpec::to_json`].
    pub fn digest(&self) -> Digest {
        let value = self.to_json();
        let text = canonical_json(&value).unwrap_or_else(|_| value.to_string());
        Digest::of_bytes(text.as_bytes())
    }

    /// The step with this id.
    pub fn step(&self, id: &str) -> Option<&StepSpec> {
        self.steps.iter().find(|s| s.id == id)
    }
}

impl StepSpec {
    /// The normalised on-disk form.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("id".into(), Value::String(self.id.clone()));
        map.insert("uses".into(), Value::String(self.uses.to_string()));
        let with = self
            .with
            .iter()
            .map(|(k, b)| (k.clone(), b.to_json()))
            .collect();
        map.insert("with".into(), Value::Object(with));
        if let Some(when) = &self.when {
            map.insert("when".into(), Value::String(when.to_string()));
        }
        if let Some(timeout) = self.timeout_ms {
            map.insert("timeout_ms".into(), Value::from(timeout));
        }
        if let Some(for_each) = &self.for_each {
            map.insert("for_each".into(), Value::String(for_each.over.to_string()));
            map.insert("concurrency".into(), Value::from(for_each.concurrency));
            map.insert(
                "on_item_error".into(),
                Value::String(for_each.on_item_error.as_str().to_owned()),
            );
        }
        Value::Object(map)
    }
}

fn input_json(input: &InputDecl) -> Value {
    let mut map = Map::new();
    map.insert("name".into(), Value::String(input.name.clone()));
    map.insert("schema".into(), input.schema.to_json());
    map.insert("secret".into(), Value::Bool(input.secret));
    Value::Object(map)
}

fn parse(value: &Value, out: &mut Vec<Diagnostic>) -> Option<FlowSpec> {
    let mut fields = Fields::open(value, "", "a flow", out);
    let name = fields
        .string("name", out)
        .and_then(|(text, at)| match ToolName::parse(&text) {
            Ok(_) => Some(text),
            Err(problems) => {
                out.extend(problems.0.into_iter().map(|p| rebased(&at, p)));
                None
            }
        });
    let version =
        fields
            .string("version", out)
            .and_then(|(text, at)| match semver::Version::parse(&text) {
                Ok(v) => Some(v),
                Err(e) => {
                    out.push(Diagnostic::new(
                        Code::Invalid(Rule::InvalidVersion),
                        at,
                        format!("`{text}` is not a semver version (like 1.0.0): {e}"),
                    ));
                    None
                }
            });
    let description = fields
        .optional_string("description", out)
        .map(|(s, _)| s)
        .unwrap_or_default();
    let inputs = fields
        .optional_array("inputs", out)
        .map(|(items, at)| {
            items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| parse_input(v, &push_pointer(&at, &i.to_string()), out))
                .collect()
        })
        .unwrap_or_default();
    let requires = fields
        .optional_array("requires", out)
        .map(|(items, at)| {
            let mut problems = Vec::new();
            let list = items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    Require::parse_nested(v, &push_pointer(&at, &i.to_string()), &mut problems)
                })
                .collect();
            out.extend(problems.into_iter().map(Diagnostic::from));
            list
        })
        .unwrap_or_default();
    let steps: Option<Vec<StepSpec>> = fields.array("steps", out).map(|(items, at)| {
        items
            .iter()
            .enumerate()
            .filter_map(|(i, v)| parse_step(v, &push_pointer(&at, &i.to_string()), out))
            .collect()
    });
    let output = fields
        .take("output", out)
        .and_then(|(v, at)| parse_binding(v, &at, out));
    fields.reject_unknown(out);
    Some(FlowSpec {
        name: name?,
        version: version?,
        description,
        inputs,
        requires,
        steps: steps?,
        output: output?,
    })
}

fn parse_binding(value: &Value, at: &str, out: &mut Vec<Diagnostic>) -> Option<Binding> {
    Binding::from_json(value)
        .map_err(|message| out.push(Diagnostic::new(Code::BadBinding, at, message)))
        .ok()
}

fn parse_input(value: &Value, at: &str, out: &mut Vec<Diagnostic>) -> Option<InputDecl> {
    let mut fields = Fields::open(value, at, "an input declaration", out);
    let name = fields.string("name", out).map(|(s, _)| s);
    let schema = fields
        .take("schema", out)
        .and_then(|(v, schema_at)| match Schema::from_json(v) {
            Ok(schema) => Some(schema),
            Err(problems) => {
                out.extend(problems.0.into_iter().map(|p| rebased(&schema_at, p)));
                None
            }
        });
    let secret = fields.boolean("secret", out);
    fields.reject_unknown(out);
    Some(InputDecl {
        name: name?,
        schema: schema?,
        secret: secret?,
    })
}

fn parse_step(value: &Value, at: &str, out: &mut Vec<Diagnostic>) -> Option<StepSpec> {
    let mut fields = Fields::open(value, at, "a step", out);
    let id = fields.string("id", out).map(|(s, _)| s);
    let step_of = |d: Diagnostic| match &id {
        Some(id) => d.step(id.clone()),
        None => d,
    };
    let uses = fields
        .string("uses", out)
        .and_then(|(text, uses_at)| match ToolRef::parse(&text) {
            Ok(r) => Some(r),
            Err(problems) => {
                out.extend(
                    problems
                        .0
                        .into_iter()
                        .map(|p| step_of(rebased(&uses_at, p))),
                );
                None
            }
        });
    let mut with = BTreeMap::new();
    let mut with_ok = true;
    if let Some((map, with_at)) = fields.optional_object("with", out) {
        for (slot, v) in map {
            let slot_at = push_pointer(&with_at, slot);
            match Binding::from_json(v) {
                Ok(b) => {
                    with.insert(slot.clone(), b);
                }
                Err(message) => {
                    with_ok = false;
                    out.push(
                        step_of(Diagnostic::new(Code::BadBinding, slot_at, message))
                            .slot(slot.clone()),
                    );
                }
            }
        }
    }
    let when = match fields.optional_string("when", out) {
        None => Some(None),
        Some((text, when_at)) => match Condition::parse(&text) {
            Ok(c) => Some(Some(c)),
            Err(e) => {
                out.push(step_of(Diagnostic::new(
                    Code::BadCondition,
                    when_at,
                    e.to_string(),
                )));
                None
            }
        },
    };
    let timeout_ms = match fields.optional("timeout_ms") {
        None => Some(None),
        Some((value, timeout_at)) => match value.as_u64() {
            Some(ms) if (1..=MAX_STEP_TIMEOUT_MS).contains(&ms) => Some(Some(ms)),
            _ => {
                out.push(step_of(Diagnostic::new(
                    Code::Invalid(Rule::WrongType),
                    timeout_at,
                    format!(
                        "`timeout_ms` is the time all attempts of the step may take together: \
                         a whole number of milliseconds from 1 to {MAX_STEP_TIMEOUT_MS}, not {value}"
                    ),
                )));
                None
            }
        },
    };
    let for_each = parse_for_each(&mut fields).map_err(|d| out.push(step_of(*d)));
    fields.reject_unknown(out);
    if !with_ok {
        return None;
    }
    Some(StepSpec {
        id: id?,
        uses: uses?,
        with,
        when: when?,
        timeout_ms: timeout_ms?,
        for_each: for_each.ok()?,
    })
}

/// Reads `for_each`, `concurrency` and `on_item_error`; the last two only beside the first.
fn parse_for_each(fields: &mut Fields<'_>) -> Result<Option<ForEach>, Box<Diagnostic>> {
    let over = fields.optional("for_each");
    let concurrency = fields.optional("concurrency");
    let on_item_error = fields.optional("on_item_error");
    let wrong = |at: String, message: String| {
        Box::new(Diagnostic::new(Code::Invalid(Rule::WrongType), at, message))
    };
    let Some((over, over_at)) = over else {
        if let Some((_, at)) = concurrency.or(on_item_error) {
            return Err(Box::new(Diagnostic::new(
                Code::BadForEach,
                at,
                "`concurrency` and `on_item_error` belong to a step with `for_each`, which this \
                 step does not have",
            )));
        }
        return Ok(None);
    };
    let over = match over {
        Value::String(text) => Reference::parse(text).map_err(|message| {
            Box::new(Diagnostic::new(Code::BadForEach, over_at.clone(), message))
        })?,
        other => {
            return Err(wrong(
                over_at,
                format!(
                    "`for_each` is a reference to an array, as in \"steps.search.output.results\", \
                     not {}",
                    crate::json_type_name(other)
                ),
            ));
        }
    };
    let concurrency = match concurrency {
        None => 1,
        Some((value, at)) => match value.as_u64() {
            Some(n) if (1..=u64::from(MAX_CONCURRENCY)).contains(&n) => n as u32,
            _ => {
                return Err(wrong(
                    at,
                    format!(
                        "`concurrency` is how many items run at once: a whole number from 1 to \
                         {MAX_CONCURRENCY}, not {value}"
                    ),
                ));
            }
        },
    };
    let on_item_error = match on_item_error {
        None => OnItemError::Fail,
        Some((value, at)) => value.as_str().and_then(OnItemError::parse).ok_or_else(|| {
            wrong(
                at,
                format!("`on_item_error` is \"fail\" or \"collect\", not {value}"),
            )
        })?,
    };
    Ok(Some(ForEach {
        over,
        concurrency,
        on_item_error,
    }))
}

pub(crate) fn serialize_binding<S: serde::Serializer>(
    b: &Binding,
    s: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&b.to_json(), s)
}

pub(crate) fn serialize_bindings<S: serde::Serializer>(
    map: &BTreeMap<String, Binding>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let json: Map<String, Value> = map.iter().map(|(k, b)| (k.clone(), b.to_json())).collect();
    serde::Serialize::serialize(&json, s)
}

pub(crate) fn serialize_condition<S: serde::Serializer>(
    c: &Option<Condition>,
    s: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&c.as_ref().map(ToString::to_string), s)
}
