//! `extract_list`: a list read into an output field as an array of objects with typed fields.
//! The in-page reader (`list.ts`) finds the items and each item's fields and waits until the
//! rows are consistent with the recording — items found where the recording saw items, every
//! required field present, figures where figures are expected — and hold still; here each
//! value is typed ([`FieldKind::coerce`]), item by item, and a failure names the item.

use serde_json::{Map, Value};

use browserflow_cdp::page::Page;
use browserflow_steps::{ExtractListStep, FieldKind, Selector};

use crate::actions::explain;
use crate::failure::{Failure, FailureKind};
use crate::resolve::{
    ControlState, ListAnswer, ListFieldSpec, ListProblemKind, ListSpec, read_list,
};
use crate::run::{Outcome, Run};

/// How long a list's rows must stay the same before they are taken: a list that renders its
/// items a few at a time (one per animation frame, one per answer) is not taken half-drawn.
const QUIET_MS: u64 = 150;

/// What a paginated read asks of the list reader beyond the rows.
#[derive(Debug, Default)]
pub(crate) struct PageAsk<'a> {
    /// The page before's signature: wait for rows that differ from it.
    pub(crate) unlike: Option<String>,
    /// The pagination control, whose state is read with the rows.
    pub(crate) control: Option<&'a Selector>,
    /// Bring the last item into view once the rows are taken.
    pub(crate) scroll_last: bool,
    /// The page's number, 1-based, named in failures of a paginated list.
    pub(crate) number: Option<u32>,
}

/// What reading one page of a list gave.
pub(crate) enum PageOutcome {
    Read(PageRead),
    /// The rows stayed those of the page before (`PageAsk::unlike`) for the whole budget; the
    /// pagination control's state at the end of the wait, when one was asked about.
    Unchanged {
        control: Option<ControlState>,
    },
}

/// One page of a list, its values typed.
pub(crate) struct PageRead {
    pub(crate) winner: Option<usize>,
    pub(crate) items: Vec<Value>,
    pub(crate) signature: String,
    pub(crate) control: Option<ControlState>,
}

