//! Reads checked like gestures: an extract that recorded what it read (`recorded`: the text's
//! shape, the element's identity) waits until its value is consistent with it and otherwise
//! fails naming the expected and the actual value; a lower-ranked candidate is taken only on
//! the element recorded; the `beside_label` / `under_heading` anchors find a value by what a
//! person reads it by. Pages served on 127.0.0.1; values arrive on the page's own timers.

use std::collections::BTreeMap;

use browserflow_replay::{FailureKind, ReplayError, ReplayReport, Replayer};
use browserflow_shop::FixtureServer;
use browserflow_steps::{SelectorKind, Step};
use serde_json::{Map, Value, json};

use crate::support::Harness;

/// A card with two values beside their labels: the name stays empty; the price shows "—",
/// then "Loading…", then `$24.99` (120 ms after load). `#late` appears 200 ms after load, while
/// a skeleton bar saying "Loading" sits where a positional path finds it. The seat says
/// "Please wait", "Bitte warten", "Chargement en cours" and "Loading seats" before its value
/// (160 ms after load); the total says "Calculating" for good.
const PAGE: &str = r#"<!doctype html><html><body><main>
<section class="card"><h2>Quote</h2>
  <div class="row"><span class="label">Product</span><span id="name"></span></div>
  <div class="row"><span class="label">Price</span><span id="price">—</span></div>
  <div class="row" id="slot"><span class="bar">Loading</span><span class="bar">Loading</span></div>
</section>
<section class="card"><h2>Offers</h2>
  <div class="row"><span class="label">Price</span><span>$5.00</span></div>
</section>
<section class="card"><h2>Seats</h2>
  <div class="row"><span class="label">Seats</span><span id="seats">Please wait</span></div>
  <div class="row"><span class="label">Total</span><span id="total">Calculating</span></div>
</section>
</main><script>
setTimeout(() => { document.getElementById('seats').textContent = 'Bitte warten'; }, 40);
setTimeout(() => { document.getElementById('seats').textContent = 'Chargement en cours'; }, 80);
setTimeout(() => { document.getElementById('seats').textContent = 'Loading seats'; }, 120);
setTimeout(() => { document.getElementById('seats').textContent = 'Window, row 12'; }, 160);
setTimeout(() => { document.getElementById('price').textContent = 'Loading…'; }, 30);
setTimeout(() => { document.getElementById('price').textContent = '$24.99'; }, 120);
setTimeout(() => {
  document.getElementById('slot').innerHTML = '<span class="label">Status</span><span id="late">In stock</span>';
}, 200);
</script></body></html>"#;

fn page_server() -> FixtureServer {
    FixtureServer::serve_files(BTreeMap::from([(
        "card.html".to_string(),
        PAGE.as_bytes().to_vec(),
    )]))
    .expect("fixture server starts")
}

async fn run(
    h: &Harness,
    server: &FixtureServer,
    extracts: Value,
) -> Result<ReplayReport, ReplayError> {
    let mut steps = vec![json!({ "type": "navigate", "url": server.url("/card.html") })];
    steps.extend(extracts.as_array().cloned().unwrap());
    let steps: Vec<Step> = serde_json::from_value(Value::Array(steps)).expect("steps parse");
    let context = h.browser.new_context().await.expect("context");
    let result = Replayer::default().run(&context, &steps, &Map::new()).await;
    context.close().await.expect("context closes");
    result
}

fn identity(label: &str, heading: &str) -> Value {
    json!({ "tag": "span", "label": label, "heading": heading })
}

#[tokio::test]
async fn an_extract_that_reads_empty_where_the_recording_saw_text_fails_naming_expected_and_actual()
{
    let h = Harness::start().await;
    let server = page_server();
    let recorded = json!([{ "type": "extract", "field": "name", "timeout_ms": 700,
        "selector": { "candidates": [{ "kind": "id", "value": "name" }] },
        "recorded": { "shape": "text", "element": identity("Product", "Quote") } }]);
    match run(&h, &server, recorded).await {
        Err(ReplayError::StepFailed {
            index,
            kind,
            failure,
            message,
            ..
        }) => {
            assert_eq!((index, kind.as_str()), (1, "extract"), "{message}");
            assert_eq!(failure, FailureKind::ReadMismatch, "{message}");
            assert!(message.contains("field `name`"), "{message}");
            assert!(
                message.contains("expected a text with letters or digits"),
                "{message}"
            );
            assert!(message.contains("beside \"Product\""), "{message}");
            assert!(message.contains("actual \"\""), "{message}");
        }
        other => panic!("the read of \"\" must fail, got {other:?}"),
    }
    // The same step written by hand (nothing recorded) keeps today's rule: a string may be "".
    let by_hand = json!([{ "type": "extract", "field": "name", "timeout_ms": 700,
        "selector": { "candidates": [{ "kind": "id", "value": "name" }] } }]);
    let report = run(&h, &server, by_hand)
        .await
        .expect("a hand-written read");
    assert_eq!(report.outputs["name"], "");
    h.close().await;
}

