//! Finding, launching and connecting to Chromium; one isolated browser context per replay.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::error::BrowserError;
use crate::page::{Page, PopupTracker};
use crate::session::{CdpConnection, CdpError, CdpSession};

/// The environment variable naming the Chromium executable to use.
pub const CHROME_ENV: &str = "BROWSERFLOW_CHROME";

/// Executables tried, in order, when neither an explicit path nor `BROWSERFLOW_CHROME` is given.
const CANDIDATE_PATHS: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
];

/// Names looked up on `PATH` after the fixed paths.
const CANDIDATE_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

/// Flags every launched browser gets: quiet, deterministic, no background traffic, and no
/// throttling of pages that are not in front (replays run side by side in one browser).
/// `--headless` and, as root, `--no-sandbox` are added by [`Browser::launch`].
pub const BASE_FLAGS: &[&str] = &[
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-hang-monitor",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-port=0",
    // No first tab: every replay opens its own page in its own context, and a start page
    // would only cost a renderer process while the browser starts.
    "--no-startup-window",
];

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
}

impl Default for BrowserConfig {
    fn default() -> Self {
        Self {
            chrome_path: None,
            ws_endpoint: None,
            headless: true,
            extra_args: Vec::new(),
            launch_timeout: Duration::from_secs(20),
        }
    }
}

/// Finds the Chromium executable: `explicit`, else `BROWSERFLOW_CHROME`, else the usual paths and
/// names on `PATH`.
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, BrowserError> {
    find_chromium_with(explicit, std::env::var_os(CHROME_ENV))
}

fn find_chromium_with(
    explicit: Option<&Path>,
    from_env: Option<std::ffi::OsString>,
) -> Result<PathBuf, BrowserError> {
    if let Some(path) = explicit {
        return if is_executable(path) {
            Ok(path.to_path_buf())
        } else {
            Err(BrowserError::ChromiumNotFound {
                tried: vec![path.to_path_buf()],
            })
        };
    }
    if let Some(value) = from_env.filter(|v| !v.is_empty()) {
        let path = PathBuf::from(value);
        return if is_executable(&path) {
            Ok(path)
        } else {
            Err(BrowserError::ChromiumNotFound { tried: vec![path] })
        };
    }
    let mut tried = Vec::new();
    for candidate in CANDIDATE_PATHS {
        let path = PathBuf::from(candidate);
        if is_executable(&path) {
            return Ok(path);
        }
        tried.push(path);
    }
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for name in CANDIDATE_NAMES {
        for dir in &path_dirs {
            let path = dir.join(name);
            if is_executable(&path) {
                return Ok(path);
            }
        }
        tried.push(PathBuf::from(name));
    }
    Err(BrowserError::ChromiumNotFound { tried })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Chromium refuses to start its sandbox as root; `/proc/self` is owned by our effective user.
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

/// The whole command line (after the executable) [`Browser::launch`] starts Chromium with:
/// [`BASE_FLAGS`], the throwaway profile `user_data_dir`, `--headless` unless headed,
/// `--no-sandbox` as root and `config.extra_args`. Public so that a benchmark floor launches
/// the very same browser.
pub fn launch_args(config: &BrowserConfig, user_data_dir: &Path) -> Vec<String> {
    let mut args: Vec<String> = BASE_FLAGS.iter().map(|f| f.to_string()).collect();
    args.push(format!("--user-data-dir={}", user_data_dir.display()));
    if config.headless {
        args.push("--headless".into());
    }
    if running_as_root() {
        args.push("--no-sandbox".into());
    }
    args.extend(config.extra_args.iter().cloned());
    args
}

/// A launched browser process and the profile directory it owns.
struct ChromeProcess {
    child: Child,
    // Dropped after the child: the directory is removed once the browser is gone.
    user_data_dir: Option<tempfile::TempDir>,
}

/// How long the profile remover waits for a killed browser's processes to be gone before it
/// removes the profile anyway (SIGKILL takes effect within milliseconds).
const KILL_WAIT: Duration = Duration::from_millis(2000);

impl ChromeProcess {
    /// Ends the browser at once: SIGKILL to it and every process it started. The profile is a
    /// throwaway, so an orderly shutdown would only flush files deleted next (and take
    /// hundreds of milliseconds). The profile is removed once those processes are gone (see
    /// [`kill_and_remove_profile`]), without anyone waiting for it.
    fn kill(mut self) {
        let dir = self.user_data_dir.take().map(tempfile::TempDir::keep);
        match (self.child.id(), dir) {
            (Some(pid), Some(dir)) => kill_and_remove_profile(pid, dir),
            (Some(pid), None) => {
                sigkill_tree(pid);
            }
            (None, Some(dir)) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            (None, None) => {}
        }
        // Dropping the child (kill on drop) leaves its reaping to Tokio.
        tracing::debug!(target: "browserflow::timing", "chromium killed");
    }
}

/// Makes sure a browser we launched does not outlive us when we die without ending it (a
/// SIGKILL, a crash): a detached `sh`, parented to init, checks once a second that this process
/// is alive; once it is not, it kills the browser `pid` (its renderers follow) and removes its
/// `profile`. It ends by itself when the browser is gone. The browser leads its own process
/// group, so one signal ends all its processes. The workspace forbids `unsafe`, so
/// `PR_SET_PDEATHSIG` (set between fork and exec) is not an option.
fn guard_against_orphaning(pid: u32, profile: &Path) {
    const GUARD: &str = r#"( parent=$1; browser=$2; dir=$3
  while kill -0 "$parent" 2>/dev/null; do
    kill -0 "$browser" 2>/dev/null || exit 0
    sleep 1
  done
  kill -KILL "-$browser" 2>/dev/null
  sleep 1
  rm -rf -- "$dir" ) </dev/null >/dev/null 2>&1 &"#;
    // The outer `sh` returns at once (the guard runs in the background), so waiting for it
    // leaves no zombie behind.
    let _ = std::process::Command::new("sh")
        .arg("-c")
        .arg(GUARD)
        .arg("browserflow-orphan-guard")
        .arg(std::process::id().to_string())
        .arg(pid.to_string())
        .arg(profile)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .status();
}

