//! Import of Chrome DevTools Recorder recordings (the `UserFlow` JSON of `@puppeteer/replay`).
//!
//! Mapping:
//!
//! | Recorder step | browserflow step |
//! |---|---|
//! | `navigate` (+ `assertedEvents`) | `navigate` (+ checked `navigation`) |
//! | `click`, `doubleClick` (`button`, `offsetX/Y`) | `click` (`click_count` 2 for double) |
//! | `change` | `fill` |
//! | `keyDown` + `keyUp` of a key | one `key_press`; held modifier keys become its `modifiers` |
//! | `hover`, `scroll`, `setViewport` | `hover`, `scroll`, `set_viewport` |
//! | `waitForElement` (`count`, `operator`, `visible`, `properties`, `attributes`) | `wait_for_element` |
//! | `waitForExpression` | `wait_for_expression` |
//! | `close` of a popup | `close_page` |
//! | `customStep`, `emulateNetworkConditions` | refused: [`ImportError::Unsupported`] |
//!
//! Selectors: each alternative becomes a candidate, in order: `aria/NAME` (or
//! `aria/NAME[role="r"]`) → `accessible_name` (or `role` + name), `text/T` → an XPath for the
//! innermost element containing `T`, `xpath/X` → `xpath`, `pierce/S` and plain CSS → `css`. An
//! array of parts is a chain through open shadow roots: the leading parts become the
//! candidate's `shadow` hosts (they must be CSS).
//!
//! Targets: a step whose `target` is a URL not seen before opens a popup when the previous
//! step was an action on another page (the action gets `opens_popup`), and is otherwise a
//! frame (an out-of-process iframe) identified by that URL. A `frame` index path becomes the
//! frame selector's `index_path` (with a note: it breaks when iframes are added or reordered). The asserted navigation of a
//! click inside a frame is that frame's: the replayer waits for it and checks its URL.
//! A click's `duration` (how long the press was held) becomes its `hold_ms` (a single click
//! only); `deviceType` (touch) has no equivalent and is ignored.

mod selectors;

use browserflow_contract::{JsonError, JsonFileError, parse_json_str, read_json_file};
use serde_json::{Map, Value, json};

use selectors::{frame_index_path, selectors};

use crate::{
    ClickStep, ClosePageStep, CountOperator, ExpectedNavigation, FillStep, FrameSelector,
    HoverStep, KeyPressStep, Modifier, MouseButton, NavigateStep, Offset, ScrollStep, Selector,
    SetViewportStep, Step, SwitchPageStep, WaitForElementStep, WaitForExpressionStep,
};
use crate::{ToolFile, origin_of};

