//! The `structure` selector candidate: its stable pretty JSON, and its strict reading — every
//! bad shape a problem with the pointer of what is wrong.

use browserflow_contract::Rule;
use browserflow_steps::{
    Anchor, ClickStep, FieldRef, Pick, RoleRef, Selector, SelectorCandidate, Step, Structure,
    ToolFile, export_playwright,
};
use serde_json::{Value, json};

fn default_button() -> SelectorCandidate {
    SelectorCandidate::structure(
        "button",
        Structure {
            within: Anchor::FormWithField(FieldRef::Label("Query".into())),
            pick: Pick::DefaultButton,
            of: None,
        },
    )
}

fn click(candidates: Vec<SelectorCandidate>) -> Step {
    Step::Click(ClickStep {
        expect: Vec::new(),
        settle: None,
        label: None,
        selector: Selector::new(candidates),
        button: Default::default(),
        click_count: 1,
        hold_ms: None,
        offset: None,
        navigation: None,
        opens_popup: None,
        timeout_ms: None,
    })
}

#[test]
fn structure_candidates_are_pretty_stable_json_and_round_trip() {
    let nth_option = SelectorCandidate::structure(
        "option",
        Structure {
            within: Anchor::ControlledBy(RoleRef {
                role: "combobox".into(),
                name: Some("City".into()),
            }),
            pick: Pick::Nth(2.try_into().unwrap()),
            of: Some(3.try_into().unwrap()),
        },
    );
    let only_link = SelectorCandidate::structure(
        "link",
        Structure {
            within: Anchor::Region(RoleRef {
                role: "navigation".into(),
                name: None,
            }),
            pick: Pick::Only,
            of: None,
        },
    );
    let step = click(vec![default_button(), nth_option, only_link]);
    let text = serde_json::to_string_pretty(&step).unwrap();
    assert_eq!(
        text,
        r#"{
  "type": "click",
  "selector": {
    "candidates": [
      {
        "kind": "structure",
        "value": "button",
        "structure": {
          "within": {
            "form_with_field": {
              "label": "Query"
            }
          },
          "pick": "default_button"
        }
      },
      {
        "kind": "structure",
        "value": "option",
        "structure": {
          "within": {
            "controlled_by": {
              "role": "combobox",
              "name": "City"
            }
          },
          "pick": {
            "nth": 2
          },
          "of": 3
        }
      },
      {
        "kind": "structure",
        "value": "link",
        "structure": {
          "within": {
            "region": {
              "role": "navigation"
            }
          }
        }
      }
    ]
  }
}"#
    );
    let back: Step = serde_json::from_str(&text).unwrap();
    assert_eq!(back, step);
    assert_eq!(
        default_button().describe(),
        r#"structure "button", the default button of the form holding the field labelled "Query""#
    );
}

fn tool_with(candidate: Value) -> String {
    json!({
        "contract": {
            "name": "structure", "version": "1.0.0", "kind": "browser", "description": "A click.",
            "inputs": [], "output": { "type": "object" }, "capabilities": ["browser"]
        },
        "steps": [
            { "type": "navigate", "url": "http://127.0.0.1:8080/" },
            { "type": "click", "selector": { "candidates": [
                { "kind": "css", "value": "#go" },
                candidate
            ] } }
        ]
    })
    .to_string()
}

fn problems_of(candidate: Value) -> Vec<(String, Rule, String)> {
    let err = ToolFile::from_json_str(&tool_with(candidate.clone()))
        .expect_err(&format!("refused: {candidate}"));
    err.problems()
        .unwrap_or_else(|| panic!("problems expected: {err}"))
        .iter()
        .map(|p| (p.pointer.clone(), p.rule, p.message.clone()))
        .collect()
}

const AT: &str = "/steps/1/selector/candidates/1";

#[test]
fn a_good_structure_candidate_reads() {
    let file = ToolFile::from_json_str(&tool_with(json!({
        "kind": "structure", "value": "button",
        "structure": { "within": { "form_with_field": { "name": "q" } }, "pick": "default_button" }
    })))
    .unwrap();
    let candidate = &file.steps[1].selector().unwrap().candidates[1];
    assert_eq!(
        candidate.structure.as_ref().unwrap().within,
        Anchor::FormWithField(FieldRef::Name("q".into()))
    );
}

