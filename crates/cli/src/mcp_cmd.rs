//! `bflow mcp serve`: the tools and flows of folders and packs as MCP tools, over stdio.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use browserflow_catalog::{JournalAt, RunSetup, RunsFolder};
use browserflow_mcp::{Limits, McpServer, PackSource, Served, Sources, Trust};
use browserflow_replay::SharedBrowser;
use browserflow_rider::JournalLocation;
use clap::{Args, Subcommand};

use crate::exit::Outcome;
use crate::runtime::{BrowserArgs, BudgetArgs};

#[derive(Subcommand)]
pub enum McpCommand {
    /// Serve every tool and flow of the folders and packs named as MCP tools, over stdio
    /// (the MCP client starts this command; logs go to stderr), or over Streamable HTTP
    /// with `--http`.
    Serve(ServeArgs),
}

#[derive(Args)]
pub struct ServeArgs {
    /// A folder whose tool files and flows are served (repeatable).
    #[arg(long = "tools", value_name = "DIR")]
    tools: Vec<PathBuf>,
    /// A pack whose tools and flows are served: a `.bfpack` file, or an installed pack's
    /// `name@version` or digest (repeatable). Verified before anything is served.
    #[arg(long = "pack", value_name = "FILE|REF")]
    packs: Vec<String>,
    /// The pack store (default: `BROWSERFLOW_STORE`, else the user's data folder).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    /// Refuse every pack not signed by this public key (PEM; repeatable: any of them).
    #[arg(long = "require-signature", value_name = "PUBKEY")]
    require_signature: Vec<PathBuf>,
    /// Bind the secret slot SLOT of every served tool to the secret NAME (default: the
    /// secret named like the slot in upper case). Repeatable.
    #[arg(long = "secret", value_name = "SLOT=NAME")]
    secrets: Vec<String>,
    /// A secrets file (mode 0600, `NAME=value` lines), read after `BROWSERFLOW_SECRET_*`.
    #[arg(long, value_name = "PATH")]
    secrets_file: Option<PathBuf>,
    /// A journal for the calls' runs, a file or a `postgres://` URL (default: a throw-away
    /// file per call).
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "BROWSERFLOW_JOURNAL",
        hide_env_values = true
    )]
    journal: Option<JournalLocation>,
    /// Calls replaying at once, each in its own context of one shared browser.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    max_concurrency: u16,
    /// Calls waiting for a turn; a call past them is answered "busy" at once.
    #[arg(long, value_name = "N", default_value_t = 64)]
    queue_limit: u16,
    /// Serve over Streamable HTTP at `http://ADDR/mcp` instead of stdio (port 0: a free
    /// one, said on stderr). Anywhere but loopback the server needs a bearer token, from
    /// `BROWSERFLOW_MCP_TOKEN`; when that is set, every request must carry it.
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    #[command(flatten)]
    browser: BrowserArgs,
    #[command(flatten)]
    budget: BudgetArgs,
}

/// The bearer token of the HTTP transport.
const TOKEN_ENV: &str = "BROWSERFLOW_MCP_TOKEN";

pub fn run(command: McpCommand) -> Outcome {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    match command {
        McpCommand::Serve(args) => runtime.block_on(serve(args)),
    }
}

async fn serve(args: ServeArgs) -> Outcome {
    let mut secrets = BTreeMap::new();
    for binding in &args.secrets {
        let Some((slot, name)) = binding.split_once('=') else {
            anyhow::bail!(
                "--secret {binding}: give SLOT=NAME (the secret slot, then the secret's name)"
            );
        };
        let name = name.strip_prefix("secret.").unwrap_or(name);
        secrets.insert(slot.to_owned(), name.to_owned());
    }
    let keys = args
        .require_signature
        .iter()
        .map(|k| browserflow_pack::read_public_key(k).map_err(anyhow::Error::from))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let sources = Sources {
        dirs: args.tools.clone(),
        packs: args.packs.iter().map(|p| PackSource::parse(p)).collect(),
        store: args.store.clone(),
        trust: Trust {
            require_signature: !keys.is_empty(),
            keys,
        },
        secrets,
    };
    if sources.dirs.is_empty() && sources.packs.is_empty() {
        anyhow::bail!("nothing to serve: name a folder (--tools DIR) or a pack (--pack FILE|REF)");
    }
    let browser = Arc::new(SharedBrowser::new(args.browser.config()));
    let mut setup = RunSetup {
        journal: args
            .journal
            .clone()
            .map_or(JournalAt::Temporary, JournalAt::At),
        runs_folder: RunsFolder::None,
        secrets_file: args.secrets_file.clone(),
        browser: browser.clone(),
        log_redactor: Some(crate::logging::redactor().clone()),
        ..RunSetup::default()
    };
    if let Some(budget) = args.budget.step_budget {
        setup.rider.step_budget = budget;
    }
    let served = Served::load(&sources, &setup)?;
    for tool in &served.tools {
        tracing::info!(
            "serving {} as `{}` ({})",
            tool.reference,
            tool.mcp_name,
            tool.source
        );
    }
    let count = served.tools.len();
    let limits = Limits {
        max_concurrency: usize::from(args.max_concurrency),
        queue_limit: usize::from(args.queue_limit),
    };
    let server = McpServer::new(served, setup, limits);
    let served_result = match args.http {
        Some(addr) => {
            let token = std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty());
            server
                .serve_http(addr, token, |bound| {
                    eprintln!(
                        "bflow mcp: serving {} at http://{bound}{}",
                        crate::words::count(count, "tool"),
                        browserflow_mcp::MCP_PATH
                    );
                })
                .await
        }
        None => {
            eprintln!(
                "bflow mcp: serving {} over stdio",
                crate::words::count(count, "tool")
            );
            server.serve_stdio().await
        }
    };
    browser.close().await;
    served_result?;
    Ok(true)
}
