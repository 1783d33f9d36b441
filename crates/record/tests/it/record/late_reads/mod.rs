//! Reads checked like gestures, on a page whose results arrive after a server round trip
//! (50–300 ms, `server.rs`) behind a loading state: a marked output records the shape of what
//! it read and the element's identity, and keeps candidates that need none of its ids; the
//! replay waits for a value consistent with them — never "", "Loading…" or a skeleton — with
//! other inputs, on a re-render that removes the ids for a while, and on a redesign. Fixtures:
//! `tests/fixtures/late-reads`.

mod server;

use browserflow_record::{InputMark, OutputBySelector, Recorder};
use browserflow_replay::Replayer;
use browserflow_steps::{
    Anchor, ElementIdentity, OutputKind, RecordedRead, SelectorKind, Step, TextShape, ToolFile,
};
use serde_json::{Map, Value, json};

use crate::record::driver::*;
use crate::support::Harness;
use server::{PRODUCTS, QuoteServer};

/// Records on `page` with trusted input: type `keyboard` into "Product code", click "Get
/// quote", wait for the answer; the input is `code`, the outputs the name and the price,
/// marked by selector in the live page.
async fn record_quote(h: &Harness, server: &QuoteServer, page: &str) -> ToolFile {
    let outputs = vec![
        OutputBySelector::new("name", "#name", OutputKind::String),
        OutputBySelector::new("price", "#price", OutputKind::Number),
    ];
    let answered = "document.getElementById('name')?.textContent === 'Mechanical Keyboard'";
    record_on(h, server, page, ("q", "go"), answered, outputs).await
}

/// Records on `page` with trusted input: type `keyboard` into the field of id `field`, click
/// the button of id `button`, wait until `answered` (a JS expression) holds; the input is
/// `code`, `outputs` are marked by selector in the live page.
async fn record_on(
    h: &Harness,
    server: &QuoteServer,
    page: &str,
    (field, button): (&str, &str),
    answered: &str,
    outputs: Vec<OutputBySelector>,
) -> ToolFile {
    let recorder = Recorder::start_on(&h.browser, &options(server.url(page)))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click(&format!("document.getElementById('{field}')"))
        .await;
    d.type_keys("keyboard").await;
    d.click(&format!("document.getElementById('{button}')"))
        .await;
    d.wait_js(answered).await;
    wait_for_steps(&recorder, "click", 1).await;
    let marks = recorder.resolve_marks(Vec::new(), outputs).await;
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "fill", "click"],
        "{:#?}",
        draft.steps
    );
    draft.mark_input(1, InputMark::string("code")).unwrap();
    draft.apply_marks(marks).unwrap();
    let dir = tempfile::tempdir().unwrap();
    save_and_load(
        &draft.into_tool_file("quote", "1.0.0", None).unwrap(),
        dir.path(),
    )
}

