//! `bflow tools list`: the built-in standard pack.

use clap::Subcommand;

use crate::exit::Outcome;

#[derive(Subcommand)]
pub enum ToolsCommand {
    /// Every built-in tool: name, version, kind, capabilities, contract digest.
    List {
        /// Print JSON lines instead of a table.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: ToolsCommand) -> Outcome {
    let ToolsCommand::List { json } = command;
    for tool in browserflow_std::builtins()? {
        let capabilities: Vec<&str> = tool.capabilities.iter().map(|c| c.as_str()).collect();
        if json {
            let line = serde_json::json!({
                "ref": tool.reference(),
                "kind": tool.kind,
                "capabilities": capabilities,
                "contract_digest": tool.digest,
            });
            println!("{line}");
        } else {
            println!(
                "{:<32} {:<10} {:<16} {}",
                tool.reference(),
                tool.kind.as_str(),
                format!("[{}]", capabilities.join(", ")),
                tool.digest
            );
        }
    }
    Ok(true)
}
