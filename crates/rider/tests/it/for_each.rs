//! `for_each` steps: one call per item, each journaled under `ID[k]` with its own
//! idempotency key; outputs in item order whatever the concurrency; a failed item fails the
//! step or, with `on_item_error: collect`, becomes a typed error entry; a resume replays the
//! recorded items and runs only the others.

use std::collections::BTreeMap;

use browserflow_flow::Bound;
use serde_json::{Value, json};

use crate::server::Server;
use crate::tools::{compile_flow, quick_rider, registry};

/// A flow that posts once per element of its input `targets` (`[{path, note}]`), each to
/// `{server}{path}` with `note` as the body, and returns the collected outputs.
fn mapping_flow(concurrency: u32, on_item_error: &str) -> Value {
    json!({
        "name": "map-posts", "version": "1.0.0",
        "inputs": [
            {"name": "server", "schema": {"type": "string"}, "secret": false},
            {"name": "targets", "schema": {"type": "array", "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "note": {"type": "string"}},
                "required": ["path", "note"], "additionalProperties": false}}, "secret": false}
        ],
        "steps": [
            {"id": "notify", "uses": "test/post@1.0.0",
             "for_each": "input.targets", "concurrency": concurrency, "on_item_error": on_item_error,
             "with": {
                "url": {"template": "{input.server}{item.path}"},
                "body": {"from": "item.note"}}},
            {"id": "summary", "uses": "test/shape@1.0.0", "with": {
                "a": {"from": "steps.notify.output"},
                "b": {"from": "steps.notify.output.0"}}}
        ],
        "output": {"from": "steps.summary.output.a"}
    })
}

fn inputs(server: &Server, paths: &[&str]) -> BTreeMap<String, Bound> {
    let targets: Vec<Value> = paths
        .iter()
        .enumerate()
        .map(|(k, p)| json!({"path": p, "note": format!("item {k}")}))
        .collect();
    [
        ("server".to_owned(), Bound::Value(json!(server.url))),
        ("targets".to_owned(), Bound::Value(Value::Array(targets))),
    ]
    .into()
}

#[tokio::test]
async fn every_item_posts_once_under_its_own_key_and_the_outputs_keep_item_order() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let tools = registry();
    let plan = compile_flow(&tools, mapping_flow(3, "fail"));
    let rider = quick_rider(tools, &dir.path().join("j.sqlite"));
    // Later items answer sooner: the outputs must still come back in item order.
    let paths = [
        "/slow/300",
        "/slow/200",
        "/slow/100",
        "/effect",
        "/slow/50",
        "/effect",
    ];
    let outcome = rider.run(&plan, inputs(&server, &paths)).await.unwrap();

    let outputs = outcome.output.as_array().unwrap();
    assert_eq!(outputs.len(), paths.len());
    let requests = server.requests();
    assert_eq!(requests.len(), paths.len(), "one post per item");
    for (k, output) in outputs.iter().enumerate() {
        assert_eq!(output["status"], 200, "{output}");
        // Each output is the answer to item k's own post (its body says which item).
        let mine = requests
            .iter()
            .find(|r| r.body == format!("\"item {k}\""))
            .unwrap_or_else(|| panic!("item {k} posted"));
        assert!(mine.target.starts_with(paths[k]), "{}", mine.target);
        if paths[k] == "/effect" {
            assert_eq!(
                output["response"]["key"],
                json!(mine.headers["idempotency-key"])
            );
        }
    }
    let counts = server.counts();
    assert_eq!(
        counts.len(),
        paths.len(),
        "a distinct key per item: {counts:?}"
    );
    assert!(counts.values().all(|&n| n == 1), "{counts:?}");
    assert!(server.peak_concurrency() <= 3, "at most 3 at once");
    assert!(server.peak_concurrency() >= 2, "items ran concurrently");
    assert_eq!(outcome.steps_run, paths.len() + 1);
}

