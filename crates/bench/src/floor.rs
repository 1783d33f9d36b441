//! The floor: the least any tool can do for the journey. Launch Chromium exactly as browserflow
//! does, then over raw CDP (JSON on a blocking websocket, one tab in the default context) load
//! the three pages with only the waits they require: each document's `DOMContentLoaded` (the
//! page is there to be used; browserflow waits for `load`), and the late search results (a
//! MutationObserver resolves the moment the first result link exists). It navigates straight
//! to the search URL instead of typing, and to the first result's address instead of clicking:
//! no selectors, no actionability checks, no input events, no browser context of its own. It
//! ends as `bflow run` ends: Chromium's processes are killed and its profile removed in the
//! background, without an orderly shutdown. Nobody can replay the journey faster than this.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use browserflow_cdp::launch::{BrowserConfig, kill_and_remove_profile, launch_args};
use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// Why the floor failed.
#[derive(Debug, thiserror::Error)]
pub enum FloorError {
    /// Chromium could not be started or did not announce its endpoint.
    #[error("could not launch {path}: {message}")]
    Launch {
        /// The executable.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The websocket failed.
    #[error("CDP websocket: {0}")]
    Socket(#[from] Box<tungstenite::Error>),
    /// Chromium answered a call with an error, or the page did not behave.
    #[error("{0}")]
    Protocol(String),
}

/// What the floor did, and how long each phase took.
#[derive(Debug, Clone)]
pub struct FloorRun {
    /// `{ "name": …, "price": "$89.99" }` as read from the product page.
    pub output: Value,
    /// `(phase, duration)`, in order: launch, the three pages, close.
    pub phases: Vec<(String, Duration)>,
}

/// Runs the floor journey against the shop at `origin` (`http://127.0.0.1:4780`).
pub fn run_floor(
    chrome: &std::path::Path,
    origin: &str,
    query: &str,
) -> Result<FloorRun, FloorError> {
    let mut phases = Vec::new();
    let mut clock = Instant::now();
    let mut lap = |name: &str, phases: &mut Vec<(String, Duration)>| {
        phases.push((name.to_string(), clock.elapsed()));
        clock = Instant::now();
    };

    let profile = tempfile::Builder::new()
        .prefix("bench-floor-profile-")
        .tempdir()
        .map_err(|e| launch_error(chrome, e.to_string()))?;
    // The very command line `Browser::launch` uses (flags, profile, start page).
    let mut child = Command::new(chrome)
        .args(launch_args(&BrowserConfig::default(), profile.path()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // As `Browser::launch` does: its own process group, ended with one signal.
        .process_group(0)
        .spawn()
        .map_err(|e| launch_error(chrome, e.to_string()))?;
    let result = drive(chrome, &mut child, origin, query, &mut phases, &mut lap);
    // As `bflow run` ends: SIGKILL to Chromium's whole process tree, no orderly shutdown (the
    // profile is a throwaway), the profile removed in the background once they are gone.
    kill_and_remove_profile(child.id(), profile.keep());
    lap("close", &mut phases);
    let output = result?;
    Ok(FloorRun { output, phases })
}

fn launch_error(chrome: &std::path::Path, message: String) -> FloorError {
    FloorError::Launch {
        path: chrome.to_path_buf(),
        message,
    }
}

fn drive(
    chrome: &std::path::Path,
    child: &mut Child,
    origin: &str,
    query: &str,
    phases: &mut Vec<(String, Duration)>,
    lap: &mut impl FnMut(&str, &mut Vec<(String, Duration)>),
) -> Result<Value, FloorError> {
    let endpoint = read_endpoint(chrome, child)?;
    let mut cdp = Cdp::connect(&endpoint)?;
    // One tab in the default context (browserflow opens a new context for each replay).
    let target = cdp.call("Target.createTarget", json!({ "url": "about:blank" }), None)?;
    let target_id = target["targetId"]
        .as_str()
        .ok_or_else(|| FloorError::Protocol(format!("no page target: {target}")))?
        .to_string();
    let attached = cdp.call(
        "Target.attachToTarget",
        json!({ "targetId": target_id, "flatten": true }),
        None,
    )?;
    let session = attached["sessionId"]
        .as_str()
        .ok_or_else(|| FloorError::Protocol(format!("no session: {attached}")))?
        .to_string();
    // Not awaited: its answer arrives before the navigation's (one session, in order).
    cdp.send("Page.enable", json!({}), Some(&session))?;
    lap("launch", phases);

    cdp.navigate_first(&session, &format!("{origin}/index.html"))?;
    lap("index.html", phases);

    cdp.navigate(
        &session,
        &format!("{origin}/search.html?q={}", query.replace(' ', "+")),
    )?;
    // The results arrive late: resolve as soon as the first result link is in the DOM.
    let href = cdp.evaluate(
        &session,
        r#"new Promise((resolve) => {
             const first = () => document.querySelector('[data-testid="results"] a');
             if (first()) return resolve(first().href);
             new MutationObserver((_, observer) => {
               if (first()) { observer.disconnect(); resolve(first().href); }
             }).observe(document, { childList: true, subtree: true });
           })"#,
    )?;
    let href = href
        .as_str()
        .ok_or_else(|| FloorError::Protocol(format!("no result link: {href}")))?
        .to_string();
    lap("search.html", phases);

    // The product page fills its name and price in an inline script, before DOMContentLoaded.
    cdp.navigate(&session, &href)?;
    let output = cdp.evaluate(
        &session,
        r#"({ name: document.querySelector('[data-testid="product-name"]').textContent.trim(),
              price: document.querySelector('[data-testid="product-price"]').textContent.trim() })"#,
    )?;
    lap("product.html", phases);
    Ok(output)
}

