//! A step's attempts share one time budget (default 30 s, per run `--step-budget`, per flow
//! step `timeout_ms`): a server that accepts and never answers fails a step once, within its
//! budget, not once per attempt (4 × 30 s before).

use std::net::{TcpListener, TcpStream};
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::{bflow, stderr};

/// Accepts connections on 127.0.0.1 and never answers (holding them open).
fn silent_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            held.lock().unwrap().push(stream);
        }
    });
    port
}

fn hanging_tool(dir: &std::path::Path, port: u16) -> String {
    let tool = json!({
        "contract": {
            "name": "hangs", "version": "1.0.0", "kind": "browser", "description": "",
            "inputs": [], "output": {"type": "object"}, "capabilities": ["browser"]
        },
        "steps": [{"type": "navigate", "url": format!("http://127.0.0.1:{port}/never")}]
    });
    crate::write(dir, "hangs@1.0.0.json", &tool.to_string())
}

/// Runs `args`, returning the output and how long it took.
fn timed(args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let output = bflow(args);
    (output, started.elapsed())
}

fn failed_on_budget(output: &Output, budget: &str) -> String {
    assert_eq!(output.status.code(), Some(1), "{}", stderr(output));
    let log = stderr(output);
    assert!(
        log.contains(&format!(
            "the step's time budget of {budget} (all attempts together)"
        )),
        "{log}"
    );
    log
}

#[test]
fn a_hanging_navigation_fails_once_within_the_default_30_s_budget() {
    let port = silent_server();
    let dir = tempfile::tempdir().unwrap();
    let tool = hanging_tool(dir.path(), port);
    let (output, took) = timed(&["run", &tool]);
    let log = failed_on_budget(&output, "30 s");
    // The budget counts from the first attempt; the browser starts before it.
    assert!(took >= Duration::from_secs(29), "{took:?}: {log}");
    assert!(took < Duration::from_secs(45), "{took:?}: {log}");
    // One attempt, said in the tool's words (no internal step name, no attempt count).
    assert!(log.contains("` failed: "), "{log}");
    assert!(
        !log.contains(" attempts)") && !log.contains("step `run`"),
        "{log}"
    );
    // The replay stopped itself in time, naming the browser step that hung.
    assert!(log.contains("step 1 (navigate) failed"), "{log}");
}

#[test]
fn the_budget_is_set_per_run_and_per_flow_step() {
    let port = silent_server();
    let dir = tempfile::tempdir().unwrap();
    let tool = hanging_tool(dir.path(), port);
    let (output, took) = timed(&["run", &tool, "--step-budget", "3"]);
    let log = failed_on_budget(&output, "3 s");
    assert!(took < Duration::from_secs(15), "{took:?}: {log}");

    // A flow step's own `timeout_ms` wins over the run's budget.
    let listed = bflow(&["tools", "list", "--json"]);
    let post = crate::stdout(&listed)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|t| t["ref"] == "std/http.post@1.0.0")
        .unwrap();
    let flow = json!({
        "name": "hang-post", "version": "1.0.0", "description": "", "inputs": [],
        "requires": [{"ref": "std/http.post@1.0.0", "contract_digest": post["contract_digest"]}],
        "steps": [{"id": "post", "uses": "std/http.post@1.0.0", "timeout_ms": 1500, "with": {
            "url": {"value": format!("http://127.0.0.1:{port}/hook")}, "body": {"value": "x"}}}],
        "output": {"from": "steps.post.output"}
    });
    let flow = crate::write(dir.path(), "hangs.flow.json", &flow.to_string());
    let journal = dir.path().join("j.sqlite");
    let (output, took) = timed(&[
        "flow",
        "run",
        &flow,
        "--journal",
        journal.to_str().unwrap(),
        "--step-budget",
        "60",
    ]);
    let log = failed_on_budget(&output, "1500 ms");
    assert!(took < Duration::from_secs(12), "{took:?}: {log}");
    assert!(log.contains("step `post`"), "{log}");
}