#[tokio::test]
async fn a_failed_item_is_resumed_and_the_recorded_items_are_not_posted_again() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let tools = registry();
    let plan = compile_flow(&tools, mapping_flow(1, "fail"));
    let journal = dir.path().join("j.sqlite");
    // Item 2 answers 503 five times per key: the first session's 4 attempts fail, the resume's
    // second attempt succeeds.
    let paths = ["/effect", "/effect", "/flaky/5", "/effect"];
    let rider = quick_rider(tools, &journal);
    let failure = rider
        .run(&plan, inputs(&server, &paths))
        .await
        .expect_err("item 2 fails the step");
    assert!(failure.message.contains("notify[2]"), "{}", failure.message);
    assert_eq!(server.requests().len(), 2 + 4, "item 3 never started");

    let run_id = failure.run_id.clone().unwrap();
    let resumed = rider.resume(&run_id, &plan).await.unwrap();
    assert_eq!(resumed.steps_replayed, 2, "items 0 and 1 replayed");
    let counts = server.counts();
    let mut per_key: Vec<usize> = counts.values().copied().collect();
    per_key.sort();
    assert_eq!(
        per_key,
        [1, 1, 1, 6],
        "only the failing item's key was sent again"
    );
    let outputs = resumed.output.as_array().unwrap();
    assert_eq!(outputs.len(), 4);
    assert!(outputs.iter().all(|o| o["status"] == 200), "{outputs:?}");
}

#[tokio::test]
async fn collect_keeps_a_failed_item_as_a_typed_error_entry_in_its_place() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let tools = registry();
    let plan = compile_flow(&tools, mapping_flow(2, "collect"));
    let rider = quick_rider(tools, &dir.path().join("j.sqlite"));
    let paths = ["/effect", "/status/404", "/effect"];
    let outcome = rider.run(&plan, inputs(&server, &paths)).await.unwrap();
    let entries = outcome.output.as_array().unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0]["output"]["status"], 200);
    assert_eq!(entries[2]["output"]["status"], 200);
    assert_eq!(entries[1]["error"]["kind"], "tool_failed", "{}", entries[1]);
    assert!(
        entries[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("notify[1]"),
        "{}",
        entries[1]
    );
    assert!(entries[1].get("output").is_none());
}

#[tokio::test]
async fn an_empty_array_gives_an_empty_output_and_calls_nothing() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let tools = registry();
    let mut flow = mapping_flow(2, "fail");
    flow["output"] = json!({"from": "steps.notify.output"});
    flow["steps"].as_array_mut().unwrap().pop();
    let plan = compile_flow(&tools, flow);
    let rider = quick_rider(tools, &dir.path().join("j.sqlite"));
    let outcome = rider.run(&plan, inputs(&server, &[])).await.unwrap();
    assert_eq!(outcome.output, json!([]));
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_resume_with_another_on_item_error_or_other_items_is_refused_before_any_post() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let tools = registry();
    let plan = compile_flow(&tools, mapping_flow(1, "fail"));
    let rider = quick_rider(tools, &dir.path().join("j.sqlite"));
    let paths = ["/effect", "/status/404", "/effect"];
    let failure = rider
        .run(&plan, inputs(&server, &paths))
        .await
        .expect_err("item 1 fails the step");
    let run_id = failure.run_id.unwrap();
    let posted = server.requests().len();

    // The recorded items decided with `fail`: collecting now would answer for another flow.
    let collecting = compile_flow(&registry(), mapping_flow(1, "collect"));
    let refused = rider.resume(&run_id, &collecting).await.unwrap_err();
    assert_eq!(refused.code(), "divergence", "{}", refused.message);
    assert!(
        refused.message.contains("nothing was run"),
        "{}",
        refused.message
    );
    assert!(refused.message.contains("`notify`"), "{}", refused.message);
    assert_eq!(
        server.requests().len(),
        posted,
        "the refused resume posted nothing"
    );
    // Another concurrency is not a change of what the items do.
    let wider = compile_flow(&registry(), mapping_flow(4, "fail"));
    let again = rider.resume(&run_id, &wider).await.unwrap_err();
    assert!(again.message.contains("notify[1]"), "{}", again.message);
    // Item 0 is recorded and not posted again; items 1 and 2 start together (4 at once).
    let item_0 = server
        .requests()
        .iter()
        .filter(|r| r.body == "\"item 0\"")
        .count();
    assert_eq!(item_0, 1, "item 0 was not posted again");
    assert_eq!(server.requests().len(), posted + 2);
}
