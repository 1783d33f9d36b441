//! Finding, launching and connecting to Chromium; one isolated browser context per replay.
//! `discover.rs` finds the executable, `process.rs` owns the launched process (command line,
//! process group, profile), `context.rs` is a [`BrowserContext`]; the [`Browser`] is here.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::Command;

use crate::address_guard::AddressProxy;
use crate::error::BrowserError;
use crate::host_rules::HostRules;
use crate::page::{BrowserWatcher, Page};
use crate::session::CdpConnection;

mod context;
mod discover;
mod process;

pub use context::BrowserContext;
pub use discover::{CHROME_ENV, find_chromium};
pub use process::{
    BASE_FLAGS, kill_and_remove_profile, launch_args, sigkill_tree, tree_cpu_seconds, wait_exited,
};
use process::{ChromeProcess, guard_against_orphaning, in_memory_profile, read_ws_endpoint};

/// How to obtain a browser.
#[derive(Debug, Clone)]
pub struct BrowserConfig {
    /// Chromium executable; when `None`, `BROWSERFLOW_CHROME`, then the usual install paths.
    pub chrome_path: Option<PathBuf>,
    /// Connect to this running browser (`ws://…/devtools/browser/…`) instead of launching one.
    pub ws_endpoint: Option<String>,
    /// Launch without a window (default true).
    pub headless: bool,
    /// Extra command-line flags for a launched browser.
    pub extra_args: Vec<String>,
    /// How long a launched browser may take to announce its DevTools endpoint.
    pub launch_timeout: Duration,
    /// Connect to `ws_endpoint` without the address guard: the browser resolves and connects
    /// by itself, and only navigations are checked (their names resolved here). For a browser
    /// the guard cannot stand in front of (one on another machine, or whose `127.0.0.1` is
    /// not this machine's); whoever sets it vouches for what that browser can reach. Not read
    /// for a launched browser, which is always guarded.
    pub unguarded_addresses: bool,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        Self {
            chrome_path: None,
            ws_endpoint: None,
            headless: true,
            extra_args: Vec::new(),
            launch_timeout: Duration::from_secs(20),
            unguarded_addresses: false,
        }
    }
}

/// A Chromium browser: launched by us (and killed with its profile removed on drop) or connected
/// to over CDP. One `Browser` serves many concurrent [`BrowserContext`]s.
pub struct Browser {
    conn: CdpConnection,
    ws_endpoint: String,
    process: Option<ChromeProcess>,
    popups: Arc<BrowserWatcher>,
    /// The launch arguments' host mapping, which the address guard resolves by.
    host_rules: Arc<HostRules>,
    /// Whether its contexts' connections go through an address guard of this process.
    guarded: bool,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("ws_endpoint", &shown_endpoint(&self.ws_endpoint))
            .field("launched", &self.process.is_some())
            .finish()
    }
}

