//! The run folder of one browser-tool call: `NN-<step>.png` and `NN-<step>.thumb.png` per step
//! and `report.json` (tool, status, error, final URL, outputs, and per step: status, time,
//! winning selector, navigation, error, screenshot file names). Every value is redacted by
//! the run's one redactor (the Rider's) before the document is serialised; the screenshots
//! were taken with secrets masked.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::ReplayReport;
use crate::secrets::ReplaySecrets;
use browserflow_cdp::thumbnail::thumbnail_png;
use browserflow_steps::ToolFile;

/// Width of step thumbnails, in pixels.
pub const THUMBNAIL_WIDTH: u32 = 320;

/// `<root>/<run id>/<step id>-<name>@<version>`: the Rider's [`browserflow_rider::call_folder`],
/// which gives each call its folder as `ToolCtx::call_folder`.
pub fn call_dir(root: &Path, run_id: &str, step_id: &str, reference: &str) -> PathBuf {
    browserflow_rider::call_folder(root, run_id, step_id, reference)
}

/// Writes the screenshots and `report.json` of one call into `dir` (created if needed).
pub fn write(
    dir: &Path,
    file: &ToolFile,
    report: &ReplayReport,
    error: Option<&str>,
    secrets: &ReplaySecrets,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut steps = Vec::with_capacity(report.steps.len());
    for step in &report.steps {
        let mut entry = serde_json::to_value(step).unwrap_or(Value::Null);
        if let Some(png) = &step.screenshot {
            let stem = secrets.redact(&format!("{:02}-{}", step.index + 1, step.kind));
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
    // A step won by a lower-ranked selector: the earliest sign that the page drifts from the
    // recording, said where a person reading the report looks first.
    let warnings: Vec<String> = report
        .fallbacks(file)
        .iter()
        .map(ToString::to_string)
        .collect();
    let document = json!({
        "tool": file.contract.reference(),
        "status": if error.is_some() { "failed" } else { "passed" },
        "error": error,
        "warnings": warnings,
        "final_url": report.final_url,
        "duration_ms": report.duration_ms,
        "outputs": report.outputs,
        "steps": steps,
    });
    let document = secrets.redactor().redact_json(&document);
    let text = serde_json::to_string_pretty(&document).unwrap_or_default();
    std::fs::write(dir.join("report.json"), text + "\n")
}
