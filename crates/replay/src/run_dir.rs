//! The run folder of one browser-tool call: `NN-<step>.png` and `NN-<step>.thumb.png` per step
//! and `report.json` (tool, status, error, final URL, outputs, and per step: status, time,
//! winning selector, navigation, error, screenshot file names). Secret input values are
//! replaced by `[REDACTED]` in everything written.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::ReplayReport;
use browserflow_cdp::thumbnail::thumbnail_png;
use browserflow_steps::ToolFile;

/// Width of step thumbnails, in pixels.
pub const THUMBNAIL_WIDTH: u32 = 320;

/// What replaces a secret value in reports and errors.
pub const REDACTED: &str = "[REDACTED]";

/// Secret strings that must not appear in anything written.
#[derive(Debug, Clone, Default)]
pub struct Redactions(Vec<String>);

impl Redactions {
    /// Adds a value (empty strings are ignored: they would match everywhere).
    pub fn add(&mut self, secret: &str) {
        if !secret.is_empty() {
            self.0.push(secret.to_string());
        }
    }

    /// `text` with every secret replaced by [`REDACTED`].
    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in &self.0 {
            out = out.replace(secret.as_str(), REDACTED);
        }
        out
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `<root>/<name>@<version>-<idempotency key>`, with `/` in tool names made safe.
pub fn call_dir(root: &Path, reference: &str, idempotency_key: &str) -> PathBuf {
    let safe: String = format!("{reference}-{idempotency_key}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "@.-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    root.join(safe)
}

/// Writes the screenshots and `report.json` of one call into `dir` (created if needed).
pub fn write(
    dir: &Path,
    file: &ToolFile,
    report: &ReplayReport,
    error: Option<&str>,
    secrets: &Redactions,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut steps = Vec::with_capacity(report.steps.len());
    for step in &report.steps {
        let mut entry = serde_json::to_value(step).unwrap_or(Value::Null);
        if let Some(png) = &step.screenshot {
            let stem = format!("{:02}-{}", step.index + 1, step.kind);
            let shot = format!("{stem}.png");
            std::fs::write(dir.join(&shot), png)?;
            entry["screenshot"] = json!(shot);
            if let Ok(thumb) = thumbnail_png(png, THUMBNAIL_WIDTH) {
                let name = format!("{stem}.thumb.png");
                std::fs::write(dir.join(&name), thumb)?;
                entry["thumbnail"] = json!(name);
            }
        }
        steps.push(entry);
    }
    let document = json!({
        "tool": file.contract.reference(),
        "status": if error.is_some() { "failed" } else { "passed" },
        "error": error,
        "final_url": report.final_url,
        "duration_ms": report.duration_ms,
        "outputs": report.outputs,
        "steps": steps,
    });
    let text = serde_json::to_string_pretty(&document).unwrap_or_default();
    std::fs::write(dir.join("report.json"), secrets.apply(&text) + "\n")
}
