//! Which JSON files of a tools folder are browserflow's: decided by shape (the top-level
//! keys), so that a stranger (an editor's `settings.json`) is skipped while a tool file with
//! an error is still reported as one.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::registry::json_files_in;

/// Top-level keys only browserflow's files have: a tool file's `contract` and `steps`, a
/// contract's `kind`, `inputs`, `output` and `capabilities`, a flow's `steps`, `requires`,
/// `inputs` and `output`. `name`, `version` and `description` are left out: every
/// `package.json` has them.
const OUR_KEYS: &[&str] = &[
    "contract",
    "steps",
    "kind",
    "inputs",
    "output",
    "capabilities",
    "requires",
];

/// Files larger than this are not opened to decide their shape: they are left to the loaders,
/// which report them (a stranger is small; a huge file in a tools folder is worth an error).
const SHAPE_READ_LIMIT: u64 = 16 * 1024 * 1024;

/// What a JSON value is, by its top-level keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileShape {
    /// An object with `contract`: a tool file.
    ToolFile,
    /// An object with `steps` and no `contract`: a flow.
    Flow,
    /// Another object with one of a contract's keys: a contract.
    Contract,
    /// Anything else (another object, an array, a scalar): not browserflow's.
    Stranger,
}

/// The shape of `value`.
pub fn shape_of(value: &Value) -> FileShape {
    let Value::Object(map) = value else {
        return FileShape::Stranger;
    };
    if map.contains_key("contract") {
        FileShape::ToolFile
    } else if map.contains_key("steps") {
        FileShape::Flow
    } else if OUR_KEYS.iter().any(|key| map.contains_key(*key)) {
        FileShape::Contract
    } else {
        FileShape::Stranger
    }
}

/// A JSON file in a tools folder that is not a tool, flow or contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stranger {
    /// The file.
    pub path: PathBuf,
    /// Its top-level keys (`None`: it is not an object), for the message.
    pub keys: Option<Vec<String>>,
}

impl std::fmt::Display for Stranger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "skipped {}: not a tool, flow or contract (",
            self.path.display()
        )?;
        match &self.keys {
            None => write!(f, "not a JSON object")?,
            Some(keys) if keys.is_empty() => write!(f, "an empty object")?,
            Some(keys) => {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                write!(f, "top-level keys {}", keys.join(", "))?;
            }
        }
        write!(
            f,
            "; browserflow's files have one of {})",
            OUR_KEYS
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// The JSON files directly inside a tools folder, split into browserflow's and strangers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FolderFiles {
    /// Tool files, contracts, flows — and every file whose shape cannot be told (unreadable,
    /// not valid JSON, very large), so its loader reports the problem.
    pub files: Vec<PathBuf>,
    /// Valid JSON files that are not browserflow's.
    pub strangers: Vec<Stranger>,
}

/// The JSON files of `dir` (see [`json_files_in`]), strangers set apart.
pub fn tool_folder_files(dir: &Path) -> std::io::Result<FolderFiles> {
    let mut out = FolderFiles::default();
    for path in json_files_in(dir)? {
        match stranger_keys(&path) {
            Some(keys) => out.strangers.push(Stranger { path, keys }),
            None => out.files.push(path),
        }
    }
    Ok(out)
}

/// The top-level keys of `path` when it is valid JSON of a stranger's shape; `None` for
/// browserflow's files and files whose shape cannot be told.
fn stranger_keys(path: &Path) -> Option<Option<Vec<String>>> {
    let size = std::fs::metadata(path).ok()?.len();
    if size > SHAPE_READ_LIMIT {
        return None;
    }
    let text = std::fs::read(path).ok()?;
    let value: Value = serde_json::from_slice(&text).ok()?;
    match shape_of(&value) {
        FileShape::Stranger => Some(match value {
            Value::Object(map) => Some(map.keys().cloned().collect()),
            _ => None,
        }),
        _ => None,
    }
}
