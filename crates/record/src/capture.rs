//! Turning what the recorder saw into steps: recorder-script events (clicks, fills, keys,
//! selects), main-frame navigations, popups and dialogs; hovers, scrolls, downloads and file
//! choosers are in [`effects`]. Pure bookkeeping, no I/O: the recorder's event loop feeds it
//! and broadcasts what it returns.

mod actions;
mod effects;
mod pages;
mod place;
mod repeat;

use std::collections::HashMap;

use super::draft::InputMark;
use super::model_assist::ModelCall;
use super::protocol::{FrameInfo, RecorderMessage, TargetInfo};
use super::selectors::{frame_identity, insert_ranked, rank, selector};
use super::{FileChooserRequest, MAIN_PAGE, PickedElement, RecordEvent, RecordedStep};
use browserflow_cdp::downloads::DownloadRecord;
use browserflow_steps::{
    CheckSubject, CheckedState, ClickStep, ClosePageStep, DragStep, ExpectedNavigation, FillStep,
    HandleDialogStep, KeyPressStep, Modifier, MouseButton, NavigateStep, Offset, Selector,
    SelectorCandidate, SelectorKind, SetViewportStep, StateCheck, Step, SwitchPageStep,
    WaitForElementStep, web_origin,
};
use effects::{PendingChooser, PendingDownload, PendingScroll};

/// Something the recorder observed.
#[derive(Debug, Clone)]
pub(crate) enum Observed {
    /// A message of the recorder script (other than those the event loop handles itself).
    Script {
        page: String,
        /// Boxed: the largest of the observations by far.
        message: Box<RecorderMessage>,
    },
    /// A page's main frame committed a new document.
    MainNavigated {
        page: String,
        url: String,
        /// The page asked for it (link, form, script) rather than the browser (address bar).
        renderer_initiated: bool,
    },
    /// A child frame of `page` committed a new document, leaving `previous`.
    ChildFrameNavigated {
        page: String,
        name: String,
        previous: String,
        url: String,
    },
    /// A page's main frame asked for a navigation (a link, a form, a script), or a popup.
    NavigationRequested { url: String },
    /// A JavaScript dialog opened.
    DialogOpened { kind: String },
    /// A JavaScript dialog closed.
    DialogClosed {
        page: String,
        accepted: bool,
        user_input: String,
    },
    /// A page opened a popup, recorded as `name`.
    PopupOpened {
        opener: String,
        name: String,
        url: String,
    },
    /// A popup's window closed (the page closed itself, or the person closed it).
    PopupClosed { name: String },
    /// A frame of `page` started a download.
    DownloadStarted {
        page: String,
        guid: String,
        url: String,
        suggested: String,
    },
    /// A download finished and was saved.
    DownloadFinished { guid: String, file: DownloadRecord },
    /// A file chooser opened (and was intercepted): it waits for an answer.
    FileChooserOpened(FileChooserRequest),
    /// The page listens to key events on the field the recorder script names `token` (on it,
    /// an ancestor, its document or window): its fills are typed key by key on replay.
    KeyListeners { token: String },
}

/// How a click was made: the button, a long press's hold, the press's place on the element,
/// and the recorder script's gesture (whose post-state follows).
#[derive(Debug, Clone, Default)]
struct Press {
    button: MouseButton,
    hold_ms: Option<u64>,
    offset: Option<Offset>,
    gesture: Option<String>,
}

/// Where a step's result shows: in document `doc` (of the recorder script), just before its
/// numbered action `first` (or a later one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AfterAction {
    pub doc: String,
    pub first: u64,
}

/// The last step that may navigate or open a popup.
#[derive(Debug, Clone)]
struct Action {
    index: usize,
    page: String,
    navigated: bool,
}

