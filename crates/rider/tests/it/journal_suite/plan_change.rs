//! Resume compares the whole current plan with the one recorded when the run started,
//! before any step runs: every edit at or before the last recorded step is refused with
//! nothing executed, and the restored flow still resumes.

use std::collections::BTreeMap;

use browserflow_flow::{Bound, Plan};
use browserflow_rider::{Rider, ToolRegistry};
use serde_json::{Value, json};

use super::{Backend, Fresh};
use crate::server::Server;
use crate::tools::{compile_flow, post_changed, quick_rider_at, registry, shape, slugify};

fn post(id: &str, url: String, body: Value) -> Value {
    json!({"id": id, "uses": "test/post@1.0.0", "with": {"url": {"value": url}, "body": body}})
}

/// `a` posts, `b` posts when `b_when` holds (the input `go` is true), `c` fails (404): the
/// run stops with `c` as its last recorded step.
fn flow(server: &Server, b_when: &str) -> Value {
    json!({
        "name": "edits", "version": "1.0.0",
        "inputs": [{"name": "go", "schema": {"type": "boolean"}, "secret": false}],
        "steps": [
            post("a", format!("{}/effect", server.url), json!({"value": "a"})),
            {"id": "b", "uses": "test/post@1.0.0", "when": b_when, "with": {
                "url": {"value": format!("{}/effect", server.url)}, "body": {"value": "b"}}},
            post("c", format!("{}/status/404", server.url), json!({"from": "steps.a.output.response"})),
        ],
        "output": {"from": "steps.c.output"}
    })
}

struct Recorded {
    server: Server,
    _fresh: Fresh,
    rider: Rider,
    run_id: String,
    original: Value,
}

async fn recorded_run(backend: &dyn Backend, b_when: &str) -> Recorded {
    let server = Server::start();
    let fresh = backend.fresh();
    let rider = quick_rider_at(registry(), &fresh.location);
    let original = flow(&server, b_when);
    let plan = compile_flow(&registry(), original.clone());
    let inputs: BTreeMap<String, Bound> = [("go".to_owned(), Bound::Value(json!(true)))].into();
    let failure = rider.run(&plan, inputs).await.unwrap_err();
    assert_eq!(failure.code(), "tool_failed", "{}", failure.message);
    Recorded {
        server,
        _fresh: fresh,
        rider,
        run_id: failure.run_id.unwrap(),
        original,
    }
}

impl Recorded {
    fn requests(&self) -> usize {
        self.server.requests().len()
    }

    /// Resumes with `edited`, expects a divergence naming every `expected` text, and checks
    /// that nothing ran; then the original flow resumes past the record.
    async fn refuses(&self, edited: Plan, expected: &[&str]) {
        let before = self.requests();
        let failure = self.rider.resume(&self.run_id, &edited).await.unwrap_err();
        assert_eq!(failure.code(), "divergence", "{}", failure.message);
        assert!(
            matches!(
                failure.error,
                browserflow_rider::RunError::PlanChanged { .. }
            ),
            "{:?}",
            failure.error
        );
        for text in expected {
            assert!(
                failure.message.contains(text),
                "{text}: {}",
                failure.message
            );
        }
        assert!(
            failure.message.contains("Restore the flow")
                && failure.message.contains("start a new run"),
            "{}",
            failure.message
        );
        assert_eq!(self.requests(), before, "no step ran: {}", failure.message);

        // The restored flow resumes: `a` (and `b`) are replayed, `c` is attempted again.
        let plan = compile_flow(&registry(), self.original.clone());
        let again = self.rider.resume(&self.run_id, &plan).await.unwrap_err();
        assert_eq!(again.code(), "tool_failed", "{}", again.message);
        let after = self.server.requests();
        assert!(
            after[before..]
                .iter()
                .all(|r| r.target.starts_with("/status/404")),
            "only `c` ran again: {after:?}"
        );
    }

    fn edited(&self, edit: impl FnOnce(&mut Vec<Value>)) -> Plan {
        let mut flow = self.original.clone();
        edit(flow["steps"].as_array_mut().unwrap());
        compile_flow(&registry(), flow)
    }
}

