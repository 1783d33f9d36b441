//! Property tests at scale over the tool-file parser and the DevTools Recorder import: random
//! bytes, byte-level damage of valid files (flips, truncation, deep nesting, huge numbers,
//! repeated keys) and value-level edits. Nothing panics; every problem is located in the
//! document; whatever is accepted is a valid tool file.

use browserflow_steps::{ToolFile, import_devtools};
use proptest::prelude::*;
use serde_json::{Value, json};

fn search_price_text() -> &'static str {
    include_str!("../../../../recordings/search-price@1.2.0.json")
}

/// A recording with one of each Recorder step the import reads.
fn devtools_recording() -> String {
    json!({
        "title": "t", "timeout": 4000,
        "steps": [
            { "type": "setViewport", "width": 1024, "height": 700, "deviceScaleFactor": 2, "isMobile": false, "hasTouch": false, "isLandscape": true },
            { "type": "navigate", "url": "http://localhost:1/a.html", "assertedEvents": [{ "type": "navigation", "url": "http://localhost:1/a.html", "title": "" }] },
            { "type": "click", "selectors": [["aria/Open[role=\"button\"]"], ["host-el", "button.x"], ["text/Op"], ["xpath///button"], ["pierce/.deep"]], "offsetX": 2, "offsetY": 3, "button": "secondary" },
            { "type": "doubleClick", "selectors": ["#d"], "offsetX": 1, "offsetY": 1 },
            { "type": "keyDown", "key": "Shift" }, { "type": "keyDown", "key": "a" }, { "type": "keyUp", "key": "a" }, { "type": "keyUp", "key": "Shift" },
            { "type": "change", "selectors": ["aria/Name"], "value": "v" },
            { "type": "hover", "selectors": ["#h"] },
            { "type": "scroll", "x": 0, "y": 10 },
            { "type": "waitForElement", "selectors": ["li"], "count": 2, "operator": ">=", "attributes": { "class": "c" } },
            { "type": "waitForExpression", "expression": "true" },
            { "type": "click", "target": "http://localhost:1/p.html", "frame": [0, 1], "selectors": ["button"], "offsetX": 1, "offsetY": 1 },
            { "type": "close", "target": "http://localhost:1/p.html" }
        ]
    })
    .to_string()
}

/// One change to a document's bytes.
#[derive(Debug, Clone)]
enum ByteDamage {
    Flip { at: usize, bits: u8 },
    Truncate { at: usize },
    Insert { at: usize, text: &'static str },
    Nest { depth: usize },
}

/// What hostile or broken files are made of.
const INSERTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "null",
    "1e999",
    "-1e400",
    "123456789012345678901234567890",
    "-0",
    "\\u0000",
    "\\ud800",
    "\u{feff}",
    "\"type\": \"click\", ",
    "\"kind\": \"code\", ",
    "\"steps\": [], ",
    "\"selector\": 1, ",
    "\"candidates\": [[]], ",
    "\"baz\": {}, ",
];

fn byte_damage() -> impl Strategy<Value = ByteDamage> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(at, bits)| ByteDamage::Flip { at, bits }),
        any::<usize>().prop_map(|at| ByteDamage::Truncate { at }),
        (any::<usize>(), prop::sample::select(INSERTS))
            .prop_map(|(at, text)| ByteDamage::Insert { at, text }),
        (1..200usize).prop_map(|depth| ByteDamage::Nest { depth }),
    ]
}

fn damaged(text: &str, damages: &[ByteDamage]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for d in damages {
        let len = bytes.len().max(1);
        match d {
            ByteDamage::Flip { at, bits } => {
                if !bytes.is_empty() {
                    bytes[at % len] ^= bits;
                }
            }
            ByteDamage::Truncate { at } => bytes.truncate(at % len),
            ByteDamage::Insert { at, text } => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, text.bytes());
            }
            ByteDamage::Nest { depth } => {
                let mut nested = "[".repeat(*depth).into_bytes();
                nested.extend_from_slice(&bytes);
                nested.extend(std::iter::repeat_n(b']', *depth));
                bytes = nested;
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// One edit of a parsed document at a place chosen among its values.
#[derive(Debug, Clone)]
enum Edit {
    Replace {
        place: usize,
        with: Value,
    },
    Remove {
        place: usize,
    },
    AddField {
        place: usize,
        key: String,
        with: Value,
    },
}

fn small_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        "[a-z_]{0,8}".prop_map(Value::String),
        prop::sample::select(
            &[
                "css",
                "click",
                "navigate",
                "test_id",
                "{{query}}",
                "browser"
            ][..]
        )
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), small_json()).prop_map(|(place, with)| Edit::Replace { place, with }),
        any::<usize>().prop_map(|place| Edit::Remove { place }),
        (any::<usize>(), "[a-z]{1,6}", small_json())
            .prop_map(|(place, key, with)| Edit::AddField { place, key, with }),
    ]
}