/// Why a recording could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Not strict JSON (syntax, a repeated key, too deep, too large).
    #[error("the recording {0}")]
    Json(#[from] JsonError),
    /// A recording file that could not be read, or is not strict JSON.
    #[error("the recording {0}")]
    File(#[from] JsonFileError),
    /// A field is missing or has the wrong type.
    #[error("the recording {at}: {message}")]
    Shape {
        /// JSON pointer of the offending value.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// A step this replayer cannot express.
    #[error("step {} (`{kind}`) at /steps/{index} cannot be imported: {reason}", .index + 1)]
    Unsupported {
        /// 0-based step index.
        index: usize,
        /// The Recorder step type.
        kind: String,
        /// Why.
        reason: String,
    },
    /// The tool name or version is not valid.
    #[error("the imported tool's contract is invalid: {0}")]
    Contract(String),
    /// The tool the recording makes is one a run would refuse (a step that navigates off the
    /// web, a `{{` in a recorded text): checked by the same rule as every tool file read.
    #[error("the imported tool would be refused by a run: {0}")]
    Refused(String),
}

/// Converts a DevTools Recorder recording into a tool file named `name@version`. The tool
/// takes no inputs and returns `null`; edit the steps to add `{{input}}` references and
/// `extract` steps.
pub fn import_devtools(json: &str, name: &str, version: &str) -> Result<ToolFile, ImportError> {
    import_devtools_value(&parse_json_str(json)?, name, version)
}

/// [`import_devtools`] of a recording file, read with the document limits (at most
/// [`MAX_DOCUMENT_BYTES`](browserflow_contract::MAX_DOCUMENT_BYTES)).
pub fn import_devtools_file(
    path: &std::path::Path,
    name: &str,
    version: &str,
) -> Result<ToolFile, ImportError> {
    import_devtools_value(&read_json_file(path)?, name, version)
}

fn import_devtools_value(flow: &Value, name: &str, version: &str) -> Result<ToolFile, ImportError> {
    let flow = flow.as_object().ok_or_else(|| ImportError::Shape {
        at: "/".into(),
        message: "is not a JSON object".into(),
    })?;
    let raw_steps =
        flow.get("steps")
            .and_then(Value::as_array)
            .ok_or_else(|| ImportError::Shape {
                at: "/steps".into(),
                message: "is missing or not a list".into(),
            })?;
    let flow_timeout = flow.get("timeout").and_then(Value::as_u64);
    let mut state = Importer::default();
    for (index, raw) in raw_steps.iter().enumerate() {
        state.step(index, raw, flow_timeout)?;
    }
    let title = flow
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let contract = browserflow_contract::ToolContract::from_json(&json!({
        "name": name,
        "version": version,
        "kind": "browser",
        "description": if title.is_empty() { "Imported from a DevTools Recorder recording".to_string() } else { format!("Imported from the DevTools Recorder recording \"{title}\"") },
        "inputs": [],
        "output": { "type": "null" },
        "capabilities": ["browser"],
    }))
    .map_err(|e| ImportError::Contract(e.to_string()))?;
    let mut metadata = Map::new();
    metadata.insert("imported_from".into(), json!("chrome-devtools-recorder"));
    if !title.is_empty() {
        metadata.insert("title".into(), json!(title));
    }
    if let Some(origin) = state.first_origin {
        metadata.insert(crate::ORIGIN_KEY.into(), json!(origin));
    }
    if !state.notes.is_empty() {
        metadata.insert("import_notes".into(), json!(state.notes));
    }
    // Where the recording went is where the imported tool may go.
    let origins = Some(crate::Origins::of_steps(&state.steps));
    let file = ToolFile {
        contract,
        steps: state.steps,
        metadata,
        origins,
        viewport: None,
    };
    // Read back as any tool file is: an importer never writes one a run refuses.
    ToolFile::from_json(&file.to_json()).map_err(|problems| {
        ImportError::Refused(
            problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })
}

#[derive(Default)]
struct Importer {
    steps: Vec<Step>,
    /// Popup URLs opened so far (their page names).
    popups: Vec<String>,
    /// Frame URLs (OOPIF targets) seen so far.
    frames: Vec<String>,
    /// The page the replay is on: `main` or a popup URL.
    current_page: String,
    /// Modifier keys held by an open `keyDown`.
    held: Vec<Modifier>,
    /// Keys pressed down and not yet released (non-modifiers), in order.
    pressed: Vec<(String, usize)>,
    first_origin: Option<String>,
    notes: Vec<String>,
}

fn str_field<'a>(raw: &'a Value, field: &str, index: usize) -> Result<&'a str, ImportError> {
    raw.get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| ImportError::Shape {
            at: format!("/steps/{index}/{field}"),
            message: "is missing or not a string".into(),
        })
}

fn num_field(raw: &Value, field: &str) -> Option<f64> {
    raw.get(field).and_then(Value::as_f64)
}

fn modifier_of(key: &str) -> Option<Modifier> {
    match key {
        "Shift" => Some(Modifier::Shift),
        "Control" => Some(Modifier::Control),
        "Alt" => Some(Modifier::Alt),
        "Meta" => Some(Modifier::Meta),
        _ => None,
    }
}

