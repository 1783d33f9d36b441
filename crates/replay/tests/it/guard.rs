//! A browser tool reaches only the web, and at the top level only the origins its tool file
//! lists: recorded steps, links the page follows, redirects and popups alike. Two sites on
//! 127.0.0.1 (different ports: different origins) that link and redirect to each other and
//! to `file:///etc/hostname`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_replay::{Blocked, FailureKind, ReplayError, ReplayOptions, Replayer};
use browserflow_steps::{Origins, Step, ToolFile};
use serde_json::{Value, json};

/// A site on 127.0.0.1: `/page.html` links to a local file, to a redirect to it and to the
/// other site, and opens the other site in a popup; `/to-file` and `/to-other` redirect
/// (302) to them.
struct Site {
    port: u16,
    /// The other site's origin, known once both listen.
    other: Arc<Mutex<String>>,
}

impl Site {
    fn start() -> Site {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let other = Arc::new(Mutex::new(String::new()));
        let shared = other.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let other = shared.lock().unwrap().clone();
                std::thread::spawn(move || serve(stream, &other));
            }
        });
        Site { port, other }
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin())
    }
}

fn serve(stream: std::net::TcpStream, other: &str) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut request = String::new();
        if reader.read_line(&mut request).unwrap_or(0) == 0 {
            return;
        }
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 && !line.trim().is_empty() {
            line.clear();
        }
        let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
        let redirect =
            |to: &str| format!("HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\r\n");
        let response = match path.as_str() {
            "/to-file" => redirect("file:///etc/hostname"),
            "/to-other" => redirect(&format!("{other}/page.html")),
            _ => {
                let body = format!(
                    r#"<!doctype html><title>Site page</title><h1 id="where">{path}</h1>
<a id="file" href="file:///etc/hostname">local file</a>
<a id="to-file" href="/to-file">redirect to a local file</a>
<a id="other" href="{other}/page.html">other site</a>
<a id="to-other" href="/to-other">redirect to the other site</a>
<button id="popup" onclick="window.open('{other}/page.html')">popup</button>"#
                );
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                )
            }
        };
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

struct Sites {
    one: Site,
    two: Site,
    browser: Browser,
    /// What `file:///etc/hostname` holds: it must never show up anywhere.
    hostname: String,
}

impl Sites {
    async fn start() -> Sites {
        let (one, two) = (Site::start(), Site::start());
        *one.other.lock().unwrap() = two.origin();
        *two.other.lock().unwrap() = one.origin();
        let hostname = std::fs::read_to_string("/etc/hostname")
            .unwrap()
            .trim()
            .to_string();
        assert!(!hostname.is_empty());
        let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
        Sites {
            one,
            two,
            browser,
            hostname,
        }
    }

    /// Replays `steps` with `origins` (`None`: the origins of the steps).
    async fn replay(&self, steps: Value, origins: Option<Origins>) -> Result<Value, ReplayError> {
        let steps: Vec<Step> = serde_json::from_value(steps).unwrap();
        let options = ReplayOptions {
            candidate_timeout: std::time::Duration::from_secs(3),
            origins,
            ..ReplayOptions::default()
        };
        let context = self.browser.new_context().await.unwrap();
        let result = Replayer::new(options)
            .run(&context, &steps, &Default::default())
            .await;
        context.close().await.unwrap();
        result.map(|report| serde_json::to_value(&report).unwrap())
    }

    /// The step failed as blocked (`why`), naming `url`; nothing of the local file shows in
    /// the error or its report.
    fn assert_blocked(&self, result: Result<Value, ReplayError>, why: Blocked, url: &str) {
        let error = result.expect_err("the navigation is refused");
        assert_eq!(
            error.failure_kind(),
            FailureKind::NavigationBlocked(why),
            "{error}"
        );
        let message = error.to_string();
        assert!(message.contains(url), "the error names {url}: {message}");
        let report = serde_json::to_string(&error.report()).unwrap();
        assert!(
            !message.contains(&self.hostname) && !report.contains(&self.hostname),
            "nothing of the local file was read: {message} {report}"
        );
        assert!(!report.contains("\"final_url\":\"file:"), "{report}");
    }
}

fn click(id: &str) -> Value {
    json!({ "type": "click", "selector": { "candidates": [{ "kind": "css", "value": format!("#{id}") }] } })
}

fn click_navigating(id: &str, url: &str) -> Value {
    json!({ "type": "click", "navigation": { "url": url },
            "selector": { "candidates": [{ "kind": "css", "value": format!("#{id}") }] } })
}

