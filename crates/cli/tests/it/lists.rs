//! `bflow record --extract-list` and `bflow run`: a real `bflow` process records each list
//! fixture of `tests/fixtures/lists` (products as cards, as a table, as a list inside an open
//! shadow root, served on 127.0.0.1) in a headless Chromium the test launched, with the list
//! given by the selectors a person would write; the tool file written is then run on the page
//! and on its redesign (every class and id changed, a wrapper added), and every row and field
//! must equal what the page shows. Tables are recorded with `--extract-table` (a table whose
//! header rows span columns and whose rows lack cells, an ARIA grid placing cells by
//! `aria-colindex`): rows keyed by column header, typed by their values. Each tool exported
//! as a Playwright script reads the same rows. Row recall and field accuracy over all of them
//! are printed and must be 100 %.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::{Step, ToolFile};
use serde_json::{Value, json};

use crate::{bflow, stderr};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/lists")
}

fn products(from: usize, to: usize) -> Vec<Value> {
    let all: Vec<Value> =
        serde_json::from_slice(&std::fs::read(fixtures_dir().join("products.json")).unwrap())
            .unwrap();
    all[from..to].to_vec()
}

/// What a page of cards, rows or list items shows for the products `from..to`.
fn truth(origin: &str, from: usize, to: usize) -> Vec<Value> {
    products(from, to)
        .iter()
        .map(|p| {
            json!({ "name": p["name"], "price": p["price"], "rating": p["rating"],
                "url": format!("{origin}/product/{}", p["slug"].as_str().unwrap()) })
        })
        .collect()
}

/// What the rates table shows (columns named from their headers, spanning ones as a path):
/// every third product's former price (a quarter more), the others' row without that cell.
fn rates_truth(from: usize, to: usize) -> Vec<Value> {
    products(from, to)
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let price = p["price"].as_f64().unwrap();
            let was = (i % 3 == 0).then(|| (price * 125.0).round() / 100.0);
            json!({ "product": p["name"], "rating": p["rating"], "price_now": p["price"],
                "price_was": was })
        })
        .collect()
}

/// What the ARIA grid shows.
fn grid_truth(from: usize, to: usize) -> Vec<Value> {
    products(from, to)
        .iter()
        .map(|p| json!({ "name": p["name"], "price": p["price"], "rating": p["rating"] }))
        .collect()
}

/// Records `page` with `--extract-list list`: waits until the page rendered its products, then
/// Enter ends the recording.
async fn record(
    browser: &Browser,
    url: &str,
    out: &std::path::Path,
    flag: &str,
    list: &str,
) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args([
            "record",
            url,
            "--out",
            &out.to_string_lossy(),
            "--headless",
            "--browser-ws",
            browser.ws_endpoint(),
            flag,
            list,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The recording is live once its page rendered (the title says which variant).
    let probe = browser.new_context().await.unwrap();
    let conn = probe.page().session().connection().clone();
    let root = conn.session(None);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let targets = root.call("Target.getTargets", json!({})).await.unwrap();
        let rendered =
            targets["targetInfos"].as_array().unwrap().iter().any(|t| {
                t["url"] == url && t["title"].as_str().is_some_and(|t| t.contains("(plain)"))
            });
        if rendered {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{url} never rendered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    child.stdin.take().unwrap().write_all(b"\n").unwrap();
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{err}");
    err
}

/// `value` with every number as a float.
fn as_floats(value: &Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(items) => Value::Array(items.iter().map(as_floats).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), as_floats(v))).collect())
        }
        other => other.clone(),
    }
}

/// Row recall and field accuracy of `got` against `want`: rows matched by `key`, fields equal.
fn score(got: &[Value], want: &[Value], key: &str) -> (usize, usize, usize, usize) {
    let (mut rows, mut fields, mut total) = (0, 0, 0);
    for w in want {
        let row = got.iter().find(|g| g[key] == w[key]);
        rows += usize::from(row.is_some());
        for (key, value) in w.as_object().unwrap() {
            total += 1;
            fields += usize::from(row.is_some_and(|r| &r[key] == value));
        }
    }
    (rows, want.len(), fields, total)
}

