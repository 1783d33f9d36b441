//! One field, one fill: the edits a person makes to one field in a row — clear then retype,
//! backspaces, select-all then type — are one fill of the value they left, so an input mark
//! binds to what was finally typed (never to the empty field between, or to a half-typed
//! value). The recorder coalesces typing into the field of the last step as it goes; this
//! merges what it could not see as one (the same field re-rendered between two edits, so two
//! elements; a text-editing key recorded between them).

use browserflow_steps::{KeyPressStep, Modifier, Selector, Step};

use super::RecordedStep;

/// Keys that only edit a field's text: moving the caret, deleting. A key that chooses
/// (Enter, Tab, an arrow through a list's options, Escape) is never one of them: a fill
/// before it and a fill after it are two things the person did.
const EDITING_KEYS: [&str; 6] = [
    "Backspace",
    "Delete",
    "ArrowLeft",
    "ArrowRight",
    "Home",
    "End",
];
/// With Control or Meta: select all, cut, paste, undo, redo, and deleting a word.
const EDITING_SHORTCUTS: [&str; 7] = ["a", "x", "v", "z", "y", "Backspace", "Delete"];

/// Merges, in place, every run of fills of one field (with only text-editing keys on that
/// field between them) into one fill of the run's last value, where the run's first fill was.
/// The merged fill is typed by keys when any fill of the run was.
pub(crate) fn merge_fills(steps: &mut Vec<RecordedStep>) {
    let mut i = 0;
    while i < steps.len() {
        if matches!(steps[i].step, Step::Fill(_)) {
            while let Some(last) = next_fill_of_same_field(steps, i) {
                let keys = fill_keys(&steps[i]) || fill_keys(&steps[last]);
                let mut merged = steps.remove(last);
                if let Step::Fill(fill) = &mut merged.step {
                    fill.keys = keys;
                }
                steps.splice(i..last, [merged]);
            }
        }
        i += 1;
    }
}

/// The index of the next fill of the field `steps[first]` fills, when only keys that edit
/// that field's text come between.
fn next_fill_of_same_field(steps: &[RecordedStep], first: usize) -> Option<usize> {
    let Step::Fill(fill) = &steps[first].step else {
        return None;
    };
    for (at, later) in steps.iter().enumerate().skip(first + 1) {
        if !same_field(&steps[first], &fill.selector, later) {
            return None;
        }
        if matches!(later.step, Step::Fill(_)) {
            return Some(at);
        }
        if !matches!(&later.step, Step::KeyPress(key) if edits_text(key)) {
            return None;
        }
    }
    None
}

/// Whether `later` acts on the field `first` fills (found by `selector`): on the same page,
/// by the same best candidate, described the same (one element, or the same field re-rendered).
fn same_field(first: &RecordedStep, selector: &Selector, later: &RecordedStep) -> bool {
    let later_selector = if let Step::Fill(f) = &later.step {
        Some(&f.selector)
    } else if let Step::KeyPress(k) = &later.step {
        k.selector.as_ref()
    } else {
        None
    };
    let Some(later_selector) = later_selector else {
        return false;
    };
    later.page == first.page
        && later.target == first.target
        && later.secret == first.secret
        && !selector.candidates.is_empty()
        && later_selector.candidates.first() == selector.candidates.first()
}

fn edits_text(key: &KeyPressStep) -> bool {
    if key.navigation.is_some() || key.opens_popup.is_some() {
        return false;
    }
    let shortcut = key
        .modifiers
        .iter()
        .any(|m| matches!(m, Modifier::Control | Modifier::Meta));
    let plain = key.modifiers.iter().all(|m| matches!(m, Modifier::Shift));
    (plain && EDITING_KEYS.contains(&key.key.as_str()))
        || (shortcut && EDITING_SHORTCUTS.contains(&key.key.as_str()))
}

