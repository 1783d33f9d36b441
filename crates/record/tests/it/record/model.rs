//! Model assistance: suggestions kept in the metadata, selectors checked in the page; replay
//! needs no model.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use browserflow_record::{ModelAssist, OutputMark, Recorder};
use browserflow_steps::{OutputKind, SelectorCandidate, SelectorKind, Step};
use serde_json::{Value, json};

use crate::record::driver::*;
use crate::support::Harness;

/// A one-connection-at-a-time OpenAI-compatible server on 127.0.0.1: answers every
/// `POST /v1/chat/completions` with `content` and keeps the request (headers, body).
struct FakeModel {
    url: String,
    requests: Arc<Mutex<Vec<(String, String)>>>,
    _thread: std::thread::JoinHandle<()>,
}

impl FakeModel {
    fn start(content: Value) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
        let seen = requests.clone();
        let thread = std::thread::spawn(move || {
            // One request, then the listener closes: afterwards no model is reachable.
            for stream in listener.incoming().take(1) {
                let Ok(mut stream) = stream else { break };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                seen.lock()
                    .unwrap()
                    .push((head, String::from_utf8_lossy(&body).into_owned()));
                let answer = json!({
                    "id": "cmpl-1", "object": "chat.completion", "model": "test-model",
                    "choices": [{ "index": 0, "finish_reason": "stop",
                                  "message": { "role": "assistant", "content": content.to_string() } }],
                })
                .to_string();
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            }
        });
        FakeModel {
            url,
            requests,
            _thread: thread,
        }
    }
}

#[tokio::test]
async fn model_suggestions_are_kept_in_the_metadata_and_replay_needs_no_model() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/index.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    // A confirm dialog: recorded as the answer to give before the click that opens it.
    d.click("document.getElementById('clear-history')").await;
    d.wait_js("document.getElementById('service-status').textContent === 'History cleared'")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .any(|s| s.step.kind().name() == "handle_dialog"))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "handle_dialog", "click"]);
    draft
        .mark_output(OutputMark::css(
            "status",
            "#service-status",
            OutputKind::String,
        ))
        .unwrap();

    let model = FakeModel::start(json!({
        "name": "clear-history",
        "description": "Clear the shop's search history.",
        "inputs": {},
        "outputs": { "status": "The service status after clearing" },
    }));
    let assist = ModelAssist::new(&model.url, "test-model", Some("sk-test-key".into())).unwrap();
    let suggestions = assist.suggest(&mut draft).await.expect("the model answers");
    assert_eq!(suggestions.name.as_deref(), Some("clear-history"));
    assert_eq!(draft.suggested_name.as_deref(), Some("clear-history"));
    {
        let requests = model.requests.lock().unwrap();
        assert_eq!(requests.len(), 1);
        let (head, body) = &requests[0];
        assert!(head.starts_with("POST /v1/chat/completions"), "{head}");
        assert!(
            head.to_ascii_lowercase().contains("bearer sk-test-key"),
            "{head}"
        );
        assert!(
            body.contains("test-model") && body.contains("status"),
            "{body}"
        );
    }
    model._thread.join().unwrap();

    let file = draft
        .into_tool_file("clear-history", "1.0.0", None)
        .unwrap();
    assert_eq!(
        file.contract.description(),
        "Clear the shop's search history."
    );
    let calls = &file.metadata["model_calls"];
    assert_eq!(calls.as_array().unwrap().len(), 1);
    assert!(
        calls[0]["prompt_digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert_eq!(calls[0]["response"]["name"], "clear-history");
    assert!(
        !file.to_json_pretty().contains("sk-test-key"),
        "the key is never stored"
    );
    // Replay reads the steps only: no model is reachable now, and none is needed.
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(&file, dir.path());
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["status"], "History cleared");
    h.close().await;
}

#[tokio::test]
async fn a_model_selector_suggestion_is_checked_in_the_page_before_it_becomes_a_candidate() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-ids.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('ember123')").await;
    d.click("document.querySelector('[data-testid=add]')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .filter(|s| s.step.kind().name() == "click")
                .count()
                == 2)
            .await
    );
    // A unique selector on the recorded element: added where CSS ranks.
    let model = FakeModel::start(json!({ "kind": "css", "value": "main p > button" }));
    let assist = ModelAssist::new(&model.url, "test-model", None).unwrap();
    let accepted = recorder
        .suggest_selector(&assist, 1)
        .await
        .expect("the model answers");
    let position = accepted.position.expect("accepted");
    assert!(accepted.rejected.is_none());
    let save = recorder.steps()[1]
        .step
        .selector()
        .unwrap()
        .candidates
        .clone();
    assert_eq!(save[position], SelectorCandidate::css("main p > button"));
    assert!(
        save[..position]
            .iter()
            .all(|c| !matches!(c.kind, SelectorKind::Xpath)),
        "ranked by its kind: {save:?}"
    );
    {
        let requests = model.requests.lock().unwrap();
        let body = &requests[0].1;
        assert!(
            body.contains("Save draft"),
            "the prompt describes the step: {body}"
        );
    }
    model._thread.join().unwrap();

    // A selector matching both Add buttons: rejected, the candidates unchanged.
    let before = recorder.steps()[2].step.selector().unwrap().clone();
    let model = FakeModel::start(json!({ "kind": "test_id", "value": "add" }));
    let assist = ModelAssist::new(&model.url, "test-model", None).unwrap();
    let rejected = recorder.suggest_selector(&assist, 2).await.unwrap();
    assert_eq!(rejected.position, None);
    assert!(
        rejected
            .rejected
            .as_deref()
            .is_some_and(|r| r.contains("not unique")),
        "{rejected:?}"
    );
    assert_eq!(recorder.steps()[2].step.selector().unwrap(), &before);
    model._thread.join().unwrap();
    // No model reachable: a clear error, the recording unaffected.
    let err = recorder.suggest_selector(&assist, 2).await.unwrap_err();
    assert!(err.to_string().contains("model assistance failed"), "{err}");

    let mut draft = recorder.stop().await.unwrap();
    draft
        .mark_output(OutputMark::css(
            "status",
            "#basket-status",
            OutputKind::String,
        ))
        .unwrap();
    let file = draft.into_tool_file("basket", "1.0.0", None).unwrap();
    let calls = file.metadata["model_calls"].as_array().unwrap().clone();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0]["purpose"], "selector");
    assert_eq!(calls[0]["response"]["value"], "main p > button");
    assert!(
        calls[0]["outcome"]
            .as_str()
            .unwrap()
            .starts_with("added to step 2"),
        "{calls:?}"
    );
    assert!(
        calls[1]["outcome"].as_str().unwrap().contains("not unique"),
        "{calls:?}"
    );
    // The accepted candidate works when it is the only one.
    let mut only_suggested = file.clone();
    if let Step::Click(c) = &mut only_suggested.steps[1] {
        c.selector.candidates = vec![SelectorCandidate::css("main p > button")];
    }
    let outputs = replay(&h, &only_suggested, json!({})).await;
    assert_eq!(outputs["status"], "Added apples");
    h.close().await;
}
