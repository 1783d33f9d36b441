use browserflow_steps::{
    ClickStep, ExpectedNavigation, Selector, SelectorCandidate, SelectorKind, Step,
};
use serde_json::json;

#[test]
fn steps_round_trip_as_pretty_stable_json() {
    let step = Step::Click(ClickStep {
        expect: Vec::new(),
        settle: None,
        label: Some("Open".into()),
        selector: Selector::new([
            SelectorCandidate::test_id("open"),
            SelectorCandidate::role("button", "Open").in_shadow(["shop-app"]),
        ]),
        button: Default::default(),
        click_count: 1,
        hold_ms: None,
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
    assert_eq!(step.kind().name(), "fill");
    let click: Step = serde_json::from_value(json!({
        "type": "click", "selector": { "candidates": [{ "kind": "css", "value": "a" }] }
    }))
    .unwrap();
    let Step::Click(click) = click else { panic!() };
    assert_eq!(click.click_count, 1);
    assert_eq!(click.selector.candidates[0].kind, SelectorKind::Css);
}

/// A drag: the pressed element, the press offset, the relative move and an optional drop
/// target, as a tool file holds it; exported to Playwright as real mouse moves.
#[test]
fn a_drag_step_round_trips_and_exports_as_real_mouse_moves() {
    let value = json!({
        "type": "drag",
        "selector": { "candidates": [{ "kind": "test_id", "value": "months" }] },
        "offset": { "x": 12.0, "y": 12.0 },
        "by": { "x": 60.0, "y": 0.0 }
    });
    let step: Step = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(step.kind().name(), "drag");
    assert!(step.validate().is_ok());
    assert_eq!(serde_json::to_value(&step).unwrap(), value);
    let mut with_extra = value.clone();
    with_extra["distance"] = json!(3);
    assert!(serde_json::from_value::<Step>(with_extra).is_err());
    let Step::Drag(drag) = &step else {
        panic!("not a drag: {step:?}")
    };
    assert_eq!((drag.by.x, drag.target.is_none()), (60.0, true));

    let flow = json!({ "steps": [{ "type": "navigate", "url": "http://localhost:1/a.html" }] });
    let mut tool = browserflow_steps::import_devtools(&flow.to_string(), "x", "1.0.0").unwrap();
    let mut onto = value;
    onto["target"] = json!({ "candidates": [{ "kind": "test_id", "value": "bin" }] });
    tool.steps.push(step);
    tool.steps.push(serde_json::from_value(onto).unwrap());
    let script = browserflow_steps::export_playwright(&tool);
    assert!(
        script.contains("await page.mouse.down();") && script.contains("x + 60, y + 0"),
        "{script}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("drag.js");
    std::fs::write(&path, &script).unwrap();
    let status = std::process::Command::new("node")
        .arg("--check")
        .arg(&path)
        .status()
        .expect("node runs");
    assert!(status.success(), "{script}");
}
