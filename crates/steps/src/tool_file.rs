//! A browser tool on disk: its contract, its recorded steps and free-form metadata, as pretty
//! JSON (`recordings/<name>@<version>.json`).

use std::path::Path;

use browserflow_contract::{
    Fields, JsonError, JsonFileError, Problem, Problems, Rule, ToolContract, parse_json_str,
    push_pointer, read_json_file,
};
use serde_json::{Map, Value};

use crate::{Step, StepKind};

mod located;
mod runnable;

use crate::Viewport;
use crate::origins::Origins;
use located::from_value_at;
pub use located::from_value_located;

/// A recorded browser tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFile {
    /// The tool's typed interface.
    pub contract: ToolContract,
    /// The recorded steps, replayed in order.
    pub steps: Vec<Step>,
    /// Anything else worth keeping (recorder version, start URL, …); not part of the contract.
    pub metadata: Map<String, Value>,
    /// The origins its top-level pages may navigate to (`origins`); `None` in a file written
    /// before the field existed (see [`ToolFile::allowed_origins`]).
    pub origins: Option<Origins>,
    /// The viewport it was recorded in (`viewport`), replayed with the same size; `None` in a
    /// file written before the field existed (replayed in the browser's own window size).
    pub viewport: Option<Viewport>,
}

/// Why a tool file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ToolFileError {
    /// Every problem of the document (its JSON, its shape, its contract, its steps), each
    /// with its JSON pointer.
    #[error("the tool file has {}", count_and_list(.0))]
    Invalid(Problems),
    /// A tool file on disk has problems.
    #[error("{}: {}", .path.display(), count_and_list(.problems))]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// Every problem, located.
        problems: Problems,
    },
    /// A tool file on disk could not be read at all (missing, unreadable, too large).
    #[error(transparent)]
    Unreadable(JsonFileError),
}

impl ToolFileError {
    /// The problems found in the document; `None` when it could not be read.
    pub fn problems(&self) -> Option<&Problems> {
        match self {
            ToolFileError::Invalid(problems) | ToolFileError::File { problems, .. } => {
                Some(problems)
            }
            ToolFileError::Unreadable(_) => None,
        }
    }
}

fn count_and_list(problems: &Problems) -> String {
    let count = problems.iter().count();
    let plural = if count == 1 { "" } else { "s" };
    format!("{count} problem{plural}:\n{problems}")
}

/// At most this many problems are reported for one step: enough for any real mistake, and a
/// bound on the work a hostile step can cause.
const MAX_PROBLEMS_PER_STEP: usize = 16;

impl ToolFile {
    /// Parses and checks a tool file: strict JSON (size, depth, no repeated key), the
    /// contract by the contract rules, every step by its type and [`Step::validate`], and
    /// unknown fields anywhere. Every problem is collected, each with its JSON pointer.
    pub fn from_json_str(text: &str) -> Result<Self, ToolFileError> {
        let value = parse_json_str(text).map_err(|e| json_problem(&e))?;
        ToolFile::from_json(&value).map_err(ToolFileError::Invalid)
    }