impl Browser {
    /// Launches Chromium, or connects when `config.ws_endpoint` is set: guarded when the
    /// endpoint is on this machine, refused when it is not unless
    /// `config.unguarded_addresses` ([`BrowserConfig::check_connection`]).
    pub async fn launch(config: &BrowserConfig) -> Result<Self, BrowserError> {
        if let Some(endpoint) = &config.ws_endpoint {
            config.check_connection()?;
            return Self::open(endpoint, !config.unguarded_addresses).await;
        }
        let path = find_chromium(config.chrome_path.as_deref())?;
        let user_data_dir = in_memory_profile().map_err(BrowserError::UserDataDir)?;
        let mut command = Command::new(&path);
        command.args(launch_args(config, user_data_dir.path()));
        command
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            // Its own process group: one signal ends it with every process it starts, and a
            // Ctrl-C meant for us reaches it only through us.
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|source| BrowserError::Spawn {
            path: path.clone(),
            source,
        })?;
        tracing::debug!(target: "browserflow::timing", "chromium spawned");
        if let Some(pid) = child.id() {
            guard_against_orphaning(pid, user_data_dir.path());
        }
        let ws_endpoint = match read_ws_endpoint(&mut child, &path, config.launch_timeout).await {
            Ok(endpoint) => endpoint,
            Err(error) => {
                let _ = child.start_kill();
                let _ = child.wait().await;
                return Err(error);
            }
        };
        tracing::debug!(target: "browserflow::timing", "devtools endpoint announced");
        let mut browser = Self::open(&ws_endpoint, true).await?;
        tracing::debug!(target: "browserflow::timing", "connected");
        browser.process = Some(ChromeProcess {
            child,
            user_data_dir: Some(user_data_dir),
        });
        browser.host_rules = Arc::new(HostRules::from_args(&config.extra_args));
        Ok(browser)
    }

    /// Connects to a running browser on this machine: its CDP websocket endpoint
    /// (`ws://…/devtools/browser/…`) or its HTTP debugging address (`http://127.0.0.1:9222`,
    /// looked up in `/json/version`), with the address guard; one elsewhere is refused (see
    /// [`BrowserConfig::unguarded_addresses`] to connect to it anyway).
    pub async fn connect(endpoint: &str) -> Result<Self, BrowserError> {
        Self::launch(&BrowserConfig {
            ws_endpoint: Some(endpoint.to_string()),
            ..BrowserConfig::default()
        })
        .await
    }

    /// Connects to `endpoint`; `guarded`: its contexts get an address guard.
    async fn open(endpoint: &str, guarded: bool) -> Result<Self, BrowserError> {
        let ws_endpoint = if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
            websocket_of(endpoint).await?
        } else {
            endpoint.to_string()
        };
        let ws_endpoint = ws_endpoint.as_str();
        let conn =
            CdpConnection::connect(ws_endpoint)
                .await
                .map_err(|e| BrowserError::Connect {
                    endpoint: shown_endpoint(ws_endpoint),
                    message: e.to_string(),
                })?;
        tracing::debug!(target: "browserflow::timing", "websocket open");
        let popups = BrowserWatcher::start(&conn);
        // Not awaited: the browser session handles it before the next call (a context or a
        // page), and a connection that fails meanwhile fails that call too.
        let discovery = conn
            .session(None)
            .start("Target.setDiscoverTargets", json!({ "discover": true }));
        tokio::spawn(async move {
            if let Err(error) = discovery.await {
                tracing::warn!(%error, "could not enable target discovery (popups go unseen)");
            }
        });
        Ok(Self {
            conn,
            ws_endpoint: ws_endpoint.to_string(),
            process: None,
            host_rules: Arc::default(),
            popups,
            guarded,
        })
    }

    /// The process id of a browser we launched (`None` when connected to).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|p| p.child.id())
    }

    /// The profile directory of a browser we launched (`None` when connected to); it is
    /// removed once the browser's processes are gone.
    pub fn profile_dir(&self) -> Option<&std::path::Path> {
        self.process
            .as_ref()
            .and_then(|p| p.user_data_dir.as_ref())
            .map(tempfile::TempDir::path)
    }

    /// Whether the CDP connection is still open (false once the browser exited or the
    /// endpoint went away).
    pub fn is_connected(&self) -> bool {
        !self.conn.is_closed()
    }

    /// The browser's DevTools websocket endpoint (share it to connect more clients).
    pub fn ws_endpoint(&self) -> &str {
        &self.ws_endpoint
    }

    /// The browser's product string, for example `Chrome/156.0.8078.108`.
    pub async fn version(&self) -> Result<String, BrowserError> {
        let version = self
            .conn
            .session(None)
            .call("Browser.getVersion", json!({}))
            .await
            .map_err(BrowserError::cdp("reading the browser version"))?;
        Ok(version["product"].as_str().unwrap_or_default().to_string())
    }

    /// A fresh, isolated browser context (its own cookies, storage and cache) with one blank page.
    /// Never the browser's default context: only a created context is off the record (kept in
    /// memory), while the default one writes the session, autofilled form values and the
    /// cache into the profile (`browserflow-replay`'s `tests/it/profile.rs` checks it).
    pub async fn new_context(&self) -> Result<BrowserContext, BrowserError> {
        let browser_session = self.conn.session(None);
        // A launched browser, or one connected to on this machine: its context's
        // connections to host names go through an address guard of this process
        // (`address_guard.rs`).
        let proxy = match self.guarded {
            true => Some(
                AddressProxy::start(self.host_rules.clone())
                    .await
                    .map_err(|e| BrowserError::Page(format!("starting the address guard: {e}")))?,
            ),
            false => None,
        };
        let mut params = json!({ "disposeOnDetach": true });
        if let Some(proxy) = &proxy {
            params["proxyServer"] = json!(proxy.server);
            params["proxyBypassList"] = json!(PROXY_BYPASS);
        }
        let created = browser_session
            .call("Target.createBrowserContext", params)
            .await
            .map_err(BrowserError::cdp("creating a browser context"))?;
        let context_id = answer_text(
            &created,
            "browserContextId",
            "createBrowserContext returned no id",
        )?;
        tracing::debug!(target: "browserflow::timing", "browser context created");
        let params = json!({ "url": "about:blank", "browserContextId": context_id });
        let target = browser_session
            .call("Target.createTarget", params)
            .await
            .map_err(BrowserError::cdp("opening a page"))?;
        let target_id = answer_text(&target, "targetId", "createTarget returned no target id")?;
        // Made before the page is attached, so that a failed attach still ends it (on drop).
        let mut context = BrowserContext {
            browser_session,
            context_id,
            page: None,
            popups: self.popups.clone(),
            open: true,
            addresses: proxy,
        };
        tracing::debug!(target: "browserflow::timing", "context and target created");
        let page = Page::attach(
            &self.conn,
            &target_id,
            self.popups.clone(),
            context.address_guard(),
        )
        .await?;
        tracing::debug!(target: "browserflow::timing", "page attached");
        context.page = Some(page);
        Ok(context)
    }

    /// Closes the browser: a launched one is killed and its profile directory removed (it is
    /// a throwaway, so there is nothing to shut down in order); a connected one is only
    /// disconnected from.
    pub async fn close(mut self) -> Result<(), BrowserError> {
        if let Some(process) = self.process.take() {
            // One `kill` run and a spawned remover: off the async workers.
            let _ = tokio::task::spawn_blocking(move || process.kill()).await;
        }
        Ok(())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(process) = self.process.take() {
            process.kill();
        }
    }
}

