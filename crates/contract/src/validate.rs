//! Validation of JSON values against a [`Schema`], with the `jsonschema` crate.

use std::fmt;

use serde_json::Value;

use crate::problem::{Problem, Problems, Rule};
use crate::schema::Schema;

/// A schema compiled once for repeated validation.
pub struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema").finish_non_exhaustive()
    }
}

/// One way a value fails its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError {
    /// JSON pointer of the offending value inside the validated document (`""`: the root).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}

impl CompiledSchema {
    /// Compiles `schema` (as JSON Schema 2020-12, formats asserted).
    pub fn new(schema: &Schema) -> Result<CompiledSchema, Problems> {
        let document = schema.to_json();
        jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&document)
            .map(|validator| CompiledSchema { validator })
            .map_err(|e| {
                Problems(vec![Problem::new(
                    "",
                    Rule::InvalidSchema,
                    format!("the schema does not compile: {e}"),
                )])
            })
    }

    /// Whether `value` matches.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.validator.is_valid(value)
    }

    /// Every way `value` fails the schema, each with its JSON pointer.
    pub fn validate(&self, value: &Value) -> Result<(), Vec<ValueError>> {
        let errors: Vec<ValueError> = self
            .validator
            .iter_errors(value)
            .map(|e| ValueError {
                pointer: e.instance_path().to_string(),
                message: e.to_string(),
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}