/// Reads `DevTools listening on ws://…` from Chromium's stderr, then keeps draining stderr on
/// a thread so the browser never blocks on a full pipe.
fn read_endpoint(chrome: &std::path::Path, child: &mut Child) -> Result<String, FloorError> {
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| launch_error(chrome, "no stderr pipe".into()))?;
    let mut lines = BufReader::new(stderr);
    let mut line = String::new();
    loop {
        line.clear();
        match lines.read_line(&mut line) {
            Ok(0) | Err(_) => {
                return Err(launch_error(
                    chrome,
                    "exited before announcing its DevTools endpoint".into(),
                ));
            }
            Ok(_) => {}
        }
        if let Some(at) = line.find("ws://") {
            let endpoint = line[at..].trim().to_string();
            std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
            return Ok(endpoint);
        }
    }
}

/// A blocking CDP client: one call at a time, events buffered until asked for.
struct Cdp {
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    events: Vec<Value>,
}

impl Cdp {
    fn connect(endpoint: &str) -> Result<Cdp, FloorError> {
        let (socket, _) = tungstenite::connect(endpoint).map_err(Box::new)?;
        Ok(Cdp {
            socket,
            next_id: 0,
            events: Vec::new(),
        })
    }

    fn send(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<u64, FloorError> {
        self.next_id += 1;
        let mut message = json!({ "id": self.next_id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        self.socket
            .send(Message::text(message.to_string()))
            .map_err(Box::new)?;
        Ok(self.next_id)
    }

    fn receive(&mut self) -> Result<Value, FloorError> {
        loop {
            if let Message::Text(text) = self.socket.read().map_err(Box::new)? {
                return serde_json::from_str(text.as_str())
                    .map_err(|e| FloorError::Protocol(format!("bad CDP message: {e}")));
            }
        }
    }

    fn call(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<Value, FloorError> {
        let id = self.send(method, params, session)?;
        loop {
            let message = self.receive()?;
            if message["id"].as_u64() == Some(id) {
                if let Some(error) = message.get("error") {
                    return Err(FloorError::Protocol(format!("{method}: {error}")));
                }
                return Ok(message["result"].clone());
            }
            if message.get("method").is_some() {
                self.events.push(message);
            }
        }
    }

    /// Navigates and waits for the new document's `DOMContentLoaded`.
    fn navigate(&mut self, session: &str, url: &str) -> Result<(), FloorError> {
        self.events.clear();
        let result = self.call("Page.navigate", json!({ "url": url }), Some(session))?;
        if let Some(error) = result.get("errorText") {
            return Err(FloorError::Protocol(format!(
                "navigating to {url}: {error}"
            )));
        }
        let loaded = |event: &Value| {
            event["method"] == "Page.domContentEventFired" && event["sessionId"] == session
        };
        if self.events.iter().any(loaded) {
            return Ok(());
        }
        loop {
            let message = self.receive()?;
            if loaded(&message) {
                return Ok(());
            }
        }
    }

    /// The first navigation of the tab: `Page.enable` went out just before it and may take
    /// effect only once the new document has begun, so its `DOMContentLoaded` event can be
    /// missing. The document itself is asked instead (the blank one it replaces never
    /// answers, and a call that lands in it fails when it goes away: ask again).
    fn navigate_first(&mut self, session: &str, url: &str) -> Result<(), FloorError> {
        let result = self.call("Page.navigate", json!({ "url": url }), Some(session))?;
        if let Some(error) = result.get("errorText") {
            return Err(FloorError::Protocol(format!(
                "navigating to {url}: {error}"
            )));
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if Instant::now() > deadline {
                return Err(FloorError::Protocol(format!(
                    "{url} was not parsed within 30 s"
                )));
            }
            let answer = self.call(
                "Runtime.evaluate",
                json!({
                    "expression": "new Promise(r => { if (location.href === 'about:blank') return; \
                        if (document.readyState !== 'loading') r(true); \
                        else addEventListener('DOMContentLoaded', () => r(true), { once: true }); })",
                    "awaitPromise": true,
                    "returnByValue": true,
                }),
                Some(session),
            );
            match answer {
                Ok(result) if result.get("exceptionDetails").is_none() => return Ok(()),
                // The blank document went away under the call.
                _ => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its JSON value.
    fn evaluate(&mut self, session: &str, expression: &str) -> Result<Value, FloorError> {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
            Some(session),
        )?;
        if let Some(exception) = result.get("exceptionDetails") {
            return Err(FloorError::Protocol(format!(
                "page script failed: {exception}"
            )));
        }
        Ok(result["result"]["value"].clone())
    }
}
