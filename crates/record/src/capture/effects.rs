//! Steps that come from what an action caused rather than from the action alone: the hover
//! that revealed a click's target, scrolls that made the next step's element appear,
//! downloads a click started and file choosers a click opened.

use super::{Builder, RecordEvent, TargetInfo};
use crate::FileChooserRequest;
use crate::protocol::{FilesMessage, ScrollMessage};
use browserflow_cdp::downloads::DownloadRecord;
use browserflow_steps::{DownloadStep, HoverStep, ScrollStep, Selector, Step, UploadStep};

/// A scroll that matters only if the next step's element appears after it began.
#[derive(Debug, Clone)]
pub(crate) struct PendingScroll {
    pub page: String,
    /// The scrolled element's token; `None` for the window.
    token: Option<String>,
    /// The page's clock when the scroll began.
    since: u64,
    step: ScrollStep,
    description: String,
    target: Option<TargetInfo>,
    url: String,
}

/// A download reported before the click that started it.
#[derive(Debug, Clone)]
pub(crate) struct PendingDownload {
    page: String,
    guid: String,
    suggested: String,
}

/// A file chooser waiting for its files.
#[derive(Debug, Clone)]
pub(crate) struct PendingChooser {
    pub request: FileChooserRequest,
    /// The token of the click step that opened it (set when that click arrives).
    token: Option<String>,
    /// The click that opened it was announced but not described yet.
    awaiting_click: bool,
}

impl Builder {
    fn clicks_in_flight(&self, page: &str) -> bool {
        self.clicking.get(page).is_some_and(|n| *n > 0)
    }

    /// A hover step on the element whose hover revealed a click's target.
    pub(super) fn hover_before(
        &mut self,
        page: &str,
        url: &str,
        target: &TargetInfo,
        hover: Option<(TargetInfo, Selector)>,
    ) -> Vec<RecordEvent> {
        let Some((element, sel)) = hover else {
            return Vec::new();
        };
        let mut events: Vec<RecordEvent> = self.switch_to(page, url).into_iter().collect();
        events.extend(self.scrolls_that_matter(page, target.appeared_at));
        events.push(self.push(
            Step::Hover(HoverStep {
                label: None,
                selector: sel,
                offset: None,
                timeout_ms: None,
            }),
            format!(
                "Hover {} (it reveals {})",
                element.description, target.description
            ),
            Some(&element),
            url,
            None,
        ));
        events
    }

    /// A scroll, coalesced with the pending one of the same container.
    pub(super) fn scrolled(
        &mut self,
        page: &str,
        payload: &ScrollMessage,
        container: Option<(&TargetInfo, Selector)>,
    ) -> Vec<RecordEvent> {
        let token = container.as_ref().map(|(t, _)| t.token.clone());
        if let Some(pending) = self
            .pending_scrolls
            .iter_mut()
            .find(|s| s.page == page && s.token == token)
        {
            pending.step.x = payload.x;
            pending.step.y = payload.y;
            pending.since = pending.since.min(payload.since);
            return Vec::new();
        }
        let description = match &container {
            Some((t, _)) => format!("Scroll {} to {}, {}", t.description, payload.x, payload.y),
            None => format!("Scroll the page to {}, {}", payload.x, payload.y),
        };
        self.pending_scrolls.push(PendingScroll {
            page: page.to_string(),
            token,
            since: payload.since,
            step: ScrollStep {
                label: None,
                selector: container.as_ref().map(|(_, s)| s.clone()),
                x: payload.x,
                y: payload.y,
                timeout_ms: None,
            },
            description,
            target: container.map(|(t, _)| t.clone()),
            url: payload.frame.url.clone(),
        });
        Vec::new()
    }

