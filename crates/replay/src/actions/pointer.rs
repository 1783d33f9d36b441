//! Pointer steps: `click` (following the navigation or popup it causes) and `hover`.

use browserflow_cdp::page::Page;
use browserflow_steps::{ClickStep, HoverStep, Selector};

use super::{Click, point_of};
use crate::failure::Failure;
use crate::navigation::Follow;
use crate::run::{Outcome, Run};

impl Run<'_> {
    pub(crate) async fn click(
        &mut self,
        page: &Page,
        s: &ClickStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let found = self
            .find_pointer_target(page, &s.selector, shown, s.offset, s.timeout_ms)
            .await?;
        let click = Click {
            button: s.button,
            count: s.click_count,
        };
        let follow = Follow {
            navigation: s.navigation.as_ref(),
            opens_popup: s.opens_popup.as_deref(),
        };
        let navigated_to = self.click_found(page, &found, click, follow).await?;
        Ok(Outcome {
            navigated_to,
            ..Outcome::found(found.winner)
        })
    }

    pub(crate) async fn hover(
        &mut self,
        page: &Page,
        s: &HoverStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let found = self
            .find_pointer_target(page, &s.selector, shown, s.offset, s.timeout_ms)
            .await?;
        let (x, y) = point_of(&found)?;
        page.mouse_move(x, y).await.map_err(|e| {
            Failure::cdp(&e, format!("moving the mouse failed: {e}")).with_winner(found.winner)
        })?;
        Ok(Outcome::found(found.winner))
    }
}
