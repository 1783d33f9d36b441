//! Command-line options shared by every command that drives a browser.

use std::path::PathBuf;

use browserflow_cdp::BrowserConfig;
use clap::Args;

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