#[tokio::test(flavor = "multi_thread")]
async fn recorded_lists_return_every_row_of_every_fixture_and_of_its_redesign() {
    let server = FixtureServer::serve_files(read_dir_files(&fixtures_dir()).unwrap()).unwrap();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fields = "name=h3,price=.price:number,rating=.rating:number,url=a@href";
    let origin = server.origin();
    let list = "--extract-list";
    let cases = [
        (
            "cards",
            list,
            format!("results=.card{{{fields}}}"),
            truth(&origin, 0, 8),
            "name",
            "rating",
        ),
        (
            "table",
            list,
            "results=tbody tr{name=td:nth-of-type(1),price=td:nth-of-type(2):number,\
             rating=td:nth-of-type(3):number,url=a@href}"
                .to_string(),
            truth(&origin, 8, 20),
            "name",
            "rating",
        ),
        (
            "shadow",
            list,
            format!("results=li.item{{{fields}}}"),
            truth(&origin, 20, 26),
            "name",
            "rating",
        ),
        (
            "rates",
            "--extract-table",
            "results=main table".to_string(),
            rates_truth(26, 38),
            "product",
            "rating, price_was",
        ),
        (
            "grid",
            "--extract-table",
            "results=[role=grid]".to_string(),
            grid_truth(38, 48),
            "name",
            "rating",
        ),
    ];
    let (mut rows, mut want_rows, mut right, mut want_fields) = (0, 0, 0, 0);
    for (page, flag, list, want, key, optional) in cases {
        let out = dir.path().join(format!("{page}-list@1.0.0.json"));
        let err = record(
            &browser,
            &server.url(&format!("/{page}.html")),
            &out,
            flag,
            &list,
        )
        .await;
        let count = want.len();
        assert!(
            err.contains(&format!("list results: {count} items on the page"))
                && err.contains(&format!("(optional, missing from some: {optional})")),
            "{page}: {err}"
        );
        let file = ToolFile::load(&out).expect("a valid tool file");
        let Some(Step::ExtractList(step)) = file.steps.last() else {
            panic!(
                "{page}: the last step is not the list: {:?}",
                file.steps.last()
            );
        };
        assert_eq!(step.recorded_items, Some(count as u32), "{page}");
        // The first item candidate is the items pick, which no class or id decides.
        assert_eq!(
            step.items.candidates[0]
                .structure
                .as_ref()
                .map(|s| s.pick.clone()),
            Some(browserflow_steps::Pick::Items),
            "{page}: {:?}",
            step.items.candidates
        );
        // The Playwright export reads the same rows (by its CSS candidates: the items pick
        // has no Playwright locator), run with the repository's pinned playwright-core.
        let script = dir.path().join(format!("{page}.js"));
        let export = bflow(&[
            "export",
            "playwright",
            &out.to_string_lossy(),
            "--out",
            &script.to_string_lossy(),
        ]);
        assert!(export.status.success(), "{page}: {}", stderr(&export));
        let modules = fixtures_dir().join("../../../injected/node_modules");
        assert!(
            modules.join("playwright-core").is_dir(),
            "{} has no playwright-core: run scripts/build-injected first (scripts/test does), \
             which installs injected/'s pinned npm packages",
            modules.display()
        );
        let node = Command::new("node")
            .arg(&script)
            .env("NODE_PATH", &modules)
            .output()
            .expect("node runs");
        assert!(
            node.status.success(),
            "{page}: the exported script failed: {}",
            String::from_utf8_lossy(&node.stderr)
        );
        let exported: Value = serde_json::from_slice(&node.stdout).unwrap();
        // JavaScript writes `104` where Rust writes `104.0`: the same number.
        assert_eq!(
            as_floats(&exported["results"]),
            as_floats(&Value::Array(want.clone())),
            "{page}: exported"
        );
        let output_schema = file.contract.output().to_json();
        assert_eq!(
            output_schema["properties"]["results"]["type"], "array",
            "{page}"
        );
        for variant in [page.to_string(), format!("{page}-redesign")] {
            let mut json: Value =
                serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            json["steps"][0]["url"] = json!(server.url(&format!("/{variant}.html")));
            let tool = dir.path().join(format!("{variant}.json"));
            std::fs::write(&tool, serde_json::to_string_pretty(&json).unwrap()).unwrap();
            let run = bflow(&["run", &tool.to_string_lossy()]);
            assert!(run.status.success(), "{variant}: {}", stderr(&run));
            let output: Value = serde_json::from_slice(&run.stdout).unwrap();
            let got = output["results"].as_array().unwrap().clone();
            let (r, wr, f, wf) = score(&got, &want, key);
            println!("{variant}: rows {r}/{wr}, fields {f}/{wf}");
            assert_eq!(got, want, "{variant}");
            (rows, want_rows, right, want_fields) =
                (rows + r, want_rows + wr, right + f, want_fields + wf);
        }
    }
    println!(
        "recorded list fixtures: row recall {:.1} % ({rows}/{want_rows}), field accuracy {:.1} % ({right}/{want_fields})",
        100.0 * rows as f64 / want_rows as f64,
        100.0 * right as f64 / want_fields as f64
    );
    assert_eq!((rows, right), (want_rows, want_fields));
    browser.close().await.unwrap();
}
