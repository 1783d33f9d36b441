//! Every message kind read from its JSON (`captured.json`), and malformed messages refused
//! with their place.

use serde_json::json;

use super::*;

/// One or more messages of every kind, in the JSON `recorder.js` posts through its binding:
/// the `ready` messages as Chromium delivered them (captured from a recording), the others
/// written from what `recorder.js` builds for each kind (`send`, `emit`, `targetInfo`,
/// `check`). Replacing these with captures of a full journey is left to do.
const CAPTURED: &str = include_str!("captured.json");

fn captured() -> Vec<Value> {
    serde_json::from_str(CAPTURED).expect("captured.json is a JSON array")
}

#[test]
fn every_captured_message_is_read_and_every_kind_was_captured() {
    let mut seen = std::collections::BTreeSet::new();
    for value in captured() {
        let message = read("main", &value.to_string()).unwrap_or_else(|e| panic!("{e}\n{value:#}"));
        assert_eq!(
            Some(message.frame().url.as_str()),
            value["frame"]["url"].as_str()
        );
        assert_eq!(message.moment().is_some(), value.get("doc").is_some());
        // What is read is what is written back: nothing dropped on the way.
        let written = serde_json::to_value(&message).expect("serialises");
        assert_eq!(
            read("main", &written.to_string()).expect("reads back"),
            message
        );
        seen.insert(value["type"].as_str().unwrap_or_default().to_string());
    }
    let missing: Vec<&&str> = MESSAGE_TYPES
        .iter()
        .filter(|t| !seen.contains(**t))
        .collect();
    assert!(missing.is_empty(), "no captured message of {missing:?}");
}

#[test]
fn each_kind_is_its_own_variant_with_its_fields() {
    let find = |kind: &str| {
        captured()
            .into_iter()
            .find(|v| v["type"] == kind)
            .unwrap_or_else(|| panic!("a captured `{kind}`"))
    };
    let click = read("main", &find("click").to_string()).unwrap();
    let RecorderMessage::Click(click) = click else {
        panic!("{click:?}")
    };
    assert!(!click.target.candidates.is_empty());
    assert!(click.gesture.contains(':'));
    let key = read("main", &find("key").to_string()).unwrap();
    assert!(matches!(key, RecorderMessage::Key(KeyMessage { ref key, .. }) if !key.is_empty()));
    let acting = read("main", &find("acting").to_string()).unwrap();
    assert!(matches!(acting, RecorderMessage::Acting(ActingMessage { seq, .. }) if seq > 0));
    let state = read("main", &find("state").to_string()).unwrap();
    assert!(matches!(state, RecorderMessage::State(_)));
    assert!(
        !read("main", &find("click").to_string())
            .unwrap()
            .frame()
            .url
            .is_empty()
    );
}

/// The problem `text` is refused with, from page `popup`.
fn refused(text: &str) -> ProtocolError {
    match read("popup", text) {
        Ok(message) => panic!("read {text} as {message:?}"),
        Err(error) => {
            assert_eq!(error.page, "popup");
            *error
        }
    }
}

/// A captured message of `kind` changed by `change`.
fn changed(kind: &str, change: impl FnOnce(&mut Value)) -> String {
    let mut value = captured()
        .into_iter()
        .find(|v| v["type"] == kind)
        .unwrap_or_else(|| panic!("a captured `{kind}`"));
    change(&mut value);
    value.to_string()
}

