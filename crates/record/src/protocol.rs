//! The protocol of the recorder script (`js/recorder.js`): every message it sends through the
//! `__bflow_record` binding is one [`RecorderMessage`], tagged by its `type`, each kind with
//! exactly its fields; the answer of `describeCss` is a [`DescribedElement`]. [`read`] is the
//! one reader: a message that is not JSON, has no known `type` or a field of the wrong shape
//! is a [`ProtocolError`] naming the message, the field (its JSON pointer) and the frame and
//! page it came from — never skipped silently.
//!
//! The TypeScript mirror of these types is generated with ts-rs into
//! `injected/src/protocol/generated/` (the `bindings` test fails when it is stale; run it with
//! `UPDATE_BINDINGS=1` to rewrite it).
//!
//! The wire shape. The script's `send` adds `frame` ([`FrameInfo`]) to every message; reports
//! made asynchronously (`emit`) also carry `doc` (the document's random id, which also
//! prefixes its element tokens), `seq` (the number of the last `acting` there when the event
//! happened) and `at` (the page's clock, ms since the epoch). Field names are the script's:
//! `holdMs`, `dropOffset`, `appearedAt`, `inputType`, `changedBy` in camelCase, the rest one
//! word.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use browserflow_contract::{Problem, Rule, parse_json_str};
use browserflow_steps::{
    Modifier, MouseButton, Offset, PointerMove, RecordedRead, SelectorKind, StateCheck, Structure,
    Viewport, from_value_located,
};

mod answers;

pub use answers::*;

/// The frame a message came from, as the script's `send` describes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct FrameInfo {
    /// The top-level window (`window === window.top`).
    pub top: bool,
    /// The frame's document URL.
    pub url: String,
    /// The frame's `window.name` (empty when it has none).
    pub name: String,
    /// The top-level window's viewport when the message was sent (top frames only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub viewport: Option<Viewport>,
    /// A child frame's index among its parent's child frames, for each level from the top
    /// (document order); `null` when a level could not be read (child frames only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional = nullable))]
    pub path: Option<Vec<u32>>,
}

/// A selector candidate as `recorder.js` checked it in the live page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct CheckedCandidate {
    /// Its kind.
    pub kind: SelectorKind,
    /// The value it searches for (for `role` and `structure`: the role).
    pub value: String,
    /// For `role`: the accessible name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub name: Option<String>,
    /// For `structure`: the anchor and the pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub structure: Option<Structure>,
    /// The element's place in a repeating structure (`repeat.js` `placeOf`): a `structure`
    /// candidate kept beside the others, whatever its count.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub place: bool,
    /// CSS selectors of the shadow hosts it is searched inside, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadow: Vec<String>,
    /// Built on a generated id, a hashed class or a long `nth` chain.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unstable: bool,
    /// How many elements it matched.
    pub count: u32,
    /// Whether the recorded element was among them.
    pub target: bool,
}

/// An element's place in a repeating structure (a grid, a list, cards), from
/// `repeat_watch.js` `describe`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RepeatInfo {
    /// For people: `row 1, column "Name" of the grid`.
    pub place: String,
    /// The row's or item's text.
    pub content: String,
    /// The element tokens of the fields whose fills re-rendered the structure.
    pub changed_by: Vec<String>,
}

/// An element the script describes (`targetInfo`): what the step acts on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TargetInfo {
    /// The element's identity across the messages of its document (`<doc>-<n>`).
    pub token: String,
    /// Its selector candidates, each checked in the page.
    pub candidates: Vec<CheckedCandidate>,
    /// For people: `button "Search"`, `<div#main>`.
    pub description: String,
    /// Its tag name (`input`, `div`).
    pub tag: String,
    /// An input's `type`; `null` for other elements.
    pub input_type: Option<String>,
    /// Its `name` attribute, else its id, else empty.
    pub name: String,
    /// Its label, else its placeholder, else empty.
    pub label: String,
    /// A password field (its value is never sent).
    pub password: bool,
    /// Inserted after the document was parsed (a step on it waits for it first).
    pub appeared: bool,
    /// The script's clock when it (or an ancestor) was inserted; 0 when parsed with the
    /// document.
    #[cfg_attr(test, ts(type = "number"))]
    pub appeared_at: u64,
    /// Its text, whitespace collapsed, at most 200 characters.
    pub text: String,
    /// Its place in a repeating structure; `null` outside one.
    pub repeat: Option<RepeatInfo>,
    /// A form control's value (never a password's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub value: Option<String>,
}

/// The element that owns what a press did, and where in it the press was (`press_owner.js`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PressOwner {
    /// The owner.
    pub target: TargetInfo,
    /// The press's offset in it, with its box.
    pub offset: Offset,
}

