//! The canonical example: recordings/daily-price-watch.flow.json with the recorded tools.

use browserflow_contract::Capability;
use browserflow_flow::{Bound, FlowSpec, Registry, check_file, check_str, compile};
use serde_json::json;

use crate::support::*;

fn flow_path() -> std::path::PathBuf {
    repo_root().join("recordings/daily-price-watch.flow.json")
}

fn flow_text() -> String {
    std::fs::read_to_string(flow_path()).expect("recordings/daily-price-watch.flow.json")
}

#[test]
fn daily_price_watch_compiles_with_the_recorded_contracts() {
    let registry = recordings_registry();
    let plan = check_file(flow_path(), &registry).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(plan.reference(), "daily-price-watch@1.0.0");
    let order: Vec<&str> = plan.steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(order, ["search", "alert", "notify"]);
    assert_eq!(
        plan.capabilities,
        [Capability::Browser, Capability::Net, Capability::Secrets]
    );
    let alert = plan.step("alert").unwrap();
    assert!(alert.is_pure(), "the transform is pure and may be re-run");
    let notify = plan.step("notify").unwrap();
    assert_eq!(
        notify.effective_capabilities,
        [Capability::Net, Capability::Secrets]
    );
    assert_eq!(notify.secret_slots, ["url"]);
    assert_eq!(notify.depends_on, ["alert"]);
    assert_eq!(
        plan.secret_names().into_iter().collect::<Vec<_>>(),
        ["WEBHOOK_URL"]
    );
    assert_eq!(
        plan.flow_digest,
        FlowSpec::from_json_str(&flow_text()).unwrap().digest()
    );
}

#[test]
fn daily_price_watch_is_stored_in_normal_form() {
    let spec = FlowSpec::from_json_str(&flow_text()).unwrap();
    assert_eq!(
        spec.to_pretty_json(),
        flow_text(),
        "the file is the normalised, pretty form"
    );
}

#[test]
fn the_plan_evaluates_like_the_rider_will_run_it() {
    let plan = check_file(flow_path(), &recordings_registry()).unwrap();
    let mut scope = plan
        .start_scope(
            [
                ("query".to_owned(), Bound::Value(json!("keyboard"))),
                ("threshold".to_owned(), Bound::Value(json!(20))),
            ]
            .into(),
        )
        .unwrap();
    scope.finish(
        "search",
        json!({"name": "Keyboard", "price": 18.5, "currency": "EUR"}),
    );
    let alert = plan.step("alert").unwrap();
    let inputs = alert.evaluate_inputs(&scope).unwrap();
    assert_eq!(
        inputs["result"],
        Bound::Value(json!({"name": "Keyboard", "price": 18.5, "currency": "EUR"}))
    );
    scope.finish(
        "alert",
        json!({"dropped": false, "message": "no drop", "price": 18.5, "currency": "EUR"}),
    );
    let notify = plan.step("notify").unwrap();
    assert!(!notify.should_run(&scope).unwrap());
    scope.finish(
        "alert",
        json!({"dropped": true, "message": "Keyboard: 18.5 EUR", "price": 18.5, "currency": "EUR"}),
    );
    assert!(notify.should_run(&scope).unwrap());
    let inputs = notify.evaluate_inputs(&scope).unwrap();
    assert!(inputs["url"].is_secret());
    assert_eq!(
        inputs["headers"],
        Bound::Value(json!({})),
        "the contract default fills the unbound slot"
    );
    assert_eq!(
        plan.evaluate_output(&scope).unwrap()["dropped"],
        json!(true)
    );
}

#[test]
fn changing_one_byte_of_a_pinned_digest_is_a_digest_mismatch() {
    let registry = recordings_registry();
    let text = flow_text();
    let pin = "\"sha256:6ada91fe84b56d50ab47cfac9122c8e3e07d4212ba8e3023f1d4032299421d1c\"";
    assert!(text.contains(pin), "the search-price pin");
    let changed = text.replace(
        pin,
        "\"sha256:6ada91fe84b56d50ab47cfac9122c8e3e07d4212ba8e3023f1d4032299421d1d\"",
    );
    let errors = check_str(&changed, &registry).unwrap_err();
    assert_diag(
        only(&errors),
        "digest_mismatch",
        Some("search"),
        None,
        "/requires/1/contract_digest",
        &["`search-price@1.2.0` is pinned to"],
    );
}

#[test]
fn changing_one_wire_type_is_a_type_mismatch() {
    // The contract's output `price` becomes a string: the whole object no longer fits.
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(repo_root().join("recordings/contracts")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    std::fs::copy(
        repo_root().join("recordings/price-alert@1.0.0.json"),
        dir.path().join("price-alert@1.0.0.json"),
    )
    .unwrap();
    let tool =
        std::fs::read_to_string(repo_root().join("recordings/search-price@1.2.0.json")).unwrap();
    let mut tool: serde_json::Value = serde_json::from_str(&tool).unwrap();
    tool["contract"]["output"]["properties"]["price"] = json!({"type": "string"});
    std::fs::write(
        dir.path().join("search-price@1.2.0.json"),
        serde_json::to_string_pretty(&tool).unwrap(),
    )
    .unwrap();
    let mut registry = Registry::new();
    registry.load_dir(dir.path()).unwrap();
    let mut spec = FlowSpec::from_json_str(&flow_text()).unwrap();
    // Re-pin to the changed contract, so only the wire is wrong.
    let changed = registry
        .iter()
        .find(|(r, _)| r.name.as_str() == "search-price")
        .unwrap()
        .1
        .digest
        .clone();
    spec.requires
        .iter_mut()
        .filter(|r| r.reference.name.as_str() == "search-price")
        .for_each(|r| r.contract_digest = changed.clone());
    let errors = compile(&spec, &registry).unwrap_err();
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("alert"),
        Some("result"),
        "/steps/1/with/result",
        &["price: string is not assignable to number"],
    );
}
