//! Steps that read or wait rather than act: `extract` (a value read and coerced into an
//! output field), `assert` (element text or value, page URL and title), `wait_for_element`
//! (a count condition) and `wait_for_expression` (a page expression becoming truthy).

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use browserflow_cdp::page::{EvalError, Page};
use browserflow_steps::{
    AssertStep, ExtractStep, OutputKind, Selector, WaitForElementStep, WaitForExpressionStep,
    coerce, currency_code, glob_match,
};

use crate::failure::{Failure, FailureKind, Unactionable};
use crate::js;
use crate::resolve::{
    CountCondition, Expect, Read, ReadShape, Requirements, ResolveRequest, WaitRequest, wait_change,
};
use crate::run::{Outcome, Run};

impl Run<'_> {
    pub(crate) async fn extract(
        &mut self,
        page: &Page,
        s: &ExtractStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let request = ResolveRequest::read(read_of(s), None);
        // Navigations settle once the document is parsed; a read also lets the page's `load`
        // handlers run first, since it takes the value as it finds it. A load that never ends
        // (a hanging image) does not stop the read, it only delays it.
        page.wait_loaded(page.target_id(), self.options.navigation_timeout)
            .await;
        let found = self
            .find(page, &s.selector, shown, &request, s.timeout_ms)
            .await
            .map_err(|f| expected_in(f, s))?;
        let text = found.read_value();
        let value = coerce(text, s.kind).map_err(|e| {
            Failure::new(FailureKind::Extraction, format!("field `{}`: {e}", s.field))
                .with_winner(found.winner)
        })?;
        self.outputs.insert(s.field.clone(), value);
        if let Some(currency_field) = &s.currency_field {
            let code = currency_code(text).ok_or_else(|| {
                Failure::new(
                    FailureKind::Extraction,
                    format!("field `{currency_field}`: no currency symbol or code in {text:?}"),
                )
                .with_winner(found.winner)
            })?;
            self.outputs
                .insert(currency_field.clone(), Value::String(code.to_string()));
        }
        Ok(Outcome::found(found.winner))
    }

    pub(crate) async fn assert(
        &self,
        page: &Page,
        s: &AssertStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let mut winner = None;
        if let Some(selector) = &s.selector {
            let mut checks: Vec<(&'static str, Expect)> = Vec::new();
            if let Some(t) = &s.text_equals {
                checks.push(("text", Expect::Equals(t.clone())));
            }
            if let Some(t) = &s.text_contains {
                checks.push(("text", Expect::Contains(t.clone())));
            }
            if let Some(v) = &s.value_equals {
                checks.push(("value", Expect::Equals(v.clone())));
            }
            if checks.is_empty() {
                let request = ResolveRequest::action(Requirements::visible());
                winner = Some(
                    self.find(page, selector, shown, &request, s.timeout_ms)
                        .await?
                        .winner,
                );
            }
            for (from, expect) in checks {
                let request = ResolveRequest::read(Read::from(from), Some(expect));
                let found = self
                    .find(page, selector, shown, &request, s.timeout_ms)
                    .await
                    .map_err(a_check_that_never_held)?;
                winner = Some(found.winner);
            }
        }
        if s.url.is_some() || s.title.is_some() {
            let deadline = Instant::now() + self.budget(s.timeout_ms);
            loop {
                let url = page.url();
                let title = match &s.title {
                    Some(_) => next_frame_title(page).await,
                    None => String::new(),
                };
                let url_ok = s.url.as_ref().is_none_or(|p| glob_match(p, &url));
                let title_ok = s.title.as_ref().is_none_or(|p| glob_match(p, &title));
                if url_ok && title_ok {
                    break;
                }
                if Instant::now() >= deadline {
                    let mut problems = Vec::new();
                    if !url_ok {
                        problems.push(format!(
                            "the url is {url:?}, expected {:?}",
                            s.url.as_deref().unwrap_or_default()
                        ));
                    }
                    if !title_ok {
                        problems.push(format!(
                            "the title is {title:?}, expected {:?}",
                            s.title.as_deref().unwrap_or_default()
                        ));
                    }
                    return Err(Failure::new(FailureKind::Assertion, problems.join("; ")));
                }
            }
        }
        Ok(Outcome {
            winner,
            ..Outcome::default()
        })
    }

    pub(crate) async fn wait_for_element(
        &self,
        page: &Page,
        s: &WaitForElementStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let request = ResolveRequest::Wait(WaitRequest {
            count: s.count.map(|value| CountCondition {
                op: s.operator.as_str(),
                value,
            }),
            visible: s.visible,
            properties: (!s.properties.is_empty()).then(|| s.properties.clone()),
        });
        let found = self
            .find(page, &s.selector, shown, &request, s.timeout_ms)
            .await
            .map_err(|f| match f.kind {
                // A count that never held is a wait that ran out, not an element to act on.
                FailureKind::NotActionable(Unactionable::NoCandidateReady) => {
                    Failure::new(FailureKind::Timeout, f.message)
                }
                _ => f,
            })?;
        Ok(Outcome::found(found.winner))
    }

    pub(crate) async fn wait_for_expression(
        &self,
        page: &Page,
        s: &WaitForExpressionStep,
    ) -> Result<Outcome, Failure> {
        let budget = self.budget(s.timeout_ms);
        wait_for_expression(page, &s.expression, budget).await?;
        Ok(Outcome::default())
    }
}

