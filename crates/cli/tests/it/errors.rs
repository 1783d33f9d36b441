//! Errors that help: each cause said once, bad arguments refused before any work starts.

use crate::{bflow, stderr};

#[test]
fn an_error_chain_says_each_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing_pack = dir.path().join("none.bfpack");
    let journal = dir.path().join("j.sqlite");
    for args in [
        vec!["pack", "verify", missing_pack.to_str().unwrap()],
        vec![
            "flow",
            "resume",
            "no-such-run",
            "--journal",
            journal.to_str().unwrap(),
        ],
    ] {
        let output = bflow(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let log = stderr(&output);
        assert!(log.starts_with("error: "), "{log}");
        // In words, once: no OS error number.
        assert!(!log.contains("os error"), "{args:?}: {log}");
        assert_eq!(log.matches("does not exist").count(), 1, "{args:?}: {log}");
    }
}

#[test]
fn screenshots_pointing_at_an_existing_file_is_an_error_before_the_browser_starts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shots.png");
    std::fs::write(&file, b"not a folder").unwrap();
    let tool = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../recordings/search-price@1.2.0.json"
    );
    let started = std::time::Instant::now();
    // A browser that cannot start: had the run got that far, the error would say so.
    let output = bflow(&[
        "run",
        tool,
        "--input",
        "query=keyboard",
        "--screenshots",
        file.to_str().unwrap(),
        "--chrome",
        "/nonexistent/chromium",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let log = stderr(&output);
    assert!(
        log.contains(&format!(
            "the screenshots folder {} cannot be used: it is an existing file, not a folder",
            file.display()
        )),
        "{log}"
    );
    assert!(
        !log.contains("chromium"),
        "the browser was never started: {log}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(std::fs::read(&file).unwrap(), b"not a folder", "untouched");
}

#[test]
fn bflow_run_with_an_unset_secret_input_fails_before_the_first_step() {
    let dir = tempfile::tempdir().unwrap();
    let tool = serde_json::json!({
        "contract": {
            "name": "login", "version": "1.0.0", "kind": "browser", "description": "",
            "inputs": [{"name": "password", "schema": {"type": "string"}, "secret": true}],
            "output": {"type": "object"}, "capabilities": ["browser", "secrets"]
        },
        "steps": [{"type": "navigate", "url": "about:blank"}]
    });
    let tool = crate::write(dir.path(), "login@1.0.0.json", &tool.to_string());
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args([
            "run",
            &tool,
            "--input",
            "password=secret.UNSET_LOGIN_PASSWORD",
        ])
        .env_remove("BROWSERFLOW_SECRET_UNSET_LOGIN_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let log = stderr(&output);
    assert!(
        log.contains(
            "secret `UNSET_LOGIN_PASSWORD` is not set (set BROWSERFLOW_SECRET_UNSET_LOGIN_PASSWORD"
        ),
        "{log}"
    );
    assert!(log.contains("nothing ran"), "{log}");
    assert!(!log.contains("navigate"), "no step ran: {log}");
}
