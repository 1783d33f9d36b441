//! The Record screen's rules without a browser: views, names, undo, saving.

use super::*;

#[test]
fn a_price_is_a_number_with_its_currency_and_text_is_a_string() {
    assert_eq!(OutputKindName::Price.output_kind(), OutputKind::Number);
    assert_eq!(OutputKindName::Price.currency_field(), Some("currency"));
    assert_eq!(OutputKindName::Text.output_kind(), OutputKind::String);
    assert_eq!(OutputKindName::Number.currency_field(), None);
    assert_eq!(
        OutputKindName::from(OutputKind::Integer),
        OutputKindName::Integer
    );
}

#[test]
fn output_kinds_parse_by_their_tool_file_names() {
    assert_eq!(parse_output_kind("string"), Some(OutputKind::String));
    assert_eq!(parse_output_kind("boolean"), Some(OutputKind::Boolean));
    assert_eq!(parse_output_kind("price"), None);
}

#[tokio::test]
async fn a_new_session_is_idle_and_a_draft_shows_as_editing() {
    let mut session = RecordSession::default();
    assert_eq!(
        session.status().await.expect("status"),
        RecordStatusView::Idle { kept: None }
    );
    session.draft = Some(Draft::new("http://127.0.0.1/", None));
    match session.status().await.expect("status") {
        RecordStatusView::Editing { draft } => assert_eq!(draft.start_url, "http://127.0.0.1/"),
        other => panic!("expected the draft, got {other:?}"),
    }
}

#[test]
fn start_urls_get_a_scheme_when_typed_without_one_and_only_web_pages_start() {
    let ok = |typed: &str| start_url(typed).expect(typed);
    assert_eq!(
        ok(" 127.0.0.1:4780/index.html "),
        "http://127.0.0.1:4780/index.html"
    );
    assert_eq!(ok("example.com"), "http://example.com/");
    assert_eq!(ok("localhost:8080"), "http://localhost:8080/");
    assert_eq!(ok("https://example.com/a?b=1"), "https://example.com/a?b=1");
    for bad in [
        "",
        "   ",
        "file:///etc/hostname",
        "chrome://settings",
        "http://",
        "http://exa mple.com",
    ] {
        let err = start_url(bad).expect_err(bad);
        assert_eq!(err.code(), "bad_input", "{bad}: {err}");
    }
    assert!(
        start_url("file:///etc/hostname")
            .expect_err("file")
            .to_string()
            .contains("http:// or https://")
    );
}

#[tokio::test]
async fn a_bad_start_url_is_refused_before_any_browser_starts() {
    let mut session = RecordSession::default();
    let start = RecordStart {
        url: "http://exa mple.com".into(),
        // A browser endpoint that does not exist: reaching it would be a different error.
        browser_ws: Some("ws://127.0.0.1:9/devtools/browser/none".into()),
        headless: true,
        viewport: None,
    };
    match session.start(&start).await {
        Err(e) => assert_eq!(e.code(), "bad_input", "{e}"),
        Ok(_) => panic!("started"),
    }
}

#[test]
fn name_and_version_problems_are_said_per_field_in_words() {
    assert!(check_name_and_version("search-price", "1.2.0").is_empty());
    let problems = check_name_and_version("Search Price", "1.2");
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["name", "version"], "{problems:?}");
    assert!(problems[1].message.contains("like 1.0.0"), "{problems:?}");
    assert!(
        !problems[1].message.contains("unexpected end"),
        "{problems:?}"
    );
    let empty = check_name_and_version(" ", "");
    assert_eq!(empty.len(), 2, "{empty:?}");
}

