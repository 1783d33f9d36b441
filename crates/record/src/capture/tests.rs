//! The builder's bookkeeping, without a browser.

use super::*;
use serde_json::{Value, json};

fn target(token: &str, password: bool) -> Value {
    json!({
        "token": token, "description": "textbox \"Q\"", "name": "user[pass]",
        "tag": "input", "inputType": if password { "password" } else { "text" },
        "label": "", "password": password, "appeared": false, "appearedAt": 0,
        "text": "", "repeat": null,
        "candidates": [{ "kind": "test_id", "value": token, "count": 1, "target": true }],
    })
}

/// A message as the script sends it: `payload` with the envelope of a report (`doc`, `seq`,
/// `at`) added, read by the one reader.
fn script(builder: &mut Builder, payload: Value) -> Vec<RecordEvent> {
    let mut payload = payload;
    for (key, value) in [("doc", json!("d")), ("seq", json!(0)), ("at", json!(0))] {
        payload[key] = value;
    }
    let message = crate::protocol::read(MAIN_PAGE, &payload.to_string()).expect("readable");
    builder.observe(
        Observed::Script {
            page: MAIN_PAGE.into(),
            message: Box::new(message),
        },
        &[],
    )
}

#[test]
fn typing_coalesces_into_one_fill_and_replaces_the_focusing_click() {
    let mut b = Builder::new();
    b.start("http://x/", None);
    let frame = json!({ "top": true, "url": "http://x/", "name": "" });
    script(
        &mut b,
        json!({ "type": "click", "frame": frame, "target": target("a", false), "gesture": "d:1" }),
    );
    for v in ["k", "ke", "key"] {
        script(
            &mut b,
            json!({ "type": "input", "frame": frame, "value": v, "target": target("a", false) }),
        );
    }
    assert_eq!(b.steps.len(), 2);
    let Step::Fill(f) = &b.steps[1].step else {
        panic!("{:?}", b.steps[1])
    };
    assert_eq!(f.value, "key");
    script(
        &mut b,
        json!({ "type": "key", "key": "Enter", "modifiers": [], "frame": frame,
            "target": target("a", false), "gesture": "d:2" }),
    );
    b.observe(
        Observed::MainNavigated {
            page: MAIN_PAGE.into(),
            url: "http://x/s?q=key".into(),
            renderer_initiated: true,
        },
        &[],
    );
    let Step::KeyPress(k) = &b.steps[2].step else {
        panic!()
    };
    assert_eq!(
        k.navigation.as_ref().unwrap().url.as_deref(),
        Some("http://x/s?*")
    );
}

#[test]
fn a_password_becomes_a_secret_input_and_its_value_is_not_kept() {
    let mut b = Builder::new();
    b.start("http://x/", None);
    let frame = json!({ "top": true, "url": "http://x/", "name": "" });
    script(
        &mut b,
        json!({ "type": "input", "frame": frame, "target": target("p", true) }),
    );
    let Step::Fill(f) = &b.steps[1].step else {
        panic!()
    };
    assert_eq!(f.value, "{{user_pass}}");
    assert!(b.steps[1].secret);
    assert!(b.inputs[0].secret);
}

#[test]
fn a_dialog_is_answered_before_the_step_that_opened_it() {
    let mut b = Builder::new();
    b.start("http://x/", None);
    let frame = json!({ "top": true, "url": "http://x/", "name": "" });
    script(
        &mut b,
        json!({ "type": "click", "frame": frame, "target": target("c", false), "gesture": "d:1" }),
    );
    b.observe(
        Observed::DialogOpened {
            kind: "confirm".into(),
        },
        &[],
    );
    b.observe(
        Observed::DialogClosed {
            page: MAIN_PAGE.into(),
            accepted: true,
            user_input: String::new(),
        },
        &[],
    );
    assert_eq!(b.steps[1].step.kind().name(), "handle_dialog");
    assert_eq!(b.steps[2].step.kind().name(), "click");
}

#[test]
fn a_popups_first_load_is_the_opening_steps_even_when_the_browser_reports_it_as_its_own() {
    let mut b = Builder::new();
    b.start("http://x/", None);
    let frame = json!({ "top": true, "url": "http://x/", "name": "" });
    script(
        &mut b,
        json!({ "type": "click", "frame": frame, "target": target("deals", false), "gesture": "d:1" }),
    );
    b.observe(
        Observed::PopupOpened {
            opener: MAIN_PAGE.into(),
            name: "popup".into(),
            // Announced blank: where the opener sends it arrives as its first load.
            url: "about:blank".into(),
        },
        &[],
    );
    // Under load the popup's load may come as browser-initiated: still not a typed navigation.
    let navigated = |b: &mut Builder, url: &str| {
        b.observe(
            Observed::MainNavigated {
                page: "popup".into(),
                url: url.into(),
                renderer_initiated: false,
            },
            &[],
        )
    };
    navigated(&mut b, "http://x/deals.html");
    let kinds: Vec<&str> = b.steps.iter().map(|s| s.step.kind().name()).collect();
    assert_eq!(kinds, ["navigate", "click"], "{:#?}", b.steps);
    // A later address-bar navigation in the popup is a step of its own.
    navigated(&mut b, "http://x/other.html");
    let kinds: Vec<&str> = b.steps.iter().map(|s| s.step.kind().name()).collect();
    assert_eq!(kinds, ["navigate", "click", "navigate"], "{:#?}", b.steps);
}