/// What an extract reads, and what it waits for: a value consistent with what the recording
/// read (its shape, its element) — or, in a tool that recorded none, for a typed field a
/// figure rather than a placeholder, and for a string whatever is there, as before.
fn read_of(s: &ExtractStep) -> Read {
    let typed = match s.kind {
        OutputKind::String => None,
        OutputKind::Number | OutputKind::Integer => Some(ReadShape::Digits),
        OutputKind::Boolean => Some(ReadShape::Text),
    };
    let recorded = s.recorded.as_ref();
    Read {
        from: s.from.as_str(),
        attribute: s.attribute.clone(),
        // A typed field waits for text to arrive; an empty string is a valid string.
        non_empty: s.kind != OutputKind::String,
        shape: recorded
            .map(|r| ReadShape::from(r.shape))
            .filter(|shape| *shape != ReadShape::Empty)
            .or(typed),
        identity: recorded.and_then(|r| r.element.clone()),
    }
}

/// A read that never matched names the field and what the recording read.
fn expected_in(failure: Failure, s: &ExtractStep) -> Failure {
    if failure.kind != FailureKind::ReadMismatch {
        return failure;
    }
    let expected = match &s.recorded {
        Some(recorded) => recorded.describe(),
        None => match s.kind {
            OutputKind::String => "any text".to_string(),
            OutputKind::Number | OutputKind::Integer => "a text with a digit".to_string(),
            OutputKind::Boolean => "a text with letters or digits".to_string(),
        },
    };
    Failure {
        message: format!(
            "field `{}`: expected {expected}; {}",
            s.field, failure.message
        ),
        ..failure
    }
}

/// An element check (text or value) whose candidates never showed the expected value: the
/// assertion did not hold.
fn a_check_that_never_held(failure: Failure) -> Failure {
    match failure.kind {
        FailureKind::NotActionable(Unactionable::NoCandidateReady) => Failure {
            kind: FailureKind::Assertion,
            ..failure
        },
        _ => failure,
    }
}

/// The title after the next animation frame (so a polling loop advances with the page).
async fn next_frame_title(page: &Page) -> String {
    let ctx = page.main_world();
    page.evaluate(&ctx, js::NEXT_FRAME_TITLE, true)
        .await
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

async fn wait_for_expression(
    page: &Page,
    expression: &str,
    budget: Duration,
) -> Result<(), Failure> {
    let deadline = Instant::now() + budget;
    // The expression is code: it becomes the body of the check the in-page loop awaits (the
    // newline ends a trailing line comment in it).
    let check = format!("async () => ({expression}\n)");
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let script = js::call(
            js::WAIT_FOR_EXPRESSION,
            &[&check, &remaining.as_millis().to_string()],
        );
        let ctx = page.main_world();
        match page.evaluate(&ctx, &script, true).await {
            Ok(v) if v["ok"] == true => return Ok(()),
            Ok(v) => {
                let last = v["last"]
                    .as_str()
                    .map(|l| format!(" (last error: {l})"))
                    .unwrap_or_default();
                return Err(Failure::new(
                    FailureKind::Timeout,
                    format!(
                        "the expression did not become truthy within {} ms{last}",
                        budget.as_millis()
                    ),
                ));
            }
            Err(EvalError::Navigated) if Instant::now() < deadline => {
                let mut changes = page.changes();
                let _ = wait_change(&mut changes, deadline).await;
            }
            Err(e) => {
                // The loop around the expression catches what it throws: what the script
                // throws is the expression failing to parse.
                let otherwise = match e {
                    EvalError::Exception(_) => FailureKind::InvalidStep,
                    _ => FailureKind::Browser,
                };
                return Err(Failure::eval(
                    otherwise,
                    &e,
                    format!("the expression failed: {e}"),
                ));
            }
        }
    }
}
