//! A paginated `extract_list` against the paging fixtures of `tests/fixtures/paging`, served on
//! 127.0.0.1 by a server whose catalogue answers late (like a search backend): a search whose
//! results are cards across 3 pages behind "Next" links (full navigations; each next page
//! repeating two results of the one before), a list of 120 items behind a "Load more" button
//! (in place), and an infinite list of 60 items that grows as its end comes into view — each
//! also redesigned (classes and ids changed, a wrapper added, the last page's control removed
//! instead of disabled). Every row and field equal to what the pages show; row recall and
//! field accuracy printed, and 100 %. `limit` and `max_pages` end the reading early; a
//! "Load more" that stays enabled but loads nothing fails the step naming the page that never
//! came, never a short array.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use browserflow_replay::{FailureKind, ReplayError, Replayer};
use browserflow_steps::Step;
use serde_json::{Map, Value, json};

use crate::lists::score;
use crate::support::Harness;

/// How late the catalogue answers.
const API_DELAY: Duration = Duration::from_millis(300);
/// The catalogue's size.
const ITEMS: usize = 120;

/// The catalogue: item `i`'s name, price and slug.
fn catalogue() -> Vec<Value> {
    const WORDS: [&str; 6] = ["lamp", "chair", "desk", "shelf", "rug", "clock"];
    (0..ITEMS)
        .map(|i| {
            json!({ "name": format!("Item {:03} {}", i + 1, WORDS[i % WORDS.len()]),
                "price": ((i * 7919) % 100_000) as f64 / 100.0 + 1.0,
                "slug": format!("item-{}", i + 1) })
        })
        .collect()
}

/// What the pages show of items `from..to`.
fn truth(origin: &str, from: usize, to: usize) -> Vec<Value> {
    catalogue()[from..to]
        .iter()
        .map(|p| {
            json!({ "name": p["name"], "price": p["price"],
                "url": format!("{origin}/item/{}", p["slug"].as_str().unwrap()) })
        })
        .collect()
}

/// Serves the fixture folder and `/api/items?from=N&count=M` (after [`API_DELAY`]) on
/// 127.0.0.1, a thread per connection.
struct PagingServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl PagingServer {
    fn start() -> Self {
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
                std::thread::spawn(move || serve(stream));
            }
        });
        Self { addr, stop }
    }

    fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}/{path}", self.addr)
    }
}

impl Drop for PagingServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    let mut request = String::new();
    if reader.read_line(&mut request).unwrap_or(0) == 0 {
        return;
    }
    let mut header = String::new();
    while {
        header.clear();
        reader.read_line(&mut header).unwrap_or(0) > 2
    } {}
    let target = request.split_whitespace().nth(1).unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let (status, kind, body) = if path == "/api/items" {
        let param = |name: &str| {
            query
                .split('&')
                .find_map(|p| p.strip_prefix(&format!("{name}=")))
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0)
        };
        let from = param("from").min(ITEMS);
        let to = (from + param("count")).min(ITEMS);
        std::thread::sleep(API_DELAY);
        let body = serde_json::to_vec(&catalogue()[from..to]).unwrap();
        ("200 OK", "application/json", body)
    } else {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/paging");
        let name = path.trim_start_matches('/');
        let file = (!name.contains("..") && !name.is_empty())
            .then(|| std::fs::File::open(root.join(name)).ok())
            .flatten();
        match file {
            Some(mut file) => {
                let mut body = Vec::new();
                file.read_to_end(&mut body).unwrap();
                let kind = if name.ends_with(".js") {
                    "text/javascript"
                } else {
                    "text/html; charset=utf-8"
                };
                ("200 OK", kind, body)
            }
            None => ("404 Not Found", "text/plain", b"not found".to_vec()),
        }
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = writer.write_all(head.as_bytes());
    let _ = writer.write_all(&body);
}

fn css(value: &str) -> Value {
    json!({ "kind": "css", "value": value })
}

fn role(role: &str, name: &str) -> Value {
    json!({ "kind": "role", "value": role, "name": name })
}

