//! Steps on the page itself rather than an element: `switch_page` and `close_page` (the
//! replay's named pages), `set_viewport`, `handle_dialog` (the answer to the next dialog)
//! and `scroll` (an element's or the window's position).

use browserflow_cdp::page::{DialogResponse, EvalError, Page};
use browserflow_steps::{
    ClosePageStep, HandleDialogStep, ScrollStep, Selector, SetViewportStep, SwitchPageStep,
};

use crate::failure::{Failure, FailureKind, Missing};
use crate::js;
use crate::resolve::{Act, Requirements, ResolveRequest};
use crate::run::{MAIN_PAGE, Outcome, Run};

impl Run<'_> {
    pub(crate) async fn switch_page(&mut self, s: &SwitchPageStep) -> Result<Outcome, Failure> {
        self.current = self.page_index(&s.page)?;
        // Best effort: a page in front keeps painting, so animation-frame waits run.
        let _ = self.page().bring_to_front().await;
        Ok(Outcome::default())
    }

    pub(crate) async fn close_page(&mut self, s: &ClosePageStep) -> Result<Outcome, Failure> {
        if s.page == MAIN_PAGE {
            return Err(Failure::new(
                FailureKind::InvalidStep,
                "the main page cannot be closed",
            ));
        }
        let index = self.page_index(&s.page)?;
        let (_, closing) = self.pages.remove(index);
        // A page that closed itself (a sign-in or payment window after its last step) is
        // found closed: what the recording saw. Otherwise it is closed now, as the person did.
        if !closing.is_closed()
            && let Err(e) = closing.close().await
            && !closing.is_closed()
        {
            return Err(Failure::browser(&e, e.to_string()));
        }
        if self.current == index {
            self.current = 0;
        } else if self.current > index {
            self.current -= 1;
        }
        Ok(Outcome::default())
    }

    /// The position of the page named `name` in the replay's pages.
    fn page_index(&self, name: &str) -> Result<usize, Failure> {
        self.pages
            .iter()
            .position(|(n, _)| n == name)
            .ok_or_else(|| {
                let known: Vec<&str> = self.pages.iter().map(|(n, _)| n.as_str()).collect();
                Failure::new(
                    FailureKind::NotFound(Missing::Page),
                    format!("no page named {name:?} (pages: {})", known.join(", ")),
                )
            })
    }

    /// The viewport the tool was recorded in ([`crate::ReplayOptions::viewport`]), set on the
    /// main page once, before its first step acts: the page lays out, and its popups open
    /// above or below their fields, as they did for the person.
    pub(crate) async fn use_recorded_viewport(&mut self) -> Result<(), Failure> {
        let Some(viewport) = self.options.viewport.filter(|_| !self.viewport_set) else {
            return Ok(());
        };
        self.viewport_set = true;
        let main = self.pages[0].1.clone();
        // A device scale factor of 0 keeps the browser's own: only the size is the layout's.
        main.set_viewport(viewport.width, viewport.height, 0.0, false)
            .await
            .map_err(|e| {
                Failure::cdp(
                    &e,
                    format!(
                        "setting the recorded viewport {}×{} failed: {e}",
                        viewport.width, viewport.height
                    ),
                )
            })
    }

    pub(crate) async fn set_viewport(
        &self,
        page: &Page,
        s: &SetViewportStep,
    ) -> Result<Outcome, Failure> {
        page.set_viewport(s.width, s.height, s.device_scale_factor, s.mobile)
            .await
            .map_err(|e| Failure::cdp(&e, format!("setting the viewport failed: {e}")))?;
        Ok(Outcome::default())
    }

    pub(crate) fn handle_dialog(&self, page: &Page, s: &HandleDialogStep) -> Outcome {
        page.arm_dialog(DialogResponse {
            accept: s.accept,
            prompt_text: s.prompt_text.clone(),
        });
        Outcome::default()
    }

    pub(crate) async fn scroll(
        &self,
        page: &Page,
        s: &ScrollStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        match &s.selector {
            Some(selector) => {
                let scroll = Act::Scroll { x: s.x, y: s.y };
                let request = ResolveRequest::act(Requirements::default(), scroll);
                let found = self
                    .find(page, selector, shown, &request, s.timeout_ms)
                    .await?;
                Ok(Outcome::found(found.winner))
            }
            None => {
                let failed = |e: EvalError| {
                    Failure::eval(FailureKind::Browser, &e, format!("scrolling failed: {e}"))
                };
                let world = page
                    .isolated_world(page.target_id())
                    .await
                    .map_err(failed)?;
                let script = js::call(js::SCROLL_WINDOW, &[&s.x.to_string(), &s.y.to_string()]);
                page.evaluate(&world, &script, false)
                    .await
                    .map_err(failed)?;
                Ok(Outcome::default())
            }
        }
    }
}