impl Importer {
    fn step(
        &mut self,
        index: usize,
        raw: &Value,
        flow_timeout: Option<u64>,
    ) -> Result<(), ImportError> {
        let kind = str_field(raw, "type", index)?.to_string();
        let unsupported = |reason: &str| ImportError::Unsupported {
            index,
            kind: kind.clone(),
            reason: reason.to_string(),
        };
        let timeout_ms = raw.get("timeout").and_then(Value::as_u64).or(flow_timeout);
        let index_path = frame_index_path(raw, index)?;
        if raw.get("deviceType").and_then(Value::as_str) == Some("touch") {
            self.notes.push(format!(
                "step {}: touch input replayed as mouse input",
                index + 1
            ));
        }
        // Which page (and frame) the step runs in.
        let target = raw.get("target").and_then(Value::as_str).unwrap_or("main");
        let mut frame = None;
        if kind != "navigate" && kind != "setViewport" {
            frame = self.enter_target(target, index);
        }
        if let Some(path) = index_path {
            if frame.is_some() {
                return Err(unsupported(
                    "it gives a frame index path (`frame`) inside an iframe target; only a \
                     path from a page's main frame can be replayed",
                ));
            }
            self.notes.push(format!(
                "step {}: frame identified only by its index path {path:?}; record the step \
                 again to get the frame's URL or name",
                index + 1
            ));
            frame = Some(FrameSelector {
                url: None,
                name: None,
                index_path: Some(path),
            });
        }
        let expected = asserted_navigation(raw);
        let selector = |_: &mut Importer| -> Result<Selector, ImportError> {
            let mut selector = selectors(raw, index)?;
            selector.frame = frame.clone();
            Ok(selector)
        };
        // In a frame step, the asserted navigation is the frame's (the replayer waits for it).
        let navigation = expected.clone();
        let offset = match (num_field(raw, "offsetX"), num_field(raw, "offsetY")) {
            (Some(x), Some(y)) => Some(Offset::px(x, y)),
            _ => None,
        };
        let step = match kind.as_str() {
            "navigate" => {
                let url = str_field(raw, "url", index)?.to_string();
                if self.first_origin.is_none() {
                    self.first_origin = origin_of(&url);
                }
                if target != "main" && target != self.current_page {
                    self.switch_to(target);
                }
                Step::Navigate(NavigateStep {
                    label: None,
                    url,
                    navigation: expected,
                    // The Recorder's short step budgets are for elements; loads keep the replay's own.
                    timeout_ms: raw.get("timeout").and_then(Value::as_u64),
                })
            }
            "click" | "doubleClick" => {
                let button = match raw
                    .get("button")
                    .and_then(Value::as_str)
                    .unwrap_or("primary")
                {
                    "primary" => MouseButton::Left,
                    "auxiliary" => MouseButton::Middle,
                    "secondary" => MouseButton::Right,
                    "back" => MouseButton::Back,
                    "forward" => MouseButton::Forward,
                    other => return Err(unsupported(&format!("unknown mouse button `{other}`"))),
                };
                let click_count = if kind == "doubleClick" { 2 } else { 1 };
                let duration = num_field(raw, "duration").filter(|d| d.is_finite() && *d >= 0.0);
                let hold_ms = match duration {
                    Some(ms) if click_count == 1 && ms <= 60_000.0 => Some(ms.round() as u64),
                    Some(_) => {
                        self.notes
                            .push(format!("step {}: press `duration` ignored", index + 1));
                        None
                    }
                    None => None,
                };
                Step::Click(ClickStep {
                    expect: Vec::new(),
                    settle: None,
                    label: None,
                    selector: selector(self)?,
                    button,
                    click_count,
                    hold_ms,
                    offset,
                    navigation,
                    opens_popup: None,
                    timeout_ms,
                })
            }
            "change" => Step::Fill(FillStep {
                expect: Vec::new(),
                settle: None,
                label: None,
                selector: selector(self)?,
                value: str_field(raw, "value", index)?.to_string(),
                pointer: None,
                keys: false,
                timeout_ms,
            }),
            "keyDown" => {
                let key = str_field(raw, "key", index)?.to_string();
                if let Some(m) = modifier_of(&key) {
                    if !self.held.contains(&m) {
                        self.held.push(m);
                    }
                } else {
                    // The press is emitted now; its keyUp is absorbed.
                    self.pressed.push((key.clone(), index));
                    let step = Step::KeyPress(KeyPressStep {
                        expect: Vec::new(),
                        settle: None,
                        label: None,
                        key,
                        modifiers: self.held.clone(),
                        selector: None,
                        navigation,
                        opens_popup: None,
                        timeout_ms,
                    });
                    self.steps.push(step);
                }
                return Ok(());
            }
            "keyUp" => {
                let key = str_field(raw, "key", index)?.to_string();
                if let Some(m) = modifier_of(&key) {
                    if !self.held.contains(&m) {
                        // A modifier released that was never pressed: press it alone.
                        self.steps.push(Step::KeyPress(KeyPressStep {
                            expect: Vec::new(),
                            settle: None,
                            label: None,
                            key,
                            modifiers: Vec::new(),
                            selector: None,
                            navigation,
                            opens_popup: None,
                            timeout_ms,
                        }));
                    }
                    self.held.retain(|h| *h != m);
                } else if let Some(pos) = self.pressed.iter().position(|(k, _)| *k == key) {
                    self.pressed.remove(pos);
                    if let (Some(nav), Some(Step::KeyPress(last))) =
                        (navigation, self.steps.last_mut())
                        && last.key == key
                    {
                        last.navigation = Some(nav);
                    }
                } else {
                    self.steps.push(Step::KeyPress(KeyPressStep {
                        expect: Vec::new(),
                        settle: None,
                        label: None,
                        key,
                        modifiers: self.held.clone(),
                        selector: None,
                        navigation,
                        opens_popup: None,
                        timeout_ms,
                    }));
                }
                return Ok(());
            }
            "hover" => Step::Hover(HoverStep {
                label: None,
                selector: selector(self)?,
                offset,
                timeout_ms,
            }),
            "scroll" => Step::Scroll(ScrollStep {
                label: None,
                selector: if raw.get("selectors").is_some() {
                    Some(selector(self)?)
                } else {
                    None
                },
                x: num_field(raw, "x").unwrap_or(0.0),
                y: num_field(raw, "y").unwrap_or(0.0),
                timeout_ms,
            }),
            "setViewport" => {
                let width = num_field(raw, "width").unwrap_or(0.0);
                let height = num_field(raw, "height").unwrap_or(0.0);
                if width < 1.0 || height < 1.0 {
                    return Err(unsupported("`width` and `height` must be positive numbers"));
                }
                Step::SetViewport(SetViewportStep {
                    label: None,
                    width: width as u32,
                    height: height as u32,
                    device_scale_factor: num_field(raw, "deviceScaleFactor").unwrap_or(1.0),
                    mobile: raw
                        .get("isMobile")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                })
            }
            "waitForElement" => {
                let operator = match raw.get("operator").and_then(Value::as_str).unwrap_or("==") {
                    "==" => CountOperator::Equal,
                    ">=" => CountOperator::AtLeast,
                    "<=" => CountOperator::AtMost,
                    other => return Err(unsupported(&format!("unknown operator `{other}`"))),
                };
                let mut properties = raw
                    .get("properties")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                if let Some(attributes) = raw.get("attributes").and_then(Value::as_object) {
                    // Attributes are compared through their reflecting DOM properties.
                    for (name, value) in attributes {
                        let property = match name.as_str() {
                            "class" => "className",
                            "for" => "htmlFor",
                            other => other,
                        };
                        properties.insert(property.to_string(), value.clone());
                    }
                }
                let count = raw.get("count").and_then(Value::as_u64).map(|c| c as u32);
                Step::WaitForElement(WaitForElementStep {
                    label: None,
                    selector: selector(self)?,
                    count: count
                        .or(Some(1))
                        .filter(|_| count.is_some() || raw.get("operator").is_some()),
                    operator,
                    visible: raw.get("visible").and_then(Value::as_bool),
                    properties,
                    timeout_ms,
                })
            }
            "waitForExpression" => Step::WaitForExpression(WaitForExpressionStep {
                label: None,
                expression: str_field(raw, "expression", index)?.to_string(),
                timeout_ms,
            }),
            "close" => {
                if target == "main" || !self.popups.iter().any(|p| p == target) {
                    self.notes.push(format!(
                        "step {}: closing the main page ends the replay; nothing to do",
                        index + 1
                    ));
                    return Ok(());
                }
                self.current_page = "main".into();
                Step::ClosePage(ClosePageStep {
                    label: None,
                    page: target.to_string(),
                })
            }
            "customStep" => {
                return Err(unsupported(
                    "custom steps run code of a Recorder extension, which browserflow cannot \
                     replay; replace it with browserflow steps",
                ));
            }
            "emulateNetworkConditions" => {
                return Err(unsupported("network emulation is not supported"));
            }
            other => return Err(unsupported(&format!("unknown step type `{other}`"))),
        };
        step.validate().map_err(|message| unsupported(&message))?;
        self.steps.push(step);
        Ok(())
    }