/// The list step a recording of the plain page keeps (items by the results' region, then by
/// class; fields by class, then by tag), paginated by `paginate`.
fn list_step(paginate: Value) -> Value {
    json!({ "type": "extract_list", "field": "results", "recorded_items": 10, "timeout_ms": 5000,
        "items": { "candidates": [
            { "kind": "structure", "value": "*",
              "structure": { "within": { "region": { "role": "region", "name": "Results" } },
                "pick": "items" } },
            css(".results > .card"),
        ] },
        "fields": [
            { "name": "name", "candidates": [css(".card-title"), css("h3")] },
            { "name": "price", "candidates": [css(".price"), css("span")], "kind": "number" },
            { "name": "url", "candidates": [css(".more"), css("a")], "from": "attribute",
              "attribute": "href", "kind": "url" },
        ],
        "paginate": paginate })
}

fn next_pages() -> Value {
    json!({ "by": "next", "control": { "candidates": [role("link", "Next"), css("a.next")] },
        "max_pages": 10, "key": "url" })
}

fn load_more() -> Value {
    json!({ "by": "load_more",
        "control": { "candidates": [role("button", "Load more"), css("button.load-more")] },
        "max_pages": 10, "key": "url" })
}

fn scrolling() -> Value {
    json!({ "by": "scroll", "max_pages": 10, "key": "url" })
}

async fn replay(h: &Harness, url: String, step: Value) -> Result<Vec<Value>, ReplayError> {
    let steps: Vec<Step> =
        serde_json::from_value(json!([{ "type": "navigate", "url": url }, step])).unwrap();
    let context = h.browser.new_context().await.expect("context");
    let result = Replayer::default().run(&context, &steps, &Map::new()).await;
    context.close().await.expect("context closes");
    result.map(|r| r.outputs["results"].as_array().unwrap().clone())
}

#[tokio::test]
async fn every_row_of_every_page_of_the_paging_fixtures_and_their_redesigns() {
    let h = Harness::start().await;
    let server = PagingServer::start();
    let cases = [
        ("search", next_pages(), 30),
        ("search-redesign", next_pages(), 30),
        ("loadmore", load_more(), 120),
        ("loadmore-redesign", load_more(), 120),
        ("scroll", scrolling(), 60),
        ("scroll-redesign", scrolling(), 60),
    ];
    let (mut rows, mut want_rows, mut fields, mut want_fields) = (0, 0, 0, 0);
    for (page, paginate, count) in cases {
        let started = Instant::now();
        let got = replay(&h, server.url(&format!("{page}.html")), list_step(paginate))
            .await
            .unwrap_or_else(|e| panic!("{page}: {e}"));
        let want = truth(&server.origin(), 0, count);
        let (r, wr, f, wf) = score(&got, &want);
        println!(
            "{page}: rows {r}/{wr}, fields {f}/{wf}, {} ms",
            started.elapsed().as_millis()
        );
        assert_eq!(got, want, "{page}");
        (rows, want_rows, fields, want_fields) =
            (rows + r, want_rows + wr, fields + f, want_fields + wf);
    }
    println!(
        "paging fixtures: row recall {:.1} % ({rows}/{want_rows}), field accuracy {:.1} % ({fields}/{want_fields})",
        100.0 * rows as f64 / want_rows as f64,
        100.0 * fields as f64 / want_fields as f64
    );
    assert_eq!((rows, fields), (want_rows, want_fields));
    h.close().await;
}

#[tokio::test]
async fn a_limit_and_max_pages_end_the_reading_and_without_a_key_a_repeated_row_is_dropped() {
    let h = Harness::start().await;
    let server = PagingServer::start();
    let origin = server.origin();
    // A limit across pages: the first 15 results, from the first two pages.
    let mut step = list_step(next_pages());
    step["limit"] = json!(15);
    let got = replay(&h, server.url("search.html"), step).await.unwrap();
    assert_eq!(got, truth(&origin, 0, 15));
    // Two pages of the load-more list: 40 items.
    let mut paginate = load_more();
    paginate["max_pages"] = json!(2);
    let got = replay(&h, server.url("loadmore.html"), list_step(paginate))
        .await
        .unwrap();
    assert_eq!(got, truth(&origin, 0, 40));
    // Without a key, the whole row identifies an item: the repeated results are dropped too.
    let mut paginate = next_pages();
    paginate.as_object_mut().unwrap().remove("key");
    let got = replay(&h, server.url("search-redesign.html"), list_step(paginate))
        .await
        .unwrap();
    assert_eq!(got, truth(&origin, 0, 30));
    h.close().await;
}