#[test]
fn text_that_is_not_json_is_refused_as_a_whole() {
    let error = refused("{\"type\": \"click\",");
    assert_eq!(error.problem.rule, Rule::InvalidJson);
    assert_eq!(error.problem.pointer, "");
    assert_eq!((error.message_type, error.frame_url), (None, None));
    let twice = refused(r#"{"type": "ready", "type": "click"}"#);
    assert_eq!(twice.problem.rule, Rule::DuplicateKey);
}

#[test]
fn a_message_without_a_known_type_is_refused_at_its_type() {
    let frame = json!({ "top": true, "url": "http://127.0.0.1:1/a", "name": "" });
    let unknown = refused(&json!({ "type": "hover", "frame": frame }).to_string());
    assert_eq!(unknown.problem.pointer, "/type");
    assert_eq!(unknown.problem.rule, Rule::UnknownVariant);
    assert!(unknown.unknown_type());
    assert_eq!(unknown.message_type.as_deref(), Some("hover"));
    assert_eq!(unknown.frame_url.as_deref(), Some("http://127.0.0.1:1/a"));
    assert!(unknown.problem.message.contains("click"), "{unknown}");
    let untyped = refused(&json!({ "frame": frame }).to_string());
    assert_eq!(
        (untyped.problem.pointer.as_str(), untyped.problem.rule),
        ("/type", Rule::MissingField)
    );
    let numbered = refused(&json!({ "type": 3, "frame": frame }).to_string());
    assert_eq!(
        (numbered.problem.pointer.as_str(), numbered.problem.rule),
        ("/type", Rule::WrongType)
    );
    let listed = refused("[1, 2]");
    assert_eq!(listed.problem.rule, Rule::WrongType);
}

#[test]
fn a_malformed_field_is_refused_at_its_pointer_naming_the_message_and_frame() {
    let cases: Vec<(&str, String, &str, Rule)> = vec![
        (
            "click",
            changed("click", |v| {
                v.as_object_mut().unwrap().remove("target");
            }),
            "",
            Rule::MissingField,
        ),
        (
            "click",
            changed("click", |v| {
                v["target"]["candidates"][0]["kind"] = json!("shadow_css")
            }),
            "/target/candidates/0/kind",
            Rule::UnknownVariant,
        ),
        (
            "acting",
            changed("acting", |v| v["seq"] = json!("3")),
            "/seq",
            Rule::WrongType,
        ),
        (
            "key",
            changed("key", |v| v["modifiers"] = json!(["hyper"])),
            "/modifiers/0",
            Rule::UnknownVariant,
        ),
        (
            "state",
            changed("state", |v| {
                v["checks"] = json!([{ "state": "value", "equals": "a" }, { "state": "hue" }])
            }),
            "/checks/1/state",
            Rule::UnknownVariant,
        ),
        (
            "input",
            changed("input", |v| v["target"]["colour"] = json!("red")),
            "/target/colour",
            Rule::UnknownField,
        ),
        (
            "scroll",
            changed("scroll", |v| {
                v["frame"]["viewport"] = json!({ "width": -1, "height": 2 })
            }),
            "/frame/viewport/width",
            Rule::InvalidValue,
        ),
    ];
    for (kind, text, pointer, rule) in cases {
        let error = refused(&text);
        assert_eq!(error.message_type.as_deref(), Some(kind), "{error}");
        assert!(error.frame_url.is_some(), "{error}");
        assert_eq!(
            (error.problem.pointer.as_str(), error.problem.rule),
            (pointer, rule),
            "{kind}: {error}"
        );
        let said = error.to_string();
        assert!(said.contains(&format!("`{kind}` message")), "{said}");
        assert!(said.contains("page `popup`"), "{said}");
    }
}

#[test]
fn every_describe_css_answer_is_read_by_its_kind() {
    let pick = captured()
        .into_iter()
        .find(|v| v["type"] == "pick")
        .expect("a captured pick");
    let answer = json!({ "target": pick["target"], "read": pick["read"],
        "frame": { "top": true, "url": "http://127.0.0.1:1/", "name": "" } });
    let Ok(DescribeAnswer::Element(described)) = read_described(&answer) else {
        panic!("an element: {answer}");
    };
    assert_eq!(described.frame.url, "http://127.0.0.1:1/");
    assert_eq!(
        read_described(&json!({ "count": 2 })),
        Ok(DescribeAnswer::NotOne(NotOneElement { count: 2 }))
    );
    let invalid = "'#' is not a valid selector";
    assert_eq!(
        read_described(&json!({ "invalid": invalid })),
        Ok(DescribeAnswer::Invalid(InvalidSelector {
            invalid: invalid.to_string()
        }))
    );
    // A pick's envelope is not part of the answer, and a wrong field is found where it is.
    let mut typed = answer.clone();
    typed["type"] = json!("pick");
    let problem = read_described(&typed).expect_err("an unknown field");
    assert_eq!(
        (problem.pointer.as_str(), problem.rule),
        ("/type", Rule::UnknownField)
    );
    let problem = read_described(&json!({ "count": "two" })).expect_err("a mistyped count");
    assert_eq!(
        (problem.pointer.as_str(), problem.rule),
        ("/count", Rule::WrongType)
    );
}
