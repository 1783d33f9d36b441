//! The draft's edits, marks, labels and tool file, without a browser.

use super::*;
use browserflow_steps::FillStep;

fn fill(value: &str, secret: bool) -> RecordedStep {
    RecordedStep {
        step: Step::Fill(FillStep {
            expect: Vec::new(),
            settle: None,
            label: None,
            pointer: None,
            selector: Selector::new([SelectorCandidate::test_id("q")]),
            value: if secret {
                "{{password}}".into()
            } else {
                value.into()
            },
            keys: false,
            timeout_ms: None,
        }),
        description: "Fill".into(),
        target: None,
        best_selector: None,
        page: MAIN_PAGE.into(),
        url: "http://127.0.0.1:1/".into(),
        recorded_value: (!secret).then(|| value.to_string()),
        secret,
        thumbnail_png: None,
        download: None,
        no_effect: false,
        content_follows: Vec::new(),
        position_follows_input: false,
    }
}

fn draft() -> Draft {
    let mut d = Draft::new("http://127.0.0.1:1/index.html", None);
    d.steps.push(fill("keyboard", false));
    d.steps.push(fill("", true));
    d.inputs.push(InputMark::secret("password"));
    d
}

#[test]
fn steps_are_labelled_as_recorded_and_an_input_fill_names_its_input_not_its_value() {
    let mut d = draft();
    d.steps[0].description = "Fill searchbox \"Search\" with \"keyboard\"".into();
    d.steps[0].target = Some("searchbox \"Search\"".into());
    d.steps[1].description = "Type the secret into password \"Password\"".into();
    let labels = |d: &Draft| -> Vec<Option<String>> {
        d.labelled_steps()
            .iter()
            .map(|s| s.label().map(str::to_string))
            .collect()
    };
    assert_eq!(
        labels(&d)[0].as_deref(),
        Some("Fill searchbox \"Search\" with \"keyboard\"")
    );
    d.mark_input(0, InputMark::secret("query")).unwrap();
    assert_eq!(
        labels(&d),
        [
            Some("Fill searchbox \"Search\" with the input query".to_string()),
            Some("Type the secret into password \"Password\"".to_string())
        ]
    );
    let tool = d.into_tool_file("t", "1.0.0", None).unwrap();
    assert!(
        !tool.to_json_pretty().contains("keyboard"),
        "{}",
        tool.to_json_pretty()
    );
}

#[test]
fn marking_an_input_uses_the_recorded_value_as_default() {
    let mut d = draft();
    d.mark_input(0, InputMark::string("query")).unwrap();
    let Step::Fill(f) = &d.steps[0].step else {
        panic!()
    };
    assert_eq!(f.value, "{{query}}");
    let tool = d.into_tool_file("t", "1.0.0", None).unwrap();
    let inputs = tool.contract.to_json()["inputs"].clone();
    assert_eq!(inputs[0]["name"], "password");
    assert_eq!(inputs[0]["secret"], true);
    assert!(inputs[0]["schema"].get("default").is_none());
    assert_eq!(inputs[1]["schema"]["default"], "keyboard");
    assert_eq!(
        tool.contract.to_json()["capabilities"],
        json!(["browser", "secrets"])
    );
}

#[test]
fn a_marked_output_shows_the_page_the_step_before_it_left() {
    let mut d = draft();
    d.steps[0].thumbnail_png = Some(vec![1, 2, 3]);
    let at = d
        .mark_output(OutputMark::css("name", "#n", OutputKind::String))
        .unwrap();
    assert_eq!(d.steps[at].thumbnail_png, Some(vec![1, 2, 3]));
}

#[test]
fn a_required_input_keeps_no_default() {
    let mut d = draft();
    d.mark_input(0, InputMark::required("query", InputType::String))
        .unwrap();
    let tool = d.into_tool_file("t", "1.0.0", None).unwrap();
    let inputs = tool.contract.to_json()["inputs"].clone();
    assert_eq!(inputs[1]["name"], "query");
    assert!(inputs[1]["schema"].get("default").is_none(), "{inputs}");
}

#[test]
fn outputs_are_renamed_and_removed_and_a_currency_goes_alone() {
    let mut d = draft();
    let mut price = OutputMark::css("price", "#p", OutputKind::Number);
    price.currency_field = Some("currency".into());
    d.mark_output(price).unwrap();
    d.mark_output(OutputMark::css("name", "#n", OutputKind::String))
        .unwrap();
    assert_eq!(d.output_fields(), ["price", "currency", "name"]);
    d.rename_output("name", "title").unwrap();
    let err = d.rename_output("title", "price").unwrap_err();
    assert!(err.to_string().contains("already an output"), "{err}");
    let err = d.rename_output("title", "9").unwrap_err();
    assert!(err.to_string().contains("not a valid output name"), "{err}");
    d.remove_output("currency").unwrap();
    assert_eq!(d.output_fields(), ["price", "title"]);
    let steps = d.steps.len();
    d.remove_output("price").unwrap();
    assert_eq!(d.steps.len(), steps - 1);
    assert_eq!(d.output_fields(), ["title"]);
    let err = d.remove_output("price").unwrap_err();
    assert!(err.to_string().contains("no output named"), "{err}");
}

#[test]
fn bad_marks_are_clear_errors() {
    let mut d = draft();
    let err = d.mark_input(5, InputMark::string("q")).unwrap_err();
    assert!(err.to_string().contains("no step 6"), "{err}");
    assert!(err.to_string().contains("the draft has 2 steps"), "{err}");
    let mut one = Draft::new("http://127.0.0.1:1/index.html", None);
    one.steps.push(fill("keyboard", false));
    let err = one.mark_input(3, InputMark::string("q")).unwrap_err();
    assert!(err.to_string().contains("the draft has 1 step)"), "{err}");
    let err = d.mark_input(0, InputMark::string("9x")).unwrap_err();
    assert!(err.to_string().contains("not a valid input name"), "{err}");
    let err = d
        .mark_input(0, InputMark::typed("n", InputType::Number))
        .unwrap_err();
    assert!(err.to_string().contains("is not a number"), "{err}");
    d.mark_output(OutputMark::css("price", "#p", OutputKind::Number))
        .unwrap();
    let err = d
        .mark_output(OutputMark::css("price", "#p", OutputKind::Number))
        .unwrap_err();
    assert!(err.to_string().contains("already an output"), "{err}");
}

#[test]
fn removing_a_step_drops_its_input_and_moving_keeps_all() {
    let mut d = draft();
    d.move_step(1, 0).unwrap();
    assert!(d.steps[0].secret);
    d.remove_step(0).unwrap();
    assert!(d.inputs.is_empty());
    assert!(d.move_step(0, 3).is_err());
}

#[test]
fn time_format() {
    let now = now_rfc3339();
    assert_eq!(now.len(), 20, "{now}");
    assert!(now.starts_with("20"), "{now}");
}
