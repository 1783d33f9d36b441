//! The steps a person's own actions make: clicks, drags, fills (secret fields kept as
//! references), keys, and the wait an element that appeared later needs before its step.

use super::*;
use crate::protocol::{DragMessage, KeyMessage, StateMessage};

impl Builder {
    /// Events before an element step: a page switch, an explicit wait for an element that
    /// appeared after the page loaded.
    pub(super) fn before_element_step(
        &mut self,
        page: &str,
        url: &str,
        target: &TargetInfo,
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

    pub(super) fn click(
        &mut self,
        page: &str,
        url: &str,
        target: &TargetInfo,
        sel: Selector,
        count: u8,
        press: Press,
    ) -> Vec<RecordEvent> {
        let mut events = self.before_element_step(page, url, target, &sel);
        let button = press.button;
        let hold_ms = press.hold_ms.filter(|_| count == 1);
        let verb = match (count, button, hold_ms) {
            (2, _, _) => "Double-click",
            (_, _, Some(_)) => "Long-press",
            (_, MouseButton::Left, None) => "Click",
            (_, MouseButton::Middle, None) => "Middle-click",
            (_, MouseButton::Right, None) => "Right-click",
            (_, MouseButton::Back, None) => "Back-click",
            (_, MouseButton::Forward, None) => "Forward-click",
        };
        events.push(self.push(
            Step::Click(ClickStep {
                label: None,
                selector: sel,
                button,
                click_count: count,
                hold_ms,
                offset: press.offset,
                navigation: None,
                opens_popup: None,
                timeout_ms: None,
                expect: Vec::new(),
                settle: None,
            }),
            format!("{verb} {}", target.description),
            Some(target),
            url,
            Some(target.token.clone()),
        ));
        self.set_gesture(press.gesture);
        events.extend(self.action(page));
        events
    }

    /// A press on `target`, a move with the button held and a release: toward the element
    /// released over (`drop`), or by the move made. The press may already have changed a
    /// native slider's value (its `input` event made a fill of the element): the drag is that
    /// gesture, and takes the fill's place.
    pub(super) fn drag(
        &mut self,
        page: &str,
        drag: &DragMessage,
        sel: Selector,
        drop: Option<(TargetInfo, Selector)>,
    ) -> Vec<RecordEvent> {
        let target = &drag.target;
        let url = drag.frame.url.clone();
        let by = drag.by;
        let description = match &drop {
            Some((onto, _)) => format!("Drag {} onto {}", target.description, onto.description),
            None => format!("Drag {} by ({:.0}, {:.0})", target.description, by.x, by.y),
        };
        let (drop_selector, drop_offset) = match drop {
            Some((_, onto)) => (Some(onto), drag.drop_offset),
            None => (None, None),
        };
        let step = Step::Drag(DragStep {
            label: None,
            selector: sel.clone(),
            offset: Some(drag.offset),
            by,
            target: drop_selector,
            target_offset: drop_offset,
            timeout_ms: None,
            expect: Vec::new(),
            settle: None,
        });
        if let Some(i) = self.steps.len().checked_sub(1)
            && self.tokens[i].as_deref() == Some(target.token.as_str())
            && self.steps[i].page == page
            && matches!(self.steps[i].step, Step::Fill(_))
        {
            let recorded = &mut self.steps[i];
            recorded.step = step;
            recorded.description = description;
            recorded.recorded_value = None;
            self.gestures[i] = Some(drag.gesture.clone());
            let mut events = vec![self.updated(i)];
            events.extend(self.action(page));
            return events;
        }
        let mut events = self.before_element_step(page, &url, target, &sel);
        events.push(self.push(
            step,
            description,
            Some(target),
            &url,
            Some(target.token.clone()),
        ));
        self.set_gesture(Some(drag.gesture.clone()));
        events.extend(self.action(page));
        events
    }

    /// Notes the step just pushed as the last action; attaches a popup that was announced
    /// before it (the browser may report the new window before the click that opened it).
    pub(super) fn action(&mut self, page: &str) -> Option<RecordEvent> {
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
        let effects = self.steps[index].step.page_effects_mut()?;
        *effects.opens_popup = Some(name.clone());
        self.navigated_step(index);
        self.current_page = name;
        Some(self.updated(index))
    }

    pub(super) fn fill(
        &mut self,
        page: &str,
        url: &str,
        typed: Typed<'_>,
        target: &TargetInfo,
        sel: Selector,
    ) -> Vec<RecordEvent> {
        let expect = fill_checks(typed, target);
        let keys = !target.password && self.keyed_fields.contains(&target.token);
        let (value, recorded_value) = if target.password {
            (format!("{{{{{}}}}}", self.secret_input(target)), None)
        } else {
            let v = match typed {
                Typed::Input(value) => value.unwrap_or_default().to_string(),
                Typed::Select(value) => value.to_string(),
            };
            (v.clone(), Some(v))
        };
        let description = if target.password {
            format!("Type the secret into {}", target.description)
        } else {
            format!(
                "Fill {} with \"{}\"",
                target.description,
                recorded_value.as_deref().unwrap_or_default()
            )
        };
        // Coalesce: more typing in the field of the last step, or a click that only focused it.
        if let Some(i) = self.steps.len().checked_sub(1)
            && self.tokens[i].as_deref() == Some(target.token.as_str())
            && self.steps[i].page == page
        {
            // Where the person's pointer rests while typing: on the field, where they
            // clicked it. `None` when the step is not one this fill replaces.
            let replaced = if let Step::Fill(f) = &self.steps[i].step {
                Some(f.pointer)
            } else if let Step::Click(c) = &self.steps[i].step
                && c.click_count == 1
                && c.navigation.is_none()
                && c.opens_popup.is_none()
            {
                Some(c.offset)
            } else {
                None
            };
            if let Some(pointer) = replaced {
                let step = &mut self.steps[i];
                step.step = Step::Fill(FillStep {
                    label: None,
                    selector: sel,
                    value,
                    keys,
                    timeout_ms: None,
                    expect,
                    pointer,
                    settle: None,
                });
                step.description = description;
                step.no_effect = false;
                // What the replaced click did is the fill's now.
                self.gestures[i] = None;
                step.recorded_value = recorded_value;
                step.secret = target.password;
                if self.last_action.as_ref().is_some_and(|a| a.index == i) {
                    self.last_action = None;
                }
                return vec![self.updated(i)];
            }
        }
        let mut events = self.before_element_step(page, url, target, &sel);
        let mut event = self.push(
            Step::Fill(FillStep {
                label: None,
                selector: sel,
                value,
                keys,
                timeout_ms: None,
                expect,
                pointer: None,
                settle: None,
            }),
            description,
            Some(target),
            url,
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

    /// The page listens to keys on the field `token`: its fills (never a secret's: a key per
    /// character would put each in its own message, past the log redactor) are typed by keys.
    pub(super) fn keys_heard(&mut self, token: String) -> Vec<RecordEvent> {
        let mut events = Vec::new();
        for i in 0..self.steps.len() {
            if self.tokens[i].as_deref() != Some(token.as_str()) || self.steps[i].secret {
                continue;
            }
            if let Step::Fill(fill) = &mut self.steps[i].step
                && !fill.keys
            {
                fill.keys = true;
                events.push(self.updated(i));
            }
        }
        self.keyed_fields.insert(token);
        events
    }

    /// The secret input of a password field: named after the field, created once per field.
    pub(super) fn secret_input(&mut self, target: &TargetInfo) -> String {
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

    pub(super) fn key(
        &mut self,
        page: &str,
        message: &KeyMessage,
        target: Option<(&TargetInfo, Selector)>,
    ) -> Vec<RecordEvent> {
        let key = message.key.clone();
        let url = message.frame.url.clone();
        let mut events: Vec<RecordEvent> = self.switch_to(page, &url).into_iter().collect();
        let appeared_at = target.as_ref().map_or(0, |(t, _)| t.appeared_at);
        events.extend(self.scrolls_that_matter(page, appeared_at));
        let modifiers = message.modifiers.clone();
        let mut combo: Vec<&str> = modifiers.iter().map(|m| modifier_name(*m)).collect();
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
                expect: Vec::new(),
                settle: None,
            }),
            description,
            target,
            &url,
            token,
        ));
        self.set_gesture(Some(message.gesture.clone()));
        events.extend(self.action(page));
        events
    }
}

