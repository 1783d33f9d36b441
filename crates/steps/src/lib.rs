//! The browser tool model: the recorded step vocabulary, ranked selectors and the tool file,
//! as pure data. Nothing here is async or talks to a browser; the CDP engine
//! (`browserflow-cdp`), the replayer and the recorder build on it.
//!
//! * [`Step`] and its kinds, [`Selector`] with ranked [`SelectorCandidate`]s: pretty, stable
//!   JSON; unknown fields rejected. [`StepKind`] lists the kinds; everything decided per kind
//!   is one exhaustive match on `Step` in this crate (`kind.rs`).
//! * [`ToolFile`]: a recorded tool on disk (contract, origins, steps, metadata);
//!   [`check_navigation`]: only web URLs, and at the top level only the tool's [`Origins`].
//! * [`expand_step`]: `{{name}}` input references, expanded before a step runs;
//!   [`template_parts`] is the one scanner of them.
//! * [`coerce`]: extracted text to typed values (`"$1,299.00"` → `1299.0`, currency `USD`).
//! * [`glob_match`]: `*` patterns of expected URLs, titles and frame URLs.
//! * [`import_devtools`]: Chrome DevTools Recorder JSON to a tool file;
//!   [`export_playwright`]: a tool file to a standalone Playwright script.
//!
//! # Example
//!
//! ```
//! use browserflow_steps::{Step, expand_step};
//! use serde_json::json;
//!
//! let step: Step = serde_json::from_value(json!({
//!     "type": "fill", "value": "{{query}}",
//!     "selector": { "candidates": [{ "kind": "test_id", "value": "search-input" }] }
//! }))?;
//! let inputs = json!({ "query": "keyboard" }).as_object().cloned().unwrap_or_default();
//! let Step::Fill(fill) = expand_step(&step, &inputs)? else { unreachable!() };
//! assert_eq!(fill.value, "keyboard");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod checks;
mod coerce;
mod devtools;
mod glob;
mod interpolate;
mod kind;
mod list;
mod origins;
mod paginate;
mod place;
mod playwright;
mod reads;
mod repeat;
mod selector;
mod settle;
mod step;
mod tool_file;
mod validate;

pub use checks::{CheckSubject, CheckedState, StateCheck};
pub use coerce::{CoerceError, coerce, currency_code, parse_number};
pub use devtools::{ImportError, import_devtools, import_devtools_file};
pub use glob::glob_match;
pub use interpolate::{InterpolateError, TemplatePart, expand_step, expand_text, template_parts};
pub use kind::{PageEffects, PageEffectsMut, StepKind, StepOutput};
pub use list::{ExtractListStep, FieldKind, ListField};
pub use origins::{
    ANY_ORIGIN, HostClass, NavigationRefusal, Origins, check_navigation, check_resolved,
    needs_resolution, web_origin,
};
pub use paginate::{DEFAULT_MAX_PAGES, PageBy, Paginate};
pub use place::{BoxSize, Viewport};
pub use playwright::export_playwright;
pub use reads::{ElementIdentity, RecordedRead, TextShape};
pub use repeat::{CellPlace, ItemPlace, Reliance, Repeat, is_place_candidate, names_element};
pub use selector::*;
pub use settle::{
    AnswerProgress, RequestPattern, Settle, SocketPattern, frame_parts, is_heartbeat, path_matches,
    path_pattern, url_path,
};
pub use step::*;
pub use tool_file::from_value_located;
pub use tool_file::{ORIGIN_KEY, ToolFile, ToolFileError, origin_of};
