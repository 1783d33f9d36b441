//! What happens to pages: main-frame and child-frame navigations (asserted on the step that
//! caused them), dialogs closed and popups opened.

use super::*;

impl Builder {
    pub(super) fn navigated(
        &mut self,
        page: &str,
        url: &str,
        renderer_initiated: bool,
    ) -> Vec<RecordEvent> {
        // A scroll before a navigation changed nothing the new document uses.
        self.pending_scrolls.retain(|s| s.page != page);
        // A popup's first load: the step that opened it is the step (on a busy machine the
        // browser may report this load as its own, not the page's, and the popup may have been
        // announced blank).
        if self.popups_loading.remove(page) {
            return Vec::new();
        }
        if self.actions == 0 {
            // The start page (and its redirects) loading.
            return Vec::new();
        }
        if let Some(action) = self.last_action.clone()
            && action.page == page
            && !action.navigated
        {
            let pattern = url_pattern(url);
            let set = match self.steps[action.index].step.page_effects_mut() {
                Some(effects) if effects.opens_popup.is_none() => {
                    *effects.navigation = Some(ExpectedNavigation {
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
                self.navigated_step(action.index);
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

    pub(super) fn dialog_closed(
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
        // The answer is said, and kept as a typed value is: it can become an input.
        let answer = prompt_text
            .as_deref()
            .map(|text| format!(" with \"{text}\""))
            .unwrap_or_default();
        let url = self
            .steps
            .get(index.saturating_sub(1))
            .map(|s| s.url.clone())
            .unwrap_or_default();
        let mut recorded = self.recorded(
            Step::HandleDialog(HandleDialogStep {
                label: None,
                accept: accepted,
                prompt_text: prompt_text.clone(),
            }),
            format!("{verb} the next {kind} dialog{answer}"),
            None,
            &url,
        );
        recorded.page = page.to_string();
        recorded.recorded_value = prompt_text;
        vec![self.insert(index, recorded)]
    }

    pub(super) fn popup(&mut self, opener: &str, name: String, url: String) -> Vec<RecordEvent> {
        let mut events = Vec::new();
        self.popups_loading.insert(name.clone());
        if let Some(action) = self.last_action.clone()
            && action.page == opener
        {
            let set = match self.steps[action.index].step.page_effects_mut() {
                Some(effects) if effects.navigation.is_none() && effects.opens_popup.is_none() => {
                    *effects.opens_popup = Some(name.clone());
                    true
                }
                _ => false,
            };
            if set {
                self.navigated_step(action.index);
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

    /// A popup closed — the page closed itself (`window.close()`, often right after an
    /// action in it: a sign-in window handing its result to its opener) or the person closed
    /// it —: a `close_page` step, so the replay closes it too, or finds it closed, and the
    /// steps after it act where the person's did (the main page, unless they were on another
    /// popup).
    pub(super) fn popup_closed(&mut self, name: &str) -> Vec<RecordEvent> {
        self.popups_loading.remove(name);
        if self.pending_popup.as_ref().is_some_and(|(_, p)| p == name) {
            self.pending_popup = None;
        }
        if self.current_page == name {
            self.current_page = MAIN_PAGE.to_string();
        }
        let url = self.steps.last().map(|s| s.url.clone()).unwrap_or_default();
        vec![self.push(
            Step::ClosePage(ClosePageStep {
                label: None,
                page: name.to_string(),
            }),
            format!("Close the {name} page"),
            None,
            &url,
            None,
        )]
    }

    /// A child frame left `previous` for `url`: when the last action acted in that frame (its
    /// selector names the frame by this name, or the action's document was `previous`), the
    /// navigation is that step's, asserted on replay (the replayer waits for the frame's
    /// navigation and checks it, as a main frame's).
    pub(super) fn child_frame_navigated(
        &mut self,
        page: &str,
        name: &str,
        previous: &str,
        url: &str,
    ) -> Vec<RecordEvent> {
        let Some(action) = self.last_action.clone() else {
            return Vec::new();
        };
        if action.page != page || action.navigated {
            return Vec::new();
        }
        let recorded = &mut self.steps[action.index];
        let in_that_frame = recorded
            .step
            .selector()
            .and_then(|s| s.frame.as_ref())
            .is_some_and(|f| {
                f.name
                    .as_deref()
                    .is_some_and(|n| !n.is_empty() && n == name)
                    || recorded.url == previous
            });
        if !in_that_frame {
            return Vec::new();
        }
        let expected = Some(ExpectedNavigation {
            url: Some(url_pattern(url)),
            title: None,
        });
        match recorded.step.page_effects_mut() {
            Some(effects) if effects.opens_popup.is_none() && effects.navigation.is_none() => {
                *effects.navigation = expected;
            }
            _ => return Vec::new(),
        }
        if let Some(a) = &mut self.last_action {
            a.navigated = true;
        }
        self.navigated_step(action.index);
        vec![self.updated(action.index)]
    }
}
