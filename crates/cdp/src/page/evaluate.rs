//! Evaluating JavaScript: execution contexts (a session and a context id within it), values and
//! remote handles, and why an evaluation produced nothing.

use serde_json::{Value, json};

use super::Page;
use crate::error::BrowserError;
use crate::session::{CdpError, CdpSession};

/// An execution context to evaluate in: a session and (optionally) a context id within it.
#[derive(Debug, Clone)]
pub struct ExecContext {
    /// The session of the frame's target.
    pub session: CdpSession,
    /// The execution context (a world of a document); `None`: the session's default one.
    pub context_id: Option<i64>,
}

/// Why an evaluation produced no value.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EvalError {
    /// The document went away under the evaluation (the page navigated).
    #[error("the page navigated during the evaluation")]
    Navigated,
    /// The script threw.
    #[error("the script threw: {0}")]
    Exception(String),
    /// The protocol call failed for another reason.
    #[error(transparent)]
    Cdp(CdpError),
}

impl From<CdpError> for EvalError {
    fn from(error: CdpError) -> Self {
        if error.is_navigation() {
            EvalError::Navigated
        } else {
            EvalError::Cdp(error)
        }
    }
}

impl Page {
    /// The document title, read from the page.
    pub async fn title(&self) -> Result<String, BrowserError> {
        let ctx = self.main_world();
        let value = self
            .evaluate(&ctx, "document.title", false)
            .await
            .map_err(|e| BrowserError::Page(format!("reading the title: {e}")))?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    /// Evaluates a JavaScript expression in the main frame's page world (awaiting a
    /// promise) and returns its JSON value: for checks after a replay.
    pub async fn evaluate_in_main_frame(&self, expression: &str) -> Result<Value, BrowserError> {
        self.evaluate(&self.main_world(), expression, true)
            .await
            .map_err(|e| BrowserError::Page(format!("evaluating {expression:?} failed: {e}")))
    }

    /// A session handle by id (`None` = this page's own session).
    pub fn session_by_id(&self, id: Option<&str>) -> CdpSession {
        match id {
            Some(id) => self.shared.conn.session(Some(id.to_string())),
            None => self.session.clone(),
        }
    }

    /// The page's main world in its main frame (where page scripts live).
    pub fn main_world(&self) -> ExecContext {
        ExecContext {
            session: self.session.clone(),
            context_id: None,
        }
    }

    /// Evaluates `expression` and returns its JSON value (awaiting it when it is a promise).
    pub async fn evaluate(
        &self,
        ctx: &ExecContext,
        expression: &str,
        await_promise: bool,
    ) -> Result<Value, EvalError> {
        let mut params = json!({
            "expression": expression,
            "returnByValue": true,
            "awaitPromise": await_promise,
        });
        if let Some(id) = ctx.context_id {
            params["contextId"] = json!(id);
        }
        let answer = ctx.session.call("Runtime.evaluate", params).await?;
        if let Some(details) = answer.get("exceptionDetails") {
            let text = details["exception"]["description"]
                .as_str()
                .or_else(|| details["text"].as_str())
                .unwrap_or("unknown exception")
                .to_string();
            if text.contains("Execution context was destroyed")
                || text.contains("Inspected target navigated")
            {
                return Err(EvalError::Navigated);
            }
            return Err(EvalError::Exception(text));
        }
        Ok(answer["result"]["value"].clone())
    }

    /// A handle (remote object id) on the value of `expression` in `ctx`.
    pub async fn evaluate_handle(
        &self,
        ctx: &ExecContext,
        expression: &str,
    ) -> Result<String, EvalError> {
        let mut params = json!({ "expression": expression, "returnByValue": false });
        if let Some(id) = ctx.context_id {
            params["contextId"] = json!(id);
        }
        let answer = ctx.session.call("Runtime.evaluate", params).await?;
        if let Some(details) = answer.get("exceptionDetails") {
            let text = details["text"].as_str().unwrap_or("unknown exception");
            return Err(EvalError::Exception(text.to_string()));
        }
        answer["result"]["objectId"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| EvalError::Exception(format!("{expression} is not an object")))
    }
}
