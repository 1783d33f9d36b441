//! `extract_list` against the list fixtures of `tests/fixtures/lists` served on 127.0.0.1
//! (products rendered as cards, a table, a list inside an open shadow root, each also
//! redesigned: every class and id changed, a wrapper added): every row and every field equal
//! to what the page shows, by the candidates a recording keeps (the `items` pick of the
//! results' region first, then class paths; fields by class, then by tag). Row recall and
//! field accuracy over all of them are printed, and must be 100 %. A required field an item
//! lacks fails the step naming the item; a list that never shows items fails, never `[]`.

use std::path::PathBuf;

use browserflow_replay::{FailureKind, ReplayError, Replayer};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::Step;
use serde_json::{Map, Value, json};

use crate::support::Harness;

pub fn fixtures() -> FixtureServer {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/lists");
    FixtureServer::serve_files(read_dir_files(&root).expect("fixtures read")).expect("serves")
}

/// What the page shows for the products `from..to` of `products.json`: name, price, the
/// product's absolute URL, and the rating when it has one.
fn truth(origin: &str, from: usize, to: usize) -> Vec<Value> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/lists");
    let all: Vec<Value> =
        serde_json::from_slice(&std::fs::read(root.join("products.json")).unwrap()).unwrap();
    all[from..to]
        .iter()
        .map(|p| {
            json!({ "name": p["name"], "price": p["price"], "rating": p["rating"],
                "url": format!("{origin}/product/{}", p["slug"].as_str().unwrap()) })
        })
        .collect()
}

fn css(value: &str) -> Value {
    json!({ "kind": "css", "value": value })
}

fn every_item(region: Value) -> Value {
    json!({ "kind": "structure", "value": "*",
        "structure": { "within": { "region": region }, "pick": "items" } })
}

/// A list step: `items`, and each field's candidates (class first, then tag).
fn list_step(items: Vec<Value>, fields: [(&str, Vec<Value>); 4]) -> Value {
    let [name, price, rating, url] = fields;
    json!({ "type": "extract_list", "field": "results", "recorded_items": 1, "timeout_ms": 5000,
        "items": { "candidates": items },
        "fields": [
            { "name": "name", "candidates": name.1 },
            { "name": "price", "candidates": price.1, "kind": "number" },
            { "name": "rating", "candidates": rating.1, "kind": "number", "optional": true },
            { "name": "url", "candidates": url.1, "from": "attribute", "attribute": "href",
              "kind": "url" },
        ] })
}

/// The fixtures: page, the step a recording of its plain version keeps, and the products shown.
fn cases() -> Vec<(&'static str, Value, usize, usize)> {
    let cards = list_step(
        vec![
            every_item(json!({ "role": "region", "name": "Results" })),
            css(".grid > .card"),
        ],
        [
            ("name", vec![css(".card-title"), css("h3")]),
            ("price", vec![css(".price"), css("span:nth-of-type(1)")]),
            ("rating", vec![css(".rating"), css("span:nth-of-type(2)")]),
            ("url", vec![css(".more"), css("a")]),
        ],
    );
    let table = list_step(
        vec![
            every_item(json!({ "role": "table", "name": "Results" })),
            css("tr.row"),
        ],
        [
            ("name", vec![css("td:nth-of-type(1)")]),
            ("price", vec![css("td:nth-of-type(2)")]),
            ("rating", vec![css("td:nth-of-type(3)")]),
            ("url", vec![css("a")]),
        ],
    );
    let shadow = list_step(
        vec![
            every_item(json!({ "role": "main" })),
            json!({ "kind": "css", "value": "ul.items > li.item", "shadow": ["product-list"] }),
        ],
        [
            ("name", vec![css(".card-title"), css("h3")]),
            ("price", vec![css(".price"), css("span:nth-of-type(1)")]),
            ("rating", vec![css(".rating"), css("span:nth-of-type(2)")]),
            ("url", vec![css(".more"), css("a")]),
        ],
    );
    vec![
        ("cards", cards.clone(), 0, 8),
        ("cards-redesign", cards, 0, 8),
        ("table", table.clone(), 8, 20),
        ("table-redesign", table, 8, 20),
        ("shadow", shadow.clone(), 20, 26),
        ("shadow-redesign", shadow, 20, 26),
    ]
}

