//! The recorded step vocabulary and selectors, as stored in tool files (pretty JSON, stable key
//! order, unknown fields rejected).
//!
//! Any string field may reference replay inputs as `{{name}}`; see [`crate::expand_step`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{BoxSize, Selector, Settle, StateCheck};

/// One recorded step. Serialized with a `"type"` tag in snake_case, for example
/// `{"type": "click", "selector": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Step {
    /// Load a URL in the current page.
    Navigate(NavigateStep),
    /// Click an element with a real mouse event.
    Click(ClickStep),
    /// Replace the content of an input, textarea, select or contenteditable element.
    #[serde(alias = "change")]
    Fill(FillStep),
    /// Press a key (with modifiers) on the focused element or on a given element.
    KeyPress(KeyPressStep),
    /// Move the mouse over an element.
    Hover(HoverStep),
    /// Press an element, move the pointer with the button held, and release: a slider's thumb
    /// dragged along its track, an item dropped on another element.
    Drag(DragStep),
    /// Scroll the window or an element to a position.
    Scroll(ScrollStep),
    /// Set the viewport size.
    SetViewport(SetViewportStep),
    /// Wait until elements matching a selector satisfy a condition.
    WaitForElement(WaitForElementStep),
    /// Wait until a JavaScript expression in the page is truthy.
    WaitForExpression(WaitForExpressionStep),
    /// Read text, a value or an attribute into a typed output field.
    Extract(ExtractStep),
    /// Read a list (its items, each with typed fields) into an output field as an array of
    /// objects.
    ExtractList(crate::ExtractListStep),
    /// Check an element's text or value, or the page's URL or title.
    Assert(AssertStep),
    /// Decide how the next JavaScript dialog (alert, confirm, prompt) is answered.
    HandleDialog(HandleDialogStep),
    /// Continue on another page (the main page or a popup opened earlier).
    SwitchPage(SwitchPageStep),
    /// Close a popup page.
    ClosePage(ClosePageStep),
    /// Click an element that starts a download, and wait for the file to be saved.
    Download(DownloadStep),
    /// Put files into a file input, or into the file chooser a button opens.
    Upload(UploadStep),
}

/// A navigation the step must cause; checked after the step.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedNavigation {
    /// The URL after the navigation (exact, or a pattern with `*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The document title after the navigation (exact, or a pattern with `*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// A click/hover point relative to the element's top-left corner, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Offset {
    /// Pixels from the left edge.
    pub x: f64,
    /// Pixels from the top edge.
    pub y: f64,
    /// The element's size when the point was recorded: on replay the point keeps its place
    /// relative to the element's box whatever its size then (see [`BoxSize`]); without it,
    /// the same pixels from the top-left corner.
    #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
    pub recorded_box: Option<BoxSize>,
}

/// See [`Step::Navigate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NavigateStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The URL to load.
    pub url: String,
    /// Checked once the page has loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation: Option<ExpectedNavigation>,
    /// Overrides the replay's navigation timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// See [`Step::Click`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClickStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The element to click.
    pub selector: Selector,
    /// Which button (default left).
    #[serde(default, skip_serializing_if = "is_default")]
    pub button: MouseButton,
    /// 1 for a click, 2 for a double click.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub click_count: u8,
    /// A long press: how long the button is held, in milliseconds (a single click only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_ms: Option<u64>,
    /// Where to click, relative to the element; its centre when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Offset>,
    /// A navigation the click must cause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation: Option<ExpectedNavigation>,
    /// The click opens a popup: continue on it under this name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opens_popup: Option<String>,
    /// Overrides the per-candidate wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What the step visibly did, checked after it on replay (see [`StateCheck`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<StateCheck>,
    /// What its gesture set off on the network, waited for on replay (see [`Settle`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<Settle>,
}

/// See [`Step::Fill`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FillStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The element to fill.
    pub selector: Selector,
    /// The new content; for a select, an option's value or label.
    pub value: String,
    /// The page listened to keys on this field while recording (a dropdown that filters on
    /// `keydown`/`keyup`): the text is typed key by key with real key events, as the person's
    /// was. Absent: inserted as text (one `input` event), which is all such a page hears.
    #[serde(default, skip_serializing_if = "is_default")]
    pub keys: bool,
    /// Overrides the per-candidate wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What the step visibly did, checked after it on replay (see [`StateCheck`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<StateCheck>,
    /// Where on the field the person clicked to focus it (the click this fill took the place
    /// of): replay rests the pointer there, where the person's rested while typing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<Offset>,
    /// What its gesture set off on the network, waited for on replay (see [`Settle`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<Settle>,
}