#[tokio::test]
async fn a_next_page_that_never_comes_while_the_control_still_offers_it_fails_naming_the_page() {
    let h = Harness::start().await;
    let server = PagingServer::start();
    // Two loads (the first 20 items, then 20 more by a click), then clicks that load nothing.
    let result = replay(
        &h,
        server.url("loadmore.html?stuck=2"),
        list_step(load_more()),
    )
    .await;
    match result {
        Err(ReplayError::StepFailed {
            index,
            failure,
            message,
            ..
        }) => {
            assert_eq!(
                (index, failure),
                (1, FailureKind::StateMismatch),
                "{message}"
            );
            for part in [
                "list `results`: page 3 never came",
                "the `load_more` control was clicked after page 2 and is still shown and enabled",
                "found by candidate 1: ",
                "kept page 2's items for 5000 ms",
                "40 read so far over 2 pages",
            ] {
                assert!(message.contains(part), "{part:?} not in {message}");
            }
        }
        other => panic!("expected the step to fail, got {other:?}"),
    }
    h.close().await;
}

/// Runs `step`, after a navigation to `url`, as the script `bflow export playwright` writes,
/// with the repository's pinned playwright-core and Debian's Chromium; its `results`, or what
/// the script printed when it failed.
fn run_exported(dir: &std::path::Path, url: String, step: Value) -> Result<Vec<Value>, String> {
    let mut tool: Value = serde_json::from_str(include_str!(
        "../../../../recordings/search-price@1.2.0.json"
    ))
    .unwrap();
    // `http://127.0.0.1:PORT/page.html` → `http://127.0.0.1:PORT`.
    let origin = url.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
    tool["origins"] = json!([origin]);
    tool["steps"] = json!([{ "type": "navigate", "url": url }, step]);
    let tool = browserflow_steps::ToolFile::from_json_str(&tool.to_string()).unwrap();
    let script = dir.join("paging.js");
    std::fs::write(&script, browserflow_steps::export_playwright(&tool)).unwrap();
    let modules = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../injected/node_modules");
    assert!(
        modules.join("playwright-core").is_dir(),
        "{} has no playwright-core: run scripts/build-injected first (scripts/test does), \
         which installs injected/'s pinned npm packages",
        modules.display()
    );
    let node = std::process::Command::new("node")
        .arg(&script)
        .env("NODE_PATH", &modules)
        .output()
        .expect("node runs");
    if !node.status.success() {
        return Err(String::from_utf8_lossy(&node.stderr).into_owned());
    }
    let output: Value = serde_json::from_slice(&node.stdout).unwrap();
    Ok(output["results"].as_array().unwrap().clone())
}

/// JavaScript writes `104` where Rust writes `104.0`: the same number.
fn as_floats(rows: Vec<Value>) -> Vec<Value> {
    rows.into_iter()
        .map(|mut row| {
            if let Some(price) = row["price"].as_f64() {
                row["price"] = json!(price);
            }
            row
        })
        .collect()
}

/// The Playwright export writes the page loop: the exported script reads every row of every
/// page of each paging fixture (next links, load more, infinite scroll), ends at a limit, and
/// fails naming the page when a load-more control loads nothing.
#[tokio::test]
async fn the_playwright_export_reads_every_page_as_the_replay_does() {
    let server = PagingServer::start();
    let dir = tempfile::tempdir().unwrap();
    let origin = server.origin();
    // The plain pages only: the redesigns are found by the items' structure candidate, which
    // has no Playwright locator (the export names it in a comment).
    let cases = [
        ("search", next_pages(), 30),
        ("loadmore", load_more(), 120),
        ("scroll", scrolling(), 60),
    ];
    for (page, paginate, count) in cases {
        let got = run_exported(
            dir.path(),
            server.url(&format!("{page}.html")),
            list_step(paginate),
        )
        .unwrap_or_else(|e| panic!("{page}: the exported script failed: {e}"));
        println!("{page}: exported script read {} rows", got.len());
        assert_eq!(as_floats(got), truth(&origin, 0, count), "{page}");
    }
    let mut step = list_step(next_pages());
    step["limit"] = json!(15);
    let got = run_exported(dir.path(), server.url("search.html"), step).unwrap();
    assert_eq!(as_floats(got), truth(&origin, 0, 15));
    let stuck = run_exported(
        dir.path(),
        server.url("loadmore.html?stuck=2"),
        list_step(load_more()),
    );
    let message = stuck.expect_err("a load-more that loads nothing fails the script");
    assert!(
        message.contains("page 3 of the list never came"),
        "{message}"
    );
}
