//! `bflow check FLOW [--tools DIR]… [--json]`.

use std::path::PathBuf;

use browserflow_catalog::Catalog;
use browserflow_flow::Diagnostics;
use clap::Args;

use crate::exit::Outcome;

#[derive(Args)]
pub struct CheckArgs {
    /// The flow file (`*.flow.json`).
    flow: PathBuf,
    /// A folder of tool, contract or flow files to resolve refs from (repeatable). The flow's
    /// own folder and its `contracts/` subfolder are always searched.
    #[arg(long = "tools", value_name = "DIR")]
    tools: Vec<PathBuf>,
    /// Print machine-readable JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: CheckArgs) -> Outcome {
    let catalog = Catalog::for_flow(&args.flow, &args.tools);
    crate::logging::warn_strangers(&catalog);
    // The flow's wiring, then every tool file as a run loads it (steps included).
    let checked = catalog
        .contracts()
        .and_then(|registry| browserflow_flow::check_file(&args.flow, &registry))
        .and_then(|plan| catalog.check_runnable().map(|()| plan));
    match checked {
        Ok(plan) => {
            let capabilities: Vec<&str> = plan.capabilities.iter().map(|c| c.as_str()).collect();
            if args.json {
                let report = serde_json::json!({
                    "ok": true,
                    "flow": format!("{}@{}", plan.name, plan.version),
                    "flow_digest": plan.flow_digest,
                    "capabilities": capabilities,
                    "diagnostics": [],
                });
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!(
                    "ok {}@{} {} capabilities [{}]",
                    plan.name,
                    plan.version,
                    plan.flow_digest,
                    capabilities.join(", ")
                );
            }
            Ok(true)
        }
        Err(diagnostics) => {
            report_diagnostics(&args, &diagnostics)?;
            Ok(false)
        }
    }
}

fn report_diagnostics(args: &CheckArgs, diagnostics: &Diagnostics) -> anyhow::Result<()> {
    if args.json {
        let report = serde_json::json!({"ok": false, "diagnostics": diagnostics});
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let count = diagnostics.iter().count();
        eprintln!(
            "{}: {count} problem{}",
            args.flow.display(),
            if count == 1 { "" } else { "s" }
        );
        for diagnostic in diagnostics.iter() {
            eprintln!("{diagnostic}");
        }
    }
    Ok(())
}