/// A key modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Modifier {
    /// Alt / Option.
    Alt,
    /// Control.
    Control,
    /// Meta / Command.
    Meta,
    /// Shift.
    Shift,
}

/// See [`Step::KeyPress`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyPressStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// A key name as in `KeyboardEvent.key`: `Enter`, `Tab`, `ArrowDown`, `a`, …
    pub key: String,
    /// Modifiers held during the press.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<Modifier>,
    /// Focus this element first; otherwise the key goes to the focused element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<Selector>,
    /// A navigation the key press must cause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation: Option<ExpectedNavigation>,
    /// The key press opens a popup: continue on it under this name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opens_popup: Option<String>,
    /// Overrides the per-candidate wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What the step visibly did, checked after it on replay (see [`StateCheck`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<StateCheck>,
    /// What its gesture set off on the network, waited for on replay (see [`Settle`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<Settle>,
}

/// See [`Step::Hover`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoverStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The element to hover.
    pub selector: Selector,
    /// Where to point, relative to the element; its centre when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Offset>,
    /// Overrides the per-candidate wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// See [`Step::Drag`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DragStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The element pressed.
    pub selector: Selector,
    /// Where it was pressed, relative to the element; its centre when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Offset>,
    /// How far the pointer moved from the press to the release, in CSS pixels: where the
    /// release goes when there is no `target` (a slider's thumb moved along its track).
    pub by: PointerMove,
    /// The element released over, when it is another element than the one pressed (a drop
    /// target): the release goes to it, wherever it is on replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Selector>,
    /// Where the release was, relative to `target`; its centre when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_offset: Option<Offset>,
    /// Overrides the per-candidate wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What the step visibly did, checked after it on replay (see [`StateCheck`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<StateCheck>,
    /// What its gesture set off on the network, waited for on replay (see [`Settle`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<Settle>,
}

/// A relative pointer move, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PointerMove {
    /// Pixels to the right (negative: to the left).
    pub x: f64,
    /// Pixels down (negative: up).
    pub y: f64,
}

/// See [`Step::Scroll`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScrollStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The element to scroll; the window when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<Selector>,
    /// Horizontal scroll position in CSS pixels.
    #[serde(default)]
    pub x: f64,
    /// Vertical scroll position in CSS pixels.
    #[serde(default)]
    pub y: f64,
    /// Overrides the per-candidate wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// See [`Step::SetViewport`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetViewportStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Width in CSS pixels.
    pub width: u32,
    /// Height in CSS pixels.
    pub height: u32,
    /// Device pixel ratio (default 1).
    #[serde(default = "one_f64", skip_serializing_if = "is_one_f64")]
    pub device_scale_factor: f64,
    /// Emulate a mobile device.
    #[serde(default, skip_serializing_if = "is_default")]
    pub mobile: bool,
}

/// How a count of matching elements is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum CountOperator {
    /// Exactly.
    #[default]
    #[serde(rename = "==")]
    Equal,
    /// At least.
    #[serde(rename = ">=")]
    AtLeast,
    /// At most.
    #[serde(rename = "<=")]
    AtMost,
}

impl CountOperator {
    /// The operator as a tool file writes it (`==`, `>=`, `<=`).
    pub fn as_str(self) -> &'static str {
        match self {
            CountOperator::Equal => "==",
            CountOperator::AtLeast => ">=",
            CountOperator::AtMost => "<=",
        }
    }
}

/// See [`Step::WaitForElement`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitForElementStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The elements to wait for.
    pub selector: Selector,
    /// How many must match (compared with `operator`); "at least one" when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// How `count` is compared (default `==`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub operator: CountOperator,
    /// Only count visible (true) or hidden (false) elements; with `false` and no `count`,
    /// waits until no matching element is visible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible: Option<bool>,
    /// Only count elements whose DOM properties equal these values.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub properties: Map<String, Value>,
    /// Overrides the per-candidate wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// See [`Step::WaitForExpression`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitForExpressionStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// A JavaScript expression evaluated in the page until it is truthy.
    pub expression: String,
    /// Overrides the wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// What an extract step reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractSource {
    /// The rendered text, whitespace collapsed.
    #[default]
    Text,
    /// The form control's current value.
    Value,
    /// The attribute named by `attribute`.
    Attribute,
}