/// The steps recorded so far and what the next observation needs to know.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    pub steps: Vec<RecordedStep>,
    /// Secret inputs created for password fields.
    pub inputs: Vec<InputMark>,
    /// Element token of each step (fills coalesce on it), parallel to `steps`.
    tokens: Vec<Option<String>>,
    /// The recorder script's gesture that made each step (its post-state comes later),
    /// parallel to `steps`.
    gestures: Vec<Option<String>>,
    /// A number per step that stays its own when steps are inserted before it (what a
    /// thumbnail taken later is attached by), parallel to `steps`.
    serials: Vec<u64>,
    next_serial: u64,
    /// Per step, parallel to `steps`: the first numbered action of its document that came
    /// after what made the step (see [`AfterAction`]).
    after_actions: Vec<Option<AfterAction>>,
    current_page: String,
    last_action: Option<Action>,
    actions: usize,
    waited: Vec<String>,
    secret_names: HashMap<String, String>,
    dialog_kind: Option<String>,
    /// A popup announced before the step that opened it was seen: (opener, name).
    pending_popup: Option<(String, String)>,
    /// Popups opened and not yet loaded. Their first load (of the URL they were opened with,
    /// or, opened blank, of where their opener sent them) is the opening step's doing,
    /// whichever way the browser reports it.
    popups_loading: std::collections::HashSet<String>,
    /// Clicks announced by a page whose description has not arrived yet, per page.
    clicking: HashMap<String, usize>,
    /// Scrolls not yet known to matter, one per container.
    pending_scrolls: Vec<PendingScroll>,
    /// A download announced before the click that started it was seen.
    pending_download: Option<PendingDownload>,
    /// Downloads started by a recorded step: (download GUID, step token).
    downloads: Vec<(String, String)>,
    /// File choosers opened and not answered yet, oldest first.
    choosers: Vec<PendingChooser>,
    /// The file names of the last answered chooser (its input's `change` is not a new step).
    answered_names: Option<Vec<String>>,
    /// Fields (by token) whose page listens to key events: their fills are typed by keys.
    keyed_fields: std::collections::HashSet<String>,
    /// Model calls made while recording (selector suggestions).
    pub model_calls: Vec<ModelCall>,
    /// The web origin of every top-level document the recording asked for or showed: the
    /// start of a redirect (what a link or form asked for) and its end (what committed).
    pub origins: std::collections::BTreeSet<String>,
    /// The main page's viewport at the first step the person made (the tool's `viewport`),
    /// and as last seen (a change between steps is a `set_viewport` step: see `viewport.rs`).
    pub viewport: Option<browserflow_steps::Viewport>,
    viewport_now: Option<browserflow_steps::Viewport>,
}

impl Builder {
    pub(crate) fn new() -> Self {
        Self {
            current_page: MAIN_PAGE.to_string(),
            ..Self::default()
        }
    }

    /// The first steps: the viewport, then the start page.
    pub(crate) fn start(&mut self, url: &str, viewport: Option<(u32, u32)>) -> Vec<RecordEvent> {
        let mut events = Vec::new();
        if let Some((width, height)) = viewport {
            events.push(self.push(
                Step::SetViewport(SetViewportStep {
                    label: None,
                    width,
                    height,
                    device_scale_factor: 1.0,
                    mobile: false,
                }),
                format!("Set the viewport to {width}×{height}"),
                None,
                url,
                None,
            ));
        }
        events.push(self.push(
            Step::Navigate(NavigateStep {
                label: None,
                url: url.to_string(),
                navigation: None,
                timeout_ms: None,
            }),
            format!("Open {url}"),
            None,
            url,
            None,
        ));
        events
    }

    fn push(
        &mut self,
        step: Step,
        description: String,
        target: Option<&TargetInfo>,
        url: &str,
        token: Option<String>,
    ) -> RecordEvent {
        let recorded = self.recorded(step, description, target, url);
        self.steps.push(recorded.clone());
        self.tokens.push(token);
        self.gestures.push(None);
        self.push_serial();
        self.after_actions.push(None);
        RecordEvent::StepAdded {
            index: self.steps.len() - 1,
            step: Box::new(recorded),
        }
    }

    fn insert(&mut self, index: usize, recorded: RecordedStep) -> RecordEvent {
        self.steps.insert(index, recorded.clone());
        self.tokens.insert(index, None);
        self.gestures.insert(index, None);
        self.serials.insert(index, self.next_serial);
        self.next_serial += 1;
        self.after_actions.insert(index, None);
        if let Some(a) = &mut self.last_action
            && a.index >= index
        {
            a.index += 1;
        }
        RecordEvent::StepInserted {
            index,
            step: Box::new(recorded),
        }
    }

    fn updated(&self, index: usize) -> RecordEvent {
        RecordEvent::StepUpdated {
            index,
            step: Box::new(self.steps[index].clone()),
        }
    }