fn fill_keys(step: &RecordedStep) -> bool {
    matches!(&step.step, Step::Fill(f) if f.keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MAIN_PAGE;
    use crate::draft::{Draft, InputMark};
    use browserflow_steps::{FillStep, SelectorCandidate};

    fn step(step: Step, target: &str) -> RecordedStep {
        RecordedStep {
            step,
            description: String::new(),
            target: Some(target.into()),
            best_selector: None,
            page: MAIN_PAGE.into(),
            url: "http://127.0.0.1:1/".into(),
            recorded_value: None,
            secret: false,
            thumbnail_png: None,
            download: None,
            no_effect: false,
            content_follows: Vec::new(),
            position_follows_input: false,
        }
    }

    fn field(label: &str) -> Selector {
        Selector::new([SelectorCandidate::new(
            browserflow_steps::SelectorKind::Label,
            label,
        )])
    }

    fn fill(label: &str, value: &str, keys: bool) -> RecordedStep {
        let mut s = step(
            Step::Fill(FillStep {
                label: None,
                selector: field(label),
                value: value.into(),
                keys,
                pointer: None,
                timeout_ms: None,
                expect: Vec::new(),
                settle: None,
            }),
            &format!("spinbutton {label:?}"),
        );
        s.recorded_value = Some(value.into());
        s
    }

    fn key(label: &str, key: &str, modifiers: Vec<Modifier>) -> RecordedStep {
        step(
            Step::KeyPress(KeyPressStep {
                label: None,
                key: key.into(),
                modifiers,
                selector: Some(field(label)),
                navigation: None,
                opens_popup: None,
                timeout_ms: None,
                expect: Vec::new(),
                settle: None,
            }),
            &format!("spinbutton {label:?}"),
        )
    }

    fn values(steps: &[RecordedStep]) -> Vec<String> {
        steps
            .iter()
            .map(|s| match &s.step {
                Step::Fill(f) => format!("fill {} {:?}", f.selector.candidates[0].value, f.value),
                Step::KeyPress(k) => format!("key {}", k.key),
                other => other.kind().to_string(),
            })
            .collect()
    }

    #[test]
    fn consecutive_fills_of_one_field_merge_into_the_last_value() {
        let mut steps = vec![fill("Seats", "", false), fill("Seats", "4", false)];
        merge_fills(&mut steps);
        assert_eq!(values(&steps), ["fill Seats \"4\""]);
        assert_eq!(steps[0].recorded_value.as_deref(), Some("4"));
    }

    #[test]
    fn keys_that_only_edit_the_text_merge_with_the_fills_around_them() {
        let mut steps = vec![
            fill("Query", "bana", true),
            key("Query", "Backspace", vec![]),
            key("Query", "a", vec![Modifier::Control]),
            fill("Query", "cherry", false),
            key("Query", "Enter", vec![]),
        ];
        merge_fills(&mut steps);
        assert_eq!(values(&steps), ["fill Query \"cherry\"", "key Enter"]);
        // Typed by keys, as one of its edits was.
        assert!(matches!(&steps[0].step, Step::Fill(f) if f.keys));
    }

    #[test]
    fn a_key_that_chooses_or_another_field_keeps_fills_apart() {
        let mut steps = vec![
            fill("Fruit", "ban", true),
            key("Fruit", "Enter", vec![]),
            fill("Fruit", "che", true),
            key("Fruit", "ArrowDown", vec![]),
            fill("Fruit", "x", true),
            fill("Seats", "4", false),
            fill("Fruit", "y", true),
        ];
        let before = values(&steps);
        merge_fills(&mut steps);
        assert_eq!(values(&steps), before);
        // A key press with no field (sent to whatever has focus) is not known to edit it.
        let mut unknown = vec![fill("Seats", "", false), fill("Seats", "4", false)];
        unknown.insert(1, {
            let mut k = key("Seats", "Backspace", vec![]);
            if let Step::KeyPress(kp) = &mut k.step {
                kp.selector = None;
            }
            k
        });
        merge_fills(&mut unknown);
        assert_eq!(unknown.len(), 3);
    }

    #[test]
    fn an_input_mark_binds_to_the_merged_fill() {
        let mut draft = Draft::new("http://127.0.0.1:1/", None);
        draft.steps = vec![
            fill("Seats", "", false),
            key("Seats", "Backspace", vec![]),
            fill("Seats", "4", false),
        ];
        draft.merge_fills();
        let index = draft
            .fill_step_for(
                "[aria-label=Seats]",
                &[SelectorCandidate::new(
                    browserflow_steps::SelectorKind::Label,
                    "Seats",
                )],
            )
            .expect("the fill of Seats");
        draft
            .mark_input(
                index,
                InputMark::typed("seats", crate::draft::InputType::Integer),
            )
            .expect("marked");
        let file = draft
            .into_tool_file("seats", "1.0.0", None)
            .expect("a tool file");
        assert_eq!(file.steps.len(), 1, "{}", file.to_json_pretty());
        let Step::Fill(fill) = &file.steps[0] else {
            panic!("{}", file.to_json_pretty())
        };
        assert_eq!(fill.value, "{{seats}}");
        let seats = file
            .contract
            .inputs()
            .iter()
            .find(|i| i.name.as_str() == "seats")
            .expect("the input seats");
        assert_eq!(seats.schema.default, Some(serde_json::json!(4)));
    }
}
