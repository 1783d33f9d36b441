//! What a tool call gives back besides its value: its report, its folder, its screenshots.
//!
//! A tool returns them in its [`ToolOutput`] (or, when it fails, on its
//! [`ToolError`](crate::ToolError)); the Rider hands them to the caller in
//! [`RunOutcome::artifacts`](crate::RunOutcome::artifacts) and
//! [`RunFailure::artifacts`](crate::RunFailure::artifacts), keyed by step id. Nothing of them
//! is journaled: the journal keeps outcomes, the artifacts are for the person who started the
//! run (a step timeline, a run folder to open).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A tool call's value and what it left to look at.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The value, validated by the Rider against the contract's output.
    pub value: Value,
    /// The call's report, folder and screenshots.
    pub artifacts: Artifacts,
    /// What a person should know although the call succeeded, one sentence each (a browser
    /// tool: a step found its element only by a lower-ranked candidate — the page drifts from
    /// its recording). Unlike the artifacts they are journaled with the step's outcome (each
    /// redacted), so every view of the run shows them.
    pub warnings: Vec<String>,
}

impl ToolOutput {
    /// A value with no artifacts and no warnings.
    pub fn value(value: Value) -> ToolOutput {
        ToolOutput {
            value,
            artifacts: Artifacts::default(),
            warnings: Vec::new(),
        }
    }
}

/// What one tool call left to look at. Everything in it was redacted (values) or masked
/// (screenshots) by the tool before it was returned, like everything a run writes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Artifacts {
    /// The call's folder ([`ToolCtx::call_folder`](crate::ToolCtx::call_folder)), when the
    /// tool wrote into it.
    pub folder: Option<PathBuf>,
    /// The call's report as a JSON document whose shape the tool's kind defines (a browser
    /// tool: its replay report).
    pub report: Option<Value>,
    /// Screenshots kept in memory, for a caller with no folder to read them from (a failing
    /// page).
    pub screenshots: Vec<Screenshot>,
}

impl Artifacts {
    /// Whether the call left nothing.
    pub fn is_empty(&self) -> bool {
        self.folder.is_none() && self.report.is_none() && self.screenshots.is_empty()
    }
}

/// A PNG screenshot of one of the tool's own steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screenshot {
    /// The tool's step it shows (0-based, in the tool's own steps).
    pub step: usize,
    /// The PNG bytes.
    pub png: Vec<u8>,
}

/// `<root>/<run id>/<step id>-<name>@<version>`: the folder of one tool call in the run's own
/// folder, one folder a step, named so a person finds the step; `/` and other unsafe
/// characters made safe. The Rider gives it to a tool as
/// [`ToolCtx::call_folder`](crate::ToolCtx::call_folder) when
/// [`RiderOptions::runs_folder`](crate::RiderOptions::runs_folder) is set.
pub fn call_folder(root: &Path, run_id: &str, step_id: &str, reference: &str) -> PathBuf {
    let safe = |text: &str| -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "@.-_".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    root.join(safe(run_id))
        .join(safe(&format!("{step_id}-{reference}")))
}
