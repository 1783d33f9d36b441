//! A browser tool on disk: its contract, its recorded steps and free-form metadata, as pretty
//! JSON (`recordings/<name>@<version>.json`).

use browserflow_contract::{Problems, ToolContract};
use serde_json::{Map, Value};

use crate::Step;
use crate::origins::Origins;

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
}

/// Why a tool file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ToolFileError {
    /// Not JSON at all.
    #[error("the tool file is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The top level is not an object, a field is missing, or a field is unknown.
    #[error("the tool file {0}")]
    Shape(String),
    /// The contract breaks the contract rules.
    #[error("the tool file's contract is invalid: {0}")]
    Contract(Problems),
    /// A tool file on disk could not be read, or is invalid.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A step is malformed.
    #[error("the tool file's step {} is invalid (at /steps/{index}): {message}", .index + 1)]
    Step {
        /// 0-based position.
        index: usize,
        /// What is wrong.
        message: String,
    },
}

const FIELDS: [&str; 4] = ["contract", "origins", "steps", "metadata"];

impl ToolFile {
    /// Parses and checks a tool file: the contract by the contract rules, every step by serde
    /// and [`Step::validate`]. Unknown top-level fields are rejected.
    pub fn from_json_str(text: &str) -> Result<Self, ToolFileError> {
        let value: Value = serde_json::from_str(text)?;
        let Value::Object(mut object) = value else {
            return Err(ToolFileError::Shape("is not a JSON object".into()));
        };
        if let Some(unknown) = object.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(ToolFileError::Shape(format!(
                "has an unknown field `{unknown}` (expected {})",
                FIELDS.join(", ")
            )));
        }
        let contract = object
            .remove("contract")
            .ok_or_else(|| ToolFileError::Shape("has no `contract`".into()))?;
        let contract = ToolContract::from_json(&contract).map_err(ToolFileError::Contract)?;
        let steps = match object.remove("steps") {
            Some(Value::Array(items)) => items,
            Some(_) => {
                return Err(ToolFileError::Shape(
                    "has `steps` that is not a list".into(),
                ));
            }
            None => return Err(ToolFileError::Shape("has no `steps`".into())),
        };
        let steps = steps
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                let step: Step = serde_json::from_value(item).map_err(|e| ToolFileError::Step {
                    index,
                    message: e.to_string(),
                })?;
                step.validate()
                    .map_err(|message| ToolFileError::Step { index, message })?;
                Ok::<Step, ToolFileError>(step)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let metadata = match object.remove("metadata") {
            None => Map::new(),
            Some(Value::Object(map)) => map,
            Some(_) => {
                return Err(ToolFileError::Shape(
                    "has `metadata` that is not an object".into(),
                ));
            }
        };
        let origins = object
            .remove("origins")
            .map(|value| Origins::from_json(&value))
            .transpose()
            .map_err(|message| ToolFileError::Shape(format!("has {message}")))?;
        Ok(Self {
            contract,
            steps,
            metadata,
            origins,
        })
    }

    /// The file as JSON (`contract`, `origins` when set, `steps`, and `metadata` when not
    /// empty), in a stable key order.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("contract".into(), self.contract.to_json());
        if let Some(origins) = &self.origins {
            object.insert("origins".into(), origins.to_json());
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

    /// The file as pretty JSON with a trailing newline, ready to write.
    pub fn to_json_pretty(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        text.push('\n');
        text
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

    /// Reads and checks a tool file from disk; errors name the file.
    pub fn load(path: &std::path::Path) -> Result<ToolFile, ToolFileError> {
        let file_error = |message: String| ToolFileError::File {
            path: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| file_error(format!("could not be read: {e}")))?;
        ToolFile::from_json_str(&text).map_err(|e| file_error(e.to_string()))
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
    use super::origin_of;

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
