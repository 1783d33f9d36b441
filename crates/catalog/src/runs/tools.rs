//! Runnable tools from files: the standard pack's built-ins, browser tool files, and `code`
//! and `model` tool files.

use std::path::PathBuf;
use std::sync::Arc;

use browserflow_contract::JsonError;
use browserflow_flow::{Code, Diagnostic, Diagnostics};
use browserflow_replay::{BrowserTool, SharedBrowser};
use browserflow_rider::{SharedTool, ToolRegistry};
use browserflow_steps::{ToolFile, ToolFileError};
use serde_json::Value;

/// The registry of every built-in and every runnable tool file among `files`. Contract-only
/// files and flows have nothing to run and are skipped (flows run as composites of their
/// plan). Every file that fails is reported, each naming its file. Browser tools drive
/// `browser`.
pub(crate) fn runnable(
    files: &[PathBuf],
    browser: &Arc<SharedBrowser>,
) -> Result<ToolRegistry, Diagnostics> {
    let mut registry = ToolRegistry::new();
    let mut scratch = browserflow_flow::Registry::new();
    browserflow_std::register_builtins(&mut registry, &mut scratch)
        .map_err(|e| Diagnostics(vec![Diagnostic::new(Code::BadFile, "", e.to_string())]))?;
    let mut problems = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let bad = |message: String| Diagnostic::new(Code::BadFile, "", message).file(name.clone());
        let value = match browserflow_contract::read_json_file(path) {
            Ok(value) => value,
            Err(e) if matches!(e.reason, JsonError::Io(_) | JsonError::TooLarge { .. }) => {
                problems.push(bad(format!("cannot read the file: {}", e.reason)));
                continue;
            }
            // The contract registry reports JSON errors with their position.
            Err(_) => continue,
        };
        let kind = value.pointer("/contract/kind").and_then(Value::as_str);
        let registered = match kind {
            Some("browser") => match ToolFile::from_json(&value).map_err(ToolFileError::Invalid) {
                Ok(file) => registry
                    .register(BrowserTool::factory(file, browser.clone()))
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            },
            Some(_) => match browserflow_std::tool_from_file(&value) {
                Ok(Some(tool)) => registry
                    // One instance shared by every call: `code` and `model` tools hold no mutable state.
                    .register(move || SharedTool(tool.clone()))
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                Ok(None) => Ok(()),
                Err(e) => Err(e),
            },
            None => Ok(()),
        };
        if let Err(message) = registered {
            problems.push(bad(message));
        }
    }
    Diagnostics::check(problems)?;
    Ok(registry)
}
