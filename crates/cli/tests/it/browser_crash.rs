//! A browser that crashes during `bflow run` is relaunched, and the person is told so at the
//! default log level, with the step named.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::stderr;

/// Serves `/page`: the first time a page that never gets ready, then one that does.
fn serve_pages() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::new(AtomicUsize::new(0));
    let count = served.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            let _ = reader.read_line(&mut request);
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            let body = if !request.starts_with("GET /page ") {
                String::new()
            } else if count.fetch_add(1, Ordering::SeqCst) == 0 {
                "<html><body>not ready</body></html>".to_owned()
            } else {
                "<html><body><script>window.ready = true</script></body></html>".to_owned()
            };
            let status = if body.is_empty() {
                "404 Not Found"
            } else {
                "200 OK"
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, served)
}

/// The Chromium that process `parent` launched (its child with a DevTools port).
fn chromium_of(parent: u32) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The parent pid is the second field after the `(comm)`.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if ppid == Some(parent) && String::from_utf8_lossy(&cmdline).contains("--remote-debugging")
        {
            return Some(pid);
        }
    }
    None
}

#[test]
fn a_browser_killed_during_bflow_run_is_relaunched_with_a_warning_naming_the_step() {
    let (port, served) = serve_pages();
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("waits@1.0.0.json");
    let file = json!({
        "contract": {
            "name": "waits", "version": "1.0.0", "kind": "browser", "description": "",
            "inputs": [], "output": {"type": "object"}, "capabilities": ["browser"]
        },
        "steps": [
            {"type": "navigate", "url": format!("http://127.0.0.1:{port}/page")},
            {"type": "wait_for_expression", "expression": "window.ready === true", "timeout_ms": 20000}
        ]
    });
    std::fs::write(&tool, file.to_string()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args(["run", &tool.to_string_lossy()])
        .current_dir(dir.path())
        .env_remove("BROWSERFLOW_LOG")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // Once the first page was served, the replay is in (or about to be in) the long wait.
    let deadline = Instant::now() + Duration::from_secs(60);
    while served.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the page was never loaded");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    let chromium = chromium_of(child.id()).expect("bflow launched chromium");
    let killed = Command::new("kill")
        .args(["-9", &chromium.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());

    let started = Instant::now();
    let output = loop {
        if child.try_wait().unwrap().is_some() {
            break child.wait_with_output().unwrap();
        }
        if started.elapsed() > Duration::from_secs(90) {
            child.kill().unwrap();
            panic!(
                "bflow run did not finish: {}",
                stderr(&child.wait_with_output().unwrap())
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = stderr(&output);
    assert!(output.status.success(), "{log}");
    assert!(served.load(Ordering::SeqCst) >= 2, "the page was replayed");
    let warning = log
        .lines()
        .find(|l| l.contains("the browser had crashed or its connection dropped"))
        .unwrap_or_else(|| panic!("a warning: {log}"));
    assert!(warning.contains("WARN"), "{warning}");
    assert!(
        warning.contains("waits@1.0.0"),
        "it names the tool: {warning}"
    );
    assert!(warning.contains("step `"), "it names the step: {warning}");
}
