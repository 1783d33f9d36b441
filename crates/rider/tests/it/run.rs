//! Running plans: parallelism, conditions, retries, cancellation, limits, validation, the
//! journal report.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use browserflow_contract::{ContractParts, Kind, Schema, ToolContract};
use browserflow_flow::Bound;
use browserflow_rider::{
    CancelHandle, RiderOptions, RunEvent, Tool, ToolCtx, ToolError, ToolRegistry,
};
use serde_json::{Value, json};

use crate::server::Server;
use crate::tools::{compile_flow, fast_options, quick_rider, registry, rider};

fn inputs(pairs: &[(&str, Value)]) -> BTreeMap<String, Bound> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Bound::Value(v.clone())))
        .collect()
}

fn post_step(id: &str, url: &str, body: Value) -> Value {
    json!({"id": id, "uses": "test/post@1.0.0", "with": {"url": {"value": url}, "body": {"value": body}}})
}

#[tokio::test]
async fn a_pure_flow_runs_and_is_reported_but_records_no_effect() {
    let dir = tempfile::tempdir().unwrap();
    let plan = compile_flow(
        &registry(),
        json!({
            "name": "slug-flow", "version": "1.0.0",
            "inputs": [{"name": "title", "schema": {"type": "string"}, "secret": false}],
            "steps": [{"id": "slug", "uses": "test/slugify@1.0.0", "with": {"text": {"from": "input.title"}}}],
            "output": {"from": "steps.slug.output"}
        }),
    );
    let rider = quick_rider(registry(), &dir.path().join("j.sqlite"));
    let inputs = [("title".to_owned(), Bound::Value(json!("Hello Flow World")))].into();
    let outcome = rider.run(&plan, inputs).await.unwrap();
    assert_eq!(outcome.output, json!("hello-flow-world"));
    assert_eq!(outcome.steps_run, 1);
    let report = rider.journal().show(&outcome.run_id).unwrap();
    assert_eq!(report.status, "succeeded");
    assert_eq!(report.flow, "slug-flow@1.0.0");
    assert_eq!(report.output, Some(json!("hello-flow-world")));
    assert_eq!(report.steps.len(), 1);
    let step = &report.steps[0];
    assert_eq!(
        (step.step_id.as_str(), step.status.as_str(), step.effectful),
        ("slug", "succeeded", false)
    );
    assert_eq!(step.idempotency_key, None, "a pure step records no effect");
    assert_eq!(step.output, Some(json!("hello-flow-world")));
    // The report is plain JSON for `bflow journal show`.
    let text = serde_json::to_string(&report).unwrap();
    assert!(text.contains("\"steps\""));
}

#[tokio::test]
async fn independent_steps_run_in_parallel_up_to_the_bound() {
    for (bound, expected_peak) in [(4, 4), (2, 2)] {
        let server = Server::start();
        let dir = tempfile::tempdir().unwrap();
        let url = format!("{}/slow/300", server.url);
        let steps: Vec<Value> = (0..4)
            .map(|i| post_step(&format!("p{i}"), &url, json!(i)))
            .collect();
        let plan = compile_flow(
            &registry(),
            json!({"name": "par", "version": "1.0.0", "steps": steps, "output": {"from": "steps.p3.output.status"}}),
        );
        let options = RiderOptions {
            max_parallel: bound,
            ..fast_options()
        };
        let rider = rider(
            registry(),
            &dir.path().join("j.sqlite"),
            browserflow_rider::MapSecrets::new(),
            options,
        );
        let started = Instant::now();
        let outcome = rider.run(&plan, BTreeMap::new()).await.unwrap();
        let elapsed = started.elapsed();
        assert_eq!(outcome.output, json!(200));
        assert_eq!(server.peak_concurrency(), expected_peak, "bound {bound}");
        let waves = 4 / bound as u32;
        assert!(
            elapsed >= Duration::from_millis(300) * waves,
            "bound {bound}: {elapsed:?}"
        );
        assert!(
            elapsed < Duration::from_millis(300) * waves + Duration::from_millis(2000),
            "bound {bound}: {elapsed:?}"
        );
    }
}

#[tokio::test]
async fn a_false_condition_skips_the_step_and_its_effect() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let flow = json!({
        "name": "cond", "version": "1.0.0",
        "inputs": [{"name": "notify", "schema": {"type": "boolean"}, "secret": false}],
        "steps": [
            {"id": "slug", "uses": "test/slugify@1.0.0", "with": {"text": {"value": "A B"}}},
            {"id": "hook", "uses": "test/post@1.0.0", "when": "input.notify",
             "with": {"url": {"value": format!("{}/effect", server.url)}, "body": {"from": "steps.slug.output"}}}
        ],
        "output": {"from": "steps.hook.output"}
    });
    let plan = compile_flow(&registry(), flow);
    let rider = quick_rider(registry(), &dir.path().join("j.sqlite"));
    let skipped = rider
        .run(&plan, inputs(&[("notify", json!(false))]))
        .await
        .unwrap();
    assert_eq!(skipped.output, Value::Null);
    assert!(server.requests().is_empty());
    let report = rider.journal().show(&skipped.run_id).unwrap();
    let hook = report.steps.iter().find(|s| s.step_id == "hook").unwrap();
    assert_eq!(hook.status, "skipped");
    let sent = rider
        .run(&plan, inputs(&[("notify", json!(true))]))
        .await
        .unwrap();
    assert_eq!(sent.output["status"], json!(200));
    assert_eq!(server.requests().len(), 1);
    assert_eq!(server.requests()[0].body, "\"a-b\"");
}

