//! `fill`: the resolver selects the field's text (or sets a select, date or colour input
//! itself); the text then reaches the page the way the person's did: key by key with real key
//! events where the page listened to keys on the field while recording (`keys`), else inserted
//! as one `input` event. A secret is always inserted whole: typed key by key, each character
//! would be its own CDP message, too short for a log redactor to recognise.

use browserflow_cdp::page::Page;
use browserflow_steps::{FillStep, Selector};

use crate::failure::Failure;
use crate::resolve::{Act, InPage, Requirements, ResolveRequest};
use crate::run::{Outcome, Run};

impl Run<'_> {
    pub(crate) async fn fill(
        &mut self,
        page: &Page,
        s: &FillStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let value = s.value.clone();
        let mut request = ResolveRequest::act(Requirements::fill(), Act::Fill { value });
        if let ResolveRequest::Action(action) = &mut request {
            // The point the pointer rests on (`rest_pointer`), not a place the fill acts at.
            action.offset = s.pointer;
        }
        let found = self
            .find(page, &s.selector, shown, &request, s.timeout_ms)
            .await?;
        if s.pointer.is_some() {
            self.rest_pointer(page, &found).await?;
        }
        if found.in_page == Some(InPage::TypeText { type_text: true }) {
            let typed = if s.keys && !self.options.secrets.holds_secret(&s.value) {
                page.type_text(&s.value).await
            } else {
                page.insert_text(&s.value).await
            };
            // The error never carries the text: it may be a secret.
            typed.map_err(|e| {
                Failure::cdp(&e, format!("typing failed: {e}")).with_winner(found.winner)
            })?;
        }
        Ok(Outcome::found(found.winner))
    }
}
