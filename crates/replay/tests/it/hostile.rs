//! Pages that work against the replay end it fast, with their cause: a refused navigation
//! the page's own script starts fails the step as `NavigationBlocked` (never an output read
//! from Chromium's error page); a renderer killed — by a signal, or by the kernel out of
//! memory — fails the step within about a second as `Crashed`; an `alert()` loop, a script
//! that never yields and a popup storm end at the call's deadline naming the step and the
//! cause, with a report (and the screenshot when the page can still draw one).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_replay::{
    Blocked, FailureKind, ReplayError, ReplayOptions, Replayer, StepObserver, StepStatus,
};
use browserflow_steps::{Origins, Step};
use serde_json::{Value, json};

/// A loopback site whose pages do hostile things; `/go?to=URL` sends itself to `URL` from
/// its own script as soon as it is parsed.
fn site() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream));
        }
    });
    origin
}

fn serve(stream: std::net::TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    let mut request = String::new();
    if reader.read_line(&mut request).unwrap_or(0) == 0 {
        return;
    }
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap_or(0) > 0 && !line.trim().is_empty() {
        line.clear();
    }
    let target = request.split_whitespace().nth(1).unwrap_or("/").to_string();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let script = match path {
        "/go" => format!(
            "location.href = {:?};",
            query.strip_prefix("to=").unwrap_or_default()
        ),
        // A button whose click sends the page to `URL`.
        "/leave" => format!(
            "document.body.insertAdjacentHTML('beforeend', '<button id=\"leave\">leave</button>');
             document.getElementById('leave').onclick = () => {{ location.href = {:?}; }};",
            query.strip_prefix("to=").unwrap_or_default()
        ),
        _ => String::new(),
    };
    let body = format!(
        r#"<!doctype html><title>Hostile</title><h1 id="start">Start page</h1>
<button id="loop" onclick="setTimeout(() => {{ for (;;) {{}} }}, 0)">loop</button>
<button id="alerts" onclick="setTimeout(() => {{ for (;;) alert('again') }}, 0)">alerts</button>
<button id="popups" onclick="for (let i = 0; i < 200; i++) window.open('/popup?' + i)">popups</button>
<button id="hog" onclick="window.hog = []; setInterval(() => {{ for (let i = 0; i < 8; i++) window.hog.push(new Uint8Array(8 << 20).fill(1)) }}, 20)">hog</button>
<script>{script}</script>"#
    );
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = writer.write_all(response.as_bytes());
}

fn css(value: &str) -> Value {
    json!({ "candidates": [{ "kind": "css", "value": value }] })
}

fn click(id: &str) -> Value {
    json!({ "type": "click", "label": format!("Press {id}"), "selector": css(&format!("#{id}")) })
}

/// A wait for an element that never comes, with a long budget of its own.
fn wait_forever() -> Value {
    json!({ "type": "wait_for_element", "label": "Wait for the result",
            "selector": css("#never"), "timeout_ms": 60_000 })
}

