//! Lists given by selectors (`bflow record --extract-list
//! 'results=ITEMS{name=SEL,price=SEL:number,url=SEL@href}'`): the items and fields are looked up
//! in the live page while it is open ([`Recorder::describe_list`]), where each gets the
//! candidates a replay finds it by, checked on every item (`list_pick.ts`); the result is an
//! `extract_list` step ([`Draft::mark_list`]). A table (`--extract-table`) is a list of its data
//! rows, each field the cell under a column by header ([`Recorder::describe_table`]).
//!
//! ```
//! use browserflow_record::ListBySelector;
//! use browserflow_steps::FieldKind;
//!
//! let list = ListBySelector::parse("results=li.result{name=h3,price=.price:number,url=a@href}")?;
//! assert_eq!(list.items, "li.result");
//! assert_eq!(list.fields[2].attribute.as_deref(), Some("href"));
//! assert_eq!(list.fields[2].kind, FieldKind::Url);
//! # Ok::<(), String>(())
//! ```

use std::time::Duration;

use browserflow_steps::{
    ExtractListStep, ExtractSource, FieldKind, ListField, Selector, SelectorCandidate,
};

use crate::protocol::{
    self, DescribedList, DescribedTable, FieldLookup, ListAnswer, ListCandidate, ListLookup,
    ProtocolError, TableAnswer, TableLookup,
};
use crate::{RecordError, Recorder};

/// How long the items are waited for in the live page (they may still be arriving).
const LIST_LOOKUP: Duration = Duration::from_secs(5);

/// A list named by CSS selectors: the output field, the items, and each field inside an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListBySelector {
    /// The output field (an array of objects).
    pub name: String,
    /// Finds every item (through open shadow roots).
    pub items: String,
    /// The fields of each item.
    pub fields: Vec<FieldBySelector>,
}

/// One field of a [`ListBySelector`]: `NAME=SELECTOR[@ATTRIBUTE][:KIND]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldBySelector {
    /// The key in each item's object.
    pub name: String,
    /// CSS inside the item; empty: the item itself.
    pub selector: String,
    /// Read this attribute instead of the text (`href` and `src` are read as absolute URLs).
    pub attribute: Option<String>,
    /// The value's type.
    pub kind: FieldKind,
}

/// Splits `text` at `sep` outside brackets, parentheses and quotes.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let (mut depth, mut quote, mut start) = (0i32, None, 0);
    let mut parts = Vec::new();
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

impl FieldBySelector {
    fn parse(text: &str) -> Result<FieldBySelector, String> {
        let (name, rest) = text
            .split_once('=')
            .ok_or_else(|| format!("field {text:?}: expected NAME=SELECTOR[@ATTRIBUTE][:TYPE]"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("field {text:?}: the name is empty"));
        }
        let mut rest = rest.trim();
        // A `:word` that is not a type belongs to the selector (`li:first-child`).
        let mut kind = None;
        if let Some((before, word)) = rest.rsplit_once(':')
            && let Some(k) = FieldKind::parse(word.trim())
        {
            kind = Some(k);
            rest = before.trim();
        }
        let (selector, attribute) = match rest.rsplit_once('@') {
            Some((selector, attr)) if !attr.is_empty() && !attr.contains([']', ' ', '"']) => {
                (selector.trim(), Some(attr.trim().to_owned()))
            }
            _ => (rest, None),
        };
        let kind = kind.unwrap_or(match attribute.as_deref() {
            Some("href" | "src") => FieldKind::Url,
            _ => FieldKind::String,
        });
        if kind == FieldKind::Url && attribute.is_none() {
            return Err(format!(
                "field `{name}`: a url is read from an attribute (`{name}=SELECTOR@href`)"
            ));
        }
        Ok(FieldBySelector {
            name: name.to_owned(),
            selector: selector.to_owned(),
            attribute,
            kind,
        })
    }
}