    /// [`ToolFile::from_json_str`] over a parsed document.
    pub fn from_json(value: &Value) -> Result<Self, Problems> {
        let mut out: Vec<Problem> = Vec::new();
        let mut fields = Fields::open(value, "", "a tool file", &mut out);
        let contract = fields
            .take("contract", &mut out)
            .and_then(|(contract, at)| ToolContract::parse_nested(contract, &at, &mut out));
        let steps = fields.array("steps", &mut out).map(|(items, at)| {
            items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| parse_step(item, &format!("{at}/{i}"), &mut out))
                .collect::<Vec<_>>()
        });
        let metadata = fields
            .optional_object("metadata", &mut out)
            .map(|(map, _)| map.clone())
            .unwrap_or_default();
        let origins =
            fields
                .optional("origins")
                .and_then(|(value, at)| match Origins::from_json(value) {
                    Ok(origins) => Some(origins),
                    Err(message) => {
                        out.push(Problem::new(at, Rule::InvalidValue, message));
                        None
                    }
                });
        let viewport = fields.optional("viewport").and_then(|(value, at)| {
            match serde_json::from_value::<Viewport>(value.clone()) {
                Ok(viewport) => match viewport.problem() {
                    None => Some(viewport),
                    Some(message) => {
                        out.push(Problem::new(at, Rule::InvalidValue, message));
                        None
                    }
                },
                Err(error) => {
                    out.push(Problem::new(
                        at,
                        Rule::InvalidValue,
                        format!("a viewport is {{\"width\", \"height\"}} in CSS pixels: {error}"),
                    ));
                    None
                }
            }
        });
        fields.reject_unknown(&mut out);
        // What the run would refuse before acting is refused here, for every reader.
        if let (Some(contract), Some(steps)) = (&contract, &steps) {
            let allowed = origins.clone().unwrap_or_else(|| Origins::of_steps(steps));
            runnable::problems(contract, steps, &allowed, &mut out);
        }
        Problems::check(out)?;
        match (contract, steps) {
            (Some(contract), Some(steps)) => Ok(ToolFile {
                contract,
                steps,
                metadata,
                origins,
                viewport,
            }),
            _ => unreachable!("a missing contract or steps list always leaves a problem"),
        }
    }

    /// The file as JSON (`contract`, `origins` and `viewport` when set, `steps`, and
    /// `metadata` when not empty), in a stable key order.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("contract".into(), self.contract.to_json());
        if let Some(origins) = &self.origins {
            object.insert("origins".into(), origins.to_json());
        }
        if let Some(viewport) = &self.viewport {
            object.insert(
                "viewport".into(),
                serde_json::json!({ "width": viewport.width, "height": viewport.height }),
            );
        }
        object.insert(
            "steps".into(),
            Value::Array(
                self.steps
                    .iter()
                    .map(|s| serde_json::to_value(s).unwrap_or(Value::Null))
                    .collect(),
            ),
        );
        if !self.metadata.is_empty() {
            object.insert("metadata".into(), Value::Object(self.metadata.clone()));
        }
        Value::Object(object)
    }

    /// The file as pretty JSON with a trailing newline, ready to write: serde_json's pretty
    /// layout, except that each post-state check (`expect`) is one line, so a step's checks
    /// read as a short list.
    pub fn to_json_pretty(&self) -> String {
        let mut text = String::new();
        write_pretty(&self.to_json(), 0, &mut text);
        text.push('\n');
        text
    }
}

