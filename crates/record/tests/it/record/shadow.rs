//! A form inside two levels of web components (open shadow roots, slots): recorded with
//! trusted input, replayed with other inputs; replayed on a redesign whose ids, classes and
//! custom-element names all changed (the role and label candidates pierce the shadow roots, so
//! they need no chain of host selectors); and on a page with two such forms, where every
//! candidate that names a field is ambiguous across the shadow roots and no position (the
//! n-th textbox of the main) settles it: the first fill fails naming the matches.
//! Fixtures: `tests/fixtures/shadow`.

use browserflow_record::{InputMark, OutputMark, Recorder};
use browserflow_replay::{ReplayError, Replayer};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::{OutputKind, SelectorKind, Step, ToolFile};
use serde_json::{Map, Value, json};

use crate::record::driver::*;
use crate::support::Harness;

fn shadow_fixtures() -> FixtureServer {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/shadow");
    FixtureServer::serve_files(read_dir_files(&dir).expect("shadow fixtures read"))
        .expect("fixture server starts")
}

/// The element `field` of the form two shadow roots down, as a JS expression.
fn in_form(field: &str) -> String {
    format!(
        "document.querySelector('checkout-card').shadowRoot.querySelector('address-form').shadowRoot.querySelector('{field}')"
    )
}

async fn record_checkout(h: &Harness, server: &FixtureServer) -> ToolFile {
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/checkout.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click(&in_form("input[name=afullname]")).await;
    d.type_keys("Grace Hopper").await;
    d.click(&in_form("input[name=acity]")).await;
    d.type_keys("Arlington").await;
    d.click(&in_form("button")).await;
    d.wait_js("document.getElementById('result').textContent === 'Ship Grace Hopper to Arlington'")
        .await;
    assert!(
        recorder.wait_until(WAIT, |s| s.len() == 4).await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "fill", "fill", "click"]);
    draft.mark_input(1, InputMark::string("name")).unwrap();
    draft.mark_input(2, InputMark::string("city")).unwrap();
    draft
        .mark_output(OutputMark::css("shipped", "#result", OutputKind::String))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    save_and_load(
        &draft.into_tool_file("checkout", "1.0.0", None).unwrap(),
        dir.path(),
    )
}

/// The same tool, started on another page of the fixtures.
fn started_on(file: &ToolFile, server: &FixtureServer, page: &str) -> ToolFile {
    let mut file = file.clone();
    let Step::Navigate(navigate) = &mut file.steps[0] else {
        panic!("the tool starts with a navigation")
    };
    navigate.url = server.url(page);
    navigate.navigation = None;
    file
}

/// Replays with `name` and `city`: the output and the winning candidate kind of each of the
/// three steps on the form.
async fn replay_checkout(
    h: &Harness,
    file: &ToolFile,
    name: &str,
    city: &str,
) -> Result<(Map<String, Value>, Vec<SelectorKind>), ReplayError> {
    let context = h.browser.new_context().await.expect("context");
    let inputs = json!({ "name": name, "city": city })
        .as_object()
        .cloned()
        .unwrap();
    let result = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await
        .map(|report| {
            let winners = report.steps[1..4]
                .iter()
                .filter_map(|s| s.selector.as_ref().map(|w| w.kind))
                .collect();
            (report.outputs, winners)
        });
    context.close().await.expect("context closes");
    result
}

#[tokio::test]
async fn a_form_two_shadow_roots_down_is_recorded_by_name_and_replays_after_a_redesign() {
    let h = Harness::start().await;
    let server = shadow_fixtures();
    let file = record_checkout(&h, &server).await;

    // Every step on the form leads with a candidate that names the element and pierces the
    // shadow roots (no host chain); its CSS path keeps the chain of both hosts.
    for step in &file.steps[1..4] {
        let candidates = &step.selector().unwrap().candidates;
        let first = &candidates[0];
        assert!(
            matches!(
                first.kind,
                SelectorKind::Role | SelectorKind::Label | SelectorKind::TestId
            ) && first.shadow.is_empty(),
            "{candidates:#?}"
        );
        let css = candidates
            .iter()
            .find(|c| c.kind == SelectorKind::Css)
            .unwrap_or_else(|| panic!("no CSS candidate in {candidates:#?}"));
        assert_eq!(css.shadow.len(), 2, "{css:?}");
    }
    // The button's name comes through two slots' worth of flat tree.
    let click = file.steps[3].selector().unwrap();
    assert!(
        click
            .candidates
            .iter()
            .any(|c| c.kind == SelectorKind::Role && c.name.as_deref() == Some("Ship here")),
        "{click:#?}"
    );

    // With other inputs, on the page it was recorded on.
    let (outputs, winners) = replay_checkout(&h, &file, "Ada Lovelace", "London")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outputs["shipped"], "Ship Ada Lovelace to London");
    assert_eq!(winners.len(), 3);

    // The redesign: every id, class and custom-element name changed; the words stayed.
    let redesigned = started_on(&file, &server, "/checkout-redesign.html");
    for (name, city) in [("Alan Turing", "Wilmslow"), ("Edsger Dijkstra", "Nuenen")] {
        let (outputs, winners) = replay_checkout(&h, &redesigned, name, city)
            .await
            .unwrap_or_else(|e| panic!("the redesign replays: {e}"));
        assert_eq!(outputs["shipped"], format!("Ship {name} to {city}"));
        assert!(
            winners
                .iter()
                .all(|k| matches!(k, SelectorKind::Role | SelectorKind::Label)),
            "{winners:?}"
        );
    }

    // Two cards of the same form: the field's label names an input in each shadow root, and
    // its recorded place — the first textbox of the main, of two — is now among four. Position
    // never settles what the names leave ambiguous: the first fill fails naming both matches
    // and their hosts, and nothing is filled.
    let twice = started_on(&file, &server, "/checkout-twice.html");
    match replay_checkout(&h, &twice, "Ada", "London").await {
        Err(ReplayError::StepFailed {
            index,
            kind,
            message,
            ..
        }) => {
            assert_eq!((index, kind.as_str()), (1, "fill"), "{message}");
            assert!(
                message.contains(r#"label "Full name": matched 2 elements"#),
                "{message}"
            );
            assert!(
                message.contains("<input#name-b1.in-b> in <address-form-v2#addr-b1.form-b> in <checkout-card-v2#card-b1.shell-b>")
                    && message.contains("<input#name-b2.in-b>"),
                "{message}"
            );
            assert!(
                message.contains("names several elements, and position does not choose among them"),
                "{message}"
            );
        }
        Ok((outputs, _)) => panic!("no field may be filled, but {outputs:?}"),
        Err(other) => panic!("expected the fill to fail, got {other}"),
    }
    h.close().await;
}