impl ListBySelector {
    /// Reads `NAME=ITEMS{FIELD,FIELD…}`, each field `NAME=SELECTOR[@ATTRIBUTE][:TYPE]`
    /// (types: `string`, `number`, `integer`, `boolean`, `date`, `url`; `@href` and `@src`
    /// are `url`s unless typed otherwise; an empty selector is the item itself).
    pub fn parse(text: &str) -> Result<ListBySelector, String> {
        let usage = || format!("{text:?}: expected NAME=ITEM_SELECTOR{{FIELD=SELECTOR,…}}");
        let (name, rest) = text.split_once('=').ok_or_else(usage)?;
        let rest = rest.trim();
        let open = rest.find('{').ok_or_else(usage)?;
        let inner = rest[open + 1..].strip_suffix('}').ok_or_else(usage)?;
        let (name, items) = (name.trim(), rest[..open].trim());
        if name.is_empty() || items.is_empty() {
            return Err(usage());
        }
        let fields = split_top(inner, ',')
            .into_iter()
            .filter(|f| !f.trim().is_empty())
            .map(FieldBySelector::parse)
            .collect::<Result<Vec<_>, _>>()?;
        if fields.is_empty() {
            return Err(format!("{text:?}: the list has no fields"));
        }
        Ok(ListBySelector {
            name: name.to_owned(),
            items: items.to_owned(),
            fields,
        })
    }

    fn lookup(&self) -> ListLookup {
        ListLookup {
            items: self.items.clone(),
            fields: self
                .fields
                .iter()
                .map(|f| FieldLookup {
                    name: f.name.clone(),
                    css: f.selector.clone(),
                    attribute: f.attribute.clone(),
                })
                .collect(),
        }
    }

    /// The step, from what the live page answered.
    fn step(&self, described: DescribedList) -> ExtractListStep {
        ExtractListStep {
            label: None,
            items: Selector::new(candidates_of(described.items)),
            field: self.name.clone(),
            fields: self
                .fields
                .iter()
                .zip(described.fields)
                .map(|(f, d)| ListField {
                    name: f.name.clone(),
                    candidates: candidates_of(d.candidates),
                    column: None,
                    from: if f.attribute.is_some() {
                        ExtractSource::Attribute
                    } else {
                        ExtractSource::Text
                    },
                    attribute: f.attribute.clone(),
                    kind: f.kind,
                    optional: d.missing > 0,
                })
                .collect(),
            limit: None,
            timeout_ms: None,
            recorded_items: Some(described.count),
            paginate: None,
        }
    }
}

/// A table named by a CSS selector (`--extract-table NAME=TABLE[{FIELD=COLUMN[:TYPE],…}]`): its
/// data rows become the items, each field the cell under a column, by header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableBySelector {
    /// The output field (an array of objects).
    pub name: String,
    /// Finds the table (a `<table>`, a grid, or an element holding one).
    pub table: String,
    /// The columns wanted: field name, header, and type when given; none: every column, named
    /// from its header and typed by its values.
    pub columns: Vec<(String, String, Option<FieldKind>)>,
}

impl TableBySelector {
    /// Reads `NAME=TABLE` or `NAME=TABLE{FIELD=HEADER[:TYPE],…}` (a header as the table shows
    /// it, `Price / EUR` for a column under a spanning header).
    pub fn parse(text: &str) -> Result<TableBySelector, String> {
        let usage = || format!("{text:?}: expected NAME=TABLE_SELECTOR[{{FIELD=COLUMN[:TYPE],…}}]");
        let (name, rest) = text.split_once('=').ok_or_else(usage)?;
        let (name, rest) = (name.trim(), rest.trim());
        let (table, inner) = match rest.find('{') {
            Some(open) => (
                rest[..open].trim(),
                Some(rest[open + 1..].strip_suffix('}').ok_or_else(usage)?),
            ),
            None => (rest, None),
        };
        if name.is_empty() || table.is_empty() {
            return Err(usage());
        }
        let mut columns = Vec::new();
        for part in inner.map(|i| split_top(i, ',')).unwrap_or_default() {
            if part.trim().is_empty() {
                continue;
            }
            let (field, header) = part
                .split_once('=')
                .ok_or_else(|| format!("column {part:?}: expected FIELD=COLUMN[:TYPE]"))?;
            let (header, kind) = match header.rsplit_once(':') {
                Some((h, k)) if FieldKind::parse(k.trim()).is_some() => {
                    (h.trim(), FieldKind::parse(k.trim()))
                }
                _ => (header.trim(), None),
            };
            if field.trim().is_empty() || header.is_empty() || kind == Some(FieldKind::Url) {
                return Err(format!(
                    "column {part:?}: expected FIELD=COLUMN[:TYPE] (a cell's text: not `url`)"
                ));
            }
            columns.push((field.trim().to_owned(), header.to_owned(), kind));
        }
        if inner.is_some() && columns.is_empty() {
            return Err(format!("{text:?}: no columns between the braces"));
        }
        Ok(TableBySelector {
            name: name.to_owned(),
            table: table.to_owned(),
            columns,
        })
    }