#[test]
fn bad_shapes_are_problems_located_where_they_are() {
    let cases: Vec<(Value, String, Rule, &str)> = vec![
        // The kind without its structure, and a structure on another kind.
        (
            json!({ "kind": "structure", "value": "button" }),
            AT.into(),
            Rule::InvalidValue,
            "needs the field `structure`",
        ),
        (
            json!({ "kind": "role", "value": "button",
                    "structure": { "within": { "region": { "role": "form" } } } }),
            AT.into(),
            Rule::InvalidValue,
            "only a `structure` candidate has `structure`",
        ),
        // serde's own rules, at the exact member.
        (
            json!({ "kind": "structure", "value": "button",
                    "structure": { "within": { "region": { "role": "form" } }, "extra": 1 } }),
            format!("{AT}/structure/extra"),
            Rule::UnknownField,
            "unknown field `extra`",
        ),
        (
            json!({ "kind": "structure", "value": "button", "structure": {} }),
            format!("{AT}/structure"),
            Rule::MissingField,
            "needs the field `within`",
        ),
        (
            json!({ "kind": "structure", "value": "button",
                    "structure": { "within": { "shelf": { "role": "form" } } } }),
            format!("{AT}/structure/within/shelf"),
            Rule::UnknownVariant,
            "unknown value `shelf`",
        ),
        // A count of the role's elements goes with an `nth` pick, at or past it.
        (
            json!({ "kind": "structure", "value": "button",
                    "structure": { "within": { "region": { "role": "main" } }, "of": 2 } }),
            AT.into(),
            Rule::InvalidValue,
            "`structure.of` goes only with an `nth` pick",
        ),
        (
            json!({ "kind": "structure", "value": "button",
                    "structure": { "within": { "region": { "role": "main" } },
                                   "pick": { "nth": 3 }, "of": 2 } }),
            AT.into(),
            Rule::InvalidValue,
            "`structure.pick.nth` is 3, past the 2 elements",
        ),
        (
            json!({ "kind": "structure", "value": "button",
                    "structure": { "within": { "form_with_field": { "label": "Q", "name": "q" } } } }),
            format!("{AT}/structure/within/form_with_field"),
            Rule::WrongType,
            "expected a string (one of: label, name)",
        ),
        (
            json!({ "kind": "structure", "value": "option",
                    "structure": { "within": { "controlled_by": { "role": "combobox", "label": "x" } } } }),
            format!("{AT}/structure/within/controlled_by/label"),
            Rule::UnknownField,
            "unknown field `label`",
        ),
        (
            json!({ "kind": "structure", "value": "option",
                    "structure": { "within": { "region": { "role": "listbox" } }, "pick": { "nth": 0 } } }),
            format!("{AT}/structure/pick/nth"),
            Rule::InvalidValue,
            "nonzero",
        ),
        (
            json!({ "kind": "structure", "value": "option",
                    "structure": { "within": { "region": { "role": "listbox" } }, "pick": "first" } }),
            format!("{AT}/structure/pick"),
            Rule::UnknownVariant,
            "unknown value `first`",
        ),
        (
            json!({ "kind": "structure", "value": "option",
                    "structure": { "within": { "region": { "role": 7 } } } }),
            format!("{AT}/structure/within/region/role"),
            Rule::WrongType,
            "expected a string",
        ),
        // The rules between fields, at the candidate, naming the field.
        (
            json!({ "kind": "structure", "value": "button",
                    "structure": { "within": { "form_with_field": { "label": "  " } } } }),
            AT.into(),
            Rule::InvalidValue,
            "`structure.within.form_with_field.label` is empty",
        ),
        (
            json!({ "kind": "structure", "value": "button",
                    "structure": { "within": { "region": { "role": "dialog", "name": "" } } } }),
            AT.into(),
            Rule::InvalidValue,
            "`structure.within.region.name` is empty",
        ),
        (
            json!({ "kind": "structure", "value": "button",
                    "structure": { "within": { "region": { "role": "navigation" } }, "pick": "default_button" } }),
            AT.into(),
            Rule::InvalidValue,
            "`pick: default_button` needs a form",
        ),
    ];
    for (candidate, pointer, rule, words) in cases {
        let problems = problems_of(candidate.clone());
        // The first problem is the one meant; any after it (the reader goes on once the bad
        // member is taken out) stays inside the candidate.
        assert!(
            problems.iter().all(|(at, _, _)| at.starts_with(AT)),
            "{candidate}: {problems:?}"
        );
        let (at, got_rule, message) = &problems[0];
        assert_eq!(
            (at.as_str(), *got_rule),
            (pointer.as_str(), rule),
            "{candidate}: {message}"
        );
        assert!(message.contains(words), "{candidate}: {message}");
    }
}