impl Builder {
    /// The step just pushed was made by the recorder script's gesture `gesture`: its
    /// post-state (a `state` message) is that step's.
    fn set_gesture(&mut self, gesture: Option<String>) {
        if let Some(last) = self.gestures.last_mut() {
            *last = gesture;
        }
    }

    /// What a gesture did (a `state` message): the checks of the step it made, unless that
    /// step navigated or opened a popup (then its navigation is what is checked), and a click
    /// that changed nothing is flagged as having no effect.
    pub(super) fn post_state(&mut self, state: &StateMessage) -> Vec<RecordEvent> {
        let gesture = state.gesture.as_str();
        let Some(index) = self
            .gestures
            .iter()
            .rposition(|g| g.as_deref() == Some(gesture))
        else {
            return Vec::new();
        };
        let chooses = chooses(&self.steps[index].step);
        let checks: Vec<StateCheck> = state
            .checks
            .iter()
            .filter(|c| {
                c.problem().is_none()
                    && c.equals
                        .as_ref()
                        .is_none_or(|v| v.len() <= MAX_CHECKED_TEXT)
                    && (c.state != CheckedState::Shown || chooses)
            })
            .cloned()
            .collect();
        if let Some(owner) = &state.owner {
            self.move_click_to_owner(index, owner);
        }
        let checks = without_closed_lists_options(checks);
        let recorded = &mut self.steps[index];
        let leaves_page = match recorded.step.page_effects() {
            Some(effects) => effects.leaves_page(),
            // A drag's post-state is reported too; no other kind's is (a fill's checks come
            // with the fill).
            None if matches!(recorded.step, Step::Drag(_)) => false,
            None => return Vec::new(),
        };
        if leaves_page {
            return Vec::new();
        }
        recorded.no_effect = checks.is_empty() && matches!(recorded.step, Step::Click(_));
        if let Some(expect) = recorded.step.expect_mut() {
            *expect = checks;
        }
        vec![self.updated(index)]
    }

