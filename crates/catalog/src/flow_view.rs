//! A flow as the desktop app's Flows screen shows it: its inputs and steps (each slot with its
//! binding) beside the compiler's diagnostics, each placed on its step and slot. Checking is
//! exactly `bflow check`: [`Catalog::for_flow`] then [`Catalog::check_flow`] — one verdict,
//! with the same warnings (a sibling that does not load, named, is never the flow's error).
//!
//! ```no_run
//! let view = browserflow_catalog::flow_view::check_flow("recordings/daily-price-watch.flow.json".as_ref(), None);
//! for d in &view.diagnostics {
//!     println!("{:?}.{:?}: {}", d.step, d.slot, d.message);
//! }
//! ```

use std::path::Path;

use browserflow_flow::{Diagnostic, FlowSpec};
use serde::{Deserialize, Serialize};

use crate::Catalog;

/// One slot binding of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SlotBinding {
    /// The slot.
    pub slot: String,
    /// The binding as written (`{"from": "input.query"}`), compact JSON.
    pub binding: String,
}

/// One step of a flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FlowStepView {
    /// The step id.
    pub id: String,
    /// The tool, `name@version`.
    pub uses: String,
    /// The bindings, by slot name.
    pub with: Vec<SlotBinding>,
    /// The `when` condition, when there is one.
    pub when: Option<String>,
}

/// One compiler diagnostic, located.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DiagnosticView {
    /// The stable code (`type_mismatch`, …).
    pub code: String,
    /// The file, when the problem is in another file than the flow.
    pub file: Option<String>,
    /// The step id.
    pub step: Option<String>,
    /// The slot.
    pub slot: Option<String>,
    /// The JSON pointer into the file.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl From<&Diagnostic> for DiagnosticView {
    fn from(d: &Diagnostic) -> Self {
        DiagnosticView {
            code: d.code.as_str().to_string(),
            file: d.file.clone(),
            step: d.step.clone(),
            slot: d.slot.clone(),
            pointer: d.pointer.clone(),
            message: d.message.clone(),
        }
    }
}

/// A flow, checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FlowView {
    /// The file.
    pub path: String,
    /// The flow name and version, when the file parses.
    pub reference: Option<String>,
    /// What it does.
    pub description: String,
    /// The flow's inputs.
    pub inputs: Vec<crate::library::SlotInfo>,
    /// The steps, in the author's order.
    pub steps: Vec<FlowStepView>,
    /// The output binding, compact JSON.
    pub output: Option<String>,
    /// Whether the flow compiles.
    pub ok: bool,
    /// The flow digest, when it compiles.
    pub flow_digest: Option<String>,
    /// The capabilities the flow needs, when it compiles.
    pub capabilities: Vec<String>,
    /// Everything the compiler found wrong.
    pub diagnostics: Vec<DiagnosticView>,
    /// What the catalog skipped on the way (a sibling file that does not load, a stranger, a
    /// pack's different tool shadowed), each naming its file.
    pub warnings: Vec<String>,
}

/// Reads and checks the flow at `path` against its catalog (its folder, `contracts/`, the
/// pack store at `store` or the default one, the built-ins). Never fails: an unreadable flow
/// is a view with diagnostics.
pub fn check_flow(path: &Path, store: Option<&Path>) -> FlowView {
    let mut catalog = Catalog::for_flow(path, &[]);
    if let Some(store) = store {
        catalog.store = Some(store.to_path_buf());
    }
    let checked = catalog.check_flow(path);
    let spec = browserflow_contract::read_json_file(path)
        .ok()
        .and_then(|value| FlowSpec::from_json(&value).ok());
    let mut view = FlowView {
        path: path.display().to_string(),
        reference: None,
        description: String::new(),
        inputs: Vec::new(),
        steps: Vec::new(),
        output: None,
        ok: false,
        flow_digest: None,
        capabilities: Vec::new(),
        diagnostics: Vec::new(),
        warnings: checked.warnings.iter().map(ToString::to_string).collect(),
    };
    if let Some(spec) = &spec {
        view.reference = Some(format!("{}@{}", spec.name, spec.version));
        view.description = spec.description.clone();
        view.inputs = spec
            .inputs
            .iter()
            .map(|decl| crate::library::SlotInfo {
                name: decl.name.clone(),
                type_name: decl
                    .schema
                    .to_json()
                    .get("type")
                    .map(|t| t.to_string().trim_matches('"').to_string())
                    .unwrap_or_else(|| "any".into()),
                secret: decl.secret,
                required: decl.schema.to_json().get("default").is_none(),
                default: None,
            })
            .collect();
        view.steps = spec
            .steps
            .iter()
            .map(|step| FlowStepView {
                id: step.id.clone(),
                uses: step.uses.to_string(),
                with: step
                    .with
                    .iter()
                    .map(|(slot, binding)| SlotBinding {
                        slot: slot.clone(),
                        binding: binding.to_json().to_string(),
                    })
                    .collect(),
                when: step.when.as_ref().map(|w| w.to_string()),
            })
            .collect();
        view.output = Some(spec.output.to_json().to_string());
    }
    match checked.plan {
        Ok(plan) => {
            view.ok = true;
            view.flow_digest = Some(plan.flow_digest.to_string());
            view.capabilities = plan
                .capabilities
                .iter()
                .map(|c| c.as_str().to_string())
                .collect();
        }
        Err(diagnostics) => {
            let own = path.display().to_string();
            view.diagnostics = diagnostics
                .iter()
                .map(DiagnosticView::from)
                .map(|mut d| {
                    // The flow's own file is implied; name only other files.
                    if d.file.as_deref() == Some(own.as_str()) {
                        d.file = None;
                    }
                    d
                })
                .collect();
        }
    }
    view
}
