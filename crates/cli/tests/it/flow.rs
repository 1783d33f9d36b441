//! `bflow flow run`, `bflow flow resume` and `bflow journal show` over a built-in tool.

use std::process::Command;

use crate::{bflow, stderr, stdout};

fn bflow_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bflow"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn run_resume_and_show_a_flow() {
    let listed = bflow(&["tools", "list", "--json"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let slugify: serde_json::Value = stdout(&listed)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|t| t["ref"] == "std/transform.slugify@1.0.0")
        .expect("slugify is built in");
    let flow = serde_json::json!({
        "name": "title-slug", "version": "1.0.0", "description": "",
        "inputs": [{"name": "title", "schema": {"type": "string"}, "secret": false}],
        "requires": [{"ref": "std/transform.slugify@1.0.0",
                      "contract_digest": slugify["contract_digest"]}],
        "steps": [{"id": "slug", "uses": "std/transform.slugify@1.0.0",
                   "with": {"text": {"from": "input.title"}}}],
        "output": {"from": "steps.slug.output"}
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.flow.json"), flow.to_string()).unwrap();

    let run = bflow_in(
        dir.path(),
        &[
            "flow",
            "run",
            "t.flow.json",
            "--input",
            "title=Hello, World!",
            "--journal",
            "j.sqlite",
        ],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let result: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(result["output"], "hello-world");
    let run_id = result["run_id"].as_str().unwrap().to_owned();
    assert!(stderr(&run).contains("slug succeeded"), "{}", stderr(&run));

    // Resume from another working folder: the run's invocation is kept beside the journal.
    let journal = dir.path().join("j.sqlite");
    let elsewhere = tempfile::tempdir().unwrap();
    let resumed = bflow_in(
        elsewhere.path(),
        &[
            "flow",
            "resume",
            &run_id,
            "--journal",
            &journal.to_string_lossy(),
        ],
    );
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let again: serde_json::Value = serde_json::from_str(&stdout(&resumed)).unwrap();
    assert_eq!(again, result);

    let shown = bflow_in(
        dir.path(),
        &[
            "journal",
            "show",
            &run_id,
            "--journal",
            "j.sqlite",
            "--json",
        ],
    );
    assert!(shown.status.success(), "{}", stderr(&shown));
    let report: serde_json::Value = serde_json::from_str(&stdout(&shown)).unwrap();
    assert_eq!(report["status"], "succeeded");
    assert_eq!(report["sessions"], 2);
    assert_eq!(report["steps"][0]["step_id"], "slug");

    // For people: a table of runs, and the run as text with its steps in columns.
    let listed = bflow_in(dir.path(), &["journal", "list", "--journal", "j.sqlite"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let table = stdout(&listed);
    let mut lines = table.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("RUN") && header.contains("FLOW") && header.contains("STATUS"),
        "{table}"
    );
    let row = lines
        .find(|l| l.starts_with(run_id.as_str()))
        .expect("the run's row");
    assert!(row.contains("succeeded"), "{table}");
    assert_eq!(
        header.find("STATUS"),
        row.find("succeeded"),
        "columns line up: {table}"
    );
    let text = bflow_in(
        dir.path(),
        &["journal", "show", &run_id, "--journal", "j.sqlite"],
    );
    assert!(text.status.success(), "{}", stderr(&text));
    let text = stdout(&text);
    assert!(text.starts_with(&format!("run {run_id}")), "{text}");
    assert!(text.contains("lease: none"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("slug") && l.contains("succeeded")),
        "{text}"
    );
    let as_json = bflow_in(
        dir.path(),
        &["journal", "list", "--journal", "j.sqlite", "--json"],
    );
    let first: serde_json::Value =
        serde_json::from_str(stdout(&as_json).lines().next().unwrap()).unwrap();
    assert_eq!(first["run_id"], run_id.as_str());

    let unknown = bflow_in(
        dir.path(),
        &["flow", "resume", "no-such-run", "--journal", "j.sqlite"],
    );
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("no-such-run"),
        "{}",
        stderr(&unknown)
    );
}
