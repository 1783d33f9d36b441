//! Errors of browser management (launch, connect, contexts).

use std::path::PathBuf;

use crate::session::CdpError;

/// Why a browser could not be started, reached or used.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// No Chromium executable was found.
    #[error(
        "no Chromium found (looked for: {}). Install it with `apt-get install chromium`, or set \
         BROWSERFLOW_CHROME to the executable, or connect to a running browser's CDP endpoint",
        .tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    ChromiumNotFound {
        /// Every path and name that was tried, in order.
        tried: Vec<PathBuf>,
    },
    /// The executable could not be started.
    #[error("could not start Chromium at {path}: {source}")]
    Spawn {
        /// The executable.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Chromium started but never printed its DevTools endpoint.
    #[error("Chromium at {path} did not announce its DevTools endpoint within {waited_ms} ms{}", stderr_tail(.stderr))]
    LaunchTimeout {
        /// The executable.
        path: PathBuf,
        /// How long we waited.
        waited_ms: u64,
        /// The last lines Chromium printed.
        stderr: String,
    },
    /// Chromium exited during start-up.
    #[error("Chromium at {path} exited during start-up{}", stderr_tail(.stderr))]
    LaunchExited {
        /// The executable.
        path: PathBuf,
        /// The last lines Chromium printed.
        stderr: String,
    },
    /// The websocket endpoint could not be reached.
    #[error("could not connect to the CDP endpoint {endpoint}: {message}")]
    Connect {
        /// The endpoint URL.
        endpoint: String,
        /// What went wrong.
        message: String,
    },
    /// A browser to connect to is not on this machine, where the address guard cannot stand
    /// in front of it, and nobody vouched for it ([`crate::BrowserConfig::unguarded_addresses`]).
    #[error(
        "the browser at {host} is not on this machine: the address guard (which keeps its \
         pages from link-local and cloud-metadata addresses by any name) cannot stand in front \
         of it. Connect to a browser on this machine (127.0.0.1, localhost), let one be \
         launched, or vouch for what that browser can reach (bflow: --unguarded-addresses)"
    )]
    Unguardable {
        /// The endpoint's scheme, host and port (never its path or query: they may hold a
        /// token).
        host: String,
    },
    /// A temporary profile directory could not be created.
    #[error("could not create a temporary user-data-dir: {0}")]
    UserDataDir(std::io::Error),
    /// A protocol call failed.
    #[error("{context}: {source}")]
    Cdp {
        /// What we were doing.
        context: String,
        /// The failing call.
        source: CdpError,
    },
    /// A page needed by the caller is gone.
    #[error("{0}")]
    Page(String),
    /// A main-frame navigation did not happen or did not finish.
    #[error("navigation to {url} {failure}")]
    Navigation {
        /// Where it was going.
        url: String,
        /// What happened to it.
        failure: NavigationFailure,
    },
}

/// How a navigation failed, so callers decide on the kind (retry a slow server, not a URL the
/// browser refuses) rather than on the words.
#[derive(Debug, thiserror::Error)]
pub enum NavigationFailure {
    /// The browser refused to start it (`Page.navigate` failed: an invalid URL).
    #[error("failed: {0}")]
    Refused(CdpError),
    /// The network failed it (`errorText`: `net::ERR_CONNECTION_REFUSED`, a bad certificate…).
    #[error("failed: {0}")]
    Network(String),
    /// The server sent no response within the budget.
    #[error("did not finish loading within {timeout_ms} ms (the server sent no response)")]
    NoResponse {
        /// The budget.
        timeout_ms: u128,
    },
    /// The response came, but the document was not parsed within the budget.
    #[error("did not finish loading within {timeout_ms} ms")]
    NotLoaded {
        /// The budget.
        timeout_ms: u128,
    },
    /// The page went away while it loaded.
    #[error("was cut short: {0}")]
    CutShort(String),
    /// The page's navigation guard refused where the page went next while this navigation
    /// loaded (its own script, a redirect): the document will never be the one asked for.
    #[error("was stopped: {0}")]
    Blocked(Box<browserflow_steps::NavigationRefusal>),
}

impl BrowserError {
    /// Wraps a failed CDP call as [`BrowserError::Cdp`], saying what it was for (`context`):
    /// for `map_err`.
    pub fn cdp(context: impl Into<String>) -> impl FnOnce(CdpError) -> BrowserError {
        let context = context.into();
        move |source| BrowserError::Cdp { context, source }
    }

    /// True when the call failed because the connection to the browser is closed (the
    /// browser exited or crashed, or the endpoint went away): callers decide on this, never
    /// on the message's words.
    pub fn is_connection_closed(&self) -> bool {
        matches!(
            self,
            BrowserError::Cdp {
                source: CdpError::Closed,
                ..
            } | BrowserError::Navigation {
                failure: NavigationFailure::Refused(CdpError::Closed),
                ..
            }
        )
    }
}

fn stderr_tail(stderr: &str) -> String {
    let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
    if tail.is_empty() {
        String::new()
    } else {
        let lines: Vec<&str> = tail.into_iter().rev().collect();
        format!("; its output ends with:\n{}", lines.join("\n"))
    }
}
