//! Navigations settle on the new document even while the previous one is still loading: a
//! server-rendered site (`tests/fixtures/late-subresources`) whose stylesheet, script and
//! image arrive late and whose pages are rendered slowly, and a journey that clicks a
//! navigating link right after `DOMContentLoaded` — plain links, and links that leave after
//! their click handler's work. The previous document's late `frameStoppedLoading` then
//! arrives after the click, before the new navigation begins or commits.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_replay::{ReplayOptions, Replayer};
use browserflow_steps::Step;
use serde_json::{Map, Value, json};

/// How late each kind of response is: pages are rendered slower than the previous page's
/// subresources arrive, so that the old document stops loading while the new one is awaited.
const PAGE_DELAY: Duration = Duration::from_millis(700);
const STYLESHEET_DELAY: Duration = Duration::from_millis(150);
const SCRIPT_AND_IMAGE_DELAY: Duration = Duration::from_millis(450);

/// Serves the fixture folder on 127.0.0.1, each response after its kind's delay
/// (`slow/NAME.css|js|png` is the folder's `slow.css|js|png`). One thread per connection.
struct LateServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl LateServer {
    fn start() -> Self {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/late-subresources");
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let root = root.clone();
                std::thread::spawn(move || serve(stream, &root));
            }
        });
        Self { addr, stop }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}/{path}", self.addr)
    }
}

impl Drop for LateServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(stream: TcpStream, root: &std::path::Path) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut request = String::new();
        if reader.read_line(&mut request).unwrap_or(0) == 0 {
            return;
        }
        let mut header = String::new();
        while {
            header.clear();
            reader.read_line(&mut header).unwrap_or(0) > 2
        } {}
        let path = request.split_whitespace().nth(1).unwrap_or("/");
        let path = path.trim_start_matches('/').split('?').next().unwrap_or("");
        let (file, delay, mime) = match path.rsplit_once('.').map(|(_, ext)| ext) {
            Some("css") => ("slow.css".to_string(), STYLESHEET_DELAY, "text/css"),
            Some("js") => ("slow.js".into(), SCRIPT_AND_IMAGE_DELAY, "text/javascript"),
            Some("png") => ("slow.png".into(), SCRIPT_AND_IMAGE_DELAY, "image/png"),
            _ => (path.to_string(), PAGE_DELAY, "text/html; charset=utf-8"),
        };
        std::thread::sleep(delay);
        let response = match std::fs::read(root.join(&file)) {
            Ok(body) => {
                let mut head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {mime}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\r\n",
                    body.len()
                )
                .into_bytes();
                head.extend(body);
                head
            }
            Err(_) => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec(),
        };
        if writer.write_all(&response).is_err() {
            return;
        }
    }
}

fn link(test_id: &str, to: &str) -> Value {
    json!({ "type": "click",
            "selector": { "candidates": [{ "kind": "test_id", "value": test_id }] },
            "navigation": { "url": format!("*/{to}") } })
}

fn heading(field: &str) -> Value {
    json!({ "type": "extract", "field": field,
            "selector": { "candidates": [{ "kind": "test_id", "value": "heading" }] } })
}

/// The journey, replayed back to back: every navigating click must end on the page it
/// goes to, every time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_right_after_dom_content_loaded_settles_on_the_new_document() {
    let server = LateServer::start();
    let browser = Browser::launch(&BrowserConfig::default())
        .await
        .expect("Chromium launches");
    let steps: Vec<Step> = serde_json::from_value(json!([
        { "type": "navigate", "url": server.url("admin.html") },
        link("to-product", "product.html"),
        heading("first"),
        link("to-admin-tracked", "admin.html"),
        link("to-product-tracked", "product.html"),
        heading("last"),
    ]))
    .expect("steps parse");
    let runs: usize = std::env::var("LATE_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);
    let mut failures = Vec::new();
    for run in 0..runs {
        let context = browser.new_context().await.expect("context");
        let result = Replayer::new(ReplayOptions::default())
            .run(&context, &steps, &Map::new())
            .await;
        context.close().await.expect("context closes");
        match result {
            Ok(report) => {
                assert_eq!(
                    (&report.outputs["first"], &report.outputs["last"]),
                    (&json!("Product"), &json!("Product")),
                    "run {run}"
                );
                assert!(report.final_url.ends_with("/product.html"), "run {run}");
            }
            Err(error) => failures.push(format!("run {run}: {error}")),
        }
    }
    browser.close().await.expect("browser closes");
    assert!(
        failures.is_empty(),
        "{} of {runs} replays failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