async fn replay(
    browser: &Browser,
    steps: Value,
    options: ReplayOptions,
) -> Result<browserflow_replay::ReplayReport, ReplayError> {
    let steps: Vec<Step> = serde_json::from_value(steps).unwrap();
    let context = browser.new_context().await.unwrap();
    let result = Replayer::new(options)
        .run(&context, &steps, &Default::default())
        .await;
    drop(context);
    result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_navigation_by_the_page_itself_fails_the_step_naming_it() {
    let origin = site();
    let elsewhere = site();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let refused = format!("{elsewhere}/secret-page");
    let page = format!("{origin}/go?to={refused}");
    let steps = json!([
        { "type": "navigate", "url": page },
        { "type": "extract", "field": "text", "kind": "string", "selector": css("body") }
    ]);
    let started = Instant::now();
    let error = replay(
        &browser,
        steps,
        ReplayOptions {
            origins: Some(Origins::only([origin.clone()])),
            candidate_timeout: Duration::from_secs(3),
            ..ReplayOptions::default()
        },
    )
    .await
    .expect_err("a refused navigation is never a success");
    assert_eq!(
        error.failure_kind(),
        FailureKind::NavigationBlocked(Blocked::OriginNotAllowed),
        "{error}"
    );
    assert!(
        error.to_string().contains(&refused),
        "names the URL: {error}"
    );
    // The refusal ends the navigation's wait (it never loads the page asked for): not its
    // 30 s budget.
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "failed after {took:?}");
    let report = serde_json::to_string(&error.report()).unwrap();
    assert!(
        !report.contains("\"text\"") && !report.contains("ERR_BLOCKED"),
        "nothing was read from the error page: {report}"
    );
    // The same page on the allowed origin alone reads its own text: the control.
    let stays = json!([
        { "type": "navigate", "url": format!("{origin}/plain") },
        { "type": "extract", "field": "text", "kind": "string", "selector": css("#start") }
    ]);
    let report = replay(
        &browser,
        stays,
        ReplayOptions {
            origins: Some(Origins::only([origin.clone()])),
            ..ReplayOptions::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(report.outputs["text"], "Start page");
    browser.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_whose_script_goes_to_a_refused_origin_fails_that_step_naming_the_url() {
    let origin = site();
    let elsewhere = site();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let refused = format!("{elsewhere}/after-click");
    let steps = json!([
        { "type": "navigate", "url": format!("{origin}/leave?to={refused}") },
        click("leave"),
        { "type": "extract", "field": "text", "kind": "string", "selector": css("body") }
    ]);
    let error = replay(
        &browser,
        steps,
        ReplayOptions {
            origins: Some(Origins::only([origin.clone()])),
            candidate_timeout: Duration::from_secs(3),
            ..ReplayOptions::default()
        },
    )
    .await
    .expect_err("a refused navigation is never a success");
    assert_eq!(
        error.failure_kind(),
        FailureKind::NavigationBlocked(Blocked::OriginNotAllowed),
        "{error}"
    );
    let message = error.to_string();
    assert!(
        message.contains(&refused)
            && message.contains("step 2 ")
            && message.contains("Press leave"),
        "names the URL and the click: {message}"
    );
    let report = error.report().expect("a failure keeps its report");
    assert_eq!(report.steps[1].status, StepStatus::Failed, "{report:?}");
    assert!(
        report.outputs.get("text").is_none(),
        "nothing was read from the error page: {:?}",
        report.outputs
    );
    browser.close().await.unwrap();
}

/// The renderer processes of `browser` (every process of its group started as a renderer).
fn renderers(browser: &Browser) -> Vec<u32> {
    let group = browser.pid().unwrap().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if fields.get(2) == Some(&group.as_str())
            && String::from_utf8_lossy(&cmdline).contains("--type=renderer")
        {
            found.push(pid);
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_renderer_fails_the_step_within_a_second() {
    let origin = site();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let steps = json!([{ "type": "navigate", "url": format!("{origin}/plain") }, wait_forever()]);
    // Killed once the page is on the site (its navigation reported), while the wait runs.
    let (navigated, on_site) = tokio::sync::oneshot::channel::<()>();
    let navigated = std::sync::Mutex::new(Some(navigated));
    let options = ReplayOptions {
        on_step: Some(StepObserver::new(move |_| {
            if let Some(tx) = navigated.lock().unwrap().take() {
                let _ = tx.send(());
            }
        })),
        ..ReplayOptions::default()
    };
    let replaying = replay(&browser, steps, options);
    let killer = async {
        on_site.await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let pids = renderers(&browser);
        assert!(!pids.is_empty(), "the page has a renderer");
        for pid in pids {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        Instant::now()
    };
    let (result, killed_at) = tokio::join!(replaying, killer);
    let noticed = killed_at.elapsed();
    let error = result.expect_err("a dead page fails the step");
    assert_eq!(error.failure_kind(), FailureKind::Crashed, "{error}");
    let message = error.to_string();
    assert!(
        message.contains("renderer process died") && message.contains("Wait for the result"),
        "says so, naming the step: {message}"
    );
    assert!(
        noticed < Duration::from_millis(1500),
        "noticed {noticed:?} after the kill, not at the end of the budget"
    );
    browser.close().await.unwrap();
}

/// A memory cgroup (v1) of its own for one process, limited to `limit` bytes more than it
/// uses now, so that the kernel's out-of-memory killer ends it when it allocates past that.
struct MemoryCage(std::path::PathBuf);

impl MemoryCage {
    fn around(pid: u32, limit: u64) -> Option<MemoryCage> {
        let dir = std::path::PathBuf::from(format!(
            "/sys/fs/cgroup/memory/browserflow-oom-{}-{pid}",
            std::process::id()
        ));
        std::fs::create_dir(&dir).ok()?;
        let cage = MemoryCage(dir);
        std::fs::write(cage.0.join("memory.limit_in_bytes"), limit.to_string()).ok()?;
        std::fs::write(cage.0.join("cgroup.procs"), pid.to_string()).ok()?;
        Some(cage)
    }

    fn oom_kills(&self) -> u64 {
        std::fs::read_to_string(self.0.join("memory.oom_control"))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("oom_kill "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for MemoryCage {
    fn drop(&mut self) {
        for _ in 0..50 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renderer_killed_out_of_memory_fails_the_step_saying_so() {
    let origin = site();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let steps: Vec<Step> = serde_json::from_value(json!([click("hog"), wait_forever()])).unwrap();
    let context = browser.new_context().await.unwrap();
    // On the site first (the renderer of `about:blank` is another process), then caged.
    context
        .page()
        .navigate(&format!("{origin}/plain"), Duration::from_secs(10))
        .await
        .unwrap();
    let pids = renderers(&browser);
    let cages: Vec<MemoryCage> = pids
        .iter()
        .filter_map(|&pid| MemoryCage::around(pid, 96 << 20))
        .collect();
    if cages.is_empty() {
        eprintln!(
            "NOT RUN: no memory cgroup could be made here (/sys/fs/cgroup/memory); the \
             kill-based test covers the crash path"
        );
        return;
    }
    let started = Instant::now();
    let result = Replayer::new(ReplayOptions::default())
        .run(&context, &steps, &Default::default())
        .await;
    let took = started.elapsed();
    let error = result.expect_err("a renderer out of memory fails the step");
    assert_eq!(error.failure_kind(), FailureKind::Crashed, "{error}");
    assert!(error.to_string().contains("ran out of memory"), "{error}");
    assert!(
        cages.iter().map(MemoryCage::oom_kills).sum::<u64>() > 0,
        "the kernel's out-of-memory killer ended it"
    );
    assert!(took < Duration::from_secs(15), "took {took:?}");
    drop(context);
    browser.close().await.unwrap();
    drop(cages);
}

/// Replays `steps` with a call deadline `budget` from now; the error, and how long past the
/// deadline it came.
async fn until_deadline(
    browser: &Browser,
    steps: Value,
    budget: Duration,
) -> (ReplayError, Duration) {
    let deadline = std::time::Instant::now() + budget;
    let options = ReplayOptions {
        deadline: Some(deadline),
        failure_screenshot: true,
        ..ReplayOptions::default()
    };
    let error = replay(browser, steps, options)
        .await
        .expect_err("the page never lets the step finish");
    let late = std::time::Instant::now().saturating_duration_since(deadline);
    (error, late)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_pages_end_at_the_deadline_naming_the_step_and_the_cause() {
    let origin = site();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let page = json!({ "type": "navigate", "url": format!("{origin}/plain") });
    // The step still running is named with the cause: the click (it ends only once the page
    // answers again — its post-state and settling read the page — and the loop, the alerts
    // and the popups start as it returns), or the wait after it when the click got through.
    for (button, cause) in [
        ("loop", "the page does not answer"),
        ("alerts", "dialogs during this step"),
        ("popups", "popups during this step"),
    ] {
        let steps = json!([page, click(button), wait_forever()]);
        let (error, late) = until_deadline(&browser, steps, Duration::from_secs(4)).await;
        let message = error.to_string();
        assert_eq!(
            error.failure_kind(),
            FailureKind::Timeout,
            "{button}: {message}"
        );
        let report = error.report().expect("a failure keeps its report");
        let stuck = report
            .steps
            .iter()
            .position(|step| step.status == StepStatus::Failed)
            .unwrap_or_else(|| panic!("{button}: a failed step in {report:?}"));
        let label = if stuck == 1 {
            format!("click \"Press {button}\"")
        } else {
            "\"Wait for the result\"".to_string()
        };
        assert!(
            (1..=2).contains(&stuck)
                && message.contains(&format!("step {} ", stuck + 1))
                && message.contains(&label)
                && message.contains(cause),
            "{button}: names the step and the cause: {message}"
        );
        assert!(
            late < Duration::from_millis(900),
            "{button}: ended {late:?} past the deadline, within the Rider's headroom"
        );
        let failed = &report.steps[stuck];
        assert!(
            failed.screenshot.is_some() || failed.screenshot_withheld.is_some(),
            "{button}: a screenshot, or the reason there is none"
        );
        if button == "loop" {
            assert!(
                failed
                    .screenshot_withheld
                    .as_deref()
                    .is_some_and(|r| r.contains("does not answer")),
                "{button}: {:?}",
                failed.screenshot_withheld
            );
        }
        if !message.contains("does not answer") {
            assert!(
                failed.screenshot.is_some(),
                "{button}: the page still draws"
            );
        }
    }
    browser.close().await.unwrap();
}
