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
    /// Connect to a running browser (`ws://…` CDP endpoint, or `http://host:port`) instead of
    /// launching one. A browser on this machine gets the address guard; one elsewhere is
    /// refused unless `--unguarded-addresses`.
    #[arg(long, value_name = "URL")]
    browser_ws: Option<String>,
    /// With `--browser-ws`: connect without the address guard (the browser resolves and
    /// connects by itself; only navigations are checked). You vouch for what that browser
    /// can reach — link-local and cloud-metadata addresses by a name included.
    #[arg(long, requires = "browser_ws")]
    unguarded_addresses: bool,
}

impl BrowserArgs {
    pub fn config(&self) -> BrowserConfig {
        BrowserConfig {
            chrome_path: self.chrome.clone(),
            ws_endpoint: self.browser_ws.clone(),
            headless: !self.headed,
            unguarded_addresses: self.unguarded_addresses,
            ..BrowserConfig::default()
        }
    }
}

/// Refuses, before anything runs, a command whose `--browser-ws` names a browser the address
/// guard cannot stand in front of (`BrowserConfig::check_connection`), unless
/// `--unguarded-addresses` vouches for it. `matches` are the running command's: one without
/// [`BrowserArgs`] (`bflow record` connects to a browser a person drives) is left alone.
pub fn check_browser_connection(matches: &clap::ArgMatches) -> anyhow::Result<()> {
    let Ok(Some(unguarded)) = matches.try_get_one::<bool>("unguarded_addresses") else {
        return Ok(());
    };
    let Ok(Some(endpoint)) = matches.try_get_one::<String>("browser_ws") else {
        return Ok(());
    };
    BrowserConfig {
        ws_endpoint: Some(endpoint.clone()),
        unguarded_addresses: *unguarded,
        ..BrowserConfig::default()
    }
    .check_connection()?;
    Ok(())
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
        if self.unguarded_addresses {
            args.push("--unguarded-addresses".to_owned());
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
