//! A paginated `extract_list` (see browserflow-steps' `paginate.rs`): each page read as a
//! list is, then the next brought in — the control clicked as a recorded click is (its
//! navigation followed, its `settle` waited for), or the last item scrolled into view by the
//! reader — and the next page read once its rows differ from the page before. Reading ends
//! when the control is absent or disabled, when no different page came within the step's
//! budget, at `max_pages`, or at `limit`; an item a previous page gave (by `key`, or the
//! whole row) is dropped.

use std::collections::HashSet;

use serde_json::Value;

use browserflow_cdp::page::Page;
use browserflow_steps::{
    ClickStep, ExtractListStep, MouseButton, PageBy, Paginate, Selector, Step,
};

use super::list::{PageAsk, PageOutcome};
use crate::failure::{Failure, FailureKind};
use crate::resolve::{Control, ControlState};
use crate::run::{Outcome, Run};

impl Run<'_> {
    pub(crate) async fn extract_pages(
        &mut self,
        page: &Page,
        s: &ExtractListStep,
        paginate: &Paginate,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let limit = s.limit.map(|l| l as usize);
        let max_pages = paginate.max_pages();
        let mut items: Vec<Value> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut unlike = None;
        let mut winner = None;
        let mut read_pages = 0;
        for number in 1..=max_pages {
            // The page steps act on may have changed (a next link that navigated it).
            let page = if number == 1 {
                page.clone()
            } else {
                self.page()
            };
            let ask = PageAsk {
                unlike: unlike.take(),
                control: paginate.control.as_ref(),
                scroll_last: paginate.by == PageBy::Scroll && number < max_pages,
                number: Some(number),
            };
            let read = match self.read_list_page(&page, s, shown, ask).await? {
                PageOutcome::Read(read) => read,
                // Scrolling brought no further items: an infinite list's only end.
                PageOutcome::Unchanged { .. } if paginate.by == PageBy::Scroll => break,
                // The click ended the list without marking the control (it went away, or
                // was disabled, as the page came back the same).
                PageOutcome::Unchanged {
                    control:
                        Some(ControlState {
                            state: Control::Absent | Control::Disabled,
                            ..
                        }),
                } => break,
                // The control still offers a next page that never came: a short array
                // returned here would look like the whole list.
                PageOutcome::Unchanged { control } => {
                    return Err(no_next_page(
                        s,
                        paginate,
                        number,
                        items.len(),
                        control,
                        self.budget(s.timeout_ms).as_millis(),
                    ));
                }
            };
            read_pages = number;
            winner = read.winner.or(winner);
            let keys: Vec<String> = read
                .items
                .iter()
                .map(|item| key_of(item, paginate.key.as_deref()))
                .collect();
            let before = items.len();
            for (item, key) in read.items.into_iter().zip(&keys) {
                if !seen.contains(key) {
                    items.push(item);
                }
            }
            seen.extend(keys);
            if number > 1 && items.len() == before {
                // A different page (another URL) of items earlier pages all gave: a site
                // whose "next" stays offered past its last page shows it again.
                tracing::debug!(list = %s.field, page = number, "a page of no new items ends the list");
                break;
            }
            if let Some(limit) = limit
                && items.len() >= limit
            {
                items.truncate(limit);
                break;
            }
            if number == max_pages {
                break;
            }
            if let Some(control) = &paginate.control {
                if read.control.map(|c| c.state) != Some(Control::Ready) {
                    // Absent or disabled: the last page.
                    break;
                }
                self.click_control(control, paginate)
                    .await
                    .map_err(|mut failure| {
                        failure.message = format!(
                            "list `{}`: page {}: clicking the `{}` control after page {number}: {}",
                            s.field,
                            number + 1,
                            paginate.by.as_str(),
                            failure.message
                        );
                        failure
                    })?;
            }
            unlike = Some(read.signature);
        }
        tracing::debug!(
            list = %s.field,
            pages = read_pages,
            items = items.len(),
            "paginated list read"
        );
        self.outputs.insert(s.field.clone(), Value::Array(items));
        Ok(Outcome {
            winner,
            ..Outcome::default()
        })
    }

    /// Clicks the pagination control as a recorded click is run: found by its candidates,
    /// what it sets off waited for, a navigation it causes followed.
    async fn click_control(
        &mut self,
        control: &Selector,
        paginate: &Paginate,
    ) -> Result<(), Failure> {
        let click = Step::Click(ClickStep {
            label: Some(format!("the list's {} control", paginate.by.as_str())),
            selector: control.clone(),
            button: MouseButton::Left,
            click_count: 1,
            hold_ms: None,
            offset: None,
            navigation: None,
            opens_popup: None,
            timeout_ms: None,
            expect: Vec::new(),
            settle: paginate.settle.clone(),
        });
        Box::pin(self.execute(&click, &click)).await.map(|_| ())
    }
}

/// The failure of a next page that never came: the control was clicked and still offers it,
/// but the list kept the rows of the page before for the whole budget.
fn no_next_page(
    s: &ExtractListStep,
    paginate: &Paginate,
    number: u32,
    held: usize,
    control: Option<ControlState>,
    budget_ms: u128,
) -> Failure {
    let by = paginate.by.as_str();
    let candidates = paginate.control.as_ref().map(|c| c.candidates.as_slice());
    let found_by = control
        .and_then(|c| c.candidate)
        .and_then(|i| Some((i, candidates?.get(i)?)))
        .map(|(i, c)| format!(" (found by candidate {}: {})", i + 1, c.describe()))
        .unwrap_or_default();
    let state = match control.map(|c| c.state) {
        Some(Control::Ready) => "still shown and enabled",
        _ => "in an unknown state",
    };
    Failure::new(
        FailureKind::StateMismatch,
        format!(
            "list `{list}`: page {number} never came: the `{by}` control was clicked after \
             page {before} and is {state}{found_by}, but the list kept page {before}'s items \
             for {budget_ms} ms (expected: items unlike page {before}'s; actual: the same \
             items, {held} read so far over {before} pages)",
            list = s.field,
            before = number - 1,
        ),
    )
}

/// What identifies `item` across pages: its `key` field's value, or the whole row.
fn key_of(item: &Value, key: Option<&str>) -> String {
    match key {
        Some(key) => item[key].to_string(),
        None => item.to_string(),
    }
}
