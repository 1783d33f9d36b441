//! `key_press`: an optional element focused first, then the key with its modifiers held, as
//! one batch of CDP key events; the navigation or popup the key causes is followed.

use browserflow_cdp::page::Page;
use browserflow_cdp::page::keys::{KeyDefinition, key_definition, key_events};
use browserflow_cdp::session::CdpError;
use browserflow_steps::{KeyPressStep, Modifier, Selector};

use crate::failure::{Failure, FailureKind};
use crate::navigation::Follow;
use crate::resolve::{Act, Requirements, ResolveRequest};
use crate::run::{Outcome, Run};

impl Run<'_> {
    pub(crate) async fn key_press(
        &mut self,
        page: &Page,
        s: &KeyPressStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let definition = key_definition(&s.key).ok_or_else(|| {
            Failure::new(FailureKind::InvalidStep, format!("unknown key {:?}", s.key))
        })?;
        let mut winner = None;
        if let Some(selector) = &s.selector {
            let request = ResolveRequest::act(Requirements::focus(), Act::Focus);
            winner = Some(
                self.find(page, selector, shown, &request, s.timeout_ms)
                    .await?
                    .winner,
            );
        }
        let key_page = page.clone();
        let modifiers = s.modifiers.clone();
        let follow = Follow {
            navigation: s.navigation.as_ref(),
            opens_popup: s.opens_popup.as_deref(),
        };
        let navigated_to = self
            .act_and_follow(page, None, follow, || async move {
                press_key(&key_page, &definition, &modifiers).await
            })
            .await
            .map_err(|f| match winner {
                Some(w) => f.with_winner(w),
                None => f,
            })?;
        Ok(Outcome {
            winner,
            navigated_to,
            ..Outcome::default()
        })
    }
}

/// Presses the modifiers in order, the key, and releases the modifiers in reverse order.
async fn press_key(
    page: &Page,
    definition: &KeyDefinition,
    modifiers: &[Modifier],
) -> Result<(), CdpError> {
    let mut events = Vec::new();
    let mut held: Vec<Modifier> = Vec::new();
    for modifier in modifiers {
        held.push(*modifier);
        if let Some(def) = key_definition(modifier_key(*modifier)) {
            events.push(key_events(&def, &held).0);
        }
    }
    let (down, up) = key_events(definition, modifiers);
    events.extend([down, up]);
    for modifier in modifiers.iter().rev() {
        held.pop();
        if let Some(def) = key_definition(modifier_key(*modifier)) {
            events.push(key_events(&def, &held).1);
        }
    }
    page.key_events(events).await
}

fn modifier_key(modifier: Modifier) -> &'static str {
    match modifier {
        Modifier::Alt => "Alt",
        Modifier::Control => "Control",
        Modifier::Meta => "Meta",
        Modifier::Shift => "Shift",
    }
}
