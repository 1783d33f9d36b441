//! Turning what the recorder saw into steps: recorder-script events (clicks, fills, keys,
//! selects), main-frame navigations, popups and dialogs; hovers, scrolls, downloads and file
//! choosers are in [`effects`]. Pure bookkeeping, no I/O: the recorder's event loop feeds it
//! and broadcasts what it returns.

mod effects;

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::draft::InputMark;
use super::model_assist::ModelCall;
use super::selectors::{
    RawCandidate, RawFrame, frame_identity, insert_ranked, rank, selector, selector_mut,
};
use super::{FileChooserRequest, MAIN_PAGE, PickedElement, RecordEvent, RecordedStep};
use browserflow_cdp::downloads::DownloadRecord;
use browserflow_steps::{
    ClickStep, ExpectedNavigation, FillStep, HandleDialogStep, KeyPressStep, Modifier, MouseButton,
    NavigateStep, Selector, SelectorCandidate, SelectorKind, SetViewportStep, Step, SwitchPageStep,
    WaitForElementStep,
};
use effects::{PendingChooser, PendingDownload, PendingScroll};

/// Something the recorder observed.
#[derive(Debug, Clone)]
pub(crate) enum Observed {
    /// A recorder-script event (the binding's JSON payload).
    Script { page: String, payload: Value },
    /// A page's main frame committed a new document.
    MainNavigated {
        page: String,
        url: String,
        /// The page asked for it (link, form, script) rather than the browser (address bar).
        renderer_initiated: bool,
    },
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
}

#[derive(Debug, Clone, Deserialize)]
struct Payload {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    frame: RawFrame,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    modifiers: Vec<String>,
    /// Scrolls: the clock when the scroll began, and the final position.
    #[serde(default)]
    since: u64,
    #[serde(default)]
    x: f64,
    #[serde(default)]
    y: f64,
    /// Clicks: the element whose hover revealed the target.
    #[serde(default)]
    hover: Option<Target>,
    /// Files put into a file input directly: their names.
    #[serde(default)]
    names: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct Target {
    token: String,
    #[serde(default)]
    candidates: Vec<RawCandidate>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    label: String,
    #[serde(default)]
    password: bool,
    #[serde(default)]
    appeared: bool,
    /// The recorder's clock when the element (or an ancestor) was inserted; 0 when it was
    /// part of the parsed document.
    #[serde(default, rename = "appearedAt")]
    appeared_at: u64,
    #[serde(default)]
    text: String,
    #[serde(default)]
    value: Option<String>,
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
    current_page: String,
    last_action: Option<Action>,
    actions: usize,
    waited: Vec<String>,
    secret_names: HashMap<String, String>,
    dialog_kind: Option<String>,
    /// A popup announced before the step that opened it was seen: (opener, name).
    pending_popup: Option<(String, String)>,
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
    /// Model calls made while recording (selector suggestions).
    pub model_calls: Vec<ModelCall>,
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
        target: Option<&Target>,
        url: &str,
        token: Option<String>,
    ) -> RecordEvent {
        let recorded = self.recorded(step, description, target, url);
        self.steps.push(recorded.clone());
        self.tokens.push(token);
        RecordEvent::StepAdded {
            index: self.steps.len() - 1,
            step: Box::new(recorded),
        }
    }

    fn insert(&mut self, index: usize, recorded: RecordedStep) -> RecordEvent {
        self.steps.insert(index, recorded.clone());
        self.tokens.insert(index, None);
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
        target: Option<&Target>,
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
        let selector = selector_mut(&mut recorded.step)?;
        let at = insert_ranked(&mut selector.candidates, candidate);
        recorded.best_selector = selector.candidates.first().map(|c| c.describe());
        Some((at, self.updated(index)))
    }

    /// Sets a thumbnail on the step at `index`.
    pub(crate) fn set_thumbnail(&mut self, index: usize, png: Vec<u8>) -> Option<RecordEvent> {
        let step = self.steps.get_mut(index)?;
        step.thumbnail_png = Some(png);
        Some(self.updated(index))
    }

