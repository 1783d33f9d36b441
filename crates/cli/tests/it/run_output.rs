//! What `bflow run` says while it runs: each step the moment it finishes (label, status, time,
//! winning selector), a warning when a step matched only on a lower-ranked selector, and for
//! a failed run, the passed steps and a run folder with the failing page, whose path it prints.

use std::process::Command;

use serde_json::Value;

use crate::shop::Shop;
use crate::{stderr, stdout};

/// The shipped search-price tool with `edit` applied, written into `dir`.
fn edited_tool(dir: &std::path::Path, edit: impl FnOnce(&mut Value)) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings");
    let mut tool: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("search-price@1.2.0.json")).unwrap(),
    )
    .unwrap();
    edit(&mut tool);
    let path = dir.join("edited@1.2.0.json");
    std::fs::write(&path, serde_json::to_string_pretty(&tool).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

fn run(dir: &std::path::Path, tool: &str) -> std::process::Output {
    run_with(dir, &["run", tool, "--input", "query=keyboard"])
}

fn run_with(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bflow"))
        .current_dir(dir)
        .args(args)
        // The run folder of a failure goes under the data folder: here, the test's.
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove("BROWSERFLOW_LOG")
        .output()
        .unwrap()
}

#[test]
fn steps_are_said_as_they_finish_and_a_fallback_is_a_warning() {
    let _shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    // The click's best candidate no longer matches; its second one still does.
    let tool = edited_tool(dir.path(), |t| {
        t["steps"][3]["selector"]["candidates"][0]["value"] = "#no-such-result-link".into();
    });
    let out = run(dir.path(), &tool);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("  1. Open the shop — passed in"), "{err}");
    assert!(
        err.contains("  2. Type the query — passed in")
            && err.contains("via test_id \"search-input\""),
        "the winning selector is named: {err}"
    );
    assert!(
        err.contains("warning: step 4 (Open the first result) matched only on its selector #2 (xpath \"(//main//ul/li)[1]/a\"); 1 ranked above it found nothing: css \"#no-such-result-link\""),
        "{err}"
    );
    let output: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(output["price"], 89.99);

    // The run report says it too.
    let shots = dir.path().join("shots");
    let shots_arg = shots.to_string_lossy().into_owned();
    let out = run_with(
        dir.path(),
        &[
            "run",
            &tool,
            "--input",
            "query=keyboard",
            "--screenshots",
            &shots_arg,
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // `DIR/<run id>/run-<tool>/report.json`.
    let report = std::fs::read_dir(&shots)
        .unwrap()
        .flatten()
        .flat_map(|run| std::fs::read_dir(run.path()).unwrap().flatten())
        .map(|call| call.path().join("report.json"))
        .find(|p| p.is_file())
        .expect("a report.json");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let warnings = report["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{report:#}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .starts_with("step 4 (Open the first result) matched only on its selector #2"),
        "{report:#}"
    );
}

#[test]
fn a_failing_run_says_its_passed_steps_and_keeps_a_run_folder_with_the_failing_page() {
    let _shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    // The price is gone from every candidate's reach: step 6 fails.
    let tool = edited_tool(dir.path(), |t| {
        let candidates = t["steps"][5]["selector"]["candidates"]
            .as_array_mut()
            .unwrap();
        for c in candidates.iter_mut() {
            c["kind"] = "css".into();
            c["value"] = "#no-such-price".into();
        }
        candidates.truncate(1);
        t["steps"][5]["timeout_ms"] = 1500.into();
    });
    let out = run(dir.path(), &tool);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for passed in [
        "1. Open the shop",
        "2. Type the query",
        "3. Submit the search",
        "4. Open the first result",
        "5. Read the product name",
    ] {
        assert!(
            err.contains(&format!("  {passed} — passed in")),
            "{passed}: {err}"
        );
    }
    assert!(err.contains("  6. Read the price — FAILED in"), "{err}");
    let folder = err
        .lines()
        .find_map(|l| l.strip_prefix("run folder (the failing page, report.json): "))
        .unwrap_or_else(|| panic!("the run folder is printed: {err}"));
    let folder = std::path::Path::new(folder);
    assert!(
        folder.starts_with(dir.path().join("data")),
        "{}",
        folder.display()
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("report.json")).unwrap())
            .unwrap();
    assert!(report.to_string().contains("no-such-price"), "{report}");
    let pngs: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".png"))
        .collect();
    assert!(!pngs.is_empty(), "the failing page's screenshot is kept");
}