/// serde_json's pretty layout (two spaces, `"key": value`), with the items of every `expect`
/// array written on one line each.
fn write_pretty(value: &Value, indent: usize, out: &mut String) {
    let pad = |n: usize, out: &mut String| out.extend(std::iter::repeat_n("  ", n));
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                pad(indent + 1, out);
                write_pretty(item, indent + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(indent, out);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (key, item)) in map.iter().enumerate() {
                pad(indent + 1, out);
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                match item {
                    Value::Array(checks) if key == "expect" && !checks.is_empty() => {
                        out.push_str("[\n");
                        for (j, check) in checks.iter().enumerate() {
                            pad(indent + 2, out);
                            write_one_line(check, out);
                            out.push_str(if j + 1 < checks.len() { ",\n" } else { "\n" });
                        }
                        pad(indent + 1, out);
                        out.push(']');
                    }
                    _ => write_pretty(item, indent + 1, out),
                }
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            pad(indent, out);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// `{"state": "value", "equals": "x"}`: one line, a space after each `:` and `,`, and
/// `state` first (what is checked, then how).
fn write_one_line(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            out.push('{');
            let state_first = map
                .iter()
                .filter(|(key, _)| *key == "state")
                .chain(map.iter().filter(|(key, _)| *key != "state"));
            for (i, (key, item)) in state_first.enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_one_line(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_one_line(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The metadata key naming the origin (`http://127.0.0.1:4780`) the steps were recorded
/// against; see [`ToolFile::rebase`].
pub const ORIGIN_KEY: &str = "origin";

/// `scheme://host[:port]` of an absolute http(s) URL; `None` for any other URL (`about:`,
/// `data:`, `file:`), which has no origin a tool could be rebased from.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(format!("{scheme}://{}", &rest[..end]))
}

impl ToolFile {
    /// The origin the tool was recorded against (`metadata.origin`), if it says.
    pub fn origin(&self) -> Option<&str> {
        self.metadata.get(ORIGIN_KEY).and_then(Value::as_str)
    }

    /// The same tool pointed at another origin: every step string that starts with
    /// `from_origin` (navigate URLs, expected navigation and frame URLs) starts with
    /// `to_origin` instead, and `metadata.origin` follows. Recordings keep absolute URLs;
    /// tests and the demo rebase them when the site is served elsewhere.
    pub fn rebase(&self, from_origin: &str, to_origin: &str) -> ToolFile {
        let from = from_origin.trim_end_matches('/');
        let to = to_origin.trim_end_matches('/');
        let steps = self
            .steps
            .iter()
            .map(|step| {
                let mut value = serde_json::to_value(step).unwrap_or(Value::Null);
                rebase_strings(&mut value, from, to);
                serde_json::from_value(value).unwrap_or_else(|_| step.clone())
            })
            .collect();
        let mut metadata = Value::Object(self.metadata.clone());
        rebase_strings(&mut metadata, from, to);
        let Value::Object(metadata) = metadata else {
            return self.clone();
        };
        let origins = self.origins.as_ref().map(|origins| match origins {
            Origins::Any => Origins::Any,
            Origins::Only(list) => Origins::only(list.iter().map(|origin| {
                if origin == from {
                    to.to_string()
                } else {
                    origin.clone()
                }
            })),
        });
        ToolFile {
            contract: self.contract.clone(),
            steps,
            metadata,
            origins,
            viewport: self.viewport,
        }
    }

    /// Where the tool's top-level pages may go: its `origins`, or for a file written before
    /// that field existed, the origins of its steps ([`Origins::of_steps`]: where it was
    /// recorded to go). Such a tool keeps working as long as it stays on those origins, and
    /// never silently gains the freedom to go anywhere.
    pub fn allowed_origins(&self) -> Origins {
        match &self.origins {
            Some(origins) => origins.clone(),
            None => Origins::of_steps(&self.steps),
        }
    }

    /// [`ToolFile::rebase`] from the recorded `metadata.origin` (unchanged when it has none).
    pub fn rebase_to(&self, to_origin: &str) -> ToolFile {
        match self.origin() {
            Some(from) => {
                let from = from.to_string();
                self.rebase(&from, to_origin)
            }
            None => self.clone(),
        }
    }

    /// Reads and checks a tool file from disk (at most
    /// [`MAX_DOCUMENT_BYTES`](browserflow_contract::MAX_DOCUMENT_BYTES)); errors name the file.
    pub fn load(path: &Path) -> Result<ToolFile, ToolFileError> {
        let in_file = |problems| ToolFileError::File {
            path: path.to_owned(),
            problems,
        };
        let value = read_json_file(path).map_err(|e| match e.reason {
            JsonError::Io(_) | JsonError::TooLarge { .. } => ToolFileError::Unreadable(e),
            other => in_file(Problems(vec![other.to_problem()])),
        })?;
        ToolFile::from_json(&value).map_err(in_file)
    }
}

fn json_problem(error: &JsonError) -> ToolFileError {
    ToolFileError::Invalid(Problems(vec![error.to_problem()]))
}

/// One step at `at`: `None`, with every problem found in `out`, when it is not valid.
fn parse_step(item: &Value, at: &str, out: &mut Vec<Problem>) -> Option<Step> {
    // The `Step` enum decides what is a step; the rest only locates what it refused.
    let error = match from_value_at::<Step>(item, at) {
        Ok(step) => {
            return match step.validate() {
                Ok(()) => Some(step),
                Err(message) => {
                    out.push(Problem::new(at, Rule::InvalidStep, message));
                    None
                }
            };
        }
        Err(error) => error,
    };
    if let Some(tag) = item.get("type")
        && !tag.is_string()
    {
        // serde calls a tag that is not a string missing.
        out.push(Problem::new(
            push_pointer(at, "type"),
            Rule::WrongType,
            format!(
                "expected a string (the step type), found {}",
                browserflow_contract::json_type_name(tag)
            ),
        ));
        return None;
    }
    // Errors inside the tagged enum come back unlocated (or at the step itself).
    let inside_the_step = error.pointer.as_deref().is_none_or(|pointer| pointer == at);
    let located = match item {
        Value::Object(object) if inside_the_step => object
            .get("type")
            .and_then(Value::as_str)
            .and_then(|tag| locate_in_variant(tag, object, at)),
        _ => None,
    };
    match located {
        Some(problems) if !problems.is_empty() => out.extend(problems),
        _ => out.push(error.into_problem(at)),
    }
    None
}

/// Every problem of a step of type `tag`, read as that type's own struct so that each has
/// its exact pointer (inside the tagged `Step` enum, serde loses where). `None` for a type
/// that is not a step kind, which is then reported at the step.
fn locate_in_variant(tag: &str, object: &Map<String, Value>, at: &str) -> Option<Vec<Problem>> {
    let kind = StepKind::from_name(tag)?;
    let mut fields = object.clone();
    fields.remove("type");
    Some(kind.every_problem(Value::Object(fields), at))
}

/// serde stops at the first error; to find the next one, the offending member is taken out
/// and the step read again, until it reads, a problem cannot be taken out, or the only one
/// left is a field that was taken out.
pub(crate) fn every_problem<T: for<'a> serde::Deserialize<'a>>(
    mut fields: Value,
    at: &str,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut taken_out: Vec<String> = Vec::new();
    while problems.len() < MAX_PROBLEMS_PER_STEP {
        let Err(error) = from_value_at::<T>(&fields, at) else {
            break;
        };
        let pointer = error.pointer.clone().unwrap_or_else(|| at.to_owned());
        if let Some(field) = error.missing_field
            && taken_out.contains(&push_pointer(&pointer, field))
        {
            break;
        }
        problems.push(error.clone().into_problem(at));
        let removable = error.rule != Rule::MissingField
            && pointer
                .strip_prefix(at)
                .is_some_and(|relative| take_out(&mut fields, relative));
        if !removable {
            break;
        }
        taken_out.push(pointer);
    }
    problems
}

/// Removes the object member at `relative` (a JSON pointer inside `value`); false when there
/// is none, or it is an array item (removing one would shift the pointers of the rest).
fn take_out(value: &mut Value, relative: &str) -> bool {
    let Some((parent, last)) = relative.rsplit_once('/') else {
        return false;
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    match value.pointer_mut(parent) {
        Some(Value::Object(map)) => map.remove(&key).is_some(),
        _ => false,
    }
}

fn rebase_strings(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(s) => {
            if let Some(rest) = s.strip_prefix(from)
                && (rest.is_empty() || rest.starts_with(['/', '?', '#']))
            {
                *s = format!("{to}{rest}");
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rebase_strings(v, from, to)),
        Value::Object(map) => map.values_mut().for_each(|v| rebase_strings(v, from, to)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_kind_all_is_every_type_step_reads() {
        // The typed unknown-variant error carries the list of types `Step` accepts.
        let error =
            from_value_at::<Step>(&serde_json::json!({"type": "no such type"}), "").unwrap_err();
        assert_eq!(error.rule, Rule::UnknownVariant);
        assert!(!error.expected_variants.is_empty());
        for tag in error.expected_variants {
            assert!(
                StepKind::from_name(tag).is_some(),
                "step type `{tag}` is missing from StepKind"
            );
        }
        for kind in StepKind::ALL {
            assert!(
                error.expected_variants.contains(&kind.name()),
                "StepKind::{kind:?} is not a type `Step` reads"
            );
        }
    }

    #[test]
    fn origins_of_web_urls_only() {
        assert_eq!(
            origin_of("http://127.0.0.1:4780/a?b").as_deref(),
            Some("http://127.0.0.1:4780")
        );
        assert_eq!(
            origin_of("https://shop.test#x").as_deref(),
            Some("https://shop.test")
        );
        assert_eq!(origin_of("about:blank"), None);
        assert_eq!(origin_of("file:///etc/hostname"), None);
    }
}