#[tokio::test]
async fn a_read_waits_past_placeholders_and_a_typed_field_never_takes_one() {
    let h = Harness::start().await;
    let server = page_server();
    // "—" then "Loading…" then the price: a string of the recorded shape waits for the price,
    // and so does a hand-written number (no figure in a placeholder).
    let steps = json!([
        { "type": "extract", "field": "shown",
          "selector": { "candidates": [{ "kind": "id", "value": "price" }] },
          "recorded": { "shape": "amount", "element": identity("Price", "Quote") } },
        { "type": "extract", "field": "price", "kind": "number",
          "selector": { "candidates": [{ "kind": "id", "value": "price" }] } },
    ]);
    let report = run(&h, &server, steps).await.expect("the price arrives");
    assert_eq!(report.outputs["shown"], "$24.99");
    assert_eq!(report.outputs["price"], 24.99);

    // A placeholder that never turns into a figure fails as a read, naming it.
    let never = json!([{ "type": "extract", "field": "offers", "kind": "number", "timeout_ms": 500,
        "selector": { "candidates": [{ "kind": "css", "value": "#name" }] } }]);
    match run(&h, &server, never).await {
        Err(e @ ReplayError::StepFailed { .. }) => {
            assert_eq!(e.failure_kind(), FailureKind::ReadMismatch, "{e}");
            assert!(
                e.to_string().contains("expected a text with a digit"),
                "{e}"
            );
        }
        other => panic!("an empty number must fail, got {other:?}"),
    }
    h.close().await;
}

#[tokio::test]
async fn placeholder_words_without_an_ellipsis_are_never_read_where_the_recording_saw_text() {
    let h = Harness::start().await;
    let server = page_server();
    let steps = json!([
        { "type": "extract", "field": "seat",
          "selector": { "candidates": [{ "kind": "id", "value": "seats" }] },
          "recorded": { "shape": "text", "element": identity("Seats", "Seats") } },
    ]);
    let report = run(&h, &server, steps).await.expect("the seat arrives");
    assert_eq!(report.outputs["seat"], "Window, row 12");

    let never = json!([{ "type": "extract", "field": "total", "timeout_ms": 600,
        "selector": { "candidates": [{ "kind": "id", "value": "total" }] },
        "recorded": { "shape": "text", "element": identity("Total", "Seats") } }]);
    match run(&h, &server, never).await {
        Err(ReplayError::StepFailed {
            index,
            failure,
            message,
            ..
        }) => {
            assert_eq!(index, 1, "{message}");
            assert_eq!(failure, FailureKind::ReadMismatch, "{message}");
            assert!(message.contains("field `total`"), "{message}");
            assert!(
                message.contains("expected a text with letters or digits"),
                "{message}"
            );
            assert!(message.contains("actual \"Calculating\""), "{message}");
        }
        other => panic!("a read of \"Calculating\" must fail, got {other:?}"),
    }
    // A read that recorded a placeholder itself (its shape is not a text) takes one.
    let placeholder = json!([{ "type": "extract", "field": "total", "timeout_ms": 600,
        "selector": { "candidates": [{ "kind": "id", "value": "total" }] },
        "recorded": { "shape": "symbols" } }]);
    let report = run(&h, &server, placeholder).await.expect("any text");
    assert_eq!(report.outputs["total"], "Calculating");
    h.close().await;
}

#[tokio::test]
async fn a_lower_ranked_candidate_is_taken_only_on_the_element_recorded() {
    let h = Harness::start().await;
    let server = page_server();
    // `#late` is missing for 200 ms; meanwhile the positional path finds a skeleton bar whose
    // text ("Loading") has the recorded shape. Only the recorded identity tells them apart.
    let candidates = json!([
        { "kind": "id", "value": "late" },
        { "kind": "xpath", "value": "/html/body/main/section[1]/div[3]/span[2]" },
    ]);
    let recorded = json!([{ "type": "extract", "field": "status",
        "selector": { "candidates": candidates },
        "recorded": { "shape": "text", "element": identity("Status", "Quote") } }]);
    let report = run(&h, &server, recorded)
        .await
        .expect("the status arrives");
    assert_eq!(report.outputs["status"], "In stock");
    assert_eq!(
        report.steps[1].selector.as_ref().unwrap().kind,
        SelectorKind::Id
    );

    // Without what the recording read, the path wins on the skeleton at once: the bug.
    let by_hand = json!([{ "type": "extract", "field": "status",
        "selector": { "candidates": candidates } }]);
    let report = run(&h, &server, by_hand)
        .await
        .expect("a hand-written read");
    assert_eq!(report.outputs["status"], "Loading");
    h.close().await;
}

#[tokio::test]
async fn a_value_is_found_beside_its_label_or_in_its_card_and_never_by_an_ambiguous_anchor() {
    let h = Harness::start().await;
    let server = page_server();
    let structure = |within: Value, pick: Option<u32>| {
        let mut s = json!({ "within": within });
        if let Some(n) = pick {
            s["pick"] = json!({ "nth": n });
        }
        json!({ "kind": "structure", "value": "generic", "structure": s })
    };
    let steps = json!([
        { "type": "extract", "field": "status",
          "selector": { "candidates": [structure(json!({ "beside_label": "Status" }), None)] } },
        // Two "Price" labels: the label alone is ambiguous, the card's heading decides.
        { "type": "extract", "field": "price", "timeout_ms": 3000,
          "selector": { "candidates": [
              structure(json!({ "beside_label": "Price" }), None),
              structure(json!({ "under_heading": "Offers" }), Some(3)),
          ] } },
    ]);
    let report = run(&h, &server, steps).await.expect("found by anchors");
    assert_eq!(report.outputs["status"], "In stock");
    assert_eq!(report.outputs["price"], "$5.00");
    let second = report.steps[2].selector.as_ref().unwrap();
    assert!(
        second
            .description
            .contains("the card with the heading \"Offers\""),
        "{second:?}"
    );

    let ambiguous = json!([{ "type": "extract", "field": "price", "timeout_ms": 400,
        "selector": { "candidates": [structure(json!({ "beside_label": "Price" }), None)] } }]);
    match run(&h, &server, ambiguous).await {
        Err(e @ ReplayError::StepFailed { .. }) => {
            assert!(e.to_string().contains("matched 2 elements"), "{e}");
        }
        other => panic!("an ambiguous anchor must fail, got {other:?}"),
    }
    h.close().await;
}