#[test]
fn a_tools_inputs_are_called_tool_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let tool = edited_tool(dir.path(), |t| {
        t["contract"]["inputs"][0]["schema"]
            .as_object_mut()
            .unwrap()
            .remove("default");
    });
    let missing = run_with(dir.path(), &["run", &tool]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains(
            "`search-price@1.2.0` needs the tool input `query` (string; give it with --input query=…)"
        ),
        "{}",
        stderr(&missing)
    );
    assert!(
        !stderr(&missing).contains("flow input"),
        "{}",
        stderr(&missing)
    );
    // Blank, for an input with no default: refused by the rule the app's Run follows.
    let blank = run_with(dir.path(), &["run", &tool, "--input", "query=  "]);
    assert_eq!(blank.status.code(), Some(1));
    assert!(
        stderr(&blank).contains(
            "--input query= is blank, and the input query has no default: give it a value"
        ),
        "{}",
        stderr(&blank)
    );
    let unknown = run_with(dir.path(), &["run", &tool, "--input", "qury=x"]);
    assert!(
        stderr(&unknown).contains("has no input `qury` (its inputs: query)")
            && stderr(&unknown).contains("the tool `"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn a_fallback_in_a_flow_is_said_by_flow_run_journal_show_and_journal_list() {
    let _shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools");
    std::fs::create_dir(&tools).unwrap();
    let edited = edited_tool(dir.path(), |t| {
        t["steps"][3]["selector"]["candidates"][0]["value"] = "#no-such-result-link".into();
    });
    std::fs::rename(&edited, tools.join("search-price@1.2.0.json")).unwrap();
    std::fs::write(
        dir.path().join("watch.flow.json"),
        r#"{"name": "watch", "version": "1.0.0",
            "requires": [{"ref": "search-price@1.2.0",
                          "contract_digest": "sha256:6ada91fe84b56d50ab47cfac9122c8e3e07d4212ba8e3023f1d4032299421d1c"}],
            "steps": [{"id": "search", "uses": "search-price@1.2.0",
                       "with": {"query": {"value": "keyboard"}}}],
            "output": {"from": "steps.search.output.price"}}"#,
    )
    .unwrap();
    let out = run_with(
        dir.path(),
        &[
            "flow",
            "run",
            "watch.flow.json",
            "--tools",
            "tools",
            "--journal",
            "j.sqlite",
        ],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let said = "step 4 (Open the first result) matched only on its selector #2 (xpath \"(//main//ul/li)[1]/a\"); 1 ranked above it found nothing: css \"#no-such-result-link\"";
    assert!(
        err.contains(&format!(
            "warning: step `search` (search-price@1.2.0): {said}"
        )),
        "{err}"
    );
    let run: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let run_id = run["run_id"].as_str().unwrap();

    let shown = run_with(
        dir.path(),
        &["journal", "show", run_id, "--journal", "j.sqlite"],
    );
    let text = stdout(&shown);
    assert!(
        text.contains(&format!("step search warning: {said}")),
        "{text}"
    );
    let listed = stdout(&run_with(
        dir.path(),
        &["journal", "list", "--journal", "j.sqlite"],
    ));
    let header = listed.lines().next().unwrap();
    let row = listed.lines().find(|l| l.starts_with(run_id)).unwrap();
    assert_eq!(
        row.get(header.find("WARNINGS").unwrap()..).map(str::trim),
        Some("1"),
        "{listed}"
    );
}
