//! `bflow run TOOL --inputs ROWS`: one replay per row on one browser, each outcome written the
//! moment its row finishes; a bad cell or a failed replay is that row's error, the others
//! run; a batch killed halfway goes on with `--resume` without running a finished row again;
//! a secret column holds references, and no secret reaches the results, the logs or the
//! failing pages kept.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::canary::{CANARY, Scan, extract_heading, forbidden_forms, ocr, shows_canary, tool};
use crate::shop::Shop;
use crate::{stderr, stdout};

const SEARCH_PRICE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../recordings/search-price@1.2.0.json"
);

/// What the shop's first result costs, by query.
const PRICES: [(&str, f64); 4] = [
    ("keyboard", 89.99),
    ("compact", 59.0),
    ("mouse", 24.5),
    ("espresso", 1299.0),
];

fn bflow(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bflow"));
    command
        .current_dir(dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove("BROWSERFLOW_LOG");
    command
}

/// The results file's lines by row.
fn results(path: &Path) -> BTreeMap<u64, Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut rows = BTreeMap::new();
    for line in text.lines() {
        let value: Value = serde_json::from_str(line).expect("a whole JSON line");
        let row = value["row"].as_u64().expect("a row number");
        assert!(
            rows.insert(row, value).is_none(),
            "row {row} written twice:\n{text}"
        );
    }
    rows
}

#[test]
fn fifty_rows_with_a_bad_cell_and_a_failing_replay_give_forty_eight_outputs_and_two_errors() {
    let _shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("query\n");
    for row in 1..=50 {
        // An empty cell is `""` (a CSV reader skips a blank line).
        csv.push_str(match row {
            17 => "\"\"",
            33 => "no-such-product",
            _ => PRICES[row % PRICES.len()].0,
        });
        csv.push('\n');
    }
    std::fs::write(dir.path().join("rows.csv"), csv).unwrap();
    let out = bflow(dir.path())
        .args([
            "run",
            SEARCH_PRICE,
            "--inputs",
            "rows.csv",
            "--concurrency",
            "4",
            "--output",
            "prices.jsonl",
        ])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "a row failed: {err}");
    let rows = results(&dir.path().join("prices.jsonl"));
    assert_eq!(rows.len(), 50, "{err}");
    let mut ok = 0;
    for (row, line) in &rows {
        match *row {
            17 => {
                assert_eq!(line["status"], "failed");
                assert_eq!(
                    line["error"],
                    "row 17, column `query` is empty and the input has no default"
                );
            }
            33 => {
                assert_eq!(line["status"], "failed");
                let error = line["error"].as_str().unwrap();
                assert!(
                    error.starts_with("row 33: `search-price@1.2.0` failed"),
                    "{error}"
                );
                assert!(
                    line["run_folder"]
                        .as_str()
                        .is_some_and(|f| Path::new(f).join("report.json").is_file()),
                    "{line}"
                );
            }
            n => {
                let (_, price) = PRICES[n as usize % PRICES.len()];
                assert_eq!(line["status"], "ok", "{line}");
                assert_eq!(line["output"]["price"], price, "row {n}: {line}");
                ok += 1;
            }
        }
    }
    assert_eq!(ok, 48);
    // Progress a row, the failures said where they happen, and the summary.
    assert!(err.contains("[50/50 · 2 failed · "), "{err}");
    assert!(err.contains("row 33: FAILED"), "{err}");
    let summary = err
        .lines()
        .find(|l| l.starts_with("batch: 50 rows: 48 ok, 2 failed in "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        summary.contains(" rows/s, ") && summary.ends_with(" CPU-s per row"),
        "{summary}"
    );
    assert!(stdout(&out).is_empty(), "results went to the file");
}