impl ExtractSource {
    /// The source as a tool file writes it (`text`, `value`, `attribute`).
    pub fn as_str(self) -> &'static str {
        match self {
            ExtractSource::Text => "text",
            ExtractSource::Value => "value",
            ExtractSource::Attribute => "attribute",
        }
    }
}

/// The JSON type an extracted string is coerced to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputKind {
    /// Kept as text.
    #[default]
    String,
    /// A number: `$1,299.00` → 1299.0, `1.299,00 €` → 1299.0.
    Number,
    /// A whole number.
    Integer,
    /// `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0`.
    Boolean,
}

/// See [`Step::Extract`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The element to read.
    pub selector: Selector,
    /// What to read (default the text).
    #[serde(default, skip_serializing_if = "is_default")]
    pub from: ExtractSource,
    /// The attribute to read when `from` is `attribute`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<String>,
    /// The output field that receives the value.
    pub field: String,
    /// The type the value is coerced to.
    #[serde(default, skip_serializing_if = "is_default")]
    pub kind: OutputKind,
    /// Also store the currency (ISO 4217 code, from a symbol or code in the text) in this field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency_field: Option<String>,
    /// Overrides the per-candidate wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What the recording read (the text's shape, the element's identity): the replay waits
    /// for a value consistent with it. Absent in hand-written and imported files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<crate::RecordedRead>,
}

/// See [`Step::Assert`]. At least one check must be given; all given checks must hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssertStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The element whose text or value is checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<Selector>,
    /// The element's text equals this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_equals: Option<String>,
    /// The element's text contains this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_contains: Option<String>,
    /// The element's value equals this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_equals: Option<String>,
    /// The page URL matches (exact, or a pattern with `*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The page title matches (exact, or a pattern with `*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Overrides the wait budget (assertions wait for the condition to hold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// See [`Step::HandleDialog`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandleDialogStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Accept (OK) or dismiss (Cancel) the next dialog.
    pub accept: bool,
    /// Text to answer a prompt with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

/// See [`Step::SwitchPage`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchPageStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `main`, or the name given in an earlier `opens_popup`.
    pub page: String,
}

/// See [`Step::ClosePage`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosePageStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The popup to close (the main page cannot be closed).
    pub page: String,
}

/// What a download step stores in its output field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DownloadOutput {
    /// An object `{name, path, size, sha256, url}`.
    #[default]
    File,
    /// The saved file's absolute path.
    Path,
    /// The file name the server suggested.
    Name,
    /// The size in bytes.
    Size,
    /// The SHA-256 of the content, lowercase hex.
    Sha256,
}

/// See [`Step::Download`]. The file is saved under the replay's download folder
/// ([`crate::ReplayOptions::download_dir`]) with the name the server suggested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DownloadStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The link or button that starts the download.
    pub selector: Selector,
    /// Where to click, relative to the element; its centre when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Offset>,
    /// The suggested file name must match (exact, or a pattern with `*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// The output field that receives the download (see `output`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What `field` receives (default the whole file description).
    #[serde(default, skip_serializing_if = "is_default")]
    pub output: DownloadOutput,
    /// Overrides the per-candidate wait budget for the element, and the navigation timeout
    /// for the download to finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// See [`Step::Upload`]. The element is either an `<input type=file>` (its files are set
/// directly, visible or not) or an element whose click opens a file chooser (the chooser is
/// intercepted and answered with `files`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadStep {
    /// What the step is for, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The file input, or the button that opens a file chooser.
    pub selector: Selector,
    /// Paths of the files to upload (usually `{{file}}`); each must exist when the step runs.
    pub files: Vec<String>,
    /// Overrides the per-candidate wait budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

fn one() -> u8 {
    1
}
fn is_one(v: &u8) -> bool {
    *v == 1
}
fn one_f64() -> f64 {
    1.0
}
fn is_one_f64(v: &f64) -> bool {
    *v == 1.0
}
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The wheel button.
    Middle,
    /// The secondary button (context menu).
    Right,
    /// The "back" button (X1).
    Back,
    /// The "forward" button (X2).
    Forward,
}
