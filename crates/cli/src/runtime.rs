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