    fn recorded(
        &self,
        step: Step,
        description: String,
        target: Option<&TargetInfo>,
        url: &str,
    ) -> RecordedStep {
        RecordedStep {
            best_selector: step
                .selector()
                .and_then(|s| s.candidates.first())
                .map(|c| c.describe()),
            step,
            description,
            target: target.map(|t| t.description.clone()),
            page: self.current_page.clone(),
            url: url.to_string(),
            recorded_value: None,
            secret: false,
            thumbnail_png: None,
            download: None,
            no_effect: false,
            content_follows: target.map(|t| self.fills_followed(t)).unwrap_or_default(),
            position_follows_input: false,
        }
    }

    /// The element token of the step at `index` (the recorder script finds the element by it).
    pub(crate) fn token_of(&self, index: usize) -> Option<String> {
        self.tokens.get(index).cloned().flatten()
    }

    /// Adds a checked candidate to the selector of the step at `index`, where its kind ranks.
    pub(crate) fn add_candidate(
        &mut self,
        index: usize,
        candidate: SelectorCandidate,
    ) -> Option<(usize, RecordEvent)> {
        let recorded = self.steps.get_mut(index)?;
        let selector = recorded.step.selector_mut()?;
        let at = insert_ranked(&mut selector.candidates, candidate);
        recorded.best_selector = selector.candidates.first().map(|c| c.describe());
        Some((at, self.updated(index)))
    }

    fn push_serial(&mut self) {
        self.serials.push(self.next_serial);
        self.next_serial += 1;
    }

    /// The serial of the step at `index`.
    pub(crate) fn serial_of(&self, index: usize) -> Option<u64> {
        self.serials.get(index).copied()
    }

    /// The action before which the page shows what the step at `index` did.
    pub(crate) fn after_action_of(&self, index: usize) -> Option<AfterAction> {
        self.after_actions.get(index).cloned().flatten()
    }

    /// Notes which action each step of `events` came from: the step an event after action
    /// `seq` added or changed last is that action's, and shows its result until action
    /// `seq + 1`; the steps put before it (a wait, a hover, a dialog's answer) are the page
    /// as action `seq` found it.
    fn note_actions(&mut self, events: &[RecordEvent], doc: &str, seq: u64) {
        if doc.is_empty() {
            return;
        }
        let own = events.iter().rposition(|e| {
            matches!(
                e,
                RecordEvent::StepAdded { .. } | RecordEvent::StepUpdated { .. }
            )
        });
        for (n, event) in events.iter().enumerate() {
            let index = match event {
                RecordEvent::StepAdded { index, .. }
                | RecordEvent::StepUpdated { index, .. }
                | RecordEvent::StepInserted { index, .. } => *index,
                _ => continue,
            };
            let first = if Some(n) == own { seq + 1 } else { seq };
            // Steps inserted after this event at or before its index moved it down.
            let index = index
                + events[n + 1..]
                    .iter()
                    .filter(
                        |e| matches!(e, RecordEvent::StepInserted { index: i, .. } if *i <= index),
                    )
                    .count();
            if let Some(slot) = self.after_actions.get_mut(index) {
                *slot = Some(AfterAction {
                    doc: doc.to_string(),
                    first,
                });
            }
        }
    }

    /// Sets a thumbnail on the step whose serial is `serial`, wherever it is now.
    pub(crate) fn set_thumbnail(&mut self, serial: u64, png: Vec<u8>) -> Option<RecordEvent> {
        let index = self.serials.iter().position(|s| *s == serial)?;
        self.steps[index].thumbnail_png = Some(png);
        Some(self.updated(index))
    }

    /// Appends an arbitrary step (an output marked while recording).
    pub(crate) fn append(&mut self, recorded: RecordedStep) -> RecordEvent {
        self.steps.push(recorded.clone());
        self.tokens.push(None);
        self.gestures.push(None);
        self.push_serial();
        self.after_actions.push(None);
        RecordEvent::StepAdded {
            index: self.steps.len() - 1,
            step: Box::new(recorded),
        }
    }

    /// The page the next step runs on.
    pub(crate) fn current_page(&self) -> &str {
        &self.current_page
    }

