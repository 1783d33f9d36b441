use browserflow_steps::{
    ClickStep, ExpectedNavigation, Selector, SelectorCandidate, SelectorKind, Step,
};
use serde_json::json;

#[test]
fn steps_round_trip_as_pretty_stable_json() {
    let step = Step::Click(ClickStep {
        label: Some("Open".into()),
        selector: Selector::new([
            SelectorCandidate::test_id("open"),
            SelectorCandidate::role("button", "Open").in_shadow(["shop-app"]),
        ]),
        button: Default::default(),
        click_count: 1,
        offset: None,
        navigation: Some(ExpectedNavigation {
            url: Some("*/next".into()),
            title: None,
        }),
        opens_popup: None,
        timeout_ms: None,
    });
    let text = serde_json::to_string_pretty(&step).unwrap();
    assert_eq!(
        text,
        r#"{
  "type": "click",
  "label": "Open",
  "selector": {
    "candidates": [
      {
        "kind": "test_id",
        "value": "open"
      },
      {
        "kind": "role",
        "value": "button",
        "name": "Open",
        "shadow": [
          "shop-app"
        ]
      }
    ]
  },
  "navigation": {
    "url": "*/next"
  }
}"#
    );
    let back: Step = serde_json::from_str(&text).unwrap();
    assert_eq!(back, step);
}

#[test]
fn unknown_fields_and_kinds_are_rejected_with_their_names() {
    let err = serde_json::from_value::<Step>(json!({
        "type": "click", "selector": { "candidates": [] }, "colour": "red"
    }))
    .unwrap_err();
    assert!(err.to_string().contains("colour"), "{err}");
    let err = serde_json::from_value::<Step>(json!({ "type": "teleport" })).unwrap_err();
    assert!(err.to_string().contains("teleport"), "{err}");
    let err = serde_json::from_value::<Step>(json!({
        "type": "click", "selector": { "candidates": [{ "kind": "magic", "value": "x" }] }
    }))
    .unwrap_err();
    assert!(err.to_string().contains("magic"), "{err}");
}

#[test]
fn change_is_an_alias_of_fill_and_defaults_are_filled_in() {
    let step: Step = serde_json::from_value(json!({
        "type": "change", "value": "2", "selector": { "candidates": [{ "kind": "id", "value": "q" }] }
    }))
    .unwrap();
    assert_eq!(step.kind(), "fill");
    let click: Step = serde_json::from_value(json!({
        "type": "click", "selector": { "candidates": [{ "kind": "css", "value": "a" }] }
    }))
    .unwrap();
    let Step::Click(click) = click else { panic!() };
    assert_eq!(click.click_count, 1);
    assert_eq!(click.selector.candidates[0].kind, SelectorKind::Css);
}