/// Kills the browser `pid` with all its processes now and returns at once; its `profile`
/// directory is removed by a detached `sh` as soon as they are gone. Removing it before
/// would race the browser's network service, which outlives the browser for a moment and
/// writes into the profile. Without `sh`, waits here and removes it itself. The browser must
/// lead its own process group (spawned with `process_group(0)`, as `Browser::launch` does).
/// Public so that a benchmark floor ends Chromium exactly as browserflow does.
pub fn kill_and_remove_profile(pid: u32, profile: PathBuf) {
    sigkill_tree(pid);
    // Polls the group's processes in /proc (gone, or zombies, is done) for at most ~2 s.
    const REMOVER: &str = r#"dir=$1; group=$2; n=0
alive() {
  for stat in /proc/[0-9]*/stat; do
    read -r line < "$stat" 2>/dev/null || continue
    set -- ${line##*) }
    [ "$3" = "$group" ] && [ "$1" != Z ] && [ "$1" != X ] && return 0
  done
  return 1
}
while [ $n -lt 200 ] && alive; do sleep 0.01; n=$((n+1)); done
rm -rf -- "$dir""#;
    let spawned = std::process::Command::new("sh")
        .arg("-c")
        .arg(REMOVER)
        .arg("browserflow-profile-remover")
        .arg(&profile)
        .arg(pid.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        // Its own process group: a Ctrl-C that ends us does not stop the clean-up.
        .process_group(0)
        .spawn();
    if spawned.is_err() {
        wait_exited(pid, std::time::Instant::now() + KILL_WAIT);
        let _ = std::fs::remove_dir_all(&profile);
    }
}

/// Sends SIGKILL to the process group `pid` leads (the browser and every process it started,
/// at once: one `kill(1)`, as the standard library signals only its own children).
pub fn sigkill_tree(pid: u32) {
    let _ = std::process::Command::new("kill")
        .arg("-KILL")
        .arg("--")
        .arg(format!("-{pid}"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// Waits until `pid` has exited (or is a zombie), or `deadline` passed.
pub fn wait_exited(pid: u32, deadline: std::time::Instant) {
    let running = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            let state = stat
                .rfind(')')
                .and_then(|end| stat[end + 1..].split_whitespace().next());
            !matches!(state, Some("Z" | "X") | None)
        })
    };
    while running() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A Chromium browser: launched by us (and killed with its profile removed on drop) or connected
/// to over CDP. One `Browser` serves many concurrent [`BrowserContext`]s.
pub struct Browser {
    conn: CdpConnection,
    ws_endpoint: String,
    process: Option<ChromeProcess>,
    popups: Arc<PopupTracker>,
    /// A browser we launched has a default context nobody used yet (its profile is a fresh
    /// throwaway): the first context taken is that one, which saves creating one.
    default_context_unused: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("ws_endpoint", &self.ws_endpoint)
            .field("launched", &self.process.is_some())
            .finish()
    }
}

impl Browser {
    /// Launches Chromium, or connects when `config.ws_endpoint` is set.
    pub async fn launch(config: &BrowserConfig) -> Result<Self, BrowserError> {
        if let Some(endpoint) = &config.ws_endpoint {
            return Self::connect(endpoint).await;
        }
        let path = find_chromium(config.chrome_path.as_deref())?;
        let user_data_dir = tempfile::Builder::new()
            .prefix("browserflow-profile-")
            .tempdir()
            .map_err(BrowserError::UserDataDir)?;
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
        let mut browser = Self::connect(&ws_endpoint).await?;
        tracing::debug!(target: "browserflow::timing", "connected");
        browser.default_context_unused = true.into();
        browser.process = Some(ChromeProcess {
            child,
            user_data_dir: Some(user_data_dir),
        });
        Ok(browser)
    }

    /// Connects to a running browser: its CDP websocket endpoint (`ws://…/devtools/browser/…`)
    /// or its HTTP debugging address (`http://127.0.0.1:9222`, looked up in `/json/version`).
    pub async fn connect(endpoint: &str) -> Result<Self, BrowserError> {
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
                    endpoint: ws_endpoint.to_string(),
                    message: e.to_string(),
                })?;
        tracing::debug!(target: "browserflow::timing", "websocket open");
        let popups = PopupTracker::start(&conn);
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
            popups,
            default_context_unused: false.into(),
        })
    }

    /// The process id of a browser we launched (`None` when connected to).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|p| p.child.id())
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
    /// The first context of a browser we launched is its default context (as fresh as any,
    /// since the profile is new, and never handed out again).
    pub async fn new_context(&self) -> Result<BrowserContext, BrowserError> {
        let browser_session = self.conn.session(None);
        let take_default = self
            .default_context_unused
            .swap(false, std::sync::atomic::Ordering::SeqCst);
        let context_id = if take_default {
            None
        } else {
            let created = browser_session
                .call(
                    "Target.createBrowserContext",
                    json!({ "disposeOnDetach": true }),
                )
                .await
                .map_err(BrowserError::cdp("creating a browser context"))?;
            let id = created["browserContextId"]
                .as_str()
                .ok_or_else(|| BrowserError::Page("createBrowserContext returned no id".into()))?
                .to_string();
            tracing::debug!(target: "browserflow::timing", "browser context created");
            Some(id)
        };
        let mut params = json!({ "url": "about:blank" });
        if let Some(id) = &context_id {
            params["browserContextId"] = json!(id);
        }
        let target = browser_session
            .call("Target.createTarget", params)
            .await
            .map_err(BrowserError::cdp("opening a page"))?;
        let target_id = target["targetId"]
            .as_str()
            .ok_or_else(|| BrowserError::Page("createTarget returned no target id".into()))?
            .to_string();
        // Made before the page is attached, so that a failed attach still ends it (on drop).
        let mut context = BrowserContext {
            browser_session,
            context_id,
            first_target: target_id.clone(),
            page: None,
            popups: self.popups.clone(),
            open: true,
        };
        tracing::debug!(target: "browserflow::timing", "context and target created");
        let page = Page::attach(&self.conn, &target_id, self.popups.clone()).await?;
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

async fn read_ws_endpoint(
    child: &mut Child,
    path: &Path,
    timeout: Duration,
) -> Result<String, BrowserError> {
    let Some(stderr) = child.stderr.take() else {
        return Err(BrowserError::LaunchExited {
            path: path.to_path_buf(),
            stderr: String::new(),
        });
    };
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = String::new();
    let found = tokio::time::timeout(timeout, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(pos) = line.find("ws://") {
                return Some(line[pos..].trim().to_string());
            }
            seen.push_str(&line);
            seen.push('\n');
        }
        None
    })
    .await;
    match found {
        Ok(Some(endpoint)) => {
            // Keep draining stderr so Chromium never blocks on a full pipe.
            tokio::spawn(async move {
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::trace!(target: "chromium", "{line}");
                }
            });
            Ok(endpoint)
        }
        Ok(None) => Err(BrowserError::LaunchExited {
            path: path.to_path_buf(),
            stderr: seen,
        }),
        Err(_) => Err(BrowserError::LaunchTimeout {
            path: path.to_path_buf(),
            waited_ms: timeout.as_millis() as u64,
            stderr: seen,
        }),
    }
}

