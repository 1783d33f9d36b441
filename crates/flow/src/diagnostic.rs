//! Diagnostics: everything wrong with a flow, each with a stable code and a location.

use std::fmt;

use browserflow_contract::{Problem, Rule};

/// The stable code of a [`Diagnostic`]. Tools and tests match on [`Code::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// A step uses, or the flow pins, a tool the registry does not have.
    UnknownTool,
    /// The registry's contract digest differs from the flow's pin.
    DigestMismatch,
    /// A step uses a tool the flow does not pin in `requires`.
    UnpinnedTool,
    /// A wire whose source type is not assignable to its target.
    TypeMismatch,
    /// A required slot (no `default`) with no binding.
    MissingInput,
    /// A binding for a slot the tool does not declare.
    UnknownSlot,
    /// A reference to a step the flow does not have.
    UnknownStep,
    /// A reference to a flow input the flow does not declare.
    UnknownInput,
    /// A path into a value whose type has no such member.
    BadPath,
    /// Steps that depend on each other in a loop.
    Cycle,
    /// A secret (or a value derived from one) flowing where it may not.
    SecretLeak,
    /// A `secret: true` slot bound to a plain value.
    SecretExpected,
    /// An unconditional step reading a conditional step's output into a slot that does not
    /// accept `null`.
    SkippedInput,
    /// A binding that does not parse.
    BadBinding,
    /// A `when` condition that does not parse.
    BadCondition,
    /// A step id or flow input name that is not an identifier.
    InvalidId,
    /// Two steps with the same id.
    DuplicateStep,
    /// Two flow inputs with the same name.
    DuplicateInput,
    /// Two pins for the same tool.
    DuplicateRequire,
    /// Two different contracts registered under one `name@version`.
    DuplicateTool,
    /// A file that cannot be read, or is not a tool, contract or flow.
    BadFile,
    /// A `for_each` that is not an array, `item` read outside a `for_each` step's bindings,
    /// or `concurrency`/`on_item_error` without `for_each`.
    BadForEach,
    /// A structural problem found while reading the document (the contract crate's rules:
    /// `invalid_json`, `unknown_field`, `missing_field`, `wrong_type`, …).
    Invalid(Rule),
}

impl Code {
    /// The snake_case code.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::UnknownTool => "unknown_tool",
            Code::DigestMismatch => "digest_mismatch",
            Code::UnpinnedTool => "unpinned_tool",
            Code::TypeMismatch => "type_mismatch",
            Code::MissingInput => "missing_input",
            Code::UnknownSlot => "unknown_slot",
            Code::UnknownStep => "unknown_step",
            Code::UnknownInput => "unknown_input",
            Code::BadPath => "bad_path",
            Code::Cycle => "cycle",
            Code::SecretLeak => "secret_leak",
            Code::SecretExpected => "secret_expected",
            Code::SkippedInput => "skipped_input",
            Code::BadBinding => "bad_binding",
            Code::BadCondition => "bad_condition",
            Code::InvalidId => "invalid_id",
            Code::DuplicateStep => "duplicate_step",
            Code::DuplicateInput => "duplicate_input",
            Code::DuplicateRequire => "duplicate_require",
            Code::DuplicateTool => "duplicate_tool",
            Code::BadFile => "bad_file",
            Code::BadForEach => "bad_for_each",
            Code::Invalid(rule) => rule.code(),
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One thing wrong with a flow (or a tool file), located by step, slot and JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// The file, when the problem is in a file other than the flow being checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The step id, when the problem belongs to a step.
    pub step: Option<String>,
    /// The slot, when the problem belongs to one of a step's slots.
    pub slot: Option<String>,
    /// The JSON pointer (RFC 6901) of the offending value in the document; `""` is the root.
    pub pointer: String,
    /// What is wrong, for a person.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at `pointer`, with no step or slot.
    pub fn new(code: Code, pointer: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            file: None,
            step: None,
            slot: None,
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    /// Attaches the step.
    pub fn step(mut self, step: impl Into<String>) -> Diagnostic {
        self.step = Some(step.into());
        self
    }

    /// Attaches the slot.
    pub fn slot(mut self, slot: impl Into<String>) -> Diagnostic {
        self.slot = Some(slot.into());
        self
    }

    /// Attaches the file.
    pub fn file(mut self, file: impl Into<String>) -> Diagnostic {
        self.file = Some(file.into());
        self
    }
}

impl From<Problem> for Diagnostic {
    fn from(p: Problem) -> Diagnostic {
        Diagnostic::new(Code::Invalid(p.rule), p.pointer, p.message)
    }
}

/// `[code] file pointer (step s, slot x): message`
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] ", self.code)?;
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        f.write_str(if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        })?;
        match (&self.step, &self.slot) {
            (Some(step), Some(slot)) => write!(f, " (step `{step}`, slot `{slot}`)")?,
            (Some(step), None) => write!(f, " (step `{step}`)")?,
            (None, Some(slot)) => write!(f, " (slot `{slot}`)")?,
            (None, None) => {}
        }
        write!(f, ": {}", self.message)
    }
}

/// Every diagnostic found, in document order. Never empty.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, thiserror::Error)]
#[serde(transparent)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// `Ok(())` for an empty list.
    pub fn check(list: Vec<Diagnostic>) -> Result<(), Diagnostics> {
        if list.is_empty() {
            Ok(())
        } else {
            Err(Diagnostics(list))
        }
    }

    /// The diagnostics.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    /// Whether some diagnostic has `code`.
    pub fn has(&self, code: Code) -> bool {
        self.0.iter().any(|d| d.code == code)
    }

    /// The first diagnostic with `code`.
    pub fn find(&self, code: Code) -> Option<&Diagnostic> {
        self.0.iter().find(|d| d.code == code)
    }

    /// Every code, in order.
    pub fn codes(&self) -> Vec<&'static str> {
        self.0.iter().map(|d| d.code.as_str()).collect()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}