#[tokio::test]
async fn transient_http_errors_are_retried_with_the_same_key_and_terminal_ones_are_not() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let rider = quick_rider(registry(), &dir.path().join("j.sqlite"));
    let flaky = compile_flow(
        &registry(),
        json!({"name": "flaky", "version": "1.0.0",
               "steps": [post_step("p", &format!("{}/flaky/2", server.url), json!("x"))],
               "output": {"from": "steps.p.output.response.count"}}),
    );
    let outcome = rider.run(&flaky, BTreeMap::new()).await.unwrap();
    assert_eq!(
        outcome.output,
        json!(3),
        "two 503s, then success on the third call"
    );
    let counts = server.counts();
    assert_eq!(
        counts.len(),
        1,
        "one idempotency key across all attempts: {counts:?}"
    );
    let report = rider.journal().show(&outcome.run_id).unwrap();
    assert_eq!(report.steps[0].attempts, 3);
    assert_eq!(report.steps[0].status, "succeeded");
    assert!(report.steps[0].idempotency_key.is_some());

    let gone = compile_flow(
        &registry(),
        json!({"name": "gone", "version": "1.0.0",
               "steps": [post_step("p", &format!("{}/status/404", server.url), json!("x"))],
               "output": {"from": "steps.p.output"}}),
    );
    let before = server.requests().len();
    let failure = rider.run(&gone, BTreeMap::new()).await.unwrap_err();
    assert_eq!(failure.code(), "tool_failed");
    assert!(failure.message.contains("step `p`"), "{}", failure.message);
    assert!(failure.message.contains("404"), "{}", failure.message);
    assert_eq!(
        server.requests().len(),
        before + 1,
        "a 404 is terminal: no retry"
    );
    let report = rider
        .journal()
        .show(failure.run_id.as_deref().unwrap())
        .unwrap();
    assert_eq!(report.status, "failed");
    assert_eq!(report.error.as_ref().unwrap().code, "tool_failed");
    assert_eq!(report.steps[0].status, "failed");

    // Exhausted retries fail with the number of attempts.
    let always = compile_flow(
        &registry(),
        json!({"name": "always", "version": "1.0.0",
               "steps": [post_step("p", &format!("{}/flaky/99", server.url), json!("x"))],
               "output": {"from": "steps.p.output"}}),
    );
    let failure = rider.run(&always, BTreeMap::new()).await.unwrap_err();
    assert!(
        failure.message.contains("after 4 attempts"),
        "{}",
        failure.message
    );
}

#[tokio::test]
async fn cancellation_stops_a_run_promptly_and_is_recorded() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let rider = quick_rider(registry(), &dir.path().join("j.sqlite"));
    let plan = compile_flow(
        &registry(),
        json!({"name": "slow", "version": "1.0.0",
               "steps": [post_step("p", &format!("{}/slow/5000", server.url), json!("x"))],
               "output": {"from": "steps.p.output"}}),
    );
    let cancel = CancelHandle::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let failure = rider
        .run_with(&plan, BTreeMap::new(), &cancel)
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(failure.code(), "cancelled");
    let report = rider
        .journal()
        .show(failure.run_id.as_deref().unwrap())
        .unwrap();
    assert_eq!(report.status, "cancelled");
    assert_eq!(report.steps[0].status, "cancelled");
}

#[tokio::test]
async fn step_count_and_payload_limits_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let flow = json!({
        "name": "three", "version": "1.0.0",
        "steps": [
            {"id": "a", "uses": "test/slugify@1.0.0", "with": {"text": {"value": "A"}}},
            {"id": "b", "uses": "test/slugify@1.0.0", "with": {"text": {"from": "steps.a.output"}}},
            {"id": "c", "uses": "test/slugify@1.0.0", "with": {"text": {"from": "steps.b.output"}}}
        ],
        "output": {"from": "steps.c.output"}
    });
    let plan = compile_flow(&registry(), flow);
    let options = RiderOptions {
        max_steps: 2,
        ..fast_options()
    };
    let limited = rider(
        registry(),
        &dir.path().join("a.sqlite"),
        browserflow_rider::MapSecrets::new(),
        options,
    );
    let failure = limited.run(&plan, BTreeMap::new()).await.unwrap_err();
    assert_eq!(failure.code(), "limit_exceeded");
    assert!(
        failure.message.contains("limit of 2 steps at step `c`"),
        "{}",
        failure.message
    );

    let options = RiderOptions {
        max_payload_bytes: 8,
        ..fast_options()
    };
    let small = rider(
        registry(),
        &dir.path().join("b.sqlite"),
        browserflow_rider::MapSecrets::new(),
        options,
    );
    let failure = small.run(&plan, BTreeMap::new()).await.unwrap_err();
    assert_eq!(failure.code(), "limit_exceeded");
    assert!(
        failure.message.contains("step `a`: the input is 12 bytes"),
        "{}",
        failure.message
    );
}

