//! The unsaved recording kept on disk (`record_view::DraftKeeper`): offered again by a new
//! session, restored, kept on each edit, forgotten when saved or discarded; a damaged file set
//! aside, never deleted; a value typed into a field marked secret never written.

use browserflow_catalog::record_view::{
    DraftKeeper, KeptDraftError, RecordSession, RecordStatusView, RecordViewError,
};
use browserflow_record::{Draft, MAIN_PAGE, RecordedStep};
use browserflow_steps::{FillStep, Selector, SelectorCandidate, Step};

fn fill(test_id: &str, value: &str) -> RecordedStep {
    RecordedStep {
        step: Step::Fill(FillStep {
            expect: Vec::new(),
            settle: None,
            label: None,
            pointer: None,
            selector: Selector::new([SelectorCandidate::test_id(test_id)]),
            value: value.into(),
            keys: false,
            timeout_ms: None,
        }),
        description: format!("Fill {test_id}"),
        target: None,
        best_selector: None,
        page: MAIN_PAGE.into(),
        url: "http://127.0.0.1:1/".into(),
        recorded_value: Some(value.into()),
        secret: false,
        thumbnail_png: None,
        download: None,
        no_effect: false,
        content_follows: Vec::new(),
        position_follows_input: false,
    }
}

fn two_fills() -> Draft {
    let mut draft = Draft::new("http://127.0.0.1:1/index.html", None);
    draft.steps.push(fill("query", "keyboard"));
    draft.steps.push(fill("token", "kept-canary-5f1e"));
    draft
}

#[tokio::test]
async fn a_kept_recording_is_offered_again_restored_kept_on_each_edit_and_forgotten_when_saved() {
    let dir = tempfile::tempdir().unwrap();
    let keeper = DraftKeeper::in_dir(dir.path().join("drafts"));
    keeper.keep(&two_fills(), &[], true).unwrap();

    // A new session (the app started again) offers it, and will not record over it.
    let mut session = RecordSession::keeping(keeper.clone());
    match session.status().await.unwrap() {
        RecordStatusView::Idle { kept: Some(kept) } => {
            assert_eq!(kept.steps, 2);
            assert_eq!(kept.start_url, "http://127.0.0.1:1/index.html");
            assert!(kept.cut_short, "it was kept while recording");
        }
        other => panic!("expected the kept recording offered, got {other:?}"),
    }
    let start = browserflow_catalog::record_view::RecordStart {
        url: "http://127.0.0.1:1/".into(),
        headless: true,
        ..Default::default()
    };
    assert!(matches!(
        session.start(&start).await.err(),
        Some(RecordViewError::UnsavedKept(2))
    ));

    // Restored, it is the draft; an edit is kept at once.
    let view = session.restore_kept().unwrap();
    assert_eq!(view.steps.len(), 2);
    assert_eq!(view.unkept, None);
    session.mark_input(0, "query", "string").unwrap();
    let kept = keeper.read().unwrap().unwrap();
    assert!(!kept.live, "a stopped draft is not cut short");
    let Step::Fill(first) = &kept.draft.steps[0].step else {
        panic!("a fill")
    };
    assert_eq!(first.value, "{{query}}", "the edit was kept");

    // Saved as a tool: nothing is offered again.
    let recordings = dir.path().join("recordings");
    std::fs::create_dir_all(&recordings).unwrap();
    session
        .save(&recordings, "search", "1.0.0", None)
        .unwrap_or_else(|e| panic!("save: {e}"));
    assert!(!keeper.path().exists(), "saved: the kept file is gone");
    let fresh = RecordSession::keeping(keeper);
    assert!(fresh.kept().unwrap().is_none());
}

#[tokio::test]
async fn a_discarded_draft_is_forgotten_and_a_kept_one_can_be_thrown_away_unseen() {
    let dir = tempfile::tempdir().unwrap();
    let keeper = DraftKeeper::in_dir(dir.path());
    keeper.keep(&two_fills(), &[], false).unwrap();
    let mut session = RecordSession::keeping(keeper.clone());
    session.restore_kept().unwrap();
    session.discard().await;
    assert!(!keeper.path().exists());

    keeper.keep(&two_fills(), &[], false).unwrap();
    let mut session = RecordSession::keeping(keeper.clone());
    session.discard_kept().unwrap();
    assert!(session.kept().unwrap().is_none());
}

#[test]
fn a_value_typed_into_a_field_marked_secret_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let keeper = DraftKeeper::in_dir(dir.path());
    let mut draft = two_fills();
    draft
        .mark_input(1, browserflow_record::InputMark::secret("token"))
        .unwrap();
    keeper.keep(&draft, &[], false).unwrap();
    let text = std::fs::read_to_string(keeper.path()).unwrap();
    assert!(!text.contains("kept-canary-5f1e"), "{text}");
    assert!(text.contains("keyboard"), "other values are kept: {text}");
}

#[test]
fn a_damaged_kept_file_is_set_aside_named_and_never_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let keeper = DraftKeeper::in_dir(dir.path());
    std::fs::write(keeper.path(), b"{\"format\": 1, \"kept_at\": 3, \"dra").unwrap();
    let error = keeper.read().unwrap_err();
    let KeptDraftError::Unreadable {
        path, set_aside, ..
    } = &error
    else {
        panic!("expected unreadable, got {error}")
    };
    assert_eq!(path, &keeper.path());
    assert!(!keeper.path().exists());
    assert_eq!(
        std::fs::read(set_aside).unwrap(),
        b"{\"format\": 1, \"kept_at\": 3, \"dra",
        "moved whole"
    );
    assert!(error.to_string().contains("cannot be read"), "{error}");
    // The next read finds nothing: the screen starts clean.
    assert!(keeper.read().unwrap().is_none());
}
