//! Whole journeys: search-price recorded, saved, read back and replayed; a password as a
//! secret input; a popup.

use std::sync::Arc;

use browserflow_record::{InputMark, OutputMark, Recorder};
use browserflow_steps::{OutputKind, SelectorCandidate, Step};
use serde_json::{Value, json};

use crate::record::driver::*;
use crate::support::Harness;

#[tokio::test]
async fn the_search_price_journey_is_recorded_saved_and_replays_to_the_same_output() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/index.html")))
        .await
        .expect("recording starts");
    let mut events = recorder.subscribe();
    let d = Driver::new(recorder.page());

    d.click("document.getElementById('search-input')").await;
    d.insert_text("keyboard").await;
    d.press_enter().await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::KeyPress(k) if k.navigation.is_some())
            ))
            .await,
        "the Enter key is recorded with its navigation: {:#?}",
        recorder.steps()
    );
    d.wait_js("document.querySelector('#results a')").await;
    d.click("document.querySelector('#results a')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::Click(c) if c.navigation.is_some())
            ))
            .await,
        "the result click is recorded with its navigation: {:#?}",
        recorder.steps()
    );
    d.wait_js("document.getElementById('product-price').textContent !== ''")
        .await;
    let on_page = recorder
        .page()
        .evaluate_in_main_frame(
            "[document.getElementById('product-name').textContent, document.getElementById('product-price').textContent]",
        )
        .await
        .unwrap();
    let price = recorder
        .element("main", "#product-price")
        .await
        .expect("price element");
    let name = recorder
        .element("main", "#product-name")
        .await
        .expect("name element");
    assert_eq!(price.text, on_page[1]);
    assert_eq!(
        price.selector.candidates[0],
        SelectorCandidate::test_id("product-price"),
        "a test id ranks first: {:?}",
        price.selector
    );
    let mut draft = recorder.stop().await.expect("recording stops");

    // The live stream saw the steps as they came.
    let mut added = 0;
    while let Ok(event) = events.try_recv() {
        if matches!(event, browserflow_record::RecordEvent::StepAdded { .. }) {
            added += 1;
        }
    }
    assert!(added >= 4, "{added} steps streamed");

    assert_eq!(
        kinds(&draft),
        ["navigate", "fill", "key_press", "wait_for_element", "click"],
        "{:#?}",
        draft.steps
    );
    let Step::Fill(fill) = &draft.steps[1].step else {
        unreachable!()
    };
    assert_eq!(fill.value, "keyboard");
    assert_eq!(
        fill.selector.candidates[0],
        SelectorCandidate::test_id("search-input")
    );
    let Step::Click(click) = &draft.steps[4].step else {
        unreachable!()
    };
    let expected = click
        .navigation
        .as_ref()
        .and_then(|n| n.url.clone())
        .unwrap();
    assert!(expected.ends_with("/product.html?*"), "{expected}");

    draft.mark_input(1, InputMark::string("query")).unwrap();
    draft
        .mark_output(OutputMark::picked("name", &name, OutputKind::String))
        .unwrap();
    let mut price_mark = OutputMark::picked("price", &price, OutputKind::Number);
    price_mark.currency_field = Some("currency".into());
    draft.mark_output(price_mark).unwrap();
    let file = draft
        .into_tool_file(
            "search-price-recorded",
            "1.0.0",
            Some("Search and read a price"),
        )
        .expect("a valid tool");
    assert_eq!(
        file.contract.inputs()[0].schema.default,
        Some(json!("keyboard"))
    );

    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(&file, dir.path());
    let outputs = replay(&h, &file, json!({ "query": "keyboard" })).await;
    assert_eq!(
        Value::Object(outputs),
        json!({ "name": on_page[0], "price": 89.99, "currency": "USD" })
    );
    // The input is a real parameter: another query replays to another product.
    let outputs = replay(&h, &file, json!({ "query": "mouse" })).await;
    assert_eq!(outputs["name"], "Wireless Mouse");

    // And through the Rider, as `bflow run` does, with the default from the recording.
    let shared = browserflow_replay::SharedBrowser::new(browserflow_cdp::BrowserConfig {
        ws_endpoint: Some(h.browser.ws_endpoint().to_string()),
        ..Default::default()
    });
    let run = browserflow_catalog::run_tool::run_tool(
        &file,
        &[(
            "query".to_owned(),
            browserflow_catalog::RunInput::Value(json!("keyboard")),
        )]
        .into(),
        browserflow_catalog::RunSetup {
            browser: Arc::new(shared),
            ..Default::default()
        },
    )
    .await
    .unwrap_or_else(|e| panic!("run_tool: {e}"));
    assert_eq!(run.output["price"], 89.99);
    h.close().await;
}

#[tokio::test]
async fn a_password_becomes_a_secret_input_whose_value_is_in_no_file_and_typing_is_one_fill() {
    const CANARY: &str = "canary-Pa55-7q9z";
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-login.html")))
        .await
        .expect("recording starts");
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('user')").await;
    d.type_keys("ada").await;
    d.click("document.getElementById('pass')").await;
    d.type_keys(CANARY).await;
    d.click("document.getElementById('sign-in')").await;
    d.wait_js("document.getElementById('login-status').textContent.startsWith('Welcome')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind().name() == "click"))
            .await
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "fill", "fill", "click"],
        "one fill per field, the focusing clicks folded in: {:#?}",
        draft.steps
    );
    let Step::Fill(user) = &draft.steps[1].step else {
        unreachable!()
    };
    assert_eq!(user.value, "ada", "three key presses, one step");
    let Step::Fill(pass) = &draft.steps[2].step else {
        unreachable!()
    };
    assert_eq!(pass.value, "{{password}}");
    assert!(draft.steps[2].secret);
    assert!(draft.steps[2].recorded_value.is_none());

    draft.mark_input(1, InputMark::string("user")).unwrap();
    draft
        .mark_output(OutputMark::css(
            "status",
            "#login-status",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("draft.json"),
        serde_json::to_string_pretty(&draft).unwrap(),
    )
    .unwrap();
    let file = draft.into_tool_file("login", "1.0.0", None).unwrap();
    let password = file.contract.input("password").expect("a password input");
    assert!(password.secret);
    assert_eq!(password.schema.default, None);
    assert!(
        file.contract
            .capabilities()
            .iter()
            .any(|c| c.as_str() == "secrets")
    );
    let file = save_and_load(&file, dir.path());
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains(CANARY), "the password leaked into a file");
    }
    let outputs = replay(
        &h,
        &file,
        json!({ "user": "grace", "password": "another-long-one" }),
    )
    .await;
    assert_eq!(outputs["status"], "Welcome, grace");
    h.close().await;
}

#[tokio::test]
async fn a_popup_is_recorded_and_replayed() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/index.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('open-deals')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::Click(c) if c.opens_popup.as_deref() == Some("popup"))
            ))
            .await,
        "{:#?}",
        recorder.steps()
    );
    assert!(
        recorder
            .wait_frame_ready("popup", "/deals.html", WAIT)
            .await
    );
    let deal = recorder
        .element("popup", "[data-testid=deal-price]")
        .await
        .expect("the deal price in the popup");
    assert_eq!(deal.page, "popup");
    recorder
        .mark_output(OutputMark::picked("deal", &deal, OutputKind::Number))
        .expect("output marked while recording");
    let draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "click", "extract"],
        "{:#?}",
        draft.steps
    );
    let file = draft.into_tool_file("deal", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["deal"], 19.99);
    h.close().await;
}