fn body_text() -> Value {
    json!({ "type": "extract", "field": "text", "kind": "string",
            "selector": { "candidates": [{ "kind": "css", "value": "body" }] } })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_file_is_refused_as_a_step_a_link_and_a_redirect() {
    let s = Sites::start().await;
    let page = s.one.url("/page.html");
    let file = "file:///etc/hostname";

    // A recorded step.
    let step = s
        .replay(
            json!([{ "type": "navigate", "url": file }, body_text()]),
            None,
        )
        .await;
    s.assert_blocked(step, Blocked::NotWeb, file);

    // A link the page follows, recorded as navigating there.
    let link = s
        .replay(
            json!([{ "type": "navigate", "url": page }, click_navigating("file", file), body_text()]),
            None,
        )
        .await;
    s.assert_blocked(link, Blocked::NotWeb, file);
    // Not recorded as navigating: Chromium refuses a web page's link to a local file, and
    // the page stays where it was.
    let stayed = s
        .replay(
            json!([{ "type": "navigate", "url": page }, click("file"), body_text()]),
            None,
        )
        .await
        .unwrap();
    assert!(
        stayed["outputs"]["text"]
            .as_str()
            .unwrap()
            .contains("local file")
    );
    assert!(!stayed.to_string().contains(&s.hostname), "{stayed}");

    // A redirect, as a step and as a link.
    let redirect = s
        .replay(
            json!([{ "type": "navigate", "url": s.one.url("/to-file") }, body_text()]),
            None,
        )
        .await;
    s.assert_blocked(redirect, Blocked::NotWeb, file);
    let redirect_link = s
        .replay(
            json!([{ "type": "navigate", "url": page }, click("to-file"), body_text()]),
            None,
        )
        .await;
    s.assert_blocked(redirect_link, Blocked::NotWeb, file);
    s.browser.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_url_off_the_web_is_refused() {
    let s = Sites::start().await;
    for url in [
        "file:///etc/hostname",
        "chrome://version",
        "chrome-extension://abcdefghijklmnopabcdefghijklmnop/x.html",
        "devtools://devtools/bundled/inspector.html",
        "view-source:http://127.0.0.1:1/",
        "javascript:document.title='x'",
        "data:text/html,<h1>x</h1>",
    ] {
        let result = s
            .replay(
                json!([{ "type": "navigate", "url": url }]),
                Some(Origins::Any),
            )
            .await;
        s.assert_blocked(result, Blocked::NotWeb, url);
    }
    // A page that sends itself off the web stays where it is (Chromium refuses a web page's
    // top-level `data:` and `chrome:` navigations; the guard refuses the rest).
    let page = s.one.url("/page.html");
    let stayed = s
        .replay(
            json!([
                { "type": "navigate", "url": page },
                { "type": "wait_for_expression", "expression": "(location.href = 'data:text/html,<h1 id=where>data</h1>', true)" },
                { "type": "wait_for_expression", "expression": "(location.href = 'chrome://version', true)" },
                { "type": "extract", "field": "where", "kind": "string",
                  "selector": { "candidates": [{ "kind": "css", "value": "#where" }] } }
            ]),
            None,
        )
        .await
        .unwrap();
    assert_eq!(stayed["outputs"]["where"], "/page.html");
    s.browser.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_stays_on_its_origins_unless_its_file_allows_more() {
    let s = Sites::start().await;
    let page = s.one.url("/page.html");
    let other_page = s.two.url("/page.html");
    let other = s.two.origin();
    // As recorded on the first site: the tool file lists only its origin.
    let file = ToolFile::from_json_str(
        &json!({
            "contract": { "name": "stay", "version": "1.0.0", "kind": "browser", "description": "A test tool",
                          "inputs": [], "output": { "type": "null" }, "capabilities": ["browser"] },
            "origins": [s.one.origin()],
            "steps": [{ "type": "navigate", "url": page }]
        })
        .to_string(),
    )
    .unwrap();
    let recorded = Some(file.allowed_origins());
    assert_eq!(recorded, Some(Origins::only([s.one.origin()])));

    let navigate = json!([{ "type": "navigate", "url": other_page }]);
    let link = json!([{ "type": "navigate", "url": page }, click("other"), body_text()]);
    let redirect = json!([{ "type": "navigate", "url": page }, click("to-other"), body_text()]);
    let popup = json!([
        { "type": "navigate", "url": page },
        { "type": "click", "opens_popup": "other",
          "selector": { "candidates": [{ "kind": "css", "value": "#popup" }] } },
        body_text()
    ]);
    for (what, steps) in [
        ("a step", &navigate),
        ("a link", &link),
        ("a redirect", &redirect),
        ("a popup", &popup),
    ] {
        let result = s.replay(steps.clone(), recorded.clone()).await;
        let error = result.expect_err(what);
        assert_eq!(
            error.failure_kind(),
            FailureKind::NavigationBlocked(Blocked::OriginNotAllowed),
            "{what}: {error}"
        );
        let message = error.to_string();
        assert!(
            message.contains(&other) && message.contains(&s.one.origin()),
            "{what}: the error names the origin and the allowed ones: {message}"
        );
        assert!(
            !serde_json::to_string(&error.report())
                .unwrap()
                .contains("\"text\""),
            "{what}: nothing of the other site was read"
        );
    }

    // Listed: allowed.
    let both = Origins::only([s.one.origin(), other.clone()]);
    for steps in [&navigate, &link, &redirect, &popup] {
        s.replay(steps.clone(), Some(both.clone()))
            .await
            .unwrap_or_else(|e| panic!("{both}: {e}"));
    }
    // `*` never includes this machine: a loopback site must be named.
    let error = s
        .replay(navigate.clone(), Some(Origins::Any))
        .await
        .expect_err("`*` does not include 127.0.0.1");
    assert_eq!(
        error.failure_kind(),
        FailureKind::NavigationBlocked(Blocked::LocalAddress),
        "{error}"
    );
    assert!(error.to_string().contains(&other_page), "{error}");
    // A file without `origins` may go where its steps go.
    let old = ToolFile::from_json_str(
        &json!({
            "contract": { "name": "old", "version": "1.0.0", "kind": "browser", "description": "A test tool",
                          "inputs": [], "output": { "type": "null" }, "capabilities": ["browser"] },
            "steps": [{ "type": "navigate", "url": page }, { "type": "navigate", "url": other_page }]
        })
        .to_string(),
    )
    .unwrap();
    assert_eq!(old.origins, None);
    assert_eq!(
        old.allowed_origins(),
        Origins::only([s.one.origin(), other.clone()])
    );
    s.browser.close().await.unwrap();
}
