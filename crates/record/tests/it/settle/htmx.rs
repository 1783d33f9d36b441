//! htmx (`tests/fixtures/settle/htmx`): type a product, click Search; htmx asks
//! `GET /search?q=…`, which the server answers 50–300 ms late, and swaps the answer into the
//! result, which shows an empty skeleton until then. The tool extracts the name (a string) and
//! the price (a number) right after the click.

use browserflow_record::{InputMark, OutputMark, Recorder};
use browserflow_replay::{FailureKind, ReplayError, Replayer};
use browserflow_steps::{OutputKind, Step, ToolFile};
use serde_json::{Value, json};

use super::server::{SlowServer, lookup};
use crate::record::driver::*;
use crate::support::Harness;

async fn record(h: &Harness, server: &SlowServer, query: &str) -> ToolFile {
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/index.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("window.htmx && document.readyState === 'complete'")
        .await;
    d.click("document.getElementById('q')").await;
    d.type_keys(query).await;
    d.click("document.getElementById('go')").await;
    let (name, _) = lookup(query).unwrap();
    d.wait_js(&format!(
        "document.querySelector('[data-testid=name]').textContent === '{name}'"
    ))
    .await;
    wait_for_steps(&recorder, "click", 1).await;
    let mut draft = recorder.stop().await.unwrap();
    let fill = draft
        .steps
        .iter()
        .position(|s| matches!(s.step, Step::Fill(_)))
        .unwrap_or_else(|| panic!("a fill: {:#?}", draft.steps));
    draft.mark_input(fill, InputMark::string("query")).unwrap();
    draft
        .mark_output(OutputMark::css(
            "name",
            "[data-testid=name]",
            OutputKind::String,
        ))
        .unwrap();
    draft
        .mark_output(OutputMark::css(
            "price",
            "[data-testid=price]",
            OutputKind::Number,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    save_and_load(
        &draft.into_tool_file("htmx-price", "1.0.0", None).unwrap(),
        dir.path(),
    )
}

/// What the server computes for `query`, as the tool's outputs.
fn expected(query: &str) -> Value {
    let (name, cents) = lookup(query).unwrap();
    json!({ "name": name, "price": cents as f64 / 100.0 })
}

async fn replay(h: &Harness, file: &ToolFile, query: &str) -> Result<Value, ReplayError> {
    let context = h.browser.new_context().await.unwrap();
    let inputs = json!({ "query": query }).as_object().cloned().unwrap();
    let report = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await;
    context.close().await.unwrap();
    report.map(|r| Value::Object(r.outputs))
}

#[tokio::test]
async fn htmx_replays_wait_for_the_search_the_click_started() {
    let h = Harness::start().await;
    let server = SlowServer::start();
    let file = record(&h, &server, "lamp").await;
    let click = file
        .steps
        .iter()
        .find_map(|s| match s {
            Step::Click(c) => Some(c),
            _ => None,
        })
        .unwrap();
    let settle = click
        .settle
        .as_ref()
        .unwrap_or_else(|| panic!("the click keeps what it set off: {:#?}", file.steps));
    assert_eq!(settle.describe(), ["GET /search answered"]);
    // The fill set nothing off: nothing to wait for.
    assert!(
        file.steps
            .iter()
            .all(|s| !matches!(s, Step::Fill(f) if f.settle.is_some()))
    );
    for query in ["kettle", "chair", "lamp"] {
        let outputs = replay(&h, &file, query)
            .await
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(outputs, expected(query), "{query}");
    }

    // A server that stopped answering: the click fails, naming the call it waited for —
    // never an empty name.
    server.hang(true);
    let answered = server.answered.load(std::sync::atomic::Ordering::Acquire);
    match replay(&h, &file, "kettle").await {
        Err(ReplayError::StepFailed {
            kind,
            failure,
            message,
            ..
        }) => {
            assert_eq!(kind, "click", "{message}");
            assert_eq!(failure, FailureKind::NotSettled, "{message}");
            assert!(
                message.contains("expected GET /search answered; seen: sent, never answered"),
                "{message}"
            );
        }
        other => panic!("a replay against a silent server must fail at the click: {other:?}"),
    }
    assert_eq!(
        server.answered.load(std::sync::atomic::Ordering::Acquire),
        answered
    );
    h.close().await;
}
