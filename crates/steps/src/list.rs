//! The `extract_list` step's parts: a list read as an array of objects with typed fields.
//!
//! The step's `items` is a [`Selector`] whose candidates each match *every* item of the list
//! (the highest-ranked one that matches any wins; the `items` pick of a `structure` candidate
//! finds a repeating structure's items by its anchor, whatever its classes); each
//! [`ListField`] has candidates relative to the item (absent: the item itself) and a
//! [`FieldKind`]. An item missing an optional field gives `null`; a required one fails the step
//! naming the item. A table's or grid's rows are items too, each field then the cell under a
//! named column (`column`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value, json};

use crate::{ExtractSource, OutputKind, Paginate, Selector, SelectorCandidate, coerce};

/// See [`crate::Step::ExtractList`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractListStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The items: ranked candidates, each matching every item of the list.
    pub items: Selector,
    /// The output field that receives the array.
    pub field: String,
    /// The fields of each item, in order.
    pub fields: Vec<ListField>,
    /// At most this many items (the first ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// Overrides the wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// How many items the recording saw (before `limit`): a list recorded with items waits
    /// for items on replay, and an empty one fails the step instead of returning `[]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_items: Option<u32>,
    /// The list's further pages, read until they end (see [`Paginate`]); absent: the items
    /// the page shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paginate: Option<Paginate>,
}

/// One field of each item of an [`ExtractListStep`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListField {
    /// The key in each item's object.
    pub name: String,
    /// Ranked candidates searched inside the item (the first that matches exactly one element
    /// there wins); empty: the item itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<SelectorCandidate>,
    /// For the rows of a table or grid: the cell under the column with this header — the
    /// lowest header cell's text, or the path of the header cells over it where header rows
    /// span columns (`Price / EUR`), ignoring case; spans of cells and rows followed. Tried
    /// before `candidates`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// What to read (default the text).
    #[serde(default, skip_serializing_if = "is_default")]
    pub from: ExtractSource,
    /// The attribute to read when `from` is `attribute` (`href`, `src`, `data-*`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<String>,
    /// The type of the value.
    #[serde(default, skip_serializing_if = "is_default")]
    pub kind: FieldKind,
    /// An item may lack it (the value is then `null`); a required field missing from an item
    /// fails the step.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

/// The type of a [`ListField`]'s value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// Text, whitespace collapsed.
    #[default]
    String,
    /// A number (`$1,299.00` → 1299).
    Number,
    /// A whole number.
    Integer,
    /// `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0`.
    Boolean,
    /// A calendar date, written `YYYY-MM-DD` (read from `2026-12-02`, `Dec 2, 2026`,
    /// `2 December 2026`).
    Date,
    /// An absolute URL: the attribute (`href`, `src`) resolved against the document's URL.
    Url,
}