/// What a guarded context connects to without its address guard: loopback only. Chromium's
/// implicit rules would let link-local addresses (`169.254.0.0/16`, `fe80::/10`) bypass a
/// proxy too, and the `Fetch` interception that refuses them by URL does not see WebSocket
/// handshakes; `<-loopback>` takes the implicit rules away and the rest puts loopback back,
/// so a literal link-local address reaches the guard like any other.
const PROXY_BYPASS: &str = "<-loopback>,127.0.0.0/8,[::1],localhost,*.localhost";

impl BrowserConfig {
    /// Whether connecting to `ws_endpoint` keeps the promise of where a page may go: the
    /// address guard is a proxy on this machine's `127.0.0.1`, which only a browser on this
    /// machine reaches, so an endpoint elsewhere is refused unless `unguarded_addresses` says
    /// someone vouches for it. `Ok` for a launched browser. Checked before anything runs.
    pub fn check_connection(&self) -> Result<(), BrowserError> {
        match &self.ws_endpoint {
            Some(endpoint) if !self.unguarded_addresses && !on_this_machine(endpoint) => {
                Err(BrowserError::Unguardable {
                    host: host_of(endpoint),
                })
            }
            _ => Ok(()),
        }
    }
}

/// Whether a DevTools endpoint's host is this machine: a loopback address (in any notation
/// the URL parser reads), `localhost` or a name under `.localhost`. Any other name may be
/// anywhere.
fn on_this_machine(endpoint: &str) -> bool {
    let Ok(url) = url::Url::parse(endpoint) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

/// An endpoint as errors and descriptions show it: its scheme, host and port, never its path
/// or query, which may hold a token (`ws://host:3000?token=…`).
pub fn shown_endpoint(endpoint: &str) -> String {
    host_of(endpoint)
}

fn host_of(endpoint: &str) -> String {
    match url::Url::parse(endpoint) {
        Ok(url) => url.origin().ascii_serialization(),
        Err(_) => "an endpoint that is not a URL".to_string(),
    }
}

/// The text `field` of a CDP answer; `missing` says which call left it out.
fn answer_text(answer: &Value, field: &str, missing: &str) -> Result<String, BrowserError> {
    answer[field]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| BrowserError::Page(missing.to_string()))
}

