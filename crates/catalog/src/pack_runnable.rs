//! Packs carry only tools that `bflow run` would start: every recorded tool of a pack is read
//! as a tool file ([`ToolFile::from_json`], the one place where what a run refuses before it
//! starts is decided — unclosed or unknown `{{name}}`, step URLs the navigation guard
//! refuses), when the pack is exported and before it is installed. So neither an export nor
//! an import writes a tool that run would refuse; both fail naming the tool, its file in the
//! pack and every problem at its JSON pointer.

use browserflow_contract::Problems;
use browserflow_pack::{Form, VerifiedPack};
use browserflow_steps::ToolFile;

/// A recorded tool of a pack that `bflow run` would refuse before it starts.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`{reference}` ({file} in the pack) is a tool `bflow run` refuses: {problems}")]
pub struct NotRunnable {
    /// Its `name@version`.
    pub reference: String,
    /// Its file inside the pack.
    pub file: String,
    /// Every problem, each at its JSON pointer in the file.
    pub problems: Problems,
}

/// Every recorded tool (a document with `contract` and `steps`) of `pack` that run would
/// refuse; empty when there is none. Tools of other kinds (code, http…) have no steps.
pub(crate) fn not_runnable(pack: &VerifiedPack) -> Vec<NotRunnable> {
    let mut out = Vec::new();
    for entry in &pack.manifest.entries {
        if entry.form != Form::Tool {
            continue;
        }
        let Some((_, bytes)) = pack.files().iter().find(|(name, _)| *name == entry.file) else {
            continue;
        };
        // The pack verified: its documents are strict JSON.
        let Ok(value) = browserflow_contract::parse_json_slice(bytes) else {
            continue;
        };
        if value.get("steps").is_none() {
            continue;
        }
        if let Err(problems) = ToolFile::from_json(&value) {
            out.push(NotRunnable {
                reference: entry.reference.to_string(),
                file: entry.file.clone(),
                problems,
            });
        }
    }
    out
}

/// The tools of a list, one after another, for an error message.
pub(crate) fn list(tools: &[NotRunnable]) -> String {
    tools
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