    /// Before a step on `page` whose element appeared at `appeared_at`: the pending scrolls
    /// that began before it appeared become steps; the others changed nothing it uses.
    pub(super) fn scrolls_that_matter(&mut self, page: &str, appeared_at: u64) -> Vec<RecordEvent> {
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending_scrolls)
            .into_iter()
            .partition(|s| s.page == page);
        self.pending_scrolls = others;
        mine.into_iter()
            .filter(|s| appeared_at > 0 && s.since < appeared_at)
            .map(|s| {
                let mut description = s.description;
                description.push_str(" (new content appears)");
                self.push(
                    Step::Scroll(s.step),
                    description,
                    s.target.as_ref(),
                    &s.url,
                    s.token,
                )
            })
            .collect()
    }

    /// The recording stops: where the person left the current page scrolled is where the
    /// journey ends (a screenshot, or what a flow does next, sees it), so its pending scrolls
    /// become steps.
    pub(crate) fn end_scrolls(&mut self) -> Vec<RecordEvent> {
        let page = self.current_page.clone();
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending_scrolls)
            .into_iter()
            .partition(|s| s.page == page);
        self.pending_scrolls = others;
        mine.into_iter()
            .map(|s| {
                let mut description = s.description;
                description.push_str(" (where the journey ends)");
                self.push(
                    Step::Scroll(s.step),
                    description,
                    s.target.as_ref(),
                    &s.url,
                    s.token,
                )
            })
            .collect()
    }

    /// After a click step was pushed: a download or file chooser it caused that was reported
    /// before the click itself.
    pub(super) fn after_click(&mut self, page: &str) -> Vec<RecordEvent> {
        let index = self.steps.len() - 1;
        let token = self.tokens[index].clone();
        let mut events = Vec::new();
        if let Some(chooser) = self
            .choosers
            .iter_mut()
            .find(|c| c.awaiting_click && c.request.page == page)
        {
            chooser.awaiting_click = false;
            chooser.token = token;
        }
        if self
            .pending_download
            .as_ref()
            .is_some_and(|d| d.page == page)
        {
            let download = self.pending_download.take();
            if let Some(d) = download {
                events.extend(self.click_becomes_download(index, d.guid, &d.suggested));
            }
        }
        events
    }

    pub(super) fn download_started(
        &mut self,
        page: &str,
        guid: String,
        url: String,
        suggested: String,
    ) -> Vec<RecordEvent> {
        if self.clicks_in_flight(page) {
            self.pending_download = Some(PendingDownload {
                page: page.to_string(),
                guid,
                suggested,
            });
            return Vec::new();
        }
        match self.last_action.clone() {
            Some(action) if action.page == page => self
                .click_becomes_download(action.index, guid, &suggested)
                .into_iter()
                .collect(),
            _ => {
                tracing::debug!(%url, "a download no recorded click started is not recorded");
                Vec::new()
            }
        }
    }

    /// Turns the click at `index` into a download step.
    fn click_becomes_download(
        &mut self,
        index: usize,
        guid: String,
        suggested: &str,
    ) -> Option<RecordEvent> {
        let recorded = self.steps.get_mut(index)?;
        let Step::Click(click) = &recorded.step else {
            return None;
        };
        if click.click_count != 1 || click.opens_popup.is_some() {
            return None;
        }
        recorded.step = Step::Download(DownloadStep {
            label: None,
            selector: click.selector.clone(),
            offset: None,
            filename: (!suggested.is_empty()).then(|| suggested.to_string()),
            field: None,
            output: Default::default(),
            timeout_ms: None,
        });
        recorded.description = format!(
            "Download {suggested:?} by clicking {}",
            recorded.target.as_deref().unwrap_or("the element")
        );
        if let Some(token) = self.tokens[index].clone() {
            self.downloads.push((guid, token));
        }
        // A download does not navigate: a later navigation is not this step's.
        if self.last_action.as_ref().is_some_and(|a| a.index == index) {
            self.last_action = None;
        }
        Some(self.updated(index))
    }

    pub(super) fn download_finished(
        &mut self,
        guid: &str,
        file: DownloadRecord,
    ) -> Vec<RecordEvent> {
        let Some((_, token)) = self.downloads.iter().find(|(g, _)| g == guid).cloned() else {
            return Vec::new();
        };
        let index = (0..self.steps.len()).rev().find(|i| {
            self.tokens[*i].as_deref() == Some(token.as_str())
                && matches!(self.steps[*i].step, Step::Download(_))
        });
        let Some(index) = index else {
            return Vec::new();
        };
        self.steps[index].download = Some(file);
        vec![self.updated(index)]
    }

    pub(super) fn chooser_opened(&mut self, request: FileChooserRequest) -> Vec<RecordEvent> {
        let page = request.page.clone();
        let awaiting_click = self.clicks_in_flight(&page);
        let token = if awaiting_click {
            None
        } else {
            self.last_action
                .as_ref()
                .filter(|a| a.page == page && matches!(self.steps[a.index].step, Step::Click(_)))
                .and_then(|a| self.tokens[a.index].clone())
        };
        self.choosers.push(PendingChooser {
            request: request.clone(),
            token,
            awaiting_click,
        });
        vec![RecordEvent::FileChooser(request)]
    }

    /// The oldest chooser waiting for files (`id` to pick another one).
    pub(crate) fn take_chooser(&mut self, id: Option<u64>) -> Option<PendingChooser> {
        let at = match id {
            Some(id) => self.choosers.iter().position(|c| c.request.id == id)?,
            None => (!self.choosers.is_empty()).then_some(0)?,
        };
        Some(self.choosers.remove(at))
    }

    /// Puts a chooser taken by [`Builder::take_chooser`] back (its answer was refused).
    pub(crate) fn put_back_chooser(&mut self, chooser: PendingChooser) {
        self.choosers.insert(0, chooser);
    }

    /// The next `change` of a file input with these files' names comes from a chooser answer
    /// (nothing expected when `files` is empty).
    pub(crate) fn expect_files(&mut self, files: &[String]) {
        self.answered_names =
            (!files.is_empty()).then(|| files.iter().map(|f| file_name(f)).collect());
    }

    /// A chooser was answered with `files`: the click that opened it becomes an upload step.
    pub(crate) fn chooser_answered(
        &mut self,
        chooser: &PendingChooser,
        files: Vec<String>,
    ) -> Option<RecordEvent> {
        let token = chooser.token.as_deref()?;
        let index = (0..self.steps.len()).rev().find(|i| {
            self.tokens[*i].as_deref() == Some(token)
                && matches!(self.steps[*i].step, Step::Click(_))
        })?;
        let Step::Click(click) = &self.steps[index].step else {
            return None;
        };
        let selector = click.selector.clone();
        let names: Vec<String> = files.iter().map(|f| file_name(f)).collect();
        let names_text = names.join(", ");
        let recorded = &mut self.steps[index];
        recorded.description = format!(
            "Upload {names_text} through {}",
            recorded.target.as_deref().unwrap_or("the file chooser")
        );
        recorded.step = Step::Upload(UploadStep {
            label: None,
            selector,
            files,
            timeout_ms: None,
        });
        if self.last_action.as_ref().is_some_and(|a| a.index == index) {
            self.last_action = None;
        }
        Some(self.updated(index))
    }

    /// Files put into a file input without a chooser (drag and drop): an upload step with the
    /// names the page saw (their folders are unknown to a page; edit the step or mark it).
    pub(super) fn files_put(
        &mut self,
        page: &str,
        payload: &FilesMessage,
        sel: Selector,
    ) -> Vec<RecordEvent> {
        let target = &payload.target;
        if payload.names.is_empty() {
            return Vec::new();
        }
        if self.answered_names.as_ref() == Some(&payload.names) {
            // The `change` of the input a chooser answer filled.
            self.answered_names = None;
            return Vec::new();
        }
        let url = payload.frame.url.clone();
        let mut events = self.before_element_step(page, &url, target, &sel);
        events.push(self.push(
            Step::Upload(UploadStep {
                label: None,
                selector: sel,
                files: payload.names.clone(),
                timeout_ms: None,
            }),
            format!(
                "Put {} into {} (only the names were seen: give their paths)",
                payload.names.join(", "),
                target.description
            ),
            Some(target),
            &url,
            Some(target.token.clone()),
        ));
        events
    }
}

fn file_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string())
}
