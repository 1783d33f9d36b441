//! search-price against a shop whose ids, classes and test ids were all renamed, and the
//! failures a browser tool must turn into clear, correctly classed errors: Chromium killed
//! mid-replay, a page that never loads, a dropped CDP connection.

use std::sync::Arc;
use std::time::{Duration, Instant};

use browserflow_catalog::run_tool::{RunToolError, run_tool, search_price};
use browserflow_catalog::{RunInput, RunInputs, RunSetup};
use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_replay::{ReplayOptions, SharedBrowser, StepObserver, StepStatus};
use browserflow_rider::{ErrorClass, RetryPolicy, RiderOptions, RunError};
use browserflow_shop::{FixtureServer, shop_files};
use browserflow_steps::SelectorKind;
use browserflow_steps::ToolFile;
use regex::Regex;
use serde_json::json;
use tokio::io::AsyncWriteExt;

/// The shop with every id, class and test id prefixed `v2-`, consistently in HTML, scripts
/// and CSS, so the pages still work but no recorded id/class/test-id selector matches.
fn renamed_shop() -> FixtureServer {
    let attr = Regex::new(r#"\b(id|class|data-testid|for)="([^"]*)""#).expect("regex");
    let by_id = Regex::new(r#"getElementById\('([^']*)'\)"#).expect("regex");
    let set_testid = Regex::new(r#"setAttribute\('data-testid', '([^']*)'\)"#).expect("regex");
    let class_name = Regex::new(r#"className = '([^']*)'"#).expect("regex");
    let css_names = Regex::new(r#"([#.])([a-zA-Z][\w-]*)"#).expect("regex");
    let mut files = shop_files();
    for (path, bytes) in files.iter_mut() {
        let Ok(text) = String::from_utf8(bytes.clone()) else {
            continue;
        };
        let text = if path.ends_with(".css") {
            css_names.replace_all(&text, "${1}v2-${2}").into_owned()
        } else {
            let text = attr.replace_all(&text, |c: &regex::Captures<'_>| {
                let renamed: Vec<String> =
                    c[2].split_whitespace().map(|n| format!("v2-{n}")).collect();
                format!("{}=\"{}\"", &c[1], renamed.join(" "))
            });
            let text = by_id.replace_all(&text, "getElementById('v2-$1')");
            let text = set_testid.replace_all(&text, "setAttribute('data-testid', 'v2-$1')");
            class_name
                .replace_all(&text, "className = 'v2-$1'")
                .into_owned()
        };
        *bytes = text.into_bytes();
    }
    let product = String::from_utf8_lossy(&files["product.html"]).into_owned();
    assert!(
        product.contains("data-testid=\"v2-product-price\"")
            && !product.contains("id=\"product-price\"")
    );
    FixtureServer::serve_files(files).expect("variant shop")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_price_survives_renamed_ids_classes_and_test_ids() {
    let shop = renamed_shop();
    let tool = search_price().expect("parses").rebase_to(&shop.origin());
    let run = run_tool(
        &tool,
        &[("query".to_owned(), RunInput::Value(json!("keyboard")))].into(),
        RunSetup::default(),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        run.output,
        json!({ "name": "Mechanical Keyboard", "price": 89.99, "currency": "USD" })
    );
    let report = run.report.expect("report");
    let won: Vec<Option<SelectorKind>> = report
        .steps
        .iter()
        .map(|s| s.selector.as_ref().map(|w| w.kind))
        .collect();
    // Fill: the ARIA role + name; click and extracts: the structural XPaths.
    assert_eq!(
        won,
        vec![
            None,
            Some(SelectorKind::Role),
            None,
            Some(SelectorKind::Xpath),
            Some(SelectorKind::Xpath),
            Some(SelectorKind::Xpath),
        ]
    );
    let fill = report.steps[1].selector.as_ref().expect("winner");
    assert_eq!(fill.index, 1);
    assert!(
        fill.description.contains("Search products"),
        "{}",
        fill.description
    );
}

fn one_attempt() -> RiderOptions {
    RiderOptions {
        backoff: RetryPolicy::NONE,
        ..RiderOptions::default()
    }
}

fn tool_with(steps: serde_json::Value) -> ToolFile {
    ToolFile::from_json_str(
        &json!({
            "contract": {
                "name": "fault", "version": "1.0.0", "kind": "browser", "description": "",
                "inputs": [], "output": { "type": "object" }, "capabilities": ["browser"]
            },
            "steps": steps
        })
        .to_string(),
    )
    .expect("tool parses")
}

fn tool_failure(err: RunToolError) -> (ErrorClass, String) {
    match err {
        RunToolError::Run { failure, .. } => match failure.error {
            RunError::ToolFailed { class, message, .. } => (class, message),
            other => panic!("expected a tool failure, got {other}"),
        },
        other => panic!("expected a run failure, got {other}"),
    }
}

/// Waits until the browser at `ws` has a page showing the shop's `index.html`.
async fn shop_page_open(ws: &str) {
    let conn = browserflow_cdp::session::CdpConnection::connect(ws)
        .await
        .expect("CDP connects");
    let root = conn.session(None);
    loop {
        let targets = root
            .call("Target.getTargets", json!({}))
            .await
            .expect("targets");
        let open = targets["targetInfos"].as_array().is_some_and(|all| {
            all.iter().any(|t| {
                t["type"] == "page"
                    && t["url"]
                        .as_str()
                        .is_some_and(|u| u.ends_with("/index.html"))
            })
        });
        if open {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_killed_mid_replay_is_transient_and_the_next_call_relaunches() {
    let shop = FixtureServer::shop().expect("shop");
    let browser = Arc::new(SharedBrowser::new(BrowserConfig::default()));
    let tool = tool_with(json!([
        { "type": "navigate", "url": shop.url("/index.html") },
        { "type": "wait_for_expression", "expression": "window.neverTrue === true", "timeout_ms": 20000 }
    ]));
    let killer_browser = browser.clone();
    let killer = tokio::spawn(async move {
        loop {
            if let Some(browser) = killer_browser.current().await
                && let Some(pid) = browser.pid()
            {
                // Once the replay's page shows the shop (not earlier: a browser killed while
                // the context is being made is replaced at once, and the replay would go on in
                // the new one), it is at, or about to be in, the long wait.
                shop_page_open(browser.ws_endpoint()).await;
                tokio::time::sleep(Duration::from_millis(300)).await;
                let status = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status()
                    .expect("kill runs");
                assert!(status.success());
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    let started = Instant::now();
    let options = RunSetup {
        browser: browser.clone(),
        rider: one_attempt(),
        ..RunSetup::default()
    };
    let err = run_tool(&tool, &RunInputs::new(), options)
        .await
        .expect_err("the browser died");
    let killed = killer.await.expect("killer");
    let elapsed = started.elapsed();
    let (class, message) = tool_failure(err);
    assert!(
        elapsed < Duration::from_secs(10),
        "failed after {elapsed:?}: {message}"
    );
    assert_eq!(class, ErrorClass::Transient, "{message}");
    assert!(
        message.contains("crashed or its connection dropped"),
        "{message}"
    );
    assert!(message.contains(" failed: "), "{message}");

    // The retry the Rider would make gets a fresh browser.
    let ok = tool_with(json!([{ "type": "navigate", "url": shop.url("/index.html") }]));
    run_tool(
        &ok,
        &RunInputs::new(),
        RunSetup {
            browser: browser.clone(),
            ..RunSetup::default()
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let relaunched = browser
        .current()
        .await
        .and_then(|b| b.pid())
        .expect("a pid");
    assert_ne!(relaunched, killed);
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_never_loads_is_a_transient_timeout_retried_by_the_rider() {
    // Accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let browser = Arc::new(
        SharedBrowser::new(BrowserConfig::default()).with_replay_options(ReplayOptions {
            navigation_timeout: Duration::from_millis(800),
            ..ReplayOptions::default()
        }),
    );
    let tool =
        tool_with(json!([{ "type": "navigate", "url": format!("http://{addr}/slow.html") }]));
    let options = RunSetup {
        browser: browser.clone(),
        rider: RiderOptions {
            backoff: RetryPolicy {
                max_attempts: 2,
                initial_delay: Duration::from_millis(10),
                max_delay: Duration::from_millis(10),
            },
            ..RiderOptions::default()
        },
        ..RunSetup::default()
    };
    let err = run_tool(&tool, &RunInputs::new(), options)
        .await
        .expect_err("never loads");
    let RunToolError::Run { failure, .. } = err else {
        panic!("a run failure")
    };
    let RunError::ToolFailed {
        class,
        attempts,
        message,
        ..
    } = failure.error
    else {
        panic!("a tool failure: {}", failure.message)
    };
    assert_eq!(class, ErrorClass::Transient);
    assert_eq!(attempts, 2, "transient errors are retried");
    assert!(
        message.contains("did not finish loading within 800 ms"),
        "{message}"
    );
    assert!(message.contains("/slow.html"), "{message}");
    hold.abort();
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_element_is_terminal_and_not_retried() {
    let shop = FixtureServer::shop().expect("shop");
    let browser = Arc::new(SharedBrowser::new(BrowserConfig::default()));
    let tool = tool_with(json!([
        { "type": "navigate", "url": shop.url("/index.html") },
        { "type": "click", "timeout_ms": 300, "selector": { "candidates": [
            { "kind": "test_id", "value": "no-such-button" }, { "kind": "text", "value": "No such button" } ] } }
    ]));
    let err = run_tool(
        &tool,
        &RunInputs::new(),
        RunSetup {
            browser: browser.clone(),
            ..RunSetup::default()
        },
    )
    .await
    .expect_err("no element");
    let RunToolError::Run { failure, report } = err else {
        panic!("a run failure")
    };
    let RunError::ToolFailed {
        class,
        attempts,
        message,
        ..
    } = failure.error
    else {
        panic!("tool failure")
    };
    assert_eq!((class, attempts), (ErrorClass::Terminal, 1));
    assert!(
        message.contains("no-such-button") && message.contains("No such button"),
        "{message}"
    );
    assert_eq!(report.expect("report").steps.len(), 2);
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_navigation_the_network_refuses_is_terminal_and_not_retried() {
    // A port nothing listens on: bound, then closed, so the connection is refused at once.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr");
    let browser = Arc::new(SharedBrowser::new(BrowserConfig::default()));
    let tool = tool_with(json!([
        { "type": "navigate", "url": format!("http://{closed}/index.html") }
    ]));
    let err = run_tool(
        &tool,
        &RunInputs::new(),
        RunSetup {
            browser: browser.clone(),
            ..RunSetup::default()
        },
    )
    .await
    .expect_err("refused");
    let RunToolError::Run { failure, .. } = err else {
        panic!("a run failure")
    };
    let RunError::ToolFailed {
        class,
        attempts,
        message,
        ..
    } = failure.error
    else {
        panic!("tool failure")
    };
    assert_eq!((class, attempts), (ErrorClass::Terminal, 1), "{message}");
    assert!(message.contains("ERR_CONNECTION_REFUSED"), "{message}");
    browser.close().await;
}

/// A TCP proxy in front of Chromium's DevTools port that can cut every connection.
async fn cdp_proxy(
    target: std::net::SocketAddr,
) -> (std::net::SocketAddr, tokio::sync::watch::Sender<bool>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (cut, cut_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let mut cut_rx = cut_rx.clone();
            tokio::spawn(async move {
                let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await else {
                    return;
                };
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                    _ = async { let _ = cut_rx.wait_for(|c| *c).await.map(|_| ()); } => {
                        let _ = inbound.shutdown().await;
                    }
                }
            });
        }
    });
    (addr, cut)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cdp_disconnect_is_a_clear_transient_error() {
    let shop = FixtureServer::shop().expect("shop");
    let chromium = Browser::launch(&BrowserConfig::default())
        .await
        .expect("chromium");
    let endpoint = chromium.ws_endpoint().to_string();
    let port_re = Regex::new(r"ws://([^/]+)/").expect("regex");
    let real: std::net::SocketAddr = port_re.captures(&endpoint).expect("host:port")[1]
        .parse()
        .expect("socket address");
    let (proxy, cut) = cdp_proxy(real).await;
    let via_proxy = endpoint.replace(&real.to_string(), &proxy.to_string());
    // The connection is cut the moment the navigation has passed, so the replay is in its
    // wait, however long the launch and the navigation took on a loaded machine (a fixed
    // delay cut it during the navigation there, another failure than the one under test).
    let cut = Arc::new(cut);
    let cutter = cut.clone();
    let browser = Arc::new(
        SharedBrowser::new(BrowserConfig {
            ws_endpoint: Some(via_proxy.clone()),
            ..BrowserConfig::default()
        })
        .with_replay_options(ReplayOptions {
            on_step: Some(StepObserver::new(move |progress| {
                if progress.report.index == 0 && progress.report.status == StepStatus::Passed {
                    let _ = cutter.send(true);
                }
            })),
            ..ReplayOptions::default()
        }),
    );
    let tool = tool_with(json!([
        { "type": "navigate", "url": shop.url("/index.html") },
        { "type": "wait_for_expression", "expression": "window.neverTrue === true", "timeout_ms": 20000 }
    ]));
    let started = Instant::now();
    let options = RunSetup {
        browser: browser.clone(),
        rider: one_attempt(),
        ..RunSetup::default()
    };
    let err = run_tool(&tool, &RunInputs::new(), options)
        .await
        .expect_err("disconnected");
    assert!(
        *cut.borrow(),
        "the navigation passed, then the connection was cut"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let (class, message) = tool_failure(err);
    assert_eq!(class, ErrorClass::Transient, "{message}");
    assert!(message.contains("connection"), "{message}");
    // Chromium itself is fine: a direct connection still works.
    assert!(chromium.version().await.is_ok());
    chromium.close().await.expect("closes");
}
