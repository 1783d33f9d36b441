//! A structure candidate survives a redesign: the submit button of the form holding the field
//! that was filled is found after its id, text, test id and CSS path all changed — and a second
//! "Search" button elsewhere on the page is never clicked instead. Fixtures:
//! `tests/fixtures/redesign`.

use browserflow_record::{Draft, InputMark, OutputMark, Recorder};
use browserflow_replay::{ReplayError, Replayer};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::{
    Anchor, FieldRef, OutputKind, Pick, RoleRef, SelectorCandidate, SelectorKind, Step, Structure,
    ToolFile,
};
use serde_json::{Map, Value, json};

use crate::record::driver::*;
use crate::support::Harness;

fn redesign_fixtures() -> FixtureServer {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/redesign");
    FixtureServer::serve_files(read_dir_files(&dir).expect("redesign fixtures read"))
        .expect("fixture server starts")
}

/// Records, with trusted input on `page`: type `query` into the field labelled "Query", then
/// click the finder form's "Search" button (`#go`); the output is what the page says was
/// submitted. The typed text is the input `query`.
async fn record_search(h: &Harness, server: &FixtureServer, page: &str, query: &str) -> ToolFile {
    let recorder = Recorder::start_on(&h.browser, &options(server.url(page)))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.getElementById('q')").await;
    d.type_keys(query).await;
    d.click("document.getElementById('go')").await;
    d.wait_js(&format!(
        "document.querySelector('[data-testid=submitted]').textContent === 'finder: {query}'"
    ))
    .await;
    assert!(
        recorder.wait_until(WAIT, |s| s.len() == 3).await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "fill", "click"],
        "{:#?}",
        draft.steps
    );
    draft.mark_input(1, InputMark::string("query")).unwrap();
    draft
        .mark_output(OutputMark::css(
            "submitted",
            "[data-testid=submitted]",
            OutputKind::String,
        ))
        .unwrap();
    assert_default_button_candidate(&draft);
    let dir = tempfile::tempdir().unwrap();
    save_and_load(
        &draft.into_tool_file("search", "1.0.0", None).unwrap(),
        dir.path(),
    )
}

/// The click keeps a structure candidate — the default button of the form holding the field
/// labelled "Query" — below every candidate that names the button itself and above the
/// positional CSS and XPath paths.
fn assert_default_button_candidate(draft: &Draft) {
    let Step::Click(click) = &draft.steps[2].step else {
        panic!("expected a click, got {:?}", draft.steps[2].step)
    };
    let candidates = &click.selector.candidates;
    let structure = SelectorCandidate::structure(
        "button",
        Structure {
            within: Anchor::FormWithField(FieldRef::Label("Query".into())),
            pick: Pick::DefaultButton,
            of: None,
        },
    );
    let at = candidates
        .iter()
        .position(|c| *c == structure)
        .unwrap_or_else(|| panic!("no default-button candidate in {candidates:#?}"));
    let first_positional = candidates
        .iter()
        .position(|c| matches!(c.kind, SelectorKind::Css | SelectorKind::Xpath))
        .expect("a CSS or XPath path");
    assert!(at < first_positional, "{candidates:#?}");
    assert!(
        candidates[..at]
            .iter()
            .all(|c| c.kind != SelectorKind::Structure),
        "{candidates:#?}"
    );
    assert!(
        candidates[at..].iter().all(|c| matches!(
            c.kind,
            SelectorKind::Structure | SelectorKind::Css | SelectorKind::Xpath
        )),
        "{candidates:#?}"
    );
}

/// The same tool, started on another page of the same site.
fn started_on(file: &ToolFile, server: &FixtureServer, page: &str) -> ToolFile {
    let mut file = file.clone();
    let Step::Navigate(navigate) = &mut file.steps[0] else {
        panic!("the tool starts with a navigation")
    };
    navigate.url = server.url(page);
    navigate.navigation = None;
    file
}

async fn replay_result(
    h: &Harness,
    file: &ToolFile,
    query: &str,
) -> Result<(Map<String, Value>, Option<SelectorKind>, String), ReplayError> {
    let context = h.browser.new_context().await.expect("context");
    let inputs = json!({ "query": query }).as_object().cloned().unwrap();
    let result = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await
        .map(|report| {
            let winner = report.steps[2].selector.as_ref();
            let described = winner.map(|s| s.description.clone()).unwrap_or_default();
            (report.outputs, winner.map(|s| s.kind), described)
        });
    context.close().await.expect("context closes");
    result
}

