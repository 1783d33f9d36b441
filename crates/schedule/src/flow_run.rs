//! What a schedule runs: its flow compiled and its stored inputs typed, now — the flow file
//! is read at each firing, and one that no longer compiles, or no longer takes an input the
//! schedule gives, fails that firing naming why.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use browserflow_catalog::{Catalog, RunInput, RunInputs};
use browserflow_flow::{Bound, Plan};
use browserflow_rider::ScheduleRecord;

/// Why a schedule's flow cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    /// The flow does not compile.
    #[error("{flow}: the flow does not compile:\n{diagnostics}")]
    DoesNotCompile {
        /// The flow file.
        flow: String,
        /// The compiler's diagnostics, one per line.
        diagnostics: String,
    },
    /// An input does not fit the flow's slots.
    #[error("input `{input}`: {reason}")]
    Input {
        /// The input as written (`name=…`, the value left out).
        input: String,
        /// Why.
        reason: String,
    },
}

/// A schedule's flow, ready to run.
pub struct Compiled {
    /// The catalog the flow resolved its tools in (it builds the Rider).
    pub catalog: Catalog,
    /// The plan.
    pub plan: Plan,
    /// The inputs, bound.
    pub inputs: BTreeMap<String, Bound>,
}

/// Compiles `flow` (tools from `tools`) and binds the `name=value` `inputs` to it.
pub fn compile(flow: &Path, tools: &[PathBuf], inputs: &[String]) -> Result<Compiled, FlowError> {
    let (catalog, plan) = compile_plan(flow, tools)?;
    bind(catalog, plan, inputs)
}

/// Compiles `flow` (tools from `tools`), binding no inputs: a queued run's are in the
/// journal.
pub fn compile_plan(flow: &Path, tools: &[PathBuf]) -> Result<(Catalog, Plan), FlowError> {
    let catalog = Catalog::for_flow(flow, tools);
    let checked = catalog.check_flow(flow);
    let plan = checked
        .plan
        .map_err(|diagnostics| FlowError::DoesNotCompile {
            flow: flow.display().to_string(),
            diagnostics: diagnostics
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        })?;
    Ok((catalog, plan))
}

fn bind(catalog: Catalog, plan: Plan, inputs: &[String]) -> Result<Compiled, FlowError> {
    let mut typed = RunInputs::new();
    for written in inputs {
        let Some((name, text)) = written.split_once('=') else {
            return Err(FlowError::Input {
                input: written.clone(),
                reason: "expected name=value".to_owned(),
            });
        };
        let named = format!("{name}=…");
        let Some(decl) = plan.inputs.iter().find(|d| d.name == name) else {
            let known: Vec<&str> = plan.inputs.iter().map(|d| d.name.as_str()).collect();
            return Err(FlowError::Input {
                input: named,
                reason: format!(
                    "the flow has no such input (its inputs: {})",
                    known.join(", ")
                ),
            });
        };
        if typed.contains_key(name) {
            return Err(FlowError::Input {
                input: named,
                reason: "given twice".to_owned(),
            });
        }
        let input = RunInput::from_written(decl, text).map_err(|e| FlowError::Input {
            input: named.clone(),
            reason: e.to_string(),
        })?;
        typed.insert(name.to_owned(), input);
    }
    let inputs = browserflow_catalog::runs::bind_inputs(&plan.inputs, &typed).map_err(|e| {
        FlowError::Input {
            input: "(inputs)".to_owned(),
            reason: e.to_string(),
        }
    })?;
    Ok(Compiled {
        catalog,
        plan,
        inputs,
    })
}

/// [`compile`] for a stored schedule.
pub fn compile_schedule(schedule: &ScheduleRecord) -> Result<Compiled, FlowError> {
    let tools: Vec<PathBuf> = schedule.tools.iter().map(PathBuf::from).collect();
    compile(Path::new(&schedule.flow), &tools, &schedule.inputs)
}