/// A hand-written tool that breaks its own contract.
struct Liar;

static LIAR: std::sync::LazyLock<ToolContract> = std::sync::LazyLock::new(|| {
    ToolContract::new(ContractParts {
        name: "test/liar".into(),
        version: "1.0.0".into(),
        kind: Kind::Transform,
        description: String::new(),
        inputs: vec![],
        output: Schema::object([("price", Schema::number())]),
        capabilities: vec![],
    })
    .unwrap()
});

#[async_trait::async_trait]
impl Tool for Liar {
    fn contract(&self) -> &ToolContract {
        &LIAR
    }

    async fn run(&self, _input: Value, _ctx: ToolCtx) -> Result<Value, ToolError> {
        Ok(json!({"price": "cheap"}))
    }
}

#[tokio::test]
async fn an_output_that_breaks_the_contract_names_the_step_and_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(|| Liar).unwrap();
    let plan = compile_flow(
        &registry,
        json!({"name": "lie", "version": "1.0.0", "steps": [{"id": "quote", "uses": "test/liar@1.0.0"}],
               "output": {"from": "steps.quote.output.price"}}),
    );
    let rider = quick_rider(registry, &dir.path().join("j.sqlite"));
    let failure = rider.run(&plan, BTreeMap::new()).await.unwrap_err();
    assert_eq!(failure.code(), "invalid_output");
    assert!(
        failure.message.contains("step `quote`"),
        "{}",
        failure.message
    );
    assert!(failure.message.contains("/price"), "{}", failure.message);
}

#[tokio::test]
async fn pure_steps_see_the_runs_clock_and_seeded_randomness_and_events_are_emitted() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let options = RiderOptions {
        on_event: Some(Arc::new(move |e: &RunEvent| {
            sink.lock().unwrap().push(e.clone())
        })),
        ..fast_options()
    };
    let rider = rider(
        registry(),
        &dir.path().join("j.sqlite"),
        browserflow_rider::MapSecrets::new(),
        options,
    );
    let plan = compile_flow(
        &registry(),
        json!({"name": "s", "version": "1.0.0",
               "steps": [post_step("p", &format!("{}/effect", server.url), json!(1)),
                         {"id": "x", "uses": "test/shape@1.0.0", "with": {"a": {"value": 1}, "b": {"from": "steps.p.output.status"}}}],
               "output": {"from": "steps.x.output"}}),
    );
    let first = rider.run(&plan, BTreeMap::new()).await.unwrap();
    let replay = rider.resume(&first.run_id, &plan).await.unwrap();
    assert_eq!(first.output, replay.output, "same clock and dice on resume");
    assert_eq!(replay.steps_replayed, 1);
    assert_eq!(
        server.requests().len(),
        1,
        "the recorded effect is not repeated"
    );
    let events = events.lock().unwrap();
    assert!(matches!(
        events.first(),
        Some(RunEvent::RunStarted { resumed: false, .. })
    ));
    assert!(events.iter().any(|e| matches!(
        e,
        RunEvent::StepFinished {
            status: "replayed",
            ..
        }
    )));
    assert!(matches!(
        events.last(),
        Some(RunEvent::RunFinished {
            status: "succeeded",
            ..
        })
    ));
}

#[tokio::test]
async fn retries_and_their_backoff_share_the_step_budget() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    // Ten attempts 300 ms apart would take about 3 s; the budget is 1 s for all of them.
    let options = RiderOptions {
        backoff: browserflow_rider::RetryPolicy {
            max_attempts: 10,
            initial_delay: std::time::Duration::from_millis(300),
            max_delay: std::time::Duration::from_millis(300),
        },
        step_budget: std::time::Duration::from_secs(1),
        ..RiderOptions::default()
    };
    let rider = rider(
        registry(),
        &dir.path().join("j.sqlite"),
        browserflow_rider::MapSecrets::new(),
        options,
    );
    let always = compile_flow(
        &registry(),
        json!({"name": "always", "version": "1.0.0",
               "steps": [post_step("p", &format!("{}/flaky/99", server.url), json!("x"))],
               "output": {"from": "steps.p.output"}}),
    );
    let started = std::time::Instant::now();
    let failure = rider.run(&always, BTreeMap::new()).await.unwrap_err();
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_millis(1500), "{took:?}");
    assert!(
        failure
            .message
            .contains("the step's time budget of 1 s (all attempts together) is used up"),
        "{}",
        failure.message
    );
    let attempts = server.requests().len();
    assert!((2..=4).contains(&attempts), "{attempts} attempts in 1 s");
    let report = rider
        .journal()
        .show(failure.run_id.as_deref().unwrap())
        .unwrap();
    assert_eq!(report.steps[0].attempts, attempts as i64);
    assert_eq!(report.steps[0].status, "failed");
}
