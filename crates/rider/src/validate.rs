//! Validation at step boundaries: every input slot before `run`, the output after it.

use std::collections::BTreeMap;

use browserflow_contract::{CompiledSchema, JsonType, Schema, ToolContract};
use serde_json::{Map, Value};

use crate::secret_input::SECRET_TEMPLATE_KEY;

/// One way a value at a step boundary fails its schema.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// The input slot, or `None` for the output.
    pub slot: Option<String>,
    /// JSON pointer inside the slot's (or output's) value; `""` is the value itself.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        match &self.slot {
            Some(slot) => write!(f, "input `{slot}` at {at}: {}", self.message),
            None => write!(f, "output at {at}: {}", self.message),
        }
    }
}

struct Slot {
    schema: CompiledSchema,
    secret: bool,
}

/// A contract's schemas, compiled once.
pub(crate) struct CompiledContract {
    slots: BTreeMap<String, Slot>,
    output: CompiledSchema,
}

impl CompiledContract {
    pub(crate) fn new(contract: &ToolContract) -> Result<CompiledContract, String> {
        let mut slots = BTreeMap::new();
        for decl in contract.inputs() {
            let schema = CompiledSchema::new(&decl.schema)
                .map_err(|p| format!("input `{}`: {p}", decl.name))?;
            slots.insert(
                decl.name.clone(),
                Slot {
                    schema,
                    secret: decl.secret,
                },
            );
        }
        let output = CompiledSchema::new(contract.output()).map_err(|p| format!("output: {p}"))?;
        Ok(CompiledContract { slots, output })
    }

    /// Checks a step's input object. A slot listed in `secret_slots` (or declared secret)
    /// may hold a secret reference, whose value is checked by the tool that resolves it.
    pub(crate) fn check_input(
        &self,
        input: &Map<String, Value>,
        secret_slots: &[String],
    ) -> Result<(), Vec<Violation>> {
        let mut violations = Vec::new();
        for name in input.keys() {
            if !self.slots.contains_key(name) {
                violations.push(Violation {
                    slot: Some(name.clone()),
                    pointer: String::new(),
                    message: "the tool has no such input".to_owned(),
                });
            }
        }
        for (name, slot) in &self.slots {
            let Some(value) = input.get(name) else {
                violations.push(Violation {
                    slot: Some(name.clone()),
                    pointer: String::new(),
                    message: "missing: it is not bound and has no default".to_owned(),
                });
                continue;
            };
            let may_be_secret = slot.secret || secret_slots.iter().any(|s| s == name);
            if is_secret_reference(value) {
                if !may_be_secret {
                    violations.push(Violation {
                        slot: Some(name.clone()),
                        pointer: String::new(),
                        message: "a secret reaches a slot that may not carry one".to_owned(),
                    });
                }
                continue;
            }
            if let Err(errors) = slot.schema.validate(value) {
                violations.extend(errors.into_iter().map(|e| Violation {
                    slot: Some(name.clone()),
                    pointer: e.pointer,
                    message: e.message,
                }));
            }
        }
        if violations.is_empty() {
            Ok(())
        } else {
            Err(violations)
        }
    }

    /// Checks a tool's output.
    pub(crate) fn check_output(&self, output: &Value) -> Result<(), Vec<Violation>> {
        self.output.validate(output).map_err(|errors| {
            errors
                .into_iter()
                .map(|e| Violation {
                    slot: None,
                    pointer: e.pointer,
                    message: e.message,
                })
                .collect()
        })
    }
}

/// Whether `value` is the input form of a secret-bearing value.
pub(crate) fn is_secret_reference(value: &Value) -> bool {
    matches!(value, Value::Object(map) if map.len() == 1 && matches!(map.get(SECRET_TEMPLATE_KEY), Some(Value::String(_))))
}

/// Whether `schema` admits `null`.
pub(crate) fn admits_null(schema: &Schema) -> bool {
    let by_type = schema
        .types
        .as_ref()
        .is_none_or(|types| types.contains(&JsonType::Null));
    let by_enum = schema
        .enum_values
        .as_ref()
        .is_none_or(|values| values.contains(&Value::Null));
    let by_any_of = schema
        .any_of
        .as_ref()
        .is_none_or(|branches| branches.iter().any(admits_null));
    by_type && by_enum && by_any_of && schema.const_value.as_ref().is_none_or(Value::is_null)
}
