//! The one tool lookup of both shells: `bflow run TOOL` and the app's Replay preview find a
//! tool the same way — a path to a tool file, or `name@version` in the catalog's folders (in
//! order), then the pack store, then the built-ins.

use std::path::{Path, PathBuf};

use browserflow_contract::ToolRef;
use browserflow_pack::{PackError, Store};
use browserflow_steps::{ToolFile, ToolFileError};

use crate::Catalog;

/// Where a tool was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoundTool {
    /// A tool file: in a folder, in the pack store, or the path given.
    File(PathBuf),
    /// A built-in of the standard pack (it has no file).
    Builtin(ToolRef),
}

/// Why a tool was not found.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// `name@version` is nowhere the catalog looks.
    #[error("no tool file `{reference}.json` in {}", dirs_list(.dirs))]
    NotFound {
        /// What was asked for.
        reference: String,
        /// The folders looked in.
        dirs: Vec<PathBuf>,
    },
    /// The pack store could not be read.
    #[error(transparent)]
    Store(#[from] PackError),
    /// The tool file found does not load.
    #[error(transparent)]
    ToolFile(#[from] ToolFileError),
}

fn dirs_list(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        "no directory".to_string()
    } else {
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Catalog {
    /// Finds the tool `spec`: a path to a tool file, or `name@version` looked up as
    /// `<dir>/<name>@<version>.json` in each folder in order, then in the pack store, then
    /// among the built-ins. A `spec` that is no `name@version` and in no folder is taken as
    /// the path of a tool file (loading it says what is wrong). Folders come first so that a tool being edited shadows the
    /// installed one.
    pub fn find_tool(&self, spec: &str) -> Result<FoundTool, LookupError> {
        let as_path = Path::new(spec);
        if as_path.is_file() {
            return Ok(FoundTool::File(as_path.to_path_buf()));
        }
        let file_name = format!("{spec}.json");
        if let Some(found) = self
            .dirs
            .iter()
            .map(|dir| dir.join(&file_name))
            .find(|candidate| candidate.is_file())
        {
            return Ok(FoundTool::File(found));
        }
        let Ok(reference) = spec.parse::<ToolRef>() else {
            // Not a `name@version`: a path, whose loading says what is wrong with it.
            return Ok(FoundTool::File(as_path.to_path_buf()));
        };
        if let Some(root) = &self.store
            && let Some(installed) = Store::open(root.clone()).resolve(&reference)?
        {
            return Ok(FoundTool::File(installed.path));
        }
        let builtins = browserflow_std::builtins().unwrap_or_default();
        if builtins.iter().any(|b| b.reference() == spec) {
            return Ok(FoundTool::Builtin(reference));
        }
        Err(LookupError::NotFound {
            reference: spec.to_string(),
            dirs: self.dirs.clone(),
        })
    }

    /// The tool file of `spec` ([`Catalog::find_tool`]), for running it on its own: a
    /// built-in has no file, so it is not found here.
    pub fn tool_file(&self, spec: &str) -> Result<ToolFile, LookupError> {
        match self.find_tool(spec)? {
            FoundTool::File(path) => Ok(ToolFile::load(&path)?),
            FoundTool::Builtin(_) => Err(LookupError::NotFound {
                reference: spec.to_string(),
                dirs: self.dirs.clone(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_come_in_order_then_the_built_ins() {
        let first = tempfile::tempdir().expect("a temp dir");
        let second = tempfile::tempdir().expect("a temp dir");
        std::fs::write(second.path().join("t@1.0.0.json"), "{}").expect("written");
        let catalog = Catalog {
            dirs: vec![first.path().to_path_buf(), second.path().to_path_buf()],
            store: None,
        };
        assert_eq!(
            catalog.find_tool("t@1.0.0").expect("found"),
            FoundTool::File(second.path().join("t@1.0.0.json"))
        );
        assert!(matches!(
            catalog.find_tool("std/transform.slugify@1.0.0"),
            Ok(FoundTool::Builtin(_))
        ));
        let missing = catalog.find_tool("nowhere@1.0.0").expect_err("not found");
        assert!(
            missing
                .to_string()
                .starts_with("no tool file `nowhere@1.0.0.json` in ")
        );
    }
}
