//! The model kind against a small OpenAI-compatible server started by the test.

use std::sync::Arc;
use std::time::Duration;

use browserflow_contract::ToolContract;
use browserflow_rider::secrecy::SecretString;
use browserflow_rider::{ErrorClass, ModelCapability, Tool, ToolCtx};
use browserflow_std::model::{
    ModelSpec, ModelTool, OpenAiModel, Recording, RecordingModel, ReplayModel,
};
use serde_json::{Value, json};

use crate::support::{Reply, Server};

fn model_tool() -> ModelTool {
    let contract = ToolContract::from_json(&json!({
        "name": "classify", "version": "1.0.0", "kind": "model", "description": "Label a product.",
        "inputs": [{"name": "text", "schema": {"type": "string"}, "secret": false}],
        "output": {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"], "additionalProperties": false},
        "capabilities": ["model"]
    }))
    .unwrap();
    let spec = ModelSpec {
        model: "tiny-model".to_owned(),
        system: Some("Answer with JSON.".to_owned()),
        prompt: "Label this product: {text}".to_owned(),
        temperature: None,
    };
    ModelTool::new(contract, spec).unwrap()
}

fn ctx(model: Arc<dyn ModelCapability>) -> ToolCtx {
    ToolCtx::builder("run-m", "step-m").model(model).build()
}

/// Answers like a chat-completions endpoint: the label is the last word of the prompt.
fn completions(seen: &crate::support::Seen) -> Reply {
    if seen.path != "/v1/chat/completions" {
        return Reply::text(404, "no such endpoint");
    }
    let request: Value = serde_json::from_slice(&seen.body).unwrap();
    let prompt = request["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    let label = prompt
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .to_owned();
    let content = json!({"label": label}).to_string();
    Reply::json(
        200,
        json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_at_authoring_time_and_replays_with_the_server_stopped() {
    let server = Server::start(completions).await;
    let live = OpenAiModel::new(
        &server.url("/v1"),
        Some(SecretString::from("sk-test-key".to_owned())),
        Duration::from_secs(5),
    )
    .unwrap();
    let recorder = Arc::new(RecordingModel::new(Arc::new(live), Recording::default()));
    let tool = model_tool();
    let out = tool
        .run(json!({"text": "garden lamp"}), ctx(recorder.clone()))
        .await
        .unwrap();
    assert_eq!(out, json!({"label": "lamp"}));
    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].header("authorization"), Some("Bearer sk-test-key"));
    let sent: Value = serde_json::from_slice(&seen[0].body).unwrap();
    assert_eq!(sent["model"], json!("tiny-model"));
    assert_eq!(
        sent["messages"][1]["content"],
        json!("Label this product: garden lamp")
    );
    assert_eq!(
        sent["response_format"]["json_schema"]["schema"]["required"],
        json!(["label"])
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("classify.recording.json");
    let recording = recorder.recording();
    assert_eq!(recording.calls.len(), 1);
    assert!(recording.calls[0].request_digest.starts_with("sha256:"));
    recording.save(&path).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(
        !saved.contains("sk-test-key"),
        "the API key is not part of a recording"
    );
    server.stop();

    // The server is gone: a live call fails...
    let live = OpenAiModel::new("http://127.0.0.1:9/v1", None, Duration::from_secs(2)).unwrap();
    let err = tool
        .run(json!({"text": "garden lamp"}), ctx(Arc::new(live)))
        .await
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Transient);
    // ...and the replay answers from the recording alone.
    let replay = Arc::new(ReplayModel::new(Recording::load(&path).unwrap()));
    let again = tool
        .run(json!({"text": "garden lamp"}), ctx(replay.clone()))
        .await
        .unwrap();
    assert_eq!(again, out);
    // A request that was never recorded is a clear error, not a live call.
    let err = tool
        .run(json!({"text": "red chair"}), ctx(replay))
        .await
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Terminal);
    assert!(
        err.message.contains("no recorded answer") && err.message.contains("never calls the model"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_answers_and_definitions_are_clear_errors() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/v1/chat/completions" => Reply::json(
            200,
            json!({"choices": [{"message": {"content": "{\"label\": 5}"}}]}),
        ),
        _ => Reply::text(404, ""),
    })
    .await;
    let live =
        Arc::new(OpenAiModel::new(&server.url("/v1"), None, Duration::from_secs(5)).unwrap());
    let err = model_tool()
        .run(json!({"text": "x"}), ctx(live))
        .await
        .unwrap_err();
    assert!(err.message.contains("output schema"), "{err}");
    let busy = Server::start(|_| Reply::text(503, "overloaded")).await;
    let live = Arc::new(OpenAiModel::new(&busy.url("/v1"), None, Duration::from_secs(5)).unwrap());
    let err = model_tool()
        .run(json!({"text": "x"}), ctx(live))
        .await
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Transient);
    // Without the `model` capability on the context the tool says so.
    let err = model_tool()
        .run(json!({"text": "x"}), ToolCtx::builder("r", "s").build())
        .await
        .unwrap_err();
    assert!(err.message.contains("`model`"), "{err}");
    // A prompt naming no input is refused when the tool is made.
    let file = json!({"contract": model_tool().contract().to_json(), "model": {"model": "m", "prompt": "Hi {nobody}"}});
    let err = ModelTool::from_tool_file(&file).unwrap_err();
    assert!(err.to_string().contains("{nobody}"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_step_is_journaled_and_replays_from_the_recording_through_the_rider() {
    use std::collections::BTreeMap;

    use browserflow_flow::{Bound, Registry, check_str};
    use browserflow_rider::{
        JournalStore, MapSecrets, Rider, RiderOptions, SqliteJournal, ToolRegistry,
    };

    let server = Server::start(completions).await;
    let digest = model_tool().contract().contract_digest().to_string();
    let flow = json!({
        "name": "label-flow", "version": "1.0.0",
        "inputs": [{"name": "text", "schema": {"type": "string"}, "secret": false}],
        "requires": [{"ref": "classify@1.0.0", "contract_digest": digest}],
        "steps": [{"id": "label", "uses": "classify@1.0.0", "with": {"text": {"from": "input.text"}}}],
        "output": {"from": "steps.label.output.label"}
    });
    let mut contracts = Registry::new();
    contracts.insert(model_tool().contract().clone()).unwrap();
    let plan = check_str(&flow.to_string(), &contracts).unwrap_or_else(|d| panic!("{d}"));
    let rider_with = |model: Arc<dyn ModelCapability>, journal: Arc<dyn JournalStore>| {
        let mut tools = ToolRegistry::new();
        tools.register(model_tool).unwrap();
        let options = RiderOptions {
            model: Some(model),
            ..RiderOptions::default()
        };
        Rider::new(tools, journal, Arc::new(MapSecrets::new()), options).unwrap()
    };
    let inputs = || BTreeMap::from([("text".to_owned(), Bound::Value(json!("blue sofa")))]);
    let dir = tempfile::tempdir().unwrap();
    let journal: Arc<dyn JournalStore> =
        Arc::new(SqliteJournal::open(dir.path().join("journal.sqlite")).unwrap());

    // Authoring time: the live model answers and the call is recorded.
    let live = OpenAiModel::new(&server.url("/v1"), None, Duration::from_secs(5)).unwrap();
    let recorder = Arc::new(RecordingModel::new(Arc::new(live), Recording::default()));
    let outcome = rider_with(recorder.clone(), journal.clone())
        .run(&plan, inputs())
        .await
        .unwrap_or_else(|f| panic!("{f:?}"));
    assert_eq!(outcome.output, json!("sofa"));
    let report = journal.show(&outcome.run_id).unwrap();
    let step = report.steps.iter().find(|s| s.step_id == "label").unwrap();
    assert!(step.effectful, "a model step is an effect");
    assert_eq!(step.output, Some(json!({"label": "sofa"})));
    server.stop();

    // Replay with the server stopped: the recording answers, no model is called.
    let replay = Arc::new(ReplayModel::new(recorder.recording()));
    let outcome = rider_with(replay, journal.clone())
        .run(&plan, inputs())
        .await
        .unwrap_or_else(|f| panic!("{f:?}"));
    assert_eq!(outcome.output, json!("sofa"));
}