    /// A step that navigated: its navigation is checked, not the state of a document that is
    /// gone.
    pub(super) fn navigated_step(&mut self, index: usize) {
        if let Some(recorded) = self.steps.get_mut(index) {
            recorded.no_effect = false;
            if let Some(expect) = recorded.step.expect_mut() {
                expect.clear();
            }
        }
    }
}

/// Keys that choose in a field that searches and chooses (a combobox, a list, a menu): what
/// the field shows around itself after one (`shown`) is checked, so a choice that did not
/// happen, or chose another option, fails at that key. Elsewhere the text around a field is
/// not the step's doing.
const CHOOSING_KEYS: [&str; 4] = ["Enter", "Tab", "ArrowDown", "ArrowUp"];

fn chooses(step: &Step) -> bool {
    matches!(step, Step::KeyPress(k) if CHOOSING_KEYS.contains(&k.key.as_str()))
}

/// The option a list marks active once the list closed (`aria-expanded` false after the
/// step) is no choice the person saw: whichever option was highlighted last, which depends on
/// what was typed to filter it. Not checked.
fn without_closed_lists_options(checks: Vec<StateCheck>) -> Vec<StateCheck> {
    let closed = |subject| {
        checks.iter().any(|c| {
            c.of == subject
                && c.state == CheckedState::AriaExpanded
                && c.equals.as_deref() == Some("false")
        })
    };
    let (closed_element, closed_focused) =
        (closed(CheckSubject::Element), closed(CheckSubject::Focused));
    checks
        .into_iter()
        .filter(|c| {
            let closed = match c.of {
                CheckSubject::Element => closed_element,
                CheckSubject::Focused => closed_focused,
            };
            !(closed && c.state == CheckedState::ActiveOption)
        })
        .collect()
}

/// Longer values are not checked: a check is one line of a tool file.
const MAX_CHECKED_TEXT: usize = 500;

/// A text field's fill expects the field to hold what was typed (a password's value is never
/// kept, so never checked; a select's option is checked by the fill itself).
fn fill_checks(typed: Typed<'_>, target: &TargetInfo) -> Vec<StateCheck> {
    let text_field = matches!(target.tag.as_str(), "input" | "textarea");
    match typed {
        Typed::Input(Some(value))
            if text_field && !target.password && value.len() <= MAX_CHECKED_TEXT =>
        {
            vec![StateCheck::equals(CheckedState::Value, value)]
        }
        Typed::Input(_) | Typed::Select(_) => Vec::new(),
    }
}

/// A modifier as the script names it (`control`), for a key step's description.
fn modifier_name(modifier: Modifier) -> &'static str {
    match modifier {
        Modifier::Alt => "alt",
        Modifier::Control => "control",
        Modifier::Meta => "meta",
        Modifier::Shift => "shift",
    }
}
