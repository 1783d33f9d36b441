//! What the recorder script answers when asked (`describeCss`, `describeList`,
//! `describeTable`): the elements a selector, a list or a table finds, read by the recorder
//! as typed answers. Kept apart from the messages the script sends of itself (the parent
//! module), which share its envelope; these answers have none.

use super::*;

/// What `window.__bflowRecorder.describeCss(css)` answers for the one element a CSS selector
/// finds (an output given by selector): a pick's fields, without the binding's envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DescribedElement {
    /// The element, with the candidates of a read.
    pub target: TargetInfo,
    /// What a read of it sees.
    pub read: RecordedRead,
    /// The frame it is in.
    pub frame: FrameInfo,
}

/// What `describeCss` answers when the selector does not find exactly one element: how many
/// it finds (the element may still be arriving, so the recorder asks again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct NotOneElement {
    /// The number of elements the selector finds.
    pub count: u32,
}

/// What `describeCss` answers when the selector is not valid CSS (`querySelectorAll` threw):
/// the browser's message. Asking again cannot help.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct InvalidSelector {
    /// The browser's message.
    pub invalid: String,
}

/// Every answer of `describeCss`, told apart by its fields (`count`, `invalid`, else an
/// element): the one element, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(untagged)]
pub enum DescribeAnswer {
    /// The one element the selector finds (boxed: the other answers are a field each).
    Element(Box<DescribedElement>),
    /// The selector finds none or several.
    NotOne(NotOneElement),
    /// The selector is not valid CSS.
    Invalid(InvalidSelector),
}

/// What `window.__bflowRecorder.describeList(spec)` is asked (an `--extract-list`): the items'
/// CSS selector (searched through open shadow roots) and each field's, relative to an item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ListLookup {
    /// Finds every item.
    pub items: String,
    /// The fields of each item.
    pub fields: Vec<FieldLookup>,
}

/// One field of a [`ListLookup`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct FieldLookup {
    /// Its name (for messages).
    pub name: String,
    /// CSS inside the item; empty: the item itself.
    pub css: String,
    /// The attribute read (none: the text): an item whose element has an empty value lacks
    /// the field.
    pub attribute: Option<String>,
}

/// A candidate `describeList` found and checked on every item: it finds exactly the items (or,
/// for a field, in each item exactly the element the field's selector finds there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ListCandidate {
    /// Its kind.
    pub kind: SelectorKind,
    /// The value it searches for (`*` for the `items` pick of a `structure` candidate).
    pub value: String,
    /// For `structure`: the anchor and the pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub structure: Option<Structure>,
    /// CSS selectors of the shadow hosts it is searched inside, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadow: Vec<String>,
}

/// A field as `describeList` found it on the items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DescribedField {
    /// Candidates relative to the item, best first (empty for the item itself).
    pub candidates: Vec<ListCandidate>,
    /// How many items lack it (the field is then optional).
    pub missing: u32,
}

/// What `describeList` answers when the items are found: how many, their candidates best
/// first, and each field's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DescribedList {
    /// How many items the selector finds.
    pub count: u32,
    /// The candidates that find exactly those items.
    pub items: Vec<ListCandidate>,
    /// Each field, in the order asked.
    pub fields: Vec<DescribedField>,
}

/// What `describeList` answers when it cannot describe the list: no item yet (which may still
/// arrive), or a field that finds several elements in an item or none in any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ListNotFound {
    /// In words, naming the field and the item.
    pub problem: String,
    /// Whether the items are simply not there (yet): asking again may help.
    pub empty: bool,
}

/// Every answer of `describeList`, told apart by its fields (`invalid`, `problem`, else the
/// list).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(untagged)]
pub enum ListAnswer {
    /// The items and fields.
    Found(DescribedList),
    /// Why not.
    NotFound(ListNotFound),
    /// A selector is not valid CSS.
    Invalid(InvalidSelector),
}

/// What `window.__bflowRecorder.describeTable(spec)` is asked (an `--extract-table`): the
/// table's CSS selector (a `<table>`, a grid, or an element holding one) and the columns wanted
/// by header (none: every column).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct TableLookup {
    /// Finds the table.
    pub table: String,
    /// The columns wanted, by header (the lowest header's text or the path `Price / EUR`).
    pub columns: Vec<String>,
}

/// A column as `describeTable` found it over the data rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DescribedColumn {
    /// Its header (the path of spanning headers, `Price / EUR`, where header rows span).
    pub name: String,
    /// How many rows have no value in it (the field is then optional).
    pub missing: u32,
    /// Every value is a figure (`$1,299.00`, `12 %`): the field is a number.
    pub numeric: bool,
}

/// What `describeTable` answers when the table is found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DescribedTable {
    /// How many data rows.
    pub count: u32,
    /// The candidates that find exactly the data rows.
    pub items: Vec<ListCandidate>,
    /// The columns, in the order asked (or the table's).
    pub columns: Vec<DescribedColumn>,
}

/// Every answer of `describeTable`, told apart by its fields (`invalid`, `problem`, else the
/// table).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(untagged)]
pub enum TableAnswer {
    /// The rows and columns.
    Found(DescribedTable),
    /// Why not.
    NotFound(ListNotFound),
    /// The selector is not valid CSS.
    Invalid(InvalidSelector),
}

/// Reads what `describeTable` answered, by the field that names its kind.
pub(crate) fn read_table(value: &Value) -> Result<TableAnswer, Problem> {
    if value.get("invalid").is_some() {
        from_value_located(value).map(TableAnswer::Invalid)
    } else if value.get("problem").is_some() {
        from_value_located(value).map(TableAnswer::NotFound)
    } else {
        from_value_located(value).map(TableAnswer::Found)
    }
}

/// Reads what `describeList` answered, by the field that names its kind.
pub(crate) fn read_list(value: &Value) -> Result<ListAnswer, Problem> {
    if value.get("invalid").is_some() {
        from_value_located(value).map(ListAnswer::Invalid)
    } else if value.get("problem").is_some() {
        from_value_located(value).map(ListAnswer::NotFound)
    } else {
        from_value_located(value).map(ListAnswer::Found)
    }
}