#[test]
fn the_playwright_export_names_a_structure_candidate_in_a_comment() {
    let file = ToolFile::from_json_str(&tool_with(json!({
        "kind": "structure", "value": "button",
        "structure": { "within": { "form_with_field": { "label": "Query */ boom()" } }, "pick": "default_button" }
    })))
    .unwrap();
    let script = export_playwright(&file);
    assert!(
        script.contains(r#"/* not exported: structure "button", the default button of the form holding the field labelled "Query * / boom()" */"#),
        "{script}"
    );
    assert!(!script.contains("kind: \"structure\""), "{script}");
}

#[test]
fn a_read_s_label_and_heading_anchors_and_what_it_recorded_are_pretty_json() {
    let text = r#"{
  "type": "extract",
  "selector": {
    "candidates": [
      {
        "kind": "structure",
        "value": "generic",
        "structure": {
          "within": {
            "beside_label": "Price"
          }
        }
      },
      {
        "kind": "structure",
        "value": "generic",
        "structure": {
          "within": {
            "under_heading": "Quote"
          },
          "pick": {
            "nth": 7
          }
        }
      }
    ]
  },
  "field": "price",
  "kind": "number",
  "recorded": {
    "shape": "amount",
    "element": {
      "tag": "span",
      "label": "Price",
      "heading": "Quote"
    }
  }
}"#;
    let step: Step = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_string_pretty(&step).unwrap(), text);
    let Step::Extract(extract) = &step else {
        panic!("an extract")
    };
    let described: Vec<String> = extract
        .selector
        .candidates
        .iter()
        .map(SelectorCandidate::describe)
        .collect();
    assert_eq!(
        described,
        [
            r#"structure "generic", in what is beside the label "Price""#,
            r#"structure "generic", number 7 in the card with the heading "Quote""#,
        ]
    );
    // An extract without `recorded` (hand-written, imported) reads and writes as before.
    let plain = r##"{
  "type": "extract",
  "selector": {
    "candidates": [
      {
        "kind": "css",
        "value": "#price"
      }
    ]
  },
  "field": "price"
}"##;
    let step: Step = serde_json::from_str(plain).unwrap();
    assert_eq!(serde_json::to_string_pretty(&step).unwrap(), plain);
}

#[test]
fn empty_read_anchors_and_a_default_button_beside_a_label_are_problems() {
    for (within, message) in [
        (
            json!({ "beside_label": " " }),
            "`structure.within.beside_label` is empty",
        ),
        (
            json!({ "under_heading": "" }),
            "`structure.within.under_heading` is empty",
        ),
    ] {
        let problems = problems_of(json!({ "kind": "structure", "value": "generic",
            "structure": { "within": within } }));
        assert!(
            problems
                .iter()
                .any(|(at, _, m)| at == AT && m.contains(message)),
            "{problems:?}"
        );
    }
    let problems = problems_of(json!({ "kind": "structure", "value": "button",
        "structure": { "within": { "beside_label": "Price" }, "pick": "default_button" } }));
    assert!(
        problems.iter().any(|(_, _, m)| m.contains("needs a form")),
        "{problems:?}"
    );
}