    /// Feeds one observation; returns what changed. `frames` are the (name, url) of the frames
    /// of the page the observation is about.
    pub(crate) fn observe(
        &mut self,
        observed: Observed,
        frames: &[(String, String)],
    ) -> Vec<RecordEvent> {
        if let Observed::MainNavigated { url, .. }
        | Observed::NavigationRequested { url }
        | Observed::PopupOpened { url, .. } = &observed
            && let Some(origin) = web_origin(url)
        {
            self.origins.insert(origin);
        }
        match observed {
            Observed::NavigationRequested { .. } => Vec::new(),
            Observed::Script { page, message } => {
                let moment = message.moment();
                let mut events: Vec<RecordEvent> =
                    self.viewport_seen(&page, &message).into_iter().collect();
                events.extend(self.script(&page, *message, frames));
                if let Some(moment) = moment {
                    self.note_actions(&events, &moment.doc, moment.seq);
                }
                events
            }
            Observed::MainNavigated {
                page,
                url,
                renderer_initiated,
            } => self.navigated(&page, &url, renderer_initiated),
            Observed::DialogOpened { kind } => {
                self.dialog_kind = Some(kind);
                Vec::new()
            }
            Observed::DialogClosed {
                page,
                accepted,
                user_input,
            } => self.dialog_closed(&page, accepted, user_input),
            Observed::PopupOpened { opener, name, url } => self.popup(&opener, name, url),
            Observed::PopupClosed { name } => self.popup_closed(&name),
            Observed::ChildFrameNavigated {
                page,
                name,
                previous,
                url,
            } => self.child_frame_navigated(&page, &name, &previous, &url),
            Observed::DownloadStarted {
                page,
                guid,
                url,
                suggested,
            } => self.download_started(&page, guid, url, suggested),
            Observed::DownloadFinished { guid, file } => self.download_finished(&guid, file),
            Observed::FileChooserOpened(request) => self.chooser_opened(request),
            Observed::KeyListeners { token } => self.keys_heard(token),
        }
    }

