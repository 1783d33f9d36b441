//! An `extract_list` step's pagination: how the list's further pages are brought in and when
//! that ends.
//!
//! Three ways, as a person shows them while picking the list: clicking a **next** control (a
//! link or button that opens the next page, by navigation or in place), clicking a **load
//! more** control (the list grows in place), or **scrolling** the last item into view (an
//! infinite list grows as it nears the end). The control has ranked candidates like any
//! element step, and what its demonstrated click set off on the network (`settle`), which the
//! replay waits for after each click as it does after a recorded click.
//!
//! Reading ends when the control is absent or disabled (`disabled`, `aria-disabled="true"`),
//! when a new page changes neither the URL nor the list's signature (its count, first and last
//! items) within the step's budget, at `max_pages` pages read, or once `limit` items are held.
//! An item whose `key` field (or, without a key, whose whole row) a previous page already gave
//! is dropped; duplicates within one page are kept, as the page shows them.

use serde::{Deserialize, Serialize};

use crate::{Selector, Settle};

/// The most pages read when `max_pages` is not written: a list that never ends is not read
/// forever.
pub const DEFAULT_MAX_PAGES: u32 = 50;

/// See the module doc.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paginate {
    /// How the next page is brought in.
    pub by: PageBy,
    /// The "next" or "load more" element (absent for `scroll`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<Selector>,
    /// At most this many pages are read, the first included (default
    /// [`DEFAULT_MAX_PAGES`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pages: Option<u32>,
    /// The field whose value identifies an item across pages (an item whose key an earlier
    /// page gave is dropped); without it, the whole row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// What the demonstrated click on the control set off on the network, waited for after
    /// each click (see [`Settle`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<Settle>,
}

/// How an [`Paginate`] brings in the next page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageBy {
    /// A control that replaces the items with the next page's (a navigation or in place).
    Next,
    /// A control that appends the next items to the list.
    LoadMore,
    /// Scrolling the last item into view appends the next items.
    Scroll,
}

impl PageBy {
    /// The word a tool file writes (`"by"`).
    pub fn as_str(self) -> &'static str {
        match self {
            PageBy::Next => "next",
            PageBy::LoadMore => "load_more",
            PageBy::Scroll => "scroll",
        }
    }

    /// Whether each page's items are the list's items so far (the earlier ones still shown).
    pub fn accumulates(self) -> bool {
        !matches!(self, PageBy::Next)
    }
}

impl Paginate {
    /// The most pages read.
    pub fn max_pages(&self) -> u32 {
        self.max_pages.unwrap_or(DEFAULT_MAX_PAGES)
    }

    /// The rules the JSON shape cannot express; `fields` are the list's field names.
    pub(crate) fn problem<'a>(&self, mut fields: impl Iterator<Item = &'a str>) -> Option<String> {
        match (self.by, &self.control) {
            (PageBy::Scroll, Some(_)) => {
                return Some("`paginate`: `scroll` has no `control`".into());
            }
            (PageBy::Next | PageBy::LoadMore, None) => {
                return Some(format!(
                    "`paginate`: `{}` needs the `control` to click",
                    self.by.as_str()
                ));
            }
            (_, Some(control)) if control.candidates.is_empty() => {
                return Some("`paginate`: `control` has no candidates".into());
            }
            _ => {}
        }
        if self.by == PageBy::Scroll && self.settle.is_some() {
            return Some("`paginate`: `scroll` clicks nothing, so has no `settle`".into());
        }
        if self.max_pages == Some(0) {
            return Some("`paginate`: `max_pages` must be at least 1".into());
        }
        if let Some(key) = &self.key
            && !fields.any(|f| f == key)
        {
            return Some(format!("`paginate`: `key` names no field: `{key}`"));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn paginate(v: serde_json::Value) -> Paginate {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn each_way_of_paging_needs_what_it_acts_on_and_a_key_names_a_field() {
        let control = json!({ "candidates": [{ "kind": "css", "value": "a.next" }] });
        let fields = || ["name", "url"].into_iter();
        let ok = paginate(json!({ "by": "next", "control": control, "key": "url" }));
        assert_eq!(ok.problem(fields()), None);
        assert_eq!(ok.max_pages(), DEFAULT_MAX_PAGES);
        let problems = [
            (
                json!({ "by": "load_more" }),
                "`load_more` needs the `control`",
            ),
            (
                json!({ "by": "scroll", "control": control }),
                "`scroll` has no `control`",
            ),
            (
                json!({ "by": "next", "control": { "candidates": [] } }),
                "`control` has no candidates",
            ),
            (
                json!({ "by": "next", "control": control, "max_pages": 0 }),
                "`max_pages` must be at least 1",
            ),
            (
                json!({ "by": "next", "control": control, "key": "price" }),
                "`key` names no field: `price`",
            ),
        ];
        for (written, want) in problems {
            let problem = paginate(written.clone()).problem(fields());
            assert!(
                problem.as_deref().is_some_and(|p| p.contains(want)),
                "{written}: {problem:?}"
            );
        }
        // Unknown keys are refused, as everywhere in a tool file.
        assert!(serde_json::from_value::<Paginate>(json!({ "by": "scroll", "pages": 3 })).is_err());
    }
}
