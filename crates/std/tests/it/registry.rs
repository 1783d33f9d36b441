//! The built-in registry: listing, registration, and a flow that uses std tools end to end
//! through the compiler and the Rider (a secret webhook URL on a local server).

use std::collections::BTreeMap;
use std::sync::Arc;

use browserflow_contract::{Capability, Kind};
use browserflow_flow::{Bound, Registry, check_str};
use browserflow_rider::{MapSecrets, Rider, RiderOptions, SqliteJournal, ToolRegistry};
use serde_json::json;

use crate::support::{Reply, Server};

#[test]
fn builtins_list_name_version_kind_capabilities_digest() {
    let list = browserflow_std::builtins().unwrap();
    let refs: Vec<String> = list.iter().map(|b| b.reference()).collect();
    for expected in [
        "std/transform.slugify@1.0.0",
        "std/transform.jq@1.0.0",
        "std/transform.template@1.0.0",
        "std/transform.pick@1.0.0",
        "std/transform.map@1.0.0",
        "std/transform.parse-number@1.0.0",
        "std/transform.parse-price@1.0.0",
        "std/transform.compare@1.0.0",
        "std/http.get@1.0.0",
        "std/http.post@1.0.0",
        "std/http.request@1.0.0",
        "std/shell.run@1.0.0",
        "std/shell.run-in-root@1.0.0",
    ] {
        assert!(
            refs.contains(&expected.to_owned()),
            "{expected} missing from {refs:?}"
        );
    }
    for b in &list {
        assert!(
            b.digest.as_str().starts_with("sha256:"),
            "{}",
            b.reference()
        );
        match b.kind {
            Kind::Transform => assert!(b.capabilities.is_empty(), "{}", b.reference()),
            Kind::Http => assert_eq!(b.capabilities, vec![Capability::Net], "{}", b.reference()),
            Kind::Shell => assert!(
                b.capabilities.contains(&Capability::Spawn),
                "{}",
                b.reference()
            ),
            other => panic!("unexpected kind {other:?}"),
        }
    }
    let root = list
        .iter()
        .find(|b| b.name == "std/shell.run-in-root")
        .unwrap();
    assert_eq!(root.capabilities, vec![Capability::Fs, Capability::Spawn]);
    // Digests are stable: a second listing gives the same.
    assert_eq!(browserflow_std::builtins().unwrap(), list);
    // And each instance lookup finds its tool.
    let post = browserflow_std::builtin("std/http.post@1.0.0")
        .unwrap()
        .unwrap();
    assert_eq!(
        post.contract().contract_digest(),
        list.iter()
            .find(|b| b.name == "std/http.post")
            .unwrap()
            .digest
    );
    assert!(browserflow_std::builtin("std/http.post@9.9.9").is_none());
}

#[test]
fn registers_into_both_registries() {
    let mut tools = ToolRegistry::new();
    let mut contracts = Registry::new();
    let n = browserflow_std::register_builtins(&mut tools, &mut contracts).unwrap();
    assert_eq!(n, browserflow_std::builtins().unwrap().len());
    assert_eq!(contracts.len(), n);
    assert!(tools.contract("std/transform.jq@1.0.0").is_some());
    // Registering twice into the Rider's registry is refused (duplicate), not silently merged.
    assert!(browserflow_std::register_builtins(&mut tools, &mut Registry::new()).is_err());
}

fn digest(name: &str) -> String {
    browserflow_std::builtins()
        .unwrap()
        .into_iter()
        .find(|b| b.name == name)
        .unwrap()
        .digest
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flow_posts_to_a_secret_webhook_and_nothing_written_holds_the_secret() {
    let server = Server::start(|_| Reply::json(200, json!({"ok": true}))).await;
    let secret_path = "/hooks/T0KEN-s3cr3t-9f8e7d";
    let webhook = server.url(secret_path);
    let flow = json!({
        "name": "price-alert", "version": "1.0.0",
        "inputs": [{"name": "text", "schema": {"type": "string"}, "secret": false}],
        "requires": [
            {"ref": "std/transform.parse-price@1.0.0", "contract_digest": digest("std/transform.parse-price")},
            {"ref": "std/http.post@1.0.0", "contract_digest": digest("std/http.post")}
        ],
        "steps": [
            {"id": "price", "uses": "std/transform.parse-price@1.0.0", "with": {"text": {"from": "input.text"}}},
            {"id": "notify", "uses": "std/http.post@1.0.0", "when": "steps.price.output.amount < 2000",
             "with": {"url": {"from": "secret.WEBHOOK_URL"}, "body": {"template": "price {steps.price.output.amount}"}}}
        ],
        "output": {"from": "steps.price.output"}
    });
    let mut tools = ToolRegistry::new();
    let mut contracts = Registry::new();
    browserflow_std::register_builtins(&mut tools, &mut contracts).unwrap();
    let plan = check_str(&flow.to_string(), &contracts).unwrap_or_else(|d| panic!("{d}"));
    let notify = plan.steps.iter().find(|s| s.id == "notify").unwrap();
    // The compiler's rule: `net` from the contract, `secrets` because a secret is bound.
    assert_eq!(
        notify.effective_capabilities,
        vec![Capability::Net, Capability::Secrets]
    );
    assert_eq!(notify.contract.capabilities(), &[Capability::Net]);

    let dir = tempfile::tempdir().unwrap();
    let journal_path = dir.path().join("journal.sqlite");
    let journal = Arc::new(SqliteJournal::open(&journal_path).unwrap());
    let secrets = Arc::new(MapSecrets::new().with("WEBHOOK_URL", &webhook));
    let rider = Rider::new(tools, journal, secrets, RiderOptions::default()).unwrap();
    let inputs = BTreeMap::from([("text".to_owned(), Bound::Value(json!("$1,299.00")))]);
    let outcome = rider
        .run(&plan, inputs)
        .await
        .unwrap_or_else(|f| panic!("{f:?}"));
    assert_eq!(outcome.output, json!({"amount": 1299.0, "currency": "USD"}));
    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, secret_path);
    assert!(String::from_utf8_lossy(&seen[0].body).starts_with("price 1299"));
    assert!(
        seen[0]
            .header("idempotency-key")
            .is_some_and(|k| k.starts_with("bf-"))
    );
    drop(rider);
    for suffix in ["", "-wal"] {
        let path = format!("{}{suffix}", journal_path.display());
        if let Ok(bytes) = std::fs::read(&path) {
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                !text.contains("T0KEN-s3cr3t-9f8e7d"),
                "{path} holds the secret"
            );
        }
    }
}

#[test]
fn http_post_has_the_digest_the_canonical_flow_pins() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../recordings/contracts/std-http.post@1.0.0.contract.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let pinned = browserflow_contract::ToolContract::from_json_str(&text).unwrap();
    let ours = browserflow_std::http::http_post_contract().unwrap();
    assert_eq!(ours.contract_digest(), pinned.contract_digest());
    assert_eq!(ours, pinned);
}