async fn replay(h: &Harness, steps: Vec<Value>) -> Result<Map<String, Value>, ReplayError> {
    let steps: Vec<Step> = serde_json::from_value(Value::Array(steps)).expect("steps parse");
    let context = h.browser.new_context().await.expect("context");
    let result = Replayer::default().run(&context, &steps, &Map::new()).await;
    context.close().await.expect("context closes");
    result.map(|r| r.outputs)
}

/// Row recall and field accuracy of `got` against `want`: rows matched by name, fields equal.
pub fn score(got: &[Value], want: &[Value]) -> (usize, usize, usize, usize) {
    let (mut rows, mut fields, mut total_fields) = (0, 0, 0);
    for w in want {
        let row = got.iter().find(|g| g["name"] == w["name"]);
        rows += usize::from(row.is_some());
        for (key, value) in w.as_object().unwrap() {
            total_fields += 1;
            fields += usize::from(row.is_some_and(|r| &r[key] == value));
        }
    }
    (rows, want.len(), fields, total_fields)
}

#[tokio::test]
async fn every_row_and_field_of_every_list_fixture_and_its_redesign() {
    let h = Harness::start().await;
    let server = fixtures();
    let (mut rows, mut want_rows, mut fields, mut want_fields) = (0, 0, 0, 0);
    for (page, step, from, to) in cases() {
        let navigate = json!({ "type": "navigate", "url": server.url(&format!("/{page}.html")) });
        let outputs = replay(&h, vec![navigate, step])
            .await
            .unwrap_or_else(|e| panic!("{page}: {e}"));
        let got = outputs["results"].as_array().unwrap().clone();
        let want = truth(&server.origin(), from, to);
        let (r, wr, f, wf) = score(&got, &want);
        println!("{page}: rows {r}/{wr}, fields {f}/{wf}");
        assert_eq!(got, want, "{page}");
        (rows, want_rows, fields, want_fields) =
            (rows + r, want_rows + wr, fields + f, want_fields + wf);
    }
    println!(
        "list fixtures: row recall {:.1} % ({rows}/{want_rows}), field accuracy {:.1} % ({fields}/{want_fields})",
        100.0 * rows as f64 / want_rows as f64,
        100.0 * fields as f64 / want_fields as f64
    );
    assert_eq!((rows, fields), (want_rows, want_fields));
    h.close().await;
}

#[tokio::test]
async fn a_limit_takes_the_first_items_and_a_required_field_an_item_lacks_fails_naming_it() {
    let h = Harness::start().await;
    let server = fixtures();
    let navigate = json!({ "type": "navigate", "url": server.url("/cards.html") });
    let (_, mut step, ..) = cases().remove(0);
    step["limit"] = json!(3);
    let outputs = replay(&h, vec![navigate.clone(), step.clone()])
        .await
        .unwrap();
    assert_eq!(
        outputs["results"],
        Value::Array(truth(&server.origin(), 0, 3))
    );
    // The rating made required: the first product without one fails the step, named.
    let unrated = truth(&server.origin(), 0, 8)
        .iter()
        .position(|p| p["rating"].is_null())
        .expect("a product without a rating");
    step["fields"][2]["optional"] = json!(false);
    step["timeout_ms"] = json!(800);
    step.as_object_mut().unwrap().remove("limit");
    match replay(&h, vec![navigate.clone(), step]).await {
        Err(ReplayError::StepFailed {
            index,
            failure,
            message,
            ..
        }) => {
            assert_eq!((index, failure), (1, FailureKind::Extraction));
            assert!(
                message.contains(&format!("item {} (", unrated + 1))
                    && message.contains("has no `rating`, a required field"),
                "{message}"
            );
        }
        other => panic!("expected a failure naming the item, got {other:?}"),
    }
    // Items that never appear: the step fails naming every candidate, never an empty list.
    let gone = json!({ "type": "extract_list", "field": "results", "recorded_items": 8,
        "timeout_ms": 600, "items": { "candidates": [css(".sold-out")] },
        "fields": [{ "name": "name" }] });
    match replay(&h, vec![navigate, gone]).await {
        Err(ReplayError::StepFailed {
            failure, message, ..
        }) => {
            assert_eq!(failure, FailureKind::ReadMismatch);
            assert!(
                message.contains("no items consistent with the recording (it saw 8)")
                    && message.contains("1. css \".sold-out\": matched no element"),
                "{message}"
            );
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    h.close().await;
}
