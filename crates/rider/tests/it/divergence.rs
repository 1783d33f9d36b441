//! Resume refuses a flow or tool that no longer matches the record: `divergence`, naming the
//! step, never a wrong result.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use browserflow_rider::JournalLocation;

use crate::journal_suite::crash::{Runner, effects, spec};
use crate::server::Server;
use crate::tools::{compile_flow, quick_rider, registry};

#[test]
fn a_tool_contract_changed_between_crash_and_resume_is_a_divergence() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let journal = JournalLocation::Sqlite(dir.path().join("journal.sqlite"));
    let runner = Runner::start(
        spec(&journal, &server, "run", "", "v1"),
        Some("after-commit:first"),
    );
    let run_id = runner.wait_for("RUN_ID");
    runner.wait_for("CRASH_POINT");
    runner.kill();
    let recorded = effects(&journal, &run_id);
    let calls = server.requests().len();

    let changed = Runner::start(spec(&journal, &server, "resume", &run_id, "changed"), None);
    let failure: Value = serde_json::from_str(&changed.wait_for("FAILURE")).unwrap();
    changed.finish();
    assert_eq!(failure["code"], json!("divergence"), "{failure}");
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("step `first`"), "{message}");
    assert!(message.contains("contract digest"), "{message}");
    assert_eq!(
        server.requests().len(),
        calls,
        "no effect was repeated or added"
    );
    assert_eq!(
        effects(&journal, &run_id),
        recorded,
        "the record is untouched"
    );
    let report = journal.open_read_only().unwrap().show(&run_id).unwrap();
    assert_eq!(report.status, "failed");
    assert_eq!(report.error.unwrap().code, "divergence");

    // With the original tool the run still resumes and completes.
    let original = Runner::start(spec(&journal, &server, "resume", &run_id, "v1"), None);
    let outcome: Value = serde_json::from_str(&original.wait_for("OUTCOME")).unwrap();
    original.finish();
    assert_eq!(outcome["steps_replayed"], json!(1));
}

fn flow(server: &Server, body: &str, second: &str) -> Value {
    json!({
        "name": "two-posts", "version": "1.0.0",
        "steps": [
            {"id": "one", "uses": "test/post@1.0.0", "with": {"url": {"value": format!("{}/effect", server.url)}, "body": {"value": body}}},
            {"id": second, "uses": "test/post@1.0.0", "with": {"url": {"value": format!("{}/status/404", server.url)}, "body": {"from": "steps.one.output.response"}}}
        ],
        "output": {"from": format!("steps.{second}.output")}
    })
}

#[tokio::test]
async fn a_changed_input_a_removed_step_or_another_flow_is_a_divergence() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let rider = quick_rider(registry(), &dir.path().join("j.sqlite"));
    let plan = compile_flow(&registry(), flow(&server, "original", "two"));
    let failure = rider.run(&plan, BTreeMap::new()).await.unwrap_err();
    assert_eq!(failure.code(), "tool_failed");
    let run_id = failure.run_id.unwrap();

    let changed_input = compile_flow(&registry(), flow(&server, "edited", "two"));
    let failure = rider.resume(&run_id, &changed_input).await.unwrap_err();
    assert_eq!(failure.code(), "divergence");
    assert!(
        failure
            .message
            .contains("step `one`: the binding of `body` changed"),
        "{}",
        failure.message
    );

    let renamed_step = compile_flow(&registry(), flow(&server, "original", "deux"));
    let failure = rider.resume(&run_id, &renamed_step).await.unwrap_err();
    assert_eq!(failure.code(), "divergence");
    assert!(
        failure.message.contains("step `two`"),
        "{}",
        failure.message
    );
    assert!(
        failure.message.contains("renamed `deux`"),
        "{}",
        failure.message
    );

    let mut other = flow(&server, "original", "two");
    other["name"] = json!("another-flow");
    let failure = rider
        .resume(&run_id, &compile_flow(&registry(), other))
        .await
        .unwrap_err();
    assert_eq!(failure.code(), "divergence");
    assert!(
        failure.message.contains("two-posts@1.0.0"),
        "{}",
        failure.message
    );

    assert_eq!(
        server.counts().values().sum::<usize>(),
        2,
        "divergent resumes touched nothing"
    );
    // The same flow resumes: `one` is replayed, `two` is attempted again (and fails again).
    let failure = rider.resume(&run_id, &plan).await.unwrap_err();
    assert_eq!(failure.code(), "tool_failed");
    let report = rider.journal().show(&run_id).unwrap();
    // Refused resumes stop before opening a session: the run, then the last resume.
    assert_eq!(report.sessions, 2);
    let one = report.steps.iter().find(|s| s.step_id == "one").unwrap();
    assert_eq!(one.attempts, 1);
}