    /// A picked element, from a `pick` message or `describeCss`'s answer.
    pub(crate) fn picked(
        page: &str,
        target: TargetInfo,
        read: browserflow_steps::RecordedRead,
        frame: &FrameInfo,
        frames: &[(String, String)],
    ) -> Option<PickedElement> {
        // An output's text is what the tool reads, and changes with the inputs: candidates
        // built from it would only find the recorded value.
        let text = target.text.clone();
        let candidates: Vec<_> = rank(target.candidates)
            .into_iter()
            .filter(|c| match c.kind {
                SelectorKind::Text => false,
                SelectorKind::Role => c.name.as_deref() != Some(text.as_str()),
                _ => true,
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        Some(PickedElement {
            selector: selector(candidates, frame_identity(frame, frames)),
            description: target.description,
            text: target.text,
            value: target.value,
            page: page.to_string(),
            read: Some(read),
        })
    }

    fn switch_to(&mut self, page: &str, url: &str) -> Option<RecordEvent> {
        if self.current_page == page {
            return None;
        }
        self.current_page = page.to_string();
        Some(self.push(
            Step::SwitchPage(SwitchPageStep {
                label: None,
                page: page.to_string(),
            }),
            format!("Switch to the {page} page"),
            None,
            url,
            None,
        ))
    }

    /// The selector of the element a message acts on, in the frame it came from; `None`
    /// (said as a warning) when no candidate matched the element alone.
    fn element(
        &self,
        target: &TargetInfo,
        frame: &FrameInfo,
        frames: &[(String, String)],
    ) -> Option<(Selector, Option<browserflow_steps::FrameSelector>)> {
        let frame = frame_identity(frame, frames);
        let candidates = rank(target.candidates.clone());
        if candidates.is_empty() {
            tracing::warn!(
                target = %target.description,
                "no selector candidate matched the element alone; the action is not recorded"
            );
            return None;
        }
        Some((
            self.with_repeat(selector(candidates, frame.clone()), target),
            frame,
        ))
    }

    /// One message of the recorder script.
    fn script(
        &mut self,
        page: &str,
        message: RecorderMessage,
        frames: &[(String, String)],
    ) -> Vec<RecordEvent> {
        match message {
            // The event loop's own (`event_loop.rs`): they make no step.
            RecorderMessage::Ready(_)
            | RecorderMessage::Acting(_)
            | RecorderMessage::PickCancelled(_)
            | RecorderMessage::Pick(_) => Vec::new(),
            RecorderMessage::Clicking(_) => {
                *self.clicking.entry(page.to_string()).or_default() += 1;
                Vec::new()
            }
            RecorderMessage::State(state) => self.post_state(&state),
            RecorderMessage::Owner(owner) => self.later_owner(&owner),
            RecorderMessage::Click(click) => {
                let Some((sel, frame)) = self.element(&click.target, &click.frame, frames) else {
                    return Vec::new();
                };
                if let Some(n) = self.clicking.get_mut(page) {
                    *n = n.saturating_sub(1);
                }
                let hover = click.hover.as_ref().and_then(|h| {
                    let candidates = rank(h.candidates.clone());
                    (!candidates.is_empty()).then(|| (h.clone(), selector(candidates, frame)))
                });
                let url = &click.frame.url;
                let mut events = self.hover_before(page, url, &click.target, hover);
                let press = Press {
                    button: click.button.unwrap_or_default(),
                    hold_ms: click.hold_ms,
                    offset: click.offset,
                    gesture: Some(click.gesture.clone()),
                };
                events.extend(self.click(page, url, &click.target, sel, 1, press));
                events.extend(self.after_click(page));
                events
            }
            RecorderMessage::Dblclick(dblclick) => {
                let target = &dblclick.target;
                let Some((sel, _)) = self.element(target, &dblclick.frame, frames) else {
                    return Vec::new();
                };
                let last = self.steps.len().checked_sub(1);
                if let Some(i) = last
                    && self.tokens[i].as_deref() == Some(target.token.as_str())
                    && let Step::Click(c) = &mut self.steps[i].step
                    && c.click_count == 1
                    && c.navigation.is_none()
                {
                    c.click_count = 2;
                    self.steps[i].description = format!("Double-click {}", target.description);
                    return vec![self.updated(i)];
                }
                self.click(page, &dblclick.frame.url, target, sel, 2, Press::default())
            }
            RecorderMessage::Drag(drag) => {
                let Some((sel, frame)) = self.element(&drag.target, &drag.frame, frames) else {
                    return Vec::new();
                };
                let drop = drag.drop.as_ref().and_then(|d| {
                    let candidates = rank(d.candidates.clone());
                    (!candidates.is_empty()).then(|| (d.clone(), selector(candidates, frame)))
                });
                self.drag(page, &drag, sel, drop)
            }
            RecorderMessage::Input(input) => {
                let Some((sel, _)) = self.element(&input.target, &input.frame, frames) else {
                    return Vec::new();
                };
                let typed = Typed::Input(input.value.as_deref());
                self.fill(page, &input.frame.url, typed, &input.target, sel)
            }
            RecorderMessage::Select(select) => {
                let Some((sel, _)) = self.element(&select.target, &select.frame, frames) else {
                    return Vec::new();
                };
                let chosen = Typed::Select(&select.value);
                self.fill(page, &select.frame.url, chosen, &select.target, sel)
            }
            RecorderMessage::Key(key) => match &key.target {
                None => self.key(page, &key, None),
                Some(target) => {
                    let Some((sel, _)) = self.element(target, &key.frame, frames) else {
                        return Vec::new();
                    };
                    self.key(page, &key, Some((target, sel)))
                }
            },
            RecorderMessage::Scroll(scroll) => match &scroll.target {
                None => self.scrolled(page, &scroll, None),
                Some(target) => {
                    let Some((sel, _)) = self.element(target, &scroll.frame, frames) else {
                        return Vec::new();
                    };
                    self.scrolled(page, &scroll, Some((target, sel)))
                }
            },
            RecorderMessage::Files(files) => {
                let Some((sel, _)) = self.element(&files.target, &files.frame, frames) else {
                    return Vec::new();
                };
                self.files_put(page, &files, sel)
            }
        }
    }
}

/// What a fill message says was put into its field: an `input`'s value (none for a
/// password), or the option a `<select>` chose.
#[derive(Debug, Clone, Copy)]
enum Typed<'a> {
    Input(Option<&'a str>),
    Select(&'a str),
}

/// `origin + path`, with `*` for the query and fragment (they often hold input values).
pub(crate) fn url_pattern(url: &str) -> String {
    match url.find(['?', '#']) {
        Some(i) => format!("{}{}*", &url[..i], &url[i..i + 1]),
        None => url.to_string(),
    }
}

/// A slot name from a field name or label: `user[password]` → `user_password`.
fn slot_name(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_string();
    match out.chars().next() {
        None => "password".to_string(),
        Some(c) if c.is_ascii_digit() => format!("p_{out}"),
        Some(_) => out,
    }
}

#[cfg(test)]
mod tests;