#[test]
fn a_batch_killed_halfway_goes_on_with_resume_and_runs_no_finished_row_again() {
    let _shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<&str> = (0..12).map(|i| PRICES[i % PRICES.len()].0).collect();
    std::fs::write(
        dir.path().join("rows.csv"),
        format!("query\n{}\n", rows.join("\n")),
    )
    .unwrap();
    let args = [
        "run",
        SEARCH_PRICE,
        "--inputs",
        "rows.csv",
        "--concurrency",
        "2",
        "--output",
        "prices.csv",
    ];
    let mut child = bflow(dir.path())
        .args(args)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let path = dir.path().join("prices.csv");
    let deadline = Instant::now() + Duration::from_secs(240);
    // The header and four rows written: kill it (SIGKILL) while others are under way.
    while std::fs::read_to_string(&path)
        .unwrap_or_default()
        .lines()
        .count()
        < 5
    {
        assert!(Instant::now() < deadline, "no rows written");
        assert!(child.try_wait().unwrap().is_none(), "it finished first");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = std::fs::read_to_string(&path).unwrap();
    // Whole lines only: a line cut short by the kill is not a finished row.
    let done_before = before.matches('\n').count() - 1;
    assert!(done_before < 12, "{before}");

    // Without --resume, the results are not touched.
    let refused = bflow(dir.path()).args(args).output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("--resume"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);

    let resumed = bflow(dir.path())
        .args(args)
        .arg("--resume")
        .output()
        .unwrap();
    let err = stderr(&resumed);
    assert!(resumed.status.success(), "{err}");
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(
        after.starts_with(before.trim_end_matches(|c| c != '\n')),
        "{after}"
    );
    let mut seen: Vec<u64> = Vec::new();
    for line in after.lines().skip(1) {
        let mut cells = line.split(',');
        let row: u64 = cells.next().unwrap().parse().unwrap();
        assert_eq!(cells.next(), Some("ok"), "{line}");
        seen.push(row);
    }
    seen.sort_unstable();
    assert_eq!(
        seen,
        (1..=12).collect::<Vec<u64>>(),
        "every row once:\n{after}"
    );
    assert!(
        err.contains(&format!("{done_before} done before (skipped)")),
        "{err}"
    );
}

#[test]
fn a_secret_column_holds_references_and_no_secret_reaches_results_logs_or_pages() {
    let _shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let secret_heading = tool("secret-heading", true, extract_heading());
    let tool_path = dir.path().join("secret-heading@1.0.0.json");
    std::fs::write(&tool_path, serde_json::to_string(&secret_heading).unwrap()).unwrap();
    // Row 1 names the secret; row 2 holds a value where a reference belongs (refused, not
    // repeated); row 3 names a secret nobody provides. The rows file, which holds the value
    // on purpose, is outside the folder scanned.
    let rows_dir = tempfile::tempdir().unwrap();
    let rows_path = rows_dir.path().join("rows.jsonl");
    std::fs::write(
        &rows_path,
        format!(
            "{{\"query\": \"secret.Q\"}}\n{}\n{{\"query\": \"secret.NOBODY\"}}\n",
            serde_json::json!({ "query": CANARY })
        ),
    )
    .unwrap();
    let out = bflow(dir.path())
        .args([
            "run",
            &tool_path.to_string_lossy(),
            "--inputs",
            &rows_path.to_string_lossy(),
            "--output",
            "out.jsonl",
        ])
        .env("BROWSERFLOW_SECRET_Q", CANARY)
        .env("BROWSERFLOW_LOG", "trace")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let rows = results(&dir.path().join("out.jsonl"));
    assert_eq!(rows[&1]["status"], "ok", "{}", rows[&1]);
    assert!(
        rows[&1]["output"]["heading"]
            .as_str()
            .is_some_and(|h| h.contains("[REDACTED]")),
        "the page echoes the query; the output says it redacted: {}",
        rows[&1]
    );
    assert!(
        rows[&2]["error"]
            .as_str()
            .is_some_and(|e| e.contains("column `query`") && e.contains("secret.NAME")),
        "{}",
        rows[&2]
    );
    assert_eq!(rows[&3]["status"], "failed");

    let forms = forbidden_forms();
    let mut scan = Scan::default();
    scan.bytes("stdout", &out.stdout, &forms);
    scan.bytes("stderr", &out.stderr, &forms);
    let files = scan.tree(dir.path(), &forms);
    assert!(scan.leaks.is_empty(), "{:#?}", scan.leaks);
    for png in files
        .iter()
        .filter(|f| f.extension().is_some_and(|x| x == "png"))
    {
        let read = ocr(png);
        assert_eq!(
            shows_canary(&read),
            None,
            "{} reads {read:?}",
            png.display()
        );
    }
}
