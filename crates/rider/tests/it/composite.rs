//! Composite tools: a flow used as a step runs its inner steps, each journaled under
//! `outer/inner`.

use std::collections::BTreeMap;

use browserflow_contract::ToolRef;
use browserflow_flow::{FlowSpec, Registry, compile};
use serde_json::{Value, json};

use crate::server::Server;
use crate::tools::{quick_rider, registry};

fn pins(contracts: &Registry, refs: &[&str]) -> Value {
    Value::Array(
        refs.iter()
            .map(|r| {
                let tool = contracts.get(&ToolRef::parse(r).unwrap()).unwrap();
                json!({"ref": r, "contract_digest": tool.digest.to_string()})
            })
            .collect(),
    )
}

#[tokio::test]
async fn a_composite_step_runs_and_journals_its_inner_steps() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let tools = registry();
    let mut contracts = tools.contract_registry().unwrap();
    let inner = json!({
        "name": "test/notify", "version": "1.0.0",
        "inputs": [{"name": "title", "schema": {"type": "string"}, "secret": false}],
        "requires": pins(&contracts, &["test/slugify@1.0.0", "test/post@1.0.0"]),
        "steps": [
            {"id": "slug", "uses": "test/slugify@1.0.0", "with": {"text": {"from": "input.title"}}},
            {"id": "post", "uses": "test/post@1.0.0", "with": {
                "url": {"value": format!("{}/effect", server.url)}, "body": {"from": "steps.slug.output"}}}
        ],
        "output": {"from": "steps.post.output.response"}
    });
    contracts
        .insert_flow(&FlowSpec::from_json(&inner).unwrap())
        .unwrap();
    let outer = json!({
        "name": "test/outer", "version": "1.0.0",
        "requires": pins(&contracts, &["test/notify@1.0.0"]),
        "steps": [
            {"id": "a", "uses": "test/notify@1.0.0", "with": {"title": {"value": "First Title"}}},
            {"id": "b", "uses": "test/notify@1.0.0", "with": {"title": {"value": "Second One"}}}
        ],
        "output": {"from": "steps.b.output"}
    });
    let plan = compile(&FlowSpec::from_json(&outer).unwrap(), &contracts).unwrap();
    assert!(plan.steps[0].composite.is_some());

    let rider = quick_rider(tools, &dir.path().join("j.sqlite"));
    let outcome = rider.run(&plan, BTreeMap::new()).await.unwrap();
    assert_eq!(outcome.output["path"], json!("/effect"));
    let mut bodies: Vec<String> = server.requests().iter().map(|r| r.body.clone()).collect();
    bodies.sort();
    assert_eq!(bodies, ["\"first-title\"", "\"second-one\""]);

    let report = rider.journal().show(&outcome.run_id).unwrap();
    let ids: Vec<&str> = report.steps.iter().map(|s| s.step_id.as_str()).collect();
    for id in ["a", "a/slug", "a/post", "b", "b/slug", "b/post"] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    let recorded: Vec<&str> = report
        .steps
        .iter()
        .filter(|s| s.idempotency_key.is_some())
        .map(|s| s.step_id.as_str())
        .collect();
    assert_eq!(recorded.len(), 2);
    assert!(recorded.contains(&"a/post") && recorded.contains(&"b/post"));

    let resumed = rider.resume(&outcome.run_id, &plan).await.unwrap();
    assert_eq!(resumed.output, outcome.output);
    assert_eq!(resumed.steps_replayed, 2);
    assert_eq!(server.requests().len(), 2, "inner effects are not repeated");
}