pub async fn a_step_inserted_first_is_refused_before_it_posts(backend: &dyn Backend) {
    let run = recorded_run(backend, "input.go").await;
    let url = format!("{}/effect/INSERTED-PRE", run.server.url);
    let plan = run.edited(|steps| steps.insert(0, post("pre", url, json!({"value": "pre"}))));
    run.refuses(
        plan,
        &[
            "step `pre` was inserted at position 0",
            "step `a` moved from position 0 to 1",
            "last step this run recorded",
        ],
    )
    .await;
    assert!(
        !run.server
            .requests()
            .iter()
            .any(|r| r.target.contains("INSERTED")),
        "the inserted step never posted"
    );
}

pub async fn a_step_inserted_between_is_refused(backend: &dyn Backend) {
    let run = recorded_run(backend, "input.go").await;
    let url = format!("{}/effect/between", run.server.url);
    let plan = run.edited(|steps| steps.insert(1, post("mid", url, json!({"value": "m"}))));
    run.refuses(
        plan,
        &["step `mid` was inserted at position 1", "step `b` moved"],
    )
    .await;
}

pub async fn a_removed_step_is_refused(backend: &dyn Backend) {
    let run = recorded_run(backend, "input.go").await;
    let plan = run.edited(|steps| {
        steps.remove(1);
    });
    run.refuses(plan, &["step `b` (position 1) is absent from the flow"])
        .await;
}

pub async fn a_renamed_step_is_refused(backend: &dyn Backend) {
    let run = recorded_run(backend, "input.go").await;
    let plan = run.edited(|steps| steps[1]["id"] = json!("bee"));
    run.refuses(plan, &["step `b` (position 1) was renamed `bee`"])
        .await;
}

pub async fn a_rewired_step_is_refused(backend: &dyn Backend) {
    let run = recorded_run(backend, "input.go").await;
    let plan = run.edited(|steps| {
        steps[1]["with"]["body"] = json!({"from": "steps.a.output.response"});
    });
    run.refuses(plan, &["step `b`: the binding of `body` changed"])
        .await;
}

pub async fn a_when_turned_false_is_refused(backend: &dyn Backend) {
    let run = recorded_run(backend, "input.go").await;
    let plan = run.edited(|steps| steps[1]["when"] = json!("!input.go"));
    run.refuses(
        plan,
        &["step `b`: its `when` was `input.go` and is now `!input.go`"],
    )
    .await;
    let report = run.rider.journal().show(&run.run_id).unwrap();
    let b = report.steps.iter().find(|s| s.step_id == "b").unwrap();
    assert_eq!(
        b.status, "succeeded",
        "the recorded effect is not reported skipped"
    );
}

pub async fn a_when_turned_true_is_refused_without_running_the_step(backend: &dyn Backend) {
    let run = recorded_run(backend, "!input.go").await;
    let posts_of_b = |run: &Recorded| {
        run.server
            .requests()
            .iter()
            .filter(|r| r.body.contains("\"b\""))
            .count()
    };
    assert_eq!(posts_of_b(&run), 0, "b was skipped");
    let plan = run.edited(|steps| steps[1]["when"] = json!("input.go"));
    run.refuses(plan, &["its `when` was `!input.go` and is now `input.go`"])
        .await;
    assert_eq!(posts_of_b(&run), 0, "b never posted");
}

pub async fn a_when_removed_is_refused(backend: &dyn Backend) {
    let run = recorded_run(backend, "input.go").await;
    let plan = run.edited(|steps| {
        steps[1].as_object_mut().unwrap().remove("when");
    });
    run.refuses(
        plan,
        &["its `when` was `input.go` and is now none (always runs)"],
    )
    .await;
}

pub async fn a_changed_pin_is_refused(backend: &dyn Backend) {
    let run = recorded_run(backend, "input.go").await;
    let mut changed = ToolRegistry::new();
    changed.register(slugify).unwrap();
    changed.register(shape).unwrap();
    changed.register(post_changed).unwrap();
    let plan = compile_flow(&changed, run.original.clone());
    run.refuses(plan, &["step `a`: the contract digest was", "step `c`"])
        .await;
}

pub async fn a_step_appended_after_the_last_recorded_one_may_run(backend: &dyn Backend) {
    let run = recorded_run(backend, "input.go").await;
    let url = format!("{}/effect/appended", run.server.url);
    let plan = run.edited(|steps| steps.push(post("d", url, json!({"value": "d"}))));
    let failure = run.rider.resume(&run.run_id, &plan).await.unwrap_err();
    // Not a divergence: the resume went on and `c` failed again, as before.
    assert_eq!(failure.code(), "tool_failed", "{}", failure.message);
}
