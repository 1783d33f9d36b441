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
}

impl BrowserError {
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