#[tokio::test]
async fn the_submit_button_is_found_after_its_id_text_and_test_id_changed() {
    let h = Harness::start().await;
    let server = redesign_fixtures();
    let file = record_search(&h, &server, "/finder.html", "keyboard").await;

    // On the page it was recorded on, the button's own test id wins.
    let (outputs, winner, _) = replay_result(&h, &file, "keyboard").await.unwrap();
    assert_eq!(outputs["submitted"], "finder: keyboard");
    assert_eq!(winner, Some(SelectorKind::TestId));

    // The redesign: `#go` / "Search" / `go` are now `#run-search` / "Find" / `run-search`, the
    // form is `#search-panel`, the markup around it changed. The structure candidate finds it,
    // with the recorded input and with another one.
    let redesigned = started_on(&file, &server, "/finder-redesign.html");
    for query in ["keyboard", "mouse"] {
        let (outputs, winner, _) = replay_result(&h, &redesigned, query)
            .await
            .unwrap_or_else(|e| panic!("the redesign replays: {e}"));
        assert_eq!(outputs["submitted"], format!("finder: {query}"));
        assert_eq!(winner, Some(SelectorKind::Structure));
    }
    h.close().await;
}

#[tokio::test]
async fn a_second_search_button_elsewhere_is_never_clicked_instead() {
    let h = Harness::start().await;
    let server = redesign_fixtures();
    let file = record_search(&h, &server, "/two-searches.html", "keyboard").await;
    let Step::Click(click) = &file.steps[2] else {
        unreachable!()
    };
    // "Search" names both buttons: neither role+name nor text was kept.
    assert!(
        click
            .selector
            .candidates
            .iter()
            .all(|c| !matches!(c.kind, SelectorKind::Role | SelectorKind::Text)),
        "{:#?}",
        click.selector.candidates
    );

    // Two independent anchors: the form holding the field labelled "Query", and the main
    // landmark, whose only button it is.
    let main = Anchor::Region(RoleRef {
        role: "main".into(),
        name: None,
    });
    assert_eq!(structure_of(&file.steps[2], &main).pick, Pick::Only);

    let (outputs, winner, _) = replay_result(&h, &file, "keyboard").await.unwrap();
    assert_eq!(outputs["submitted"], "finder: keyboard");
    assert_eq!(winner, Some(SelectorKind::TestId));

    // Both buttons carry the test id `go`, the finder's lost its id, and the header form took
    // the id `finder`, so the recorded CSS path and XPath now find the header's button: the
    // structure candidate ranks above them and the finder form is the one submitted.
    let ambiguous = started_on(&file, &server, "/two-searches-ambiguous.html");
    let (outputs, winner, described) = replay_result(&h, &ambiguous, "keyboard")
        .await
        .unwrap_or_else(|e| panic!("the ambiguous variant replays: {e}"));
    assert_eq!(outputs["submitted"], "finder: keyboard");
    assert_eq!(winner, Some(SelectorKind::Structure));
    assert!(
        described.contains("the form holding the field labelled"),
        "{described}"
    );

    // The finder's field was relabelled and renamed as well: the form anchor is gone, and
    // the main landmark still holds one button.
    let relabelled = started_on(&file, &server, "/two-searches-relabelled.html");
    let (outputs, winner, described) = replay_result(&h, &relabelled, "mouse")
        .await
        .unwrap_or_else(|e| panic!("the relabelled variant replays: {e}"));
    assert_eq!(outputs["submitted"], "finder: mouse");
    assert_eq!(winner, Some(SelectorKind::Structure));
    assert_eq!(described, r#"structure "button", in the main"#);

    // Nothing recorded tells the buttons apart any more (both forms hold a field labelled
    // "Query" and named `q`, and there are no landmarks): the replay fails at the click and
    // names it.
    let lost = started_on(&file, &server, "/two-searches-lost.html");
    match replay_result(&h, &lost, "keyboard").await {
        Err(ReplayError::StepFailed {
            index,
            kind,
            message,
            ..
        }) => {
            assert_eq!((index, kind.as_str()), (2, "click"), "{message}");
            assert!(message.contains("matched 2 elements"), "{message}");
        }
        Ok((outputs, ..)) => panic!("no button may be clicked, but {outputs:?}"),
        Err(other) => panic!("expected the click to fail, got {other}"),
    }
    h.close().await;
}

/// The structure candidate of `step`: the one anchored as `within`.
fn structure_of(step: &Step, within: &Anchor) -> Structure {
    let Step::Click(click) = step else {
        panic!("expected a click, got {step:?}")
    };
    click
        .selector
        .candidates
        .iter()
        .filter_map(|c| c.structure.clone())
        .find(|s| s.within == *within)
        .unwrap_or_else(|| panic!("no structure in {within:?}: {:#?}", click.selector))
}

/// Records on `regions.html` with trusted input: the "Orders" button of the "Account"
/// navigation, then the "Basel" option of the listbox the "City" combobox controls; the
/// outputs are the section and the city chosen.
async fn record_regions(h: &Harness, server: &FixtureServer) -> ToolFile {
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/regions.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.getElementById('nav-orders')").await;
    d.click("document.getElementById('city')").await;
    d.wait_js("!document.getElementById('city-list').hidden")
        .await;
    d.click("document.getElementById('opt-basel')").await;
    d.wait_js("document.querySelector('[data-testid=chosen]').textContent === 'basel'")
        .await;
    wait_for_steps(&recorder, "click", 3).await;
    let mut draft = recorder.stop().await.unwrap();
    // In about half the runs (measured with and without structure candidates) the recorder's
    // hover-reveal rule also writes a hover on the listbox before the option's click: the
    // options were hidden when the combobox was released. That rule is not what this test is
    // about (reported to its owner); a person would delete the step, and so does the test.
    if let Some(at) = draft
        .steps
        .iter()
        .position(|s| s.step.kind().name() == "hover")
    {
        draft.remove_step(at).unwrap();
    }
    assert_eq!(
        kinds(&draft),
        ["navigate", "click", "click", "click"],
        "{:#?}",
        draft.steps
    );
    // The navigation's second button, and the second option of what the combobox controls,
    // each among the three the recording saw there.
    let account = Anchor::Region(RoleRef {
        role: "navigation".into(),
        name: Some("Account".into()),
    });
    let city = Anchor::ControlledBy(RoleRef {
        role: "combobox".into(),
        name: Some("City".into()),
    });
    for (step, anchor) in [(1, &account), (3, &city)] {
        let structure = structure_of(&draft.steps[step].step, anchor);
        assert_eq!(
            (structure.pick, structure.of),
            (
                Pick::Nth(2.try_into().unwrap()),
                Some(3.try_into().unwrap())
            ),
            "step {step}"
        );
    }
    for field in ["section", "chosen"] {
        draft
            .mark_output(OutputMark::css(
                field,
                format!("[data-testid={field}]"),
                OutputKind::String,
            ))
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    save_and_load(
        &draft.into_tool_file("regions", "1.0.0", None).unwrap(),
        dir.path(),
    )
}

#[tokio::test]
async fn a_button_of_a_labelled_navigation_and_an_option_of_a_combobox_s_listbox_survive_a_redesign()
 {
    let h = Harness::start().await;
    let server = redesign_fixtures();
    let file = record_regions(&h, &server).await;
    let expected = json!({ "section": "orders", "chosen": "basel" });
    for page in ["/regions.html", "/regions-redesign.html"] {
        let file = started_on(&file, &server, page);
        let context = h.browser.new_context().await.expect("context");
        let report = Replayer::default()
            .run(&context, &file.steps, &Map::new())
            .await
            .unwrap_or_else(|e| panic!("{page} replays: {e}"));
        context.close().await.expect("context closes");
        assert_eq!(Value::Object(report.outputs), expected, "{page}");
        let winners: Vec<SelectorKind> = report.steps[1..4]
            .iter()
            .map(|s| s.selector.as_ref().unwrap().kind)
            .collect();
        if page == "/regions-redesign.html" {
            // The combobox kept its name; the button and the option kept only their place.
            assert_eq!(
                winners,
                [
                    SelectorKind::Structure,
                    SelectorKind::Role,
                    SelectorKind::Structure
                ],
                "{page}"
            );
        }
    }
    h.close().await;
}

/// The listbox grew a second "Basel" (another canton's) before the recorded one, and its
/// options lost their ids and test ids: the option's name now matches two, and its recorded
/// place — the second of three options — is among four. Position never settles that: the
/// click fails naming both options, and nothing is chosen (by position alone, the other
/// Basel would be, with exit 0).
#[tokio::test]
async fn a_list_that_grew_an_item_of_the_same_name_fails_naming_both() {
    let h = Harness::start().await;
    let server = redesign_fixtures();
    let file = record_regions(&h, &server).await;
    let grown = started_on(&file, &server, "/regions-grown.html");
    let context = h.browser.new_context().await.expect("context");
    let result = Replayer::default()
        .run(&context, &grown.steps, &Map::new())
        .await;
    context.close().await.expect("context closes");
    match result {
        Err(ReplayError::StepFailed {
            index,
            kind,
            message,
            ..
        }) => {
            assert_eq!((index, kind.as_str()), (3, "click"), "{message}");
            assert!(
                message.contains(r#"role "option" name "Basel": matched 2 elements"#),
                "{message}"
            );
            // Neither the option's place in the listbox nor its CSS path and XPath choose.
            let not_consulted = message
                .matches("names several elements, and position does not choose among them")
                .count();
            assert!(not_consulted >= 3, "{message}");
        }
        Ok(report) => panic!("position chose an option: {:?}", report.outputs),
        Err(other) => panic!("expected the option's click to fail, got {other}"),
    }
    h.close().await;
}