/// The browser websocket URL a DevTools HTTP endpoint announces in `/json/version`.
async fn websocket_of(http_endpoint: &str) -> Result<String, BrowserError> {
    let base = http_endpoint.trim_end_matches('/');
    let url = if base.ends_with("/json/version") {
        base.to_string()
    } else {
        format!("{base}/json/version")
    };
    let failed = |message: String| BrowserError::Connect {
        endpoint: shown_endpoint(http_endpoint),
        message,
    };
    // reqwest is built without a default crypto provider; install ring once per process (an
    // error only means one is installed already).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .build()
        .map_err(|e| failed(format!("no HTTP client: {e}")))?;
    let response = client
        .get(&url)
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .map_err(|e| failed(format!("GET /json/version: {}", e.without_url())))?;
    if !response.status().is_success() {
        return Err(failed(format!(
            "GET /json/version: HTTP {}",
            response.status()
        )));
    }
    let version: Value = response.json().await.map_err(|e| {
        failed(format!(
            "/json/version did not answer JSON: {}",
            e.without_url()
        ))
    })?;
    version["webSocketDebuggerUrl"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| failed("/json/version has no webSocketDebuggerUrl".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connecting(endpoint: &str, unguarded_addresses: bool) -> BrowserConfig {
        BrowserConfig {
            ws_endpoint: Some(endpoint.to_string()),
            unguarded_addresses,
            ..BrowserConfig::default()
        }
    }

    #[test]
    fn only_a_browser_on_this_machine_is_connected_to_unless_vouched_for() {
        for here in [
            "ws://127.0.0.1:9222/devtools/browser/a",
            "ws://127.8.9.1:9222/devtools/browser/a",
            "http://localhost:9222",
            "ws://LOCALHOST.:9222/devtools/browser/a",
            "ws://chrome.localhost:9222/devtools/browser/a",
            "ws://[::1]:9222/devtools/browser/a",
            "http://2130706433:9222",
        ] {
            assert!(connecting(here, false).check_connection().is_ok(), "{here}");
        }
        for elsewhere in [
            "ws://10.0.0.5:9222/devtools/browser/a",
            "ws://chrome:3000/?token=SECRET-TOKEN",
            "http://browser.example.com:9222",
            "ws://[fd00::1]:9222/devtools/browser/a",
            "ws://169.254.169.254:9222/",
            "not a url",
        ] {
            let refused = connecting(elsewhere, false).check_connection().unwrap_err();
            let said = refused.to_string();
            assert!(
                matches!(refused, BrowserError::Unguardable { .. }),
                "{elsewhere}"
            );
            assert!(!said.contains("SECRET-TOKEN"), "no path or query: {said}");
            assert!(said.contains("--unguarded-addresses"), "{said}");
            // Vouched for: connected to, unguarded.
            assert!(connecting(elsewhere, true).check_connection().is_ok());
        }
        assert!(
            BrowserError::Unguardable {
                host: host_of("ws://chrome:3000/devtools/browser/x?token=SECRET")
            }
            .to_string()
            .contains("ws://chrome:3000 is not on this machine")
        );
        // A launched browser is always guarded.
        assert!(BrowserConfig::default().check_connection().is_ok());
    }
}
