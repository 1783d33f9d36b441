//! The batch's rules without a browser: typing rows, writing and resuming results.

use std::path::{Path, PathBuf};

use browserflow_steps::ToolFile;
use serde_json::{Value, json};

use super::*;

fn tool() -> ToolFile {
    ToolFile::from_json_str(
        r#"{"contract": {"name": "price", "version": "1.0.0", "kind": "browser",
            "description": "",
            "inputs": [{"name": "query", "schema": {"type": "string"}, "secret": false},
                       {"name": "count", "schema": {"type": "integer", "default": 1}, "secret": false},
                       {"name": "token", "schema": {"type": "string"}, "secret": true}],
            "output": {"type": "object", "properties": {"name": {"type": "string"}, "price": {"type": "number"}}},
            "capabilities": ["browser", "secrets"]},
            "steps": [{"type": "navigate", "url": "http://127.0.0.1:9/"}]}"#,
    )
    .unwrap_or_else(|e| panic!("a tool: {e}"))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn csv_cells_are_typed_by_the_contract_and_a_bad_cell_is_its_rows_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "rows.csv",
        "query, count ,token\nkeyboard,3,secret.API\n\"mouse, wireless\",,secret.API\nlamp,three,secret.API\nfan,2,hunter2\n,1,secret.API\n",
    );
    let rows = read_rows(&path, &tool()).unwrap();
    assert_eq!(rows.len(), 5);
    let first = rows[0].inputs.as_ref().unwrap();
    assert_eq!(first["query"], RunInput::Value(json!("keyboard")));
    assert_eq!(first["count"], RunInput::Value(json!(3)));
    assert_eq!(first["token"], RunInput::Secret("API".into()));
    // Quoted cells keep their commas; an empty cell leaves the default.
    let second = rows[1].inputs.as_ref().unwrap();
    assert_eq!(second["query"], RunInput::Value(json!("mouse, wireless")));
    assert!(!second.contains_key("count"));
    let third = rows[2].inputs.as_ref().unwrap_err();
    assert!(
        third.starts_with("column `count`: expected integer"),
        "{third}"
    );
    // A secret's cell holding a value: refused, the value not repeated.
    let fourth = rows[3].inputs.as_ref().unwrap_err();
    assert!(fourth.contains("column `token`"), "{fourth}");
    assert!(!fourth.contains("hunter2"), "{fourth}");
    let fifth = rows[4].inputs.as_ref().unwrap_err();
    assert_eq!(
        fifth,
        "column `query` is empty and the input has no default"
    );
}

#[test]
fn columns_must_name_inputs_and_give_every_required_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "a.csv", "query,colour,token\nx,red,secret.A\n");
    let err = read_rows(&path, &tool()).unwrap_err().to_string();
    assert!(
        err.ends_with(
            "a.csv: the column `colour` names no input of `price@1.0.0` (its inputs: query, count, token)"
        ),
        "{err}"
    );
    let path = write(dir.path(), "b.csv", "count\n1\n");
    let err = read_rows(&path, &tool()).unwrap_err().to_string();
    assert!(
        err.ends_with(
            "b.csv: no column gives the required inputs `query`, `token` of `price@1.0.0`"
        ),
        "{err}"
    );
    let path = write(dir.path(), "c.csv", "query,token\nx,secret.A,extra\n");
    let err = read_rows(&path, &tool()).unwrap_err().to_string();
    assert!(err.contains("c.csv: "), "{err}");
    let err = read_rows(&dir.path().join("rows.txt"), &tool()).unwrap_err();
    assert!(matches!(err, BatchError::Format { .. }), "{err}");
}

#[test]
fn jsonl_rows_are_objects_keyed_by_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "rows.jsonl",
        "{\"query\": \"keyboard\", \"count\": 2, \"token\": \"secret.API\"}\n\n{\"query\": 5, \"token\": \"secret.API\"}\n{\"query\": \"x\", \"token\": 42}\n",
    );
    let rows = read_rows(&path, &tool()).unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0].inputs.as_ref().unwrap()["count"],
        RunInput::Value(json!(2))
    );
    assert!(
        rows[1]
            .inputs
            .as_ref()
            .unwrap_err()
            .starts_with("column `query`: expected string"),
        "{:?}",
        rows[1].inputs
    );
    assert!(
        rows[2]
            .inputs
            .as_ref()
            .unwrap_err()
            .contains("column `token`")
    );
    let path = write(dir.path(), "bad.jsonl", "{\"query\": \"x\"}\n[1]\n");
    let err = read_rows(&path, &tool()).unwrap_err().to_string();
    assert!(
        err.ends_with("bad.jsonl, line 2: a row is a JSON object keyed by input, not an array"),
        "{err}"
    );
}

fn outcome(row: usize, ok: bool) -> RowOutcome {
    RowOutcome {
        row,
        status: if ok { RowStatus::Ok } else { RowStatus::Failed },
        output: ok.then(|| json!({"name": "Keyboard, mechanical", "price": 89.99})),
        error: (!ok).then(|| format!("row {row}: step 3 failed")),
        duration_ms: 12.0,
        run_folder: None,
    }
}

#[test]
fn results_are_written_a_row_at_a_time_and_a_resume_reads_them_back() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["out.jsonl", "out.csv"] {
        let path = dir.path().join(name);
        let mut results = Results::open(&path, &tool(), false).unwrap();
        results.write(&outcome(2, true)).unwrap();
        results.write(&outcome(1, false)).unwrap();
        drop(results);
        // Not asked to resume: the file is kept as it is.
        let before = std::fs::read(&path).unwrap();
        assert!(matches!(
            Results::open(&path, &tool(), false),
            Err(BatchError::ResultsExist { .. })
        ));
        assert_eq!(std::fs::read(&path).unwrap(), before);
        // A line cut short by a kill is dropped on resume; the rows before it are done.
        let mut torn = before.clone();
        torn.extend_from_slice(b"3,ok,Lamp");
        std::fs::write(&path, &torn).unwrap();
        let mut resumed = Results::open(&path, &tool(), true).unwrap();
        assert_eq!(
            resumed.done().iter().copied().collect::<Vec<_>>(),
            [1, 2],
            "{name}"
        );
        resumed.write(&outcome(3, true)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("Lamp"), "{text}");
        assert_eq!(
            text.lines().count(),
            if name.ends_with("csv") { 4 } else { 3 }
        );
    }
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("row,status,name,price,error"));
    assert_eq!(lines.next(), Some("2,ok,\"Keyboard, mechanical\",89.99,"));
    assert_eq!(lines.next(), Some("1,failed,,,row 1: step 3 failed"));
    let jsonl = std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap();
    let first: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["output"]["price"], 89.99);
    assert_eq!(first["status"], "ok");
}
