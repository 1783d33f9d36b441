//! Repeating data: a click on the first row of a grid, table or list of cards that the tool's
//! input filters and sorts. Recorded with trusted input; the step records its place (row and
//! column, or item) and its content, relies on content until the filter box becomes an input,
//! then on its place — and replays with other inputs to the row they put first. Forced to rely
//! on content, the same tool clicks the recorded person's row wherever it is, or fails. An
//! extra card of the same kind fails a content-relying step, naming both matches. Fixtures:
//! `tests/fixtures/repeat` (AG Grid Community's own bundle, vendored with its licence).

use browserflow_record::{Draft, InputMark, OutputMark, Recorder};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::{OutputKind, Reliance, Step, ToolFile, is_place_candidate};
use serde_json::{Value, json};

use crate::record::driver::*;
use crate::support::Harness;

fn fixtures() -> FixtureServer {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/repeat");
    FixtureServer::serve_files(read_dir_files(&dir).expect("repeat fixtures read"))
        .expect("fixture server starts")
}

/// One fixture page: how its rows render, and its first row's clickable element.
struct Page {
    path: &'static str,
    /// A JS condition: `n` rows are shown (`{n}` replaced).
    rows: &'static str,
    /// A JS expression: the element a person clicks in the first row.
    first: &'static str,
    /// Removed rows stay in the page while they fade out.
    animates_rows: bool,
}

const GRID: Page = Page {
    path: "/grid.html",
    rows: "document.querySelectorAll('[role=grid] .ag-row').length === {n}",
    first: "document.querySelector('.ag-row[row-index=\"0\"] [col-id=name]')",
    animates_rows: true,
};
const TABLE: Page = Page {
    path: "/table.html",
    rows: "document.querySelectorAll('tbody tr').length === {n}",
    first: "document.querySelector('tbody tr button')",
    animates_rows: false,
};
const CARDS: Page = Page {
    path: "/cards.html",
    rows: "document.querySelectorAll('.card').length === {n}",
    first: "document.querySelector('.card a')",
    animates_rows: false,
};

/// Records: type `query` into the search box (the page shows `shown` rows), click the first
/// row, read the detail's e-mail. The draft, not yet marked.
async fn record(
    h: &Harness,
    server: &FixtureServer,
    page: &Page,
    query: &str,
    shown: usize,
) -> Draft {
    let recorder = Recorder::start_on(&h.browser, &options(server.url(page.path)))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js(&page.rows.replace("=== {n}", ">= 2")).await;
    d.click("document.querySelector('input[type=search]')")
        .await;
    d.type_keys(query).await;
    d.wait_js(&page.rows.replace("{n}", &shown.to_string()))
        .await;
    d.click(page.first).await;
    d.wait_js("document.querySelector('[data-testid=detail-email]').textContent !== ''")
        .await;
    wait_for_steps(&recorder, "click", 1).await;
    let mut draft = recorder.stop().await.unwrap();
    draft
        .mark_output(OutputMark::css(
            "email",
            "[data-testid=detail-email]",
            OutputKind::String,
        ))
        .unwrap();
    draft
}

/// The index of the click on the row.
fn row_click(draft: &Draft) -> usize {
    draft
        .steps
        .iter()
        .position(|s| matches!(&s.step, Step::Click(c) if c.selector.repeat.is_some()))
        .unwrap_or_else(|| panic!("no click in a repeating structure: {:#?}", draft.steps))
}

fn fill(draft: &Draft) -> usize {
    draft
        .steps
        .iter()
        .position(|s| s.step.kind().name() == "fill")
        .unwrap_or_else(|| panic!("no fill: {:#?}", draft.steps))
}

async fn replay(h: &Harness, file: &ToolFile, query: &str) -> Result<Value, String> {
    let context = h.browser.new_context().await.expect("context");
    let inputs = json!({ "query": query }).as_object().cloned().unwrap();
    let report = browserflow_replay::Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await;
    context.close().await.expect("context closes");
    report
        .map(|r| r.outputs["email"].clone())
        .map_err(|e| e.to_string())
}

fn tool(draft: Draft, dir: &std::path::Path) -> ToolFile {
    std::fs::create_dir_all(dir).unwrap();
    save_and_load(
        &draft.into_tool_file("first-row", "1.0.0", None).unwrap(),
        dir,
    )
}