    /// Appends an arbitrary step (an output marked while recording).
    pub(crate) fn append(&mut self, recorded: RecordedStep) -> RecordEvent {
        self.steps.push(recorded.clone());
        self.tokens.push(None);
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
        match observed {
            Observed::Script { page, payload } => {
                match serde_json::from_value::<Payload>(payload) {
                    Ok(payload) => self.script(&page, payload, frames),
                    Err(error) => {
                        tracing::debug!(%error, "ignoring an unreadable recorder event");
                        Vec::new()
                    }
                }
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
            Observed::DownloadStarted {
                page,
                guid,
                url,
                suggested,
            } => self.download_started(&page, guid, url, suggested),
            Observed::DownloadFinished { guid, file } => self.download_finished(&guid, file),
            Observed::FileChooserOpened(request) => self.chooser_opened(request),
        }
    }

    /// A picked element, from a `pick` payload.
    pub(crate) fn picked(
        page: &str,
        payload: Value,
        frames: &[(String, String)],
    ) -> Option<PickedElement> {
        let payload: Payload = serde_json::from_value(payload).ok()?;
        let target = payload.target?;
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
            selector: selector(candidates, frame_identity(&payload.frame, frames)),
            description: target.description,
            text: target.text,
            value: target.value,
            page: page.to_string(),
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

    fn script(
        &mut self,
        page: &str,
        payload: Payload,
        frames: &[(String, String)],
    ) -> Vec<RecordEvent> {
        if payload.kind == "clicking" {
            *self.clicking.entry(page.to_string()).or_default() += 1;
            return Vec::new();
        }
        let Some(target) = payload.target.clone() else {
            return match payload.kind.as_str() {
                "key" => self.key(page, &payload, None, frames),
                "scroll" => self.scrolled(page, &payload, None),
                _ => Vec::new(),
            };
        };
        let frame = frame_identity(&payload.frame, frames);
        let candidates = rank(target.candidates.clone());
        if candidates.is_empty() {
            tracing::warn!(
                target = %target.description,
                "no selector candidate matched the element alone; the action is not recorded"
            );
            return Vec::new();
        }
        let sel = selector(candidates, frame.clone());
        match payload.kind.as_str() {
            "click" => {
                if let Some(n) = self.clicking.get_mut(page) {
                    *n = n.saturating_sub(1);
                }
                let hover = payload.hover.as_ref().and_then(|h| {
                    let candidates = rank(h.candidates.clone());
                    (!candidates.is_empty()).then(|| (h.clone(), selector(candidates, frame)))
                });
                let mut events = self.hover_before(page, &payload, &target, hover);
                events.extend(self.click(page, &payload, &target, sel, 1));
                events.extend(self.after_click(page));
                events
            }
            "dblclick" => {
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
                self.click(page, &payload, &target, sel, 2)
            }
            "input" | "select" => self.fill(page, &payload, &target, sel),
            "key" => self.key(page, &payload, Some((&target, sel)), frames),
            "scroll" => self.scrolled(page, &payload, Some((&target, sel))),
            "files" => self.files_put(page, &payload, &target, sel),
            _ => Vec::new(),
        }
    }

    /// Events before an element step: a page switch, an explicit wait for an element that
    /// appeared after the page loaded.
    fn before_element_step(
        &mut self,
        page: &str,
        url: &str,
        target: &Target,
        sel: &Selector,
    ) -> Vec<RecordEvent> {
        let mut events: Vec<RecordEvent> = self.switch_to(page, url).into_iter().collect();
        events.extend(self.scrolls_that_matter(page, target.appeared_at));
        if target.appeared && !self.waited.contains(&target.token) {
            self.waited.push(target.token.clone());
            events.push(self.push(
                Step::WaitForElement(WaitForElementStep {
                    label: None,
                    selector: sel.clone(),
                    count: None,
                    operator: Default::default(),
                    visible: Some(true),
                    properties: Default::default(),
                    timeout_ms: None,
                }),
                format!("Wait for {}", target.description),
                Some(target),
                url,
                None,
            ));
        }
        events
    }

    fn click(
        &mut self,
        page: &str,
        payload: &Payload,
        target: &Target,
        sel: Selector,
        count: u8,
    ) -> Vec<RecordEvent> {
        let url = payload.frame.url.clone();
        let mut events = self.before_element_step(page, &url, target, &sel);
        let verb = if count == 2 { "Double-click" } else { "Click" };
        events.push(self.push(
            Step::Click(ClickStep {
                label: None,
                selector: sel,
                button: MouseButton::Left,
                click_count: count,
                offset: None,
                navigation: None,
                opens_popup: None,
                timeout_ms: None,
            }),
            format!("{verb} {}", target.description),
            Some(target),
            &url,
            Some(target.token.clone()),
        ));
        events.extend(self.action(page));
        events
    }

    /// Notes the step just pushed as the last action; attaches a popup that was announced
    /// before it (the browser may report the new window before the click that opened it).
    fn action(&mut self, page: &str) -> Option<RecordEvent> {
        self.actions += 1;
        let index = self.steps.len() - 1;
        self.last_action = Some(Action {
            index,
            page: page.to_string(),
            navigated: false,
        });
        let (opener, name) = self.pending_popup.take()?;
        if opener != page {
            return None;
        }
        let attached = match &mut self.steps[index].step {
            Step::Click(c) => {
                c.opens_popup = Some(name.clone());
                true
            }
            Step::KeyPress(k) => {
                k.opens_popup = Some(name.clone());
                true
            }
            _ => false,
        };
        if !attached {
            return None;
        }
        self.current_page = name;
        Some(self.updated(index))
    }

    fn fill(
        &mut self,
        page: &str,
        payload: &Payload,
        target: &Target,
        sel: Selector,
    ) -> Vec<RecordEvent> {
        let url = payload.frame.url.clone();
        let (value, recorded_value) = if target.password {
            (format!("{{{{{}}}}}", self.secret_input(target)), None)
        } else {
            let v = payload.value.clone().unwrap_or_default();
            (v.clone(), Some(v))
        };
        let description = if target.password {
            format!("Type the secret into {}", target.description)
        } else {
            format!(
                "Fill {} with {:?}",
                target.description,
                recorded_value.as_deref().unwrap_or_default()
            )
        };
        // Coalesce: more typing in the field of the last step, or a click that only focused it.
        if let Some(i) = self.steps.len().checked_sub(1)
            && self.tokens[i].as_deref() == Some(target.token.as_str())
            && self.steps[i].page == page
        {
            let replace = match &self.steps[i].step {
                Step::Fill(_) => true,
                Step::Click(c) => {
                    c.click_count == 1 && c.navigation.is_none() && c.opens_popup.is_none()
                }
                _ => false,
            };
            if replace {
                let step = &mut self.steps[i];
                step.step = Step::Fill(FillStep {
                    label: None,
                    selector: sel,
                    value,
                    timeout_ms: None,
                });
                step.description = description;
                step.recorded_value = recorded_value;
                step.secret = target.password;
                if self.last_action.as_ref().is_some_and(|a| a.index == i) {
                    self.last_action = None;
                }
                return vec![self.updated(i)];
            }
        }
        let mut events = self.before_element_step(page, &url, target, &sel);
        let mut event = self.push(
            Step::Fill(FillStep {
                label: None,
                selector: sel,
                value,
                timeout_ms: None,
            }),
            description,
            Some(target),
            &url,
            Some(target.token.clone()),
        );
        let i = self.steps.len() - 1;
        self.steps[i].recorded_value = recorded_value;
        self.steps[i].secret = target.password;
        if let RecordEvent::StepAdded { step, .. } = &mut event {
            **step = self.steps[i].clone();
        }
        events.push(event);
        events
    }

    /// The secret input of a password field: named after the field, created once per field.
    fn secret_input(&mut self, target: &Target) -> String {
        if let Some(name) = self.secret_names.get(&target.token) {
            return name.clone();
        }
        let base = slot_name(if target.name.is_empty() {
            &target.label
        } else {
            &target.name
        });
        let mut name = base.clone();
        let mut n = 2;
        while self.inputs.iter().any(|i| i.name == name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.inputs.push(InputMark::secret(name.clone()));
        self.secret_names.insert(target.token.clone(), name.clone());
        name
    }

    fn key(
        &mut self,
        page: &str,
        payload: &Payload,
        target: Option<(&Target, Selector)>,
        _frames: &[(String, String)],
    ) -> Vec<RecordEvent> {
        let Some(key) = payload.key.clone() else {
            return Vec::new();
        };
        let url = payload.frame.url.clone();
        let mut events: Vec<RecordEvent> = self.switch_to(page, &url).into_iter().collect();
        let appeared_at = target.as_ref().map_or(0, |(t, _)| t.appeared_at);
        events.extend(self.scrolls_that_matter(page, appeared_at));
        let modifiers: Vec<Modifier> = payload
            .modifiers
            .iter()
            .filter_map(|m| match m.as_str() {
                "alt" => Some(Modifier::Alt),
                "control" => Some(Modifier::Control),
                "meta" => Some(Modifier::Meta),
                "shift" => Some(Modifier::Shift),
                _ => None,
            })
            .collect();
        let mut combo: Vec<&str> = payload.modifiers.iter().map(String::as_str).collect();
        combo.push(&key);
        let description = match target {
            Some((t, _)) => format!("Press {} in {}", combo.join("+"), t.description),
            None => format!("Press {}", combo.join("+")),
        };
        let (selector, target, token) = match target {
            Some((t, sel)) => (Some(sel), Some(t), Some(t.token.clone())),
            None => (None, None, None),
        };
        events.push(self.push(
            Step::KeyPress(KeyPressStep {
                label: None,
                key,
                modifiers,
                selector,
                navigation: None,
                opens_popup: None,
                timeout_ms: None,
            }),
            description,
            target,
            &url,
            token,
        ));
        events.extend(self.action(page));
        events
    }

    fn navigated(&mut self, page: &str, url: &str, renderer_initiated: bool) -> Vec<RecordEvent> {
        // A scroll before a navigation changed nothing the new document uses.
        self.pending_scrolls.retain(|s| s.page != page);
        if self.actions == 0 {
            // The start page (and its redirects) loading.
            return Vec::new();
        }
        if let Some(action) = self.last_action.clone()
            && action.page == page
            && !action.navigated
        {
            let pattern = url_pattern(url);
            let set = match &mut self.steps[action.index].step {
                Step::Click(c) if c.opens_popup.is_none() => {
                    c.navigation = Some(ExpectedNavigation {
                        url: Some(pattern),
                        title: None,
                    });
                    true
                }
                Step::KeyPress(k) if k.opens_popup.is_none() => {
                    k.navigation = Some(ExpectedNavigation {
                        url: Some(pattern),
                        title: None,
                    });
                    true
                }
                _ => false,
            };
            if let Some(a) = &mut self.last_action {
                a.navigated = true;
            }
            if set {
                return vec![self.updated(action.index)];
            }
        }
        if renderer_initiated {
            // The page moved by itself (a redirect, a timer): replay does the same.
            return Vec::new();
        }
        let mut events: Vec<RecordEvent> = self.switch_to(page, url).into_iter().collect();
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
        self.actions += 1;
        self.last_action = Some(Action {
            index: self.steps.len() - 1,
            page: page.to_string(),
            navigated: true,
        });
        events
    }

    fn dialog_closed(
        &mut self,
        page: &str,
        accepted: bool,
        user_input: String,
    ) -> Vec<RecordEvent> {
        let kind = self.dialog_kind.take().unwrap_or_else(|| "alert".into());
        if kind == "beforeunload" {
            return Vec::new();
        }
        let index = match &self.last_action {
            Some(a) if a.page == page => a.index,
            _ => self.steps.len(),
        };
        let prompt_text = (kind == "prompt" && accepted).then_some(user_input);
        let verb = if accepted { "Accept" } else { "Dismiss" };
        let url = self
            .steps
            .get(index.saturating_sub(1))
            .map(|s| s.url.clone())
            .unwrap_or_default();
        let mut recorded = self.recorded(
            Step::HandleDialog(HandleDialogStep {
                label: None,
                accept: accepted,
                prompt_text,
            }),
            format!("{verb} the next {kind} dialog"),
            None,
            &url,
        );
        recorded.page = page.to_string();
        vec![self.insert(index, recorded)]
    }

    fn popup(&mut self, opener: &str, name: String, url: String) -> Vec<RecordEvent> {
        let mut events = Vec::new();
        if let Some(action) = self.last_action.clone()
            && action.page == opener
        {
            let set = match &mut self.steps[action.index].step {
                Step::Click(c) if c.navigation.is_none() && c.opens_popup.is_none() => {
                    c.opens_popup = Some(name.clone());
                    true
                }
                Step::KeyPress(k) if k.navigation.is_none() && k.opens_popup.is_none() => {
                    k.opens_popup = Some(name.clone());
                    true
                }
                _ => false,
            };
            if set {
                // Replay continues on the popup after the step that opened it.
                self.current_page = name.clone();
                events.push(self.updated(action.index));
            } else {
                self.pending_popup = Some((opener.to_string(), name.clone()));
            }
        } else {
            self.pending_popup = Some((opener.to_string(), name.clone()));
        }
        events.push(RecordEvent::PageOpened { name, url });
        events
    }
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