impl FieldKind {
    /// The kind as a tool file and `--extract-list` write it.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldKind::String => "string",
            FieldKind::Number => "number",
            FieldKind::Integer => "integer",
            FieldKind::Boolean => "boolean",
            FieldKind::Date => "date",
            FieldKind::Url => "url",
        }
    }

    /// The kind named `name` (`text` is `string`).
    pub fn parse(name: &str) -> Option<FieldKind> {
        if name == "text" {
            return Some(FieldKind::String);
        }
        [
            FieldKind::String,
            FieldKind::Number,
            FieldKind::Integer,
            FieldKind::Boolean,
            FieldKind::Date,
            FieldKind::Url,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
    }

    /// The JSON Schema of a value of this kind (`null` allowed too when `optional`).
    pub fn schema(self, optional: bool) -> Value {
        let (ty, format) = match self {
            FieldKind::String => ("string", None),
            FieldKind::Number => ("number", None),
            FieldKind::Integer => ("integer", None),
            FieldKind::Boolean => ("boolean", None),
            FieldKind::Date => ("string", Some("date")),
            FieldKind::Url => ("string", Some("uri")),
        };
        let mut schema = Map::new();
        schema.insert(
            "type".into(),
            if optional {
                json!(["null", ty])
            } else {
                json!(ty)
            },
        );
        if let Some(format) = format {
            schema.insert("format".into(), json!(format));
        }
        Value::Object(schema)
    }

    /// Whether the page text read must hold a digit before it is taken (a figure, not a
    /// placeholder such as "—" or "Loading…").
    pub fn needs_digits(self) -> bool {
        matches!(
            self,
            FieldKind::Number | FieldKind::Integer | FieldKind::Date
        )
    }

    /// `text` (what the page showed, or the resolved URL) as a value of this kind.
    pub fn coerce(self, text: &str) -> Result<Value, String> {
        let scalar = |kind| coerce(text, kind).map_err(|e| e.to_string());
        match self {
            FieldKind::String | FieldKind::Url => Ok(Value::String(text.to_owned())),
            FieldKind::Number => scalar(OutputKind::Number),
            FieldKind::Integer => scalar(OutputKind::Integer),
            FieldKind::Boolean => scalar(OutputKind::Boolean),
            FieldKind::Date => parse_date(text)
                .map(|(y, m, d)| Value::String(format!("{y:04}-{m:02}-{d:02}")))
                .ok_or_else(|| format!("cannot read {text:?} as a date")),
        }
    }
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A date as year, month and day: ISO (`2026-12-02`, a time after it ignored), or with the
/// month's English name in either order (`Dec 2, 2026`, `2 December 2026`). Numeric dates
/// with slashes are refused: `03/04/2026` is a different day in different countries.
fn parse_date(text: &str) -> Option<(u32, u32, u32)> {
    let text = text.trim();
    let numbers: Vec<u32> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    let iso = text.len() >= 10
        && text.as_bytes()[4] == b'-'
        && text.as_bytes()[7] == b'-'
        && text[..4].bytes().all(|b| b.is_ascii_digit());
    let (y, m, d) = if iso {
        (*numbers.first()?, *numbers.get(1)?, *numbers.get(2)?)
    } else {
        let lower = text.to_lowercase();
        let month = lower.split(|c: char| !c.is_alphabetic()).find_map(|word| {
            // A month's name or its first three letters or more (`Sept`), never
            // a word that merely starts like one (`decimal`).
            (word.len() >= 3)
                .then(|| MONTHS.iter().position(|m| m.starts_with(word)))
                .flatten()
        })? as u32
            + 1;
        let day = numbers.iter().copied().find(|n| (1..=31).contains(n))?;
        let year = numbers.iter().copied().find(|n| *n >= 1000)?;
        (year, month, day)
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&d).then_some((y, m, d))
}

impl ExtractListStep {
    /// The JSON Schema of the array the step writes: objects with every field, each typed
    /// (an optional one may be `null`), and no other key.
    pub fn schema(&self) -> Value {
        let properties: Map<String, Value> = self
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.kind.schema(f.optional)))
            .collect();
        let mut required: Vec<&str> = self.fields.iter().map(|f| f.name.as_str()).collect();
        required.sort_unstable();
        let mut schema = json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            },
        });
        if let Some(limit) = self.limit {
            schema["maxItems"] = Value::Number(Number::from(limit));
        }
        schema
    }

    /// The rules the JSON shape cannot express.
    pub(crate) fn problem(&self) -> Option<String> {
        if self.field.trim().is_empty() {
            return Some("field is empty".into());
        }
        if self.items.candidates.is_empty() {
            return Some("`items` has no candidates".into());
        }
        if self.fields.is_empty() {
            return Some("`fields` is empty: an item needs at least one field".into());
        }
        if self.limit == Some(0) {
            return Some("`limit` must be at least 1".into());
        }
        if let Some(paginate) = &self.paginate
            && let Some(problem) = paginate.problem(self.fields.iter().map(|f| f.name.as_str()))
        {
            return Some(problem);
        }
        for (i, f) in self.fields.iter().enumerate() {
            if f.name.trim().is_empty() {
                return Some(format!("the name of field {} is empty", i + 1));
            }
            if self.fields[..i].iter().any(|g| g.name == f.name) {
                return Some(format!("the field `{}` is named twice", f.name));
            }
            if f.column.as_deref().is_some_and(|c| c.trim().is_empty()) {
                return Some(format!("field `{}`: `column` is empty", f.name));
            }
            if f.from == ExtractSource::Attribute && f.attribute.is_none() {
                return Some(format!(
                    "field `{}`: `from: attribute` needs `attribute`",
                    f.name
                ));
            }
            if f.from != ExtractSource::Attribute && f.attribute.is_some() {
                return Some(format!(
                    "field `{}`: `attribute` goes only with `from: attribute`",
                    f.name
                ));
            }
            if f.kind == FieldKind::Url && f.from != ExtractSource::Attribute {
                return Some(format!(
                    "field `{}`: a `url` is read from an attribute (`href`, `src`)",
                    f.name
                ));
            }
        }
        None
    }
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_read_in_iso_and_with_month_names_never_from_slashes() {
        let date = |t: &str| FieldKind::Date.coerce(t);
        assert_eq!(date("2026-12-02"), Ok(json!("2026-12-02")));
        assert_eq!(date("2026-12-02T10:00:00Z"), Ok(json!("2026-12-02")));
        assert_eq!(date("Dec 2, 2026"), Ok(json!("2026-12-02")));
        assert_eq!(date("Published 2 December 2026"), Ok(json!("2026-12-02")));
        assert_eq!(date("29 Feb 2024"), Ok(json!("2024-02-29")));
        assert!(date("29 Feb 2023").is_err());
        assert!(date("03/04/2026").is_err());
        assert!(date("soon").is_err());
        assert_eq!(date("Sept 9, 2025"), Ok(json!("2025-09-09")));
        assert!(date("decimal 4 2025").is_err());
    }

    #[test]
    fn an_optional_field_admits_null_and_the_array_is_bounded_by_the_limit() {
        let step: ExtractListStep = serde_json::from_value(json!({
            "items": { "candidates": [{ "kind": "css", "value": "li" }] },
            "field": "results", "limit": 5,
            "fields": [
                { "name": "name" },
                { "name": "price", "candidates": [{ "kind": "css", "value": ".p" }],
                  "kind": "number", "optional": true },
                { "name": "url", "from": "attribute", "attribute": "href", "kind": "url" },
            ],
        }))
        .unwrap();
        assert_eq!(step.problem(), None);
        assert_eq!(
            step.schema(),
            json!({ "type": "array", "maxItems": 5, "items": {
                "type": "object", "additionalProperties": false,
                "required": ["name", "price", "url"],
                "properties": {
                    "name": { "type": "string" },
                    "price": { "type": ["null", "number"] },
                    "url": { "type": "string", "format": "uri" },
                },
            }})
        );
        assert_eq!(FieldKind::Number.coerce("$1,299.00"), Ok(json!(1299.0)));
        assert!(FieldKind::Integer.coerce("none").is_err());
    }
}