/// `ready`: the script is installed in a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ReadyMessage {
    /// Where it was sent from.
    pub frame: FrameInfo,
}

/// `acting`: a trusted press or named key is about to act (before the page handles it), the
/// document's action number `seq`: the page still shows what the steps before it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ActingMessage {
    /// The action's number in its document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// The document.
    pub doc: String,
    /// The document holds a password value: a capture now must mask it.
    pub secrets: bool,
    /// When, on the page's clock (ms since the epoch).
    pub at: f64,
    /// Where it was sent from.
    pub frame: FrameInfo,
}

/// `pick_cancelled`: Escape in pick mode; the pick ends with nothing picked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PickCancelledMessage {
    /// Where it was sent from.
    pub frame: FrameInfo,
}

/// `clicking`: a click was seen and its description follows (a download or file chooser it
/// starts may be reported before it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ClickingMessage {
    /// Where it was sent from.
    pub frame: FrameInfo,
}

/// `pick`: the element clicked in pick mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PickMessage {
    /// The element, with the candidates of a read (`beside_label`, `under_heading`).
    pub target: TargetInfo,
    /// What a read of it sees (`reads.ts`).
    pub read: RecordedRead,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `state`: what a gesture changed (its post-state), as checks of the step it made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct StateMessage {
    /// The gesture (`<doc>:<n>`) of the action message that made the step.
    pub gesture: String,
    /// The states that changed, where the focus went, whether the document changed.
    pub checks: Vec<StateCheck>,
    /// The element that owns what the press did, when the focus showed it only after the
    /// click was reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub owner: Option<PressOwner>,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `owner`: the focus moved after a click was reported, showing the element that owns its
/// press.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct OwnerMessage {
    /// The click's gesture.
    pub gesture: String,
    /// The owner and the press's place in it.
    pub owner: PressOwner,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `click`: a click (a press and its release, of any button) on `target`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClickMessage {
    /// The element clicked (the pressed one, lifted to its interactive ancestor).
    pub target: TargetInfo,
    /// The click's gesture.
    pub gesture: String,
    /// The press's place in the element, with its box (absent for a click no press made:
    /// Enter on a submit button).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub offset: Option<Offset>,
    /// How long a long press held the button, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, as = "Option<f64>"))]
    pub hold_ms: Option<u64>,
    /// The element whose hover revealed the target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub hover: Option<TargetInfo>,
    /// The button, when not the left one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub button: Option<MouseButton>,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `dblclick`: a double click on `target` (it follows the click of its first press).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DblclickMessage {
    /// The element.
    pub target: TargetInfo,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `drag`: a press on `target`, a move with the button held, a release (or an HTML5 drag
/// and drop).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DragMessage {
    /// The element pressed (the drag's source).
    pub target: TargetInfo,
    /// Where it was pressed, relative to it.
    pub offset: Offset,
    /// How far the pointer moved.
    pub by: PointerMove,
    /// The drag's gesture.
    pub gesture: String,
    /// The element released over, when it is another interactive one (or the drop target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub drop: Option<TargetInfo>,
    /// Where on `drop` it was released.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub drop_offset: Option<Offset>,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `input`: a trusted `input` in an editable element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct InputMessage {
    /// The field.
    pub target: TargetInfo,
    /// Its value (its text for a contenteditable element); absent for a password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub value: Option<String>,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `select`: a `<select>`'s `change`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct SelectMessage {
    /// The option chosen (the select's value).
    pub value: String,
    /// The select.
    pub target: TargetInfo,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `key`: a named key, a shortcut, or a key that changed a widget's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct KeyMessage {
    /// The key (`Enter`, `a`, `ArrowDown`).
    pub key: String,
    /// The modifiers held, in the order alt, control, meta, shift.
    pub modifiers: Vec<Modifier>,
    /// The element it was pressed in; `null` for the document's body.
    pub target: Option<TargetInfo>,
    /// The key's gesture.
    pub gesture: String,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `scroll`: a person's scroll of one container, coalesced, sent before the next action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ScrollMessage {
    /// The script's clock when the scroll began (see [`TargetInfo::appeared_at`]).
    #[cfg_attr(test, ts(type = "number"))]
    pub since: u64,
    /// The final horizontal position.
    pub x: f64,
    /// The final vertical position.
    pub y: f64,
    /// The element scrolled; `null` for the window.
    pub target: Option<TargetInfo>,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// `files`: files put into a file input without a chooser (dropped on it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct FilesMessage {
    /// The files' names (a page never sees their folders).
    pub names: Vec<String>,
    /// The file input.
    pub target: TargetInfo,
    /// Where it was sent from.
    pub frame: FrameInfo,
    /// The document.
    pub doc: String,
    /// The last action's number in the document.
    #[cfg_attr(test, ts(type = "number"))]
    pub seq: u64,
    /// When, on the page's clock.
    pub at: f64,
}

/// The one list of message kinds: the enum, its serde tags and the table that locates a
/// problem inside a message of a known kind come from it.
macro_rules! recorder_messages {
    ($($(#[doc = $doc:literal])* $tag:literal => $variant:ident($message:ident),)*) => {
        /// A message of the recorder script, tagged by `type`.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(test, derive(ts_rs::TS))]
        #[serde(tag = "type")]
        pub enum RecorderMessage {
            $($(#[doc = $doc])* #[serde(rename = $tag)] $variant($message),)*
        }

        /// Every `type` the script may send.
        pub const MESSAGE_TYPES: &[&str] = &[$($tag),*];

        /// The located problem of a message of kind `tag` whose other fields are `fields`
        /// (serde buffers an internally tagged enum's content, which loses the pointer).
        fn locate(tag: &str, fields: &Value) -> Option<Problem> {
            match tag {
                $($tag => from_value_located::<$message>(fields).err(),)*
                _ => None,
            }
        }
    };
}

recorder_messages! {
    /// See [`ReadyMessage`].
    "ready" => Ready(ReadyMessage),
    /// See [`ActingMessage`].
    "acting" => Acting(ActingMessage),
    /// See [`PickCancelledMessage`].
    "pick_cancelled" => PickCancelled(PickCancelledMessage),
    /// See [`ClickingMessage`].
    "clicking" => Clicking(ClickingMessage),
    /// See [`PickMessage`].
    "pick" => Pick(PickMessage),
    /// See [`StateMessage`].
    "state" => State(StateMessage),
    /// See [`OwnerMessage`].
    "owner" => Owner(OwnerMessage),
    /// See [`ClickMessage`].
    "click" => Click(ClickMessage),
    /// See [`DblclickMessage`].
    "dblclick" => Dblclick(DblclickMessage),
    /// See [`DragMessage`].
    "drag" => Drag(DragMessage),
    /// See [`InputMessage`].
    "input" => Input(InputMessage),
    /// See [`SelectMessage`].
    "select" => Select(SelectMessage),
    /// See [`KeyMessage`].
    "key" => Key(KeyMessage),
    /// See [`ScrollMessage`].
    "scroll" => Scroll(ScrollMessage),
    /// See [`FilesMessage`].
    "files" => Files(FilesMessage),
}

/// When a report was made: the document, the number of its last announced action, and the
/// page's clock.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Moment {
    pub doc: String,
    pub seq: u64,
    pub at: f64,
}

impl RecorderMessage {
    /// The frame it was sent from.
    pub fn frame(&self) -> &FrameInfo {
        match self {
            Self::Ready(m) => &m.frame,
            Self::Acting(m) => &m.frame,
            Self::PickCancelled(m) => &m.frame,
            Self::Clicking(m) => &m.frame,
            Self::Pick(m) => &m.frame,
            Self::State(m) => &m.frame,
            Self::Owner(m) => &m.frame,
            Self::Click(m) => &m.frame,
            Self::Dblclick(m) => &m.frame,
            Self::Drag(m) => &m.frame,
            Self::Input(m) => &m.frame,
            Self::Select(m) => &m.frame,
            Self::Key(m) => &m.frame,
            Self::Scroll(m) => &m.frame,
            Self::Files(m) => &m.frame,
        }
    }

    /// When it was made, for the reports the script makes asynchronously (`emit`).
    pub(crate) fn moment(&self) -> Option<Moment> {
        let (doc, seq, at) = match self {
            Self::Ready(_) | Self::PickCancelled(_) | Self::Clicking(_) => return None,
            Self::Acting(m) => (&m.doc, m.seq, m.at),
            Self::Pick(m) => (&m.doc, m.seq, m.at),
            Self::State(m) => (&m.doc, m.seq, m.at),
            Self::Owner(m) => (&m.doc, m.seq, m.at),
            Self::Click(m) => (&m.doc, m.seq, m.at),
            Self::Dblclick(m) => (&m.doc, m.seq, m.at),
            Self::Drag(m) => (&m.doc, m.seq, m.at),
            Self::Input(m) => (&m.doc, m.seq, m.at),
            Self::Select(m) => (&m.doc, m.seq, m.at),
            Self::Key(m) => (&m.doc, m.seq, m.at),
            Self::Scroll(m) => (&m.doc, m.seq, m.at),
            Self::Files(m) => (&m.doc, m.seq, m.at),
        };
        Some(Moment {
            doc: doc.clone(),
            seq,
            at,
        })
    }

    /// Whether it is a person's action that makes a step (as opposed to `ready`, `acting`,
    /// `clicking`, a pick or what a gesture changed).
    pub fn makes_step(&self) -> bool {
        match self {
            Self::Ready(_)
            | Self::Acting(_)
            | Self::PickCancelled(_)
            | Self::Clicking(_)
            | Self::Pick(_)
            | Self::State(_)
            | Self::Owner(_) => false,
            Self::Click(_)
            | Self::Dblclick(_)
            | Self::Drag(_)
            | Self::Input(_)
            | Self::Select(_)
            | Self::Key(_)
            | Self::Scroll(_)
            | Self::Files(_) => true,
        }
    }
}
/// A message of the recorder script that could not be read: which message, which field, and
/// the frame and page it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolError {
    /// The recording's page it came from (`main`, `popup`…).
    pub page: String,
    /// The URL of the frame that sent it, when the message says.
    pub frame_url: Option<String>,
    /// Its `type`, when it has a string one (known or not).
    pub message_type: Option<String>,
    /// What is wrong: the field's JSON pointer in the message, the rule it breaks, a message.
    pub problem: Problem,
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.message_type {
            Some(kind) => write!(f, "an unreadable `{kind}` message")?,
            None => f.write_str("an unreadable message")?,
        }
        let frame = self.frame_url.as_deref().unwrap_or("an unknown frame");
        let field = match self.problem.pointer.as_str() {
            "" => "the message",
            pointer => pointer,
        };
        write!(
            f,
            " from the recorder script in {frame} (page `{}`): {field}: {}",
            self.page, self.problem.message
        )
    }
}

impl std::error::Error for ProtocolError {}

impl ProtocolError {
    /// Whether the message's `type` is one the recorder does not know (or it has none).
    pub fn unknown_type(&self) -> bool {
        self.problem.pointer == "/type"
    }
}

/// Reads one message `text` the script in a frame of recorded page `page` sent.
pub fn read(page: &str, text: &str) -> Result<RecorderMessage, Box<ProtocolError>> {
    let error = |value: Option<&Value>, problem: Problem| {
        Box::new(ProtocolError {
            page: page.to_string(),
            frame_url: value
                .and_then(|v| v.pointer("/frame/url"))
                .and_then(Value::as_str)
                .map(str::to_string),
            message_type: value
                .and_then(|v| v.get("type"))
                .and_then(Value::as_str)
                .map(str::to_string),
            problem,
        })
    };
    let value = parse_json_str(text).map_err(|e| error(None, e.to_problem()))?;
    let Some(object) = value.as_object() else {
        let found = browserflow_contract::json_type_name(&value);
        let problem = Problem::new(
            "",
            Rule::WrongType,
            format!("expected an object, found {found}"),
        );
        return Err(error(Some(&value), problem));
    };
    // The tag is checked first: serde would take a number for a variant's index.
    let tag = match object.get("type") {
        Some(Value::String(tag)) if MESSAGE_TYPES.contains(&tag.as_str()) => tag,
        Some(Value::String(tag)) => {
            return Err(error(
                Some(&value),
                Problem::new(
                    "/type",
                    Rule::UnknownVariant,
                    format!(
                        "unknown message type `{tag}` (known: {})",
                        MESSAGE_TYPES.join(", ")
                    ),
                ),
            ));
        }
        Some(other) => {
            return Err(error(
                Some(&value),
                Problem::new(
                    "/type",
                    Rule::WrongType,
                    format!(
                        "expected a string, found {}",
                        browserflow_contract::json_type_name(other)
                    ),
                ),
            ));
        }
        None => {
            return Err(error(
                Some(&value),
                Problem::new("/type", Rule::MissingField, "needs the field `type`"),
            ));
        }
    };
    let problem = match from_value_located::<RecorderMessage>(&value) {
        Ok(message) => return Ok(message),
        Err(problem) => problem,
    };
    let mut fields = object.clone();
    fields.remove("type");
    let located = locate(tag, &Value::Object(fields)).unwrap_or(problem);
    Err(error(Some(&value), located))
}

/// Reads what `describeCss` answered: by the field that names its kind (serde's untagged
/// reading would lose where a field is wrong), then exactly that kind's fields.
pub(crate) fn read_described(value: &Value) -> Result<DescribeAnswer, Problem> {
    if value.get("invalid").is_some() {
        from_value_located(value).map(DescribeAnswer::Invalid)
    } else if value.get("count").is_some() {
        from_value_located(value).map(DescribeAnswer::NotOne)
    } else {
        from_value_located(value).map(|element| DescribeAnswer::Element(Box::new(element)))
    }
}

#[cfg(test)]
mod bindings;
#[cfg(test)]
mod tests;