/// Every pointer of `value`, root first.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let token = k.replace('~', "~0").replace('/', "~1");
                pointers(v, format!("{at}/{token}"), out);
            }
        }
        _ => {}
    }
}

fn edited(mut doc: Value, edits: &[Edit]) -> Value {
    for e in edits {
        let mut all = Vec::new();
        pointers(&doc, String::new(), &mut all);
        let place = match e {
            Edit::Replace { place, .. } | Edit::Remove { place } | Edit::AddField { place, .. } => {
                &all[place % all.len()]
            }
        };
        match e {
            Edit::Replace { with, .. } => {
                if let Some(slot) = doc.pointer_mut(place) {
                    *slot = with.clone();
                }
            }
            Edit::Remove { .. } => {
                if let Some((parent, last)) = place.rsplit_once('/') {
                    let key = last.replace("~1", "/").replace("~0", "~");
                    match doc.pointer_mut(parent) {
                        Some(Value::Object(map)) => {
                            map.remove(&key);
                        }
                        Some(Value::Array(items)) => {
                            if let Ok(i) = key.parse::<usize>() {
                                items.remove(i);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Edit::AddField { key, with, .. } => {
                if let Some(Value::Object(map)) = doc.pointer_mut(place) {
                    map.insert(key.clone(), with.clone());
                }
            }
        }
    }
    doc
}

/// What every answer of the tool-file parser must be: a file that writes back to itself, or
/// problems that each have a message and a well-formed pointer.
fn check_answer(text: &str) -> Result<(), TestCaseError> {
    match ToolFile::from_json_str(text) {
        Ok(file) => {
            let again = ToolFile::from_json_str(&file.to_json_pretty());
            prop_assert_eq!(again.ok(), Some(file));
        }
        Err(e) => {
            let problems = e.problems().expect("text problems, not I/O");
            prop_assert!(problems.iter().count() > 0);
            for p in problems.iter() {
                prop_assert!(p.pointer.is_empty() || p.pointer.starts_with('/'), "{}", p);
                prop_assert!(!p.message.is_empty());
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn damaged_tool_files_never_panic(damages in prop::collection::vec(byte_damage(), 1..4)) {
        check_answer(&damaged(search_price_text(), &damages))?;
    }

    /// Value-level edits: every problem points at a place in the document (or at an absent
    /// member of an object in it).
    #[test]
    fn edited_tool_files_locate_every_problem(edits in prop::collection::vec(edit(), 1..4)) {
        let doc = edited(serde_json::from_str(search_price_text()).unwrap(), &edits);
        let text = doc.to_string();
        check_answer(&text)?;
        if let Err(e) = ToolFile::from_json_str(&text) {
            for p in e.problems().unwrap().iter() {
                // The place itself, or for a rule about an absent member, its parent.
                let parent = p.pointer.rsplit_once('/').map_or("", |(parent, _)| parent);
                prop_assert!(
                    doc.pointer(&p.pointer).is_some() || doc.pointer(parent).is_some(),
                    "{} is not in the document",
                    p
                );
            }
        }
    }

    #[test]
    fn random_bytes_are_never_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check_answer(&String::from_utf8_lossy(&bytes))?;
        let _ = import_devtools(&String::from_utf8_lossy(&bytes), "t", "1.0.0");
    }

    /// A damaged or edited recording imports to a valid tool file, or is refused.
    #[test]
    fn devtools_imports_are_valid_or_refused(
        damages in prop::collection::vec(byte_damage(), 0..3),
        edits in prop::collection::vec(edit(), 0..3),
    ) {
        let doc: Value = match serde_json::from_str(&damaged(&devtools_recording(), &damages)) {
            Ok(doc) => edited(doc, &edits),
            Err(_) => {
                let _ = import_devtools(&damaged(&devtools_recording(), &damages), "t", "1.0.0");
                return Ok(());
            }
        };
        if let Ok(tool) = import_devtools(&doc.to_string(), "t", "1.0.0") {
            let text = tool.to_json_pretty();
            prop_assert!(ToolFile::from_json_str(&text).is_ok(), "{}", text);
        }
    }
}