    /// The step, from what the live page answered.
    fn step(&self, described: DescribedTable) -> ExtractListStep {
        let mut names: Vec<String> = Vec::new();
        let fields = described
            .columns
            .into_iter()
            .enumerate()
            .map(|(i, column)| {
                let (name, kind) = match self.columns.get(i) {
                    Some((field, _, kind)) => (field.clone(), *kind),
                    None => (field_name(&column.name, &names), None),
                };
                names.push(name.clone());
                let guessed = if column.numeric {
                    FieldKind::Number
                } else {
                    FieldKind::String
                };
                ListField {
                    name,
                    candidates: Vec::new(),
                    column: Some(column.name),
                    from: ExtractSource::Text,
                    attribute: None,
                    kind: kind.unwrap_or(guessed),
                    optional: column.missing > 0,
                }
            })
            .collect();
        ExtractListStep {
            label: None,
            items: Selector::new(candidates_of(described.items)),
            field: self.name.clone(),
            fields,
            limit: None,
            timeout_ms: None,
            recorded_items: Some(described.count),
            paginate: None,
        }
    }
}

/// A field name from a column's header: `Price / EUR` → `price_eur`, made unique among `taken`.
fn field_name(header: &str, taken: &[String]) -> String {
    let mut name = String::new();
    for c in header.chars() {
        if c.is_alphanumeric() {
            name.extend(c.to_lowercase());
        } else if !name.ends_with('_') && !name.is_empty() {
            name.push('_');
        }
    }
    let mut name = name.trim_end_matches('_').to_owned();
    if name.is_empty() || !name.starts_with(|c: char| c.is_alphabetic()) {
        name = format!("column_{name}").trim_end_matches('_').to_owned();
    }
    let mut unique = name.clone();
    let mut n = 2;
    while taken.contains(&unique) {
        unique = format!("{name}_{n}");
        n += 1;
    }
    unique
}

fn candidates_of(list: Vec<ListCandidate>) -> Vec<SelectorCandidate> {
    list.into_iter()
        .map(|c| SelectorCandidate {
            structure: c.structure,
            shadow: c.shadow,
            ..SelectorCandidate::new(c.kind, c.value)
        })
        .collect()
}