/// An isolated browser context (CDP `Target.createBrowserContext`) and its first page. Disposed
/// by [`BrowserContext::close`] or, failing that, when dropped.
pub struct BrowserContext {
    browser_session: CdpSession,
    /// `None` for the browser's default context.
    context_id: Option<String>,
    /// The target of the first page (the one a default context closes when it ends).
    first_target: String,
    page: Option<Page>,
    popups: Arc<PopupTracker>,
    /// Not yet closed (or disposed on drop).
    open: bool,
}

impl std::fmt::Debug for BrowserContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserContext")
            .field("context_id", &self.context_id)
            .finish()
    }
}

impl BrowserContext {
    /// The context's first page (where a replay starts).
    pub fn page(&self) -> &Page {
        // Always set by `Browser::new_context`; the Option only exists to build the struct in
        // two steps.
        self.page
            .as_ref()
            .unwrap_or_else(|| unreachable!("a BrowserContext always has its page"))
    }

    /// The CDP browser context id (`None` for the browser's default context).
    pub fn id(&self) -> Option<&str> {
        self.context_id.as_deref()
    }

    /// Attaches to another page of this context (a popup), by target id.
    pub async fn attach_page(&self, target_id: &str) -> Result<Page, BrowserError> {
        Page::attach(
            self.browser_session.connection(),
            target_id,
            self.popups.clone(),
        )
        .await
    }