#[test]
fn every_draft_edit_can_be_undone_in_turn() {
    let mut draft = Draft::new("http://127.0.0.1/", None);
    let mut steps = Vec::new();
    for url in [
        "http://127.0.0.1/a",
        "http://127.0.0.1/b",
        "http://127.0.0.1/c",
    ] {
        let json = serde_json::json!({
            "step": { "type": "navigate", "url": url },
            "description": format!("Open {url}"), "page": "main", "url": url,
        });
        steps.push(serde_json::from_value::<RecordedStep>(json).expect("a step"));
    }
    draft.steps = steps;
    let mut session = RecordSession {
        draft: Some(draft),
        ..RecordSession::default()
    };
    let urls = |view: &DraftView| -> Vec<String> {
        view.steps.iter().map(|s| s.description.clone()).collect()
    };
    let original = session.draft_view().expect("a draft");
    assert!(!original.can_undo);
    session.edit(|d| d.move_step(0, 2)).expect("moved");
    let after_delete = session
        .edit(|d| d.remove_step(0).map(|_| ()))
        .expect("deleted");
    assert_eq!(after_delete.steps.len(), 2);
    assert!(after_delete.can_undo);
    assert_eq!(session.undo().expect("undone").steps.len(), 3);
    let back = session.undo().expect("undone");
    assert_eq!(urls(&back), urls(&original));
    assert!(!back.can_undo);
    assert_eq!(
        session.undo().expect_err("nothing left").code(),
        "nothing_to_undo"
    );
}

#[test]
fn saving_without_a_draft_says_so() {
    let mut session = RecordSession::default();
    let dir = tempfile::tempdir().expect("a temp dir");
    let err = session
        .save(dir.path(), "t", "1.0.0", None)
        .expect_err("no draft");
    assert_eq!(err.code(), "no_draft");
}

#[test]
fn saving_never_overwrites_a_tool_file() {
    let mut session = RecordSession {
        draft: Some(Draft::new("http://127.0.0.1/", None)),
        ..RecordSession::default()
    };
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join("t@1.0.0.json"), "{}").expect("written");
    match session.save(dir.path(), " t ", "1.0.0", None) {
        Err(e @ RecordViewError::Exists(_)) => assert_eq!(e.code(), "exists"),
        other => panic!("expected `exists`, got {:?}", other.map(|i| i.reference)),
    }
}

#[test]
fn an_unreadable_recorder_message_reaches_the_screen_as_not_recorded() {
    let error = browserflow_record::protocol::read("main", r#"{"type": "click"}"#)
        .expect_err("a click without its fields");
    let view = event_view(RecordEvent::ProtocolError(error.clone())).expect("shown");
    assert_eq!(
        view,
        RecordEventView::NotRecorded {
            page: "main".into(),
            message: error.to_string(),
        }
    );
    assert!(error.to_string().contains("`click`"), "{error}");
}

#[test]
fn the_app_and_the_command_line_start_a_recording_by_the_same_options() {
    // What the Record screen sends with nothing chosen: the CLI's defaults.
    let start: RecordStart =
        serde_json::from_value(serde_json::json!({ "url": "127.0.0.1:4780" })).unwrap();
    let options = start.options().unwrap();
    assert_eq!(options.start_url, "http://127.0.0.1:4780/");
    assert!(options.headed, "a window unless headless is asked for");
    assert_eq!(options.viewport, None);
    assert_eq!(options.browser_ws, None);
    // The flags' names; blank is none, as an empty field on the screen.
    let start: RecordStart = serde_json::from_value(serde_json::json!({
        "url": "http://a.test/", "headless": true, "viewport": "800x600", "browser_ws": "  "
    }))
    .unwrap();
    let options = start.options().unwrap();
    assert!(!options.headed);
    assert_eq!(options.viewport, Some((800, 600)));
    assert_eq!(options.browser_ws, None);
    // An old or misspelt option is refused, not ignored.
    assert!(
        serde_json::from_value::<RecordStart>(
            serde_json::json!({ "url": "a.test", "headed": true })
        )
        .is_err()
    );
    let bad = RecordStart {
        url: "a.test".into(),
        viewport: Some("0x5".into()),
        ..RecordStart::default()
    }
    .options()
    .unwrap_err();
    assert_eq!(bad.code(), "bad_input");
    assert_eq!(
        bad.to_string(),
        "the viewport 0x5 is not WIDTHxHEIGHT, for example 1280x800"
    );
}