impl Recorder {
    /// Looks the list `list` names up in the top frame of `page`, waiting a little for items
    /// still arriving: the `extract_list` step with candidates checked on every item (an item
    /// that lacks a field makes it optional), or why there is none.
    pub async fn describe_list(
        &self,
        page: &str,
        list: &ListBySelector,
    ) -> Result<ExtractListStep, RecordError> {
        let failed = |message: String| RecordError::NoElement {
            selector: list.items.clone(),
            page: page.to_owned(),
            message,
        };
        let expression = format!(
            "window.__bflowRecorder.describeList({})",
            serde_json::to_string(&list.lookup()).unwrap_or_default()
        );
        let deadline = tokio::time::Instant::now() + LIST_LOOKUP;
        loop {
            let value = self.evaluate_top(page, &expression).await;
            let retry = match value {
                Err(message) => message,
                Ok(value) => {
                    let answer = protocol::read_list(&value).map_err(|problem| {
                        RecordError::Protocol(Box::new(ProtocolError {
                            page: page.to_owned(),
                            frame_url: None,
                            message_type: Some("describeList".to_owned()),
                            problem,
                        }))
                    })?;
                    match answer {
                        ListAnswer::Found(described) => return Ok(list.step(described)),
                        ListAnswer::Invalid(invalid) => return Err(failed(invalid.invalid)),
                        ListAnswer::NotFound(not) if !not.empty => return Err(failed(not.problem)),
                        ListAnswer::NotFound(not) => not.problem,
                    }
                }
            };
            if tokio::time::Instant::now() >= deadline {
                return Err(failed(retry));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Recorder {
    /// Looks the table `table` names up in the top frame of `page`, waiting a little for rows
    /// still arriving: the `extract_list` step over its data rows, a field per column, or why
    /// there is none.
    pub async fn describe_table(
        &self,
        page: &str,
        table: &TableBySelector,
    ) -> Result<ExtractListStep, RecordError> {
        let failed = |message: String| RecordError::NoElement {
            selector: table.table.clone(),
            page: page.to_owned(),
            message,
        };
        let lookup = TableLookup {
            table: table.table.clone(),
            columns: table.columns.iter().map(|(_, h, _)| h.clone()).collect(),
        };
        let expression = format!(
            "window.__bflowRecorder.describeTable({})",
            serde_json::to_string(&lookup).unwrap_or_default()
        );
        let deadline = tokio::time::Instant::now() + LIST_LOOKUP;
        loop {
            let retry = match self.evaluate_top(page, &expression).await {
                Err(message) => message,
                Ok(value) => {
                    let answer = protocol::read_table(&value).map_err(|problem| {
                        RecordError::Protocol(Box::new(ProtocolError {
                            page: page.to_owned(),
                            frame_url: None,
                            message_type: Some("describeTable".to_owned()),
                            problem,
                        }))
                    })?;
                    match answer {
                        TableAnswer::Found(described) => return Ok(table.step(described)),
                        TableAnswer::Invalid(invalid) => return Err(failed(invalid.invalid)),
                        TableAnswer::NotFound(not) if !not.empty => {
                            return Err(failed(not.problem));
                        }
                        TableAnswer::NotFound(not) => not.problem,
                    }
                }
            };
            if tokio::time::Instant::now() >= deadline {
                return Err(failed(retry));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_spec_reads_fields_types_attributes_and_selectors_with_colons_and_commas() {
        let list = ListBySelector::parse(
            "results = section li:nth-child(n+1) { name=h3 , price=span:first-of-type:number, \
             url=a@href, img=img@src:string, id=@data-id:integer, tag=:is(b, i), when=time:date }",
        )
        .unwrap();
        assert_eq!(list.name, "results");
        assert_eq!(list.items, "section li:nth-child(n+1)");
        let got: Vec<(&str, &str, Option<&str>, FieldKind)> = list
            .fields
            .iter()
            .map(|f| {
                (
                    f.name.as_str(),
                    f.selector.as_str(),
                    f.attribute.as_deref(),
                    f.kind,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("name", "h3", None, FieldKind::String),
                ("price", "span:first-of-type", None, FieldKind::Number),
                ("url", "a", Some("href"), FieldKind::Url),
                ("img", "img", Some("src"), FieldKind::String),
                ("id", "", Some("data-id"), FieldKind::Integer),
                ("tag", ":is(b, i)", None, FieldKind::String),
                ("when", "time", None, FieldKind::Date),
            ]
        );
        for bad in [
            "results",
            "results=li",
            "=li{a=b}",
            "r=li{}",
            "r=li{a}",
            "r=li{u=a:url}",
        ] {
            assert!(ListBySelector::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_table_spec_names_columns_by_header_and_field_names_come_from_headers() {
        let all = TableBySelector::parse("prices = #rates").unwrap();
        assert_eq!(
            (all.name.as_str(), all.table.as_str()),
            ("prices", "#rates")
        );
        assert!(all.columns.is_empty());
        let some =
            TableBySelector::parse("p=table[aria-label='A, B']{item=Item,eur=Price / EUR:number}")
                .unwrap();
        assert_eq!(some.table, "table[aria-label='A, B']");
        assert_eq!(
            some.columns,
            [
                ("item".to_string(), "Item".to_string(), None),
                (
                    "eur".to_string(),
                    "Price / EUR".to_string(),
                    Some(FieldKind::Number)
                )
            ]
        );
        for bad in ["p", "=t", "p=t{}", "p=t{a}", "p=t{a=B:url}"] {
            assert!(TableBySelector::parse(bad).is_err(), "{bad}");
        }
        let taken = vec!["price_eur".to_string()];
        assert_eq!(field_name("Price / EUR", &taken), "price_eur_2");
        assert_eq!(field_name("Äge (years)", &[]), "äge_years");
        assert_eq!(field_name("2024", &[]), "column_2024");
    }
}