    /// Disposes the context: its pages close and its cookies and storage are gone. (The
    /// default context cannot be disposed: its first page is closed, and the context is never
    /// handed out again.)
    pub async fn close(mut self) -> Result<(), BrowserError> {
        self.open = false;
        self.end()
            .await
            .map_err(BrowserError::cdp("disposing a browser context"))
    }

    fn end(&self) -> impl Future<Output = Result<(), CdpError>> + Send + 'static {
        let call = match &self.context_id {
            Some(id) => self.browser_session.start(
                "Target.disposeBrowserContext",
                json!({ "browserContextId": id }),
            ),
            None => self.browser_session.start(
                "Target.closeTarget",
                json!({ "targetId": self.first_target }),
            ),
        };
        async move { call.await.map(|_| ()) }
    }
}

impl Drop for BrowserContext {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        // The call is sent now; nobody needs its answer.
        drop(self.end());
    }
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
        endpoint: http_endpoint.to_string(),
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
        .map_err(|e| failed(format!("GET {url}: {e}")))?;
    if !response.status().is_success() {
        return Err(failed(format!("GET {url}: HTTP {}", response.status())));
    }
    let version: Value = response
        .json()
        .await
        .map_err(|e| failed(format!("{url} did not answer JSON: {e}")))?;
    version["webSocketDebuggerUrl"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| failed(format!("{url} has no webSocketDebuggerUrl")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_path_then_environment_then_usual_places() {
        let sh = Path::new("/bin/sh");
        assert_eq!(
            find_chromium_with(Some(sh), Some("/nope".into())).unwrap(),
            sh
        );
        assert_eq!(
            find_chromium_with(None, Some("/bin/sh".into())).unwrap(),
            sh
        );
        // A wrong BROWSERFLOW_CHROME is an error naming it, not a silent fallback.
        let err = find_chromium_with(None, Some("/nope/chrome".into())).unwrap_err();
        assert!(err.to_string().contains("/nope/chrome"), "{err}");
        // An empty variable counts as unset.
        let found = find_chromium_with(None, Some("".into()));
        if Path::new("/usr/bin/chromium").exists() {
            assert_eq!(found.unwrap(), Path::new("/usr/bin/chromium"));
        }
    }
}