impl Run<'_> {
    pub(crate) async fn extract_list(
        &mut self,
        page: &Page,
        s: &ExtractListStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        // Like a single read, a list lets the page's `load` handlers run first.
        page.wait_loaded(page.target_id(), self.options.navigation_timeout)
            .await;
        if let Some(paginate) = &s.paginate {
            return self.extract_pages(page, s, paginate, shown).await;
        }
        let PageOutcome::Read(read) = self
            .read_list_page(page, s, shown, PageAsk::default())
            .await?
        else {
            return Err(Failure::new(
                FailureKind::Browser,
                "the list reader compared no page",
            ));
        };
        self.outputs
            .insert(s.field.clone(), Value::Array(read.items));
        Ok(Outcome {
            winner: read.winner,
            ..Outcome::default()
        })
    }

    /// Reads the list's items as they are now (with `ask.unlike`, once they differ from the
    /// page before: `Unchanged` when they never did within the budget), each value typed.
    pub(crate) async fn read_list_page(
        &mut self,
        page: &Page,
        s: &ExtractListStep,
        shown: Option<&Selector>,
        ask: PageAsk<'_>,
    ) -> Result<PageOutcome, Failure> {
        let spec = ListSpec {
            items: &s.items.candidates,
            fields: s
                .fields
                .iter()
                .map(|f| ListFieldSpec {
                    name: &f.name,
                    candidates: &f.candidates,
                    column: f.column.as_deref(),
                    from: f.from.as_str(),
                    attribute: f.attribute.as_deref(),
                    url: f.kind == FieldKind::Url,
                    digits: f.kind.needs_digits(),
                    optional: f.optional,
                })
                .collect(),
            // A paginated list's limit counts the items of every page, kept by the caller.
            limit: if s.paginate.is_some() { None } else { s.limit },
            // A list recorded with items (or written by hand) is never taken empty.
            at_least: u32::from(s.recorded_items != Some(0)),
            quiet_ms: QUIET_MS,
            timeout_ms: 0,
            unlike: ask.unlike,
            control: ask.control.map(|c| c.candidates.as_slice()),
            scroll_last: ask.scroll_last,
        };
        let budget = self.budget(s.timeout_ms);
        let shown = shown.unwrap_or(&s.items);
        let on_page = |message: String| match ask.number {
            Some(n) => format!("page {n}: {message}"),
            None => message,
        };
        let answer = read_list(page, s.items.frame.as_ref(), spec, budget)
            .await
            .map_err(|f| explain(f, shown, budget))?;
        let (winner, rows, signature, control) = match answer {
            ListAnswer::Rows {
                winner,
                rows,
                signature,
                control,
                ..
            } => (winner, rows, signature, control),
            ListAnswer::NotReady {
                unchanged: true,
                control,
                ..
            } => return Ok(PageOutcome::Unchanged { control }),
            ListAnswer::NotReady {
                states, problem, ..
            } => {
                let mut failure = not_read(s, shown, budget.as_millis(), &states, problem);
                failure.message = on_page(failure.message);
                return Err(failure);
            }
            ListAnswer::ResolverMissing { .. } => {
                return Err(Failure::new(
                    FailureKind::Browser,
                    "the page lost the list reader",
                ));
            }
        };
        let mut items = Vec::with_capacity(rows.len());
        for (n, row) in rows.into_iter().enumerate() {
            let mut item = Map::new();
            for (field, raw) in s.fields.iter().zip(row) {
                let value = match raw {
                    None => Value::Null,
                    Some(text) => field.kind.coerce(&text).map_err(|e| {
                        let failure = Failure::new(
                            FailureKind::Extraction,
                            on_page(format!(
                                "list `{}`: item {} field `{}`: {e}",
                                s.field,
                                n + 1,
                                field.name
                            )),
                        );
                        match winner {
                            Some(w) => failure.with_winner(w),
                            None => failure,
                        }
                    })?,
                };
                item.insert(field.name.clone(), value);
            }
            items.push(Value::Object(item));
        }
        Ok(PageOutcome::Read(PageRead {
            winner,
            items,
            signature,
            control,
        }))
    }
}

/// Why the list was not read: no candidate found an item, an item lacks a required field, or
/// a value never became one (a placeholder where a figure was expected).
fn not_read(
    s: &ExtractListStep,
    shown: &Selector,
    budget_ms: u128,
    states: &[String],
    problem: Option<crate::resolve::ListProblem>,
) -> Failure {
    let mut tried = String::new();
    for (i, candidate) in shown.candidates.iter().enumerate() {
        let state = states.get(i).map(String::as_str).unwrap_or("not checked");
        tried.push_str(&format!("\n  {}. {}: {state}", i + 1, candidate.describe()));
    }
    let list = &s.field;
    match problem {
        Some(p) if p.kind == ListProblemKind::Missing => Failure::new(
            FailureKind::Extraction,
            format!(
                "list `{list}`: item {} ({:?}) has no `{}`, a required field: none of its \
                 candidates found exactly one element in the item within {budget_ms} ms; items:{tried}",
                p.item, p.item_text, p.field
            ),
        ),
        Some(p) if p.field.is_empty() => Failure::new(
            FailureKind::ReadMismatch,
            format!(
                "list `{list}`: item {} ({:?}) stayed busy (`aria-busy`) for {budget_ms} ms; items:{tried}",
                p.item, p.item_text
            ),
        ),
        Some(p) => Failure::new(
            FailureKind::ReadMismatch,
            format!(
                "list `{list}`: item {} ({:?}) field `{}` never read as expected within \
                 {budget_ms} ms: actual {:?}; items:{tried}",
                p.item,
                p.item_text,
                p.field,
                p.value.unwrap_or_default()
            ),
        ),
        None => Failure::new(
            FailureKind::ReadMismatch,
            format!(
                "list `{list}`: no items consistent with the recording{} within {budget_ms} ms; \
                 tried:{tried}",
                s.recorded_items
                    .map(|n| format!(" (it saw {n})"))
                    .unwrap_or_default()
            ),
        ),
    }
}
