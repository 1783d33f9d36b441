//! Command-line options shared by every command that drives a browser.

use std::path::PathBuf;

use browserflow_cdp::BrowserConfig;
use clap::Args;

/// `--step-budget SECONDS`: the time all attempts of one step may take together.
#[derive(Args, Clone)]
pub struct BudgetArgs {
    /// The time all attempts of one step may take together, retries and their waits
    /// included, in seconds (default 30; a flow step's `timeout_ms` overrides it).
    #[arg(long, value_name = "SECONDS", value_parser = parse_budget)]
    pub step_budget: Option<std::time::Duration>,
}

fn parse_budget(text: &str) -> Result<std::time::Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(seconds > 0.0 && seconds <= 86_400.0) {
        return Err(format!("`{text}`: give between 0 and 86400 seconds"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

#[derive(Args, Clone)]
pub struct BrowserArgs {
    /// Show the browser window instead of running headless.
    #[arg(long)]
    headed: bool,
    /// The Chromium executable (default: `BROWSERFLOW_CHROME`, then the system's chromium).
    #[arg(long, value_name = "PATH")]
    chrome: Option<PathBuf>,
    /// Connect to a running browser (`ws://…` CDP endpoint, or `http://host:port`) instead of launching one.
    #[arg(long, value_name = "URL")]
    browser_ws: Option<String>,
}

impl BrowserArgs {
    pub fn config(&self) -> BrowserConfig {
        BrowserConfig {
            chrome_path: self.chrome.clone(),
            ws_endpoint: self.browser_ws.clone(),
            headless: !self.headed,
            ..BrowserConfig::default()
        }
    }
}

impl BrowserArgs {
    /// These options as command-line arguments, to repeat them in a printed command.
    pub fn as_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if self.headed {
            args.push("--headed".to_owned());
        }
        if let Some(chrome) = &self.chrome {
            args.push("--chrome".to_owned());
            args.push(absolute(chrome));
        }
        if let Some(url) = &self.browser_ws {
            args.push("--browser-ws".to_owned());
            args.push(url.clone());
        }
        args
    }
}

/// `path` made absolute, so a printed command works from another folder too.
pub fn absolute(path: &std::path::Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}
