//! std/shell with real processes.

use std::time::{Duration, Instant};

use browserflow_rider::{CancelHandle, FsCap, SpawnCap, Tool, ToolCtx};
use browserflow_std::shell;
use serde_json::json;

fn spawn_ctx(allowed: &[&str]) -> ToolCtx {
    ToolCtx::builder("run-sh", "step-sh")
        .spawn(SpawnCap::new(
            allowed.iter().copied(),
            CancelHandle::new().signal(),
        ))
        .build()
}

#[tokio::test]
async fn runs_an_allowed_program_and_captures_its_output() {
    let tool = shell::shell_run().unwrap();
    let out = tool
        .run(
            json!({"program": "sh", "args": ["-c", "echo out; echo err >&2; exit 3"]}),
            spawn_ctx(&["sh"]),
        )
        .await
        .unwrap();
    assert_eq!(
        out,
        json!({"exit_code": 3, "success": false, "stdout": "out\n", "stderr": "err\n"})
    );
    let out = tool
        .run(
            json!({"program": "cat", "stdin": "piped", "env": {"X": "1"}}),
            spawn_ctx(&["cat"]),
        )
        .await
        .unwrap();
    assert_eq!(out["stdout"], json!("piped"));
    assert_eq!(out["success"], json!(true));
}

#[tokio::test]
async fn a_program_not_allowed_is_refused() {
    let tool = shell::shell_run().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let err = tool
        .run(
            json!({"program": "touch", "args": [marker.display().to_string()]}),
            spawn_ctx(&["echo"]),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("`touch` is not allowed"), "{err}");
    assert!(!marker.exists(), "the refused program ran");
    let err = tool
        .run(
            json!({"program": "echo"}),
            ToolCtx::builder("r", "s").build(),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("`spawn`"), "{err}");
}

#[tokio::test]
async fn a_program_past_its_timeout_is_killed() {
    let tool = shell::shell_run().unwrap();
    let started = Instant::now();
    let err = tool
        .run(
            json!({"program": "sleep", "args": ["30"], "timeout_ms": 300}),
            spawn_ctx(&["sleep"]),
        )
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        err.message.contains("killed") && err.message.contains("300 ms"),
        "{err}"
    );
}

#[tokio::test]
async fn run_in_root_works_inside_the_fs_root_only() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("sub")).unwrap();
    std::fs::write(root.path().join("sub/file.txt"), "inside").unwrap();
    let tool = shell::shell_run_in_root().unwrap();
    let ctx = || {
        ToolCtx::builder("run-sh", "step-sh")
            .spawn(SpawnCap::new(["cat", "pwd"], CancelHandle::new().signal()))
            .fs(FsCap::new(root.path()).unwrap())
            .build()
    };
    let out = tool
        .run(
            json!({"program": "cat", "args": ["file.txt"], "dir": "sub"}),
            ctx(),
        )
        .await
        .unwrap();
    assert_eq!(out["stdout"], json!("inside"));
    let out = tool.run(json!({"program": "pwd"}), ctx()).await.unwrap();
    let canonical = std::fs::canonicalize(root.path()).unwrap();
    assert_eq!(
        out["stdout"].as_str().unwrap().trim(),
        canonical.display().to_string()
    );
    let err = tool
        .run(json!({"program": "pwd", "dir": "../"}), ctx())
        .await
        .unwrap_err();
    assert!(err.message.contains("refused"), "{err}");
    // Without `fs` the in-root tool cannot run.
    let err = tool
        .run(json!({"program": "pwd"}), spawn_ctx(&["pwd"]))
        .await
        .unwrap_err();
    assert!(err.message.contains("`fs`"), "{err}");
}