/// The journey on `page`: recorded with "Rome" (first row Carla Rossi), the place and content
/// recorded, position once the search box is an input; replayed with two other inputs to the
/// rows they put first; forced onto content, the recorded row wherever it is, or a failure.
async fn first_row_replays_by_position(page: &Page, place: &str) {
    let h = Harness::start().await;
    let server = fixtures();
    let mut draft = record(&h, &server, page, "Rome", 2).await;
    let click = row_click(&draft);
    let repeat = draft.steps[click]
        .step
        .selector()
        .unwrap()
        .repeat
        .clone()
        .unwrap();
    assert_eq!(repeat.place, place, "{:#?}", draft.steps[click]);
    assert!(repeat.content.contains("Carla Rossi"), "{repeat:?}");
    assert_eq!(repeat.relies_on, Reliance::Content, "nothing marked yet");
    assert!(
        !draft.steps[click].content_follows.is_empty(),
        "the recording saw the rows change as the person typed: {:#?}",
        draft.steps[click]
    );
    draft
        .mark_input(fill(&draft), InputMark::string("query"))
        .unwrap();
    let selector = draft.steps[click].step.selector().unwrap();
    assert_eq!(selector.reliance(), Some(Reliance::Position));
    assert!(is_place_candidate(&selector.candidates[0]), "{selector:#?}");
    let dir = tempfile::tempdir().unwrap();
    let mut by_content = draft.clone();
    by_content.rely_on(click, Reliance::Content).unwrap();
    let file = tool(draft, dir.path());
    for (query, email) in [
        ("Rome", "carla@example.test"),
        ("Lyon", "alice@example.test"),
        ("Bern", "bob@example.test"),
    ] {
        assert_eq!(replay(&h, &file, query).await, Ok(json!(email)), "{query}");
    }
    // The same tool relying on content: "o" puts Alice first and Carla second — the recorded
    // row's content wins, the wrong row for this input; "Lyon" hides Carla — it fails.
    let content_file = tool(by_content, &dir.path().join("content"));
    assert_eq!(
        replay(&h, &content_file, "o").await,
        Ok(json!("carla@example.test"))
    );
    assert_eq!(
        replay(&h, &file, "o").await,
        Ok(json!("alice@example.test"))
    );
    // Where the page removes rows at once, "Lyon" leaves no Carla to find: the step fails. AG
    // Grid keeps a removed row in the page, unchanged, until its fade-out starts a frame later:
    // a click right after the filter can land on it and show nothing (left to the settling
    // of what a fill started; see the report), so the grid shows the wrong row only.
    if !page.animates_rows {
        let failed = replay(&h, &content_file, "Lyon").await.unwrap_err();
        assert!(failed.contains("Carla Rossi"), "{failed}");
    }
    h.close().await;
}

/// The unit of the issue, on AG Grid Community (a virtualised grid: rows carry `row-index` and
/// `aria-rowindex`, in any DOM order): a cell in a filtered grid replays by position.
#[tokio::test]
async fn a_cell_in_a_filtered_ag_grid_replays_by_position() {
    first_row_replays_by_position(&GRID, "row 1, column \"Name\" of the grid").await;
}

#[tokio::test]
async fn a_button_in_a_filtered_html_table_replays_by_position() {
    first_row_replays_by_position(&TABLE, "row 1, column \"Name\" of the table").await;
}

#[tokio::test]
async fn a_card_of_a_filtered_list_replays_by_position() {
    first_row_replays_by_position(&CARDS, "item 1 of the main").await;
}

/// Strictness stays: recorded on the cards without the search box as an input (the step
/// relies on content), replayed where an extra card of the same kind shows the same person —
/// the step fails naming both matches, and no place or path settles it. Relying on position
/// (the person's switch), the same page replays to the first card. A search box marked as an
/// input and then unmarked leaves the step relying on content again, as recorded.
#[tokio::test]
async fn an_extra_card_of_the_same_kind_fails_a_content_relying_step_naming_the_matches() {
    let h = Harness::start().await;
    let server = fixtures();
    let recorded = record(&h, &server, &CARDS, "Rome", 2).await;
    let click = row_click(&recorded);
    let mut draft = recorded.clone();
    draft
        .mark_input(fill(&draft), InputMark::string("query"))
        .unwrap();
    assert_eq!(
        draft.steps[click].step.selector().unwrap().reliance(),
        Some(Reliance::Position)
    );
    draft.unmark_input(fill(&draft)).unwrap();
    assert!(draft.inputs.is_empty(), "{:?}", draft.inputs);
    // Every selector as recorded (the place candidate below the names again), the fill
    // typing "Rome".
    for (now, then) in draft.steps.iter().zip(&recorded.steps) {
        assert_eq!(
            now.step.selector(),
            then.step.selector(),
            "{:#?}",
            draft.steps
        );
        if let (Step::Fill(now), Step::Fill(then)) = (&now.step, &then.step) {
            assert_eq!(now.value, then.value);
        }
    }
    assert_eq!(
        draft.steps[click].step.selector().unwrap().reliance(),
        Some(Reliance::Content)
    );
    let mut by_place = draft.clone();
    by_place.rely_on(click, Reliance::Position).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let with_extra = |file: ToolFile| {
        let mut file = file;
        if let Some(Step::Navigate(n)) = file.steps.first_mut() {
            n.url = format!("{}?extra", n.url);
        }
        file
    };
    let file = with_extra(tool(draft, dir.path()));
    let failed = replay(&h, &file, "Rome").await.unwrap_err();
    assert!(
        failed.contains("matched 2 elements") && failed.matches("Carla Rossi").count() >= 2,
        "{failed}"
    );
    let placed = with_extra(tool(by_place, &dir.path().join("place")));
    assert_eq!(
        replay(&h, &placed, "Rome").await,
        Ok(json!("carla@example.test"))
    );
    h.close().await;
}