fn extract(file: &ToolFile, field: &str) -> browserflow_steps::ExtractStep {
    file.steps
        .iter()
        .find_map(|s| match s {
            Step::Extract(e) if e.field == field => Some(e.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no extract of {field}"))
}

/// The same tool, started on `page`.
fn started_on(file: &ToolFile, server: &QuoteServer, page: &str) -> ToolFile {
    let mut file = file.clone();
    let Step::Navigate(navigate) = &mut file.steps[0] else {
        panic!("the tool starts with a navigation")
    };
    navigate.url = server.url(page);
    navigate.navigation = None;
    file
}

/// Replays with the product `code`; the outputs, and the winning candidate of each extract.
async fn replay_quote(
    h: &Harness,
    file: &ToolFile,
    code: &str,
) -> (Map<String, Value>, Vec<(SelectorKind, String)>) {
    let context = h.browser.new_context().await.expect("context");
    let inputs = json!({ "code": code }).as_object().cloned().unwrap();
    let report = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await
        .unwrap_or_else(|e| panic!("replay with {code} failed: {e}"));
    context.close().await.expect("context closes");
    let winners = report
        .steps
        .iter()
        .filter(|s| s.kind == "extract")
        .map(|s| {
            let w = s.selector.as_ref().expect("an extract names its winner");
            (w.kind, w.description.clone())
        })
        .collect();
    (report.outputs, winners)
}

fn expected(code: &str) -> Value {
    let (_, name, price) = PRODUCTS.iter().find(|(c, ..)| *c == code).unwrap();
    let number: f64 = price
        .trim_start_matches('$')
        .replace(',', "")
        .parse()
        .unwrap();
    json!({ "name": name, "price": number })
}

#[tokio::test]
async fn a_value_that_arrives_late_is_read_once_it_is_there_with_two_other_inputs() {
    let h = Harness::start().await;
    let server = QuoteServer::start();
    let file = record_quote(&h, &server, "/quote.html?mode=late").await;

    // The recording knows what it read: a text and an amount, beside their labels in the card
    // headed "Quote"; and each read keeps a candidate that needs neither its ids nor its text.
    let name = extract(&file, "name");
    let price = extract(&file, "price");
    let identity = |label: &str| ElementIdentity {
        tag: "span".into(),
        role: None,
        label: Some(label.into()),
        heading: Some("Quote".into()),
    };
    assert_eq!(
        name.recorded,
        Some(RecordedRead {
            shape: TextShape::Text,
            element: Some(identity("Product")),
        })
    );
    assert_eq!(
        price.recorded,
        Some(RecordedRead {
            shape: TextShape::Amount,
            element: Some(identity("Price")),
        })
    );
    for (step, label) in [(&name, "Product"), (&price, "Price")] {
        let anchors: Vec<&Anchor> = step
            .selector
            .candidates
            .iter()
            .filter_map(|c| c.structure.as_ref().map(|s| &s.within))
            .collect();
        assert!(
            anchors.contains(&&Anchor::BesideLabel(label.into()))
                && anchors.contains(&&Anchor::UnderHeading("Quote".into())),
            "{:#?}",
            step.selector.candidates
        );
    }
    // Never the recorded value itself.
    let json = file.to_json_pretty();
    assert_eq!(json.matches("Mechanical Keyboard").count(), 0, "{json}");

    for code in ["mouse", "lamp"] {
        let (outputs, winners) = replay_quote(&h, &file, code).await;
        assert_eq!(Value::Object(outputs), expected(code), "{code}");
        assert!(
            winners
                .iter()
                .all(|(kind, _)| *kind == SelectorKind::TestId),
            "{winners:?}"
        );
    }
    // The recording and each replay really asked the server.
    assert!(server.answered.load(std::sync::atomic::Ordering::SeqCst) >= 3);
    h.close().await;
}

#[tokio::test]
async fn an_id_gone_during_a_rerender_never_lets_a_path_read_the_skeleton() {
    let h = Harness::start().await;
    let server = QuoteServer::start();
    let file = record_quote(&h, &server, "/quote.html?mode=rerender").await;
    // While the answer is awaited the rows are skeleton rows without ids, whose bars say
    // "Loading": the recorded CSS path and XPath find a bar in the name's place.
    let name = extract(&file, "name");
    assert!(
        name.selector
            .candidates
            .iter()
            .any(|c| matches!(c.kind, SelectorKind::Css | SelectorKind::Xpath)),
        "{:#?}",
        name.selector.candidates
    );
    for code in ["mouse", "lamp"] {
        let (outputs, winners) = replay_quote(&h, &file, code).await;
        assert_eq!(Value::Object(outputs), expected(code), "{code}");
        assert!(
            winners
                .iter()
                .all(|(kind, _)| *kind == SelectorKind::TestId),
            "{winners:?}"
        );
    }
    h.close().await;
}

#[tokio::test]
async fn a_redesigned_results_page_is_read_beside_the_same_labels_in_the_same_card() {
    let h = Harness::start().await;
    let server = QuoteServer::start();
    let file = record_quote(&h, &server, "/quote.html?mode=late").await;
    // Every id, test id and class of the results changed, the spans are divs, and another
    // card of offers shows a "Price:" too: the label alone matches two values there, so the
    // card's heading decides.
    let redesigned = started_on(&file, &server, "/redesign.html?mode=rerender");
    for code in ["mouse", "lamp"] {
        let (outputs, winners) = replay_quote(&h, &redesigned, code).await;
        assert_eq!(Value::Object(outputs), expected(code), "{code}");
        assert!(
            winners
                .iter()
                .all(|(kind, _)| *kind == SelectorKind::Structure),
            "{winners:?}"
        );
        assert!(
            winners[0].1.contains("beside the label \"Product\""),
            "{winners:?}"
        );
        assert!(
            winners[1].1.contains("the card with the heading \"Quote\""),
            "{winners:?}"
        );
    }
    h.close().await;
}

/// A figure with no label and no heading near it (`total.html`): the read keeps a path
/// through its stable classes alone — none of the generated ones a build renames (emotion,
/// styled-components, CSS modules, Tailwind variants) —, and that path reads it on a redesign
/// that changed every id and test id, renamed the generated classes and wrapped the figure.
#[tokio::test]
async fn a_figure_without_label_or_heading_is_read_by_its_stable_classes_after_a_redesign() {
    let h = Harness::start().await;
    let server = QuoteServer::start();
    let outputs = vec![OutputBySelector::new(
        "price",
        "#amount-1",
        OutputKind::Number,
    )];
    let answered = "document.getElementById('amount-1').textContent === '$89.00'";
    let file = record_on(
        &h,
        &server,
        "/total.html",
        ("code-1", "ask-1"),
        answered,
        outputs,
    )
    .await;
    let price = extract(&file, "price");
    let candidates = &price.selector.candidates;
    // Nothing to read it by but where it stands: no label, no heading, no anchor.
    assert!(
        candidates.iter().all(|c| c.kind != SelectorKind::Structure),
        "{candidates:#?}"
    );
    let class_path = candidates
        .iter()
        .find(|c| c.kind == SelectorKind::Css && c.value == ".hero__amount")
        .unwrap_or_else(|| panic!("no class path in {candidates:#?}"));
    assert!(class_path.shadow.is_empty(), "{class_path:?}");
    for generated in ["css-", "sc-", "_x1a2b", "__3xYz_", "hover:"] {
        assert!(
            candidates.iter().all(|c| !c.value.contains(generated)),
            "{generated} in {candidates:#?}"
        );
    }

    let redesigned = started_on(&file, &server, "/total-redesign.html");
    for code in ["mouse", "lamp"] {
        let (outputs, winners) = replay_quote(&h, &file, code).await;
        assert_eq!(outputs["price"], expected(code)["price"], "{code}");
        assert_eq!(winners[0].0, SelectorKind::TestId, "{winners:?}");
        let (outputs, winners) = replay_quote(&h, &redesigned, code).await;
        assert_eq!(outputs["price"], expected(code)["price"], "{code}");
        assert_eq!(
            winners,
            [(SelectorKind::Css, class_path.describe())],
            "{code}"
        );
    }
    h.close().await;
}