    /// Moves to the step's target; returns the frame to search in when the target is a frame.
    fn enter_target(&mut self, target: &str, index: usize) -> Option<FrameSelector> {
        if self.current_page.is_empty() {
            self.current_page = "main".into();
        }
        if target == "main" {
            if self.current_page != "main" {
                self.switch_to("main");
            }
            return None;
        }
        if self.popups.iter().any(|p| p == target) {
            if self.current_page != target {
                self.switch_to(target);
            }
            return None;
        }
        if self.frames.iter().any(|f| f == target) {
            return Some(FrameSelector {
                url: Some(target.to_string()),
                name: None,
                index_path: None,
            });
        }
        // A new target: a popup when the previous step was an action that can open one.
        let opener = self.steps.last_mut();
        match opener {
            Some(Step::Click(click)) if click.opens_popup.is_none() => {
                click.opens_popup = Some(target.to_string());
            }
            Some(Step::KeyPress(press)) if press.opens_popup.is_none() => {
                press.opens_popup = Some(target.to_string());
            }
            _ => {
                self.notes.push(format!(
                    "step {}: target {target} treated as a frame of the current page",
                    index + 1
                ));
                self.frames.push(target.to_string());
                return Some(FrameSelector {
                    url: Some(target.to_string()),
                    name: None,
                    index_path: None,
                });
            }
        }
        self.popups.push(target.to_string());
        self.current_page = target.to_string();
        None
    }

    fn switch_to(&mut self, page: &str) {
        self.current_page = page.to_string();
        self.steps.push(Step::SwitchPage(SwitchPageStep {
            label: None,
            page: page.to_string(),
        }));
    }
}

fn asserted_navigation(raw: &Value) -> Option<ExpectedNavigation> {
    let events = raw.get("assertedEvents")?.as_array()?;
    let nav = events
        .iter()
        .find(|e| e.get("type").and_then(Value::as_str) == Some("navigation"))?;
    let non_empty = |field: &str| {
        nav.get(field)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    Some(ExpectedNavigation {
        url: non_empty("url"),
        title: non_empty("title"),
    })
}
