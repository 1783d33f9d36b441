//! `Tool`: a contract plus an async `run(input, ctx)`, and the errors a tool returns.

use std::sync::Arc;

use browserflow_contract::ToolContract;
use serde_json::Value;

use crate::artifacts::{Artifacts, ToolOutput};
use crate::caps::fs::FsError;
use crate::caps::net::NetError;
use crate::caps::secrets::SecretsError;
use crate::caps::spawn::SpawnError;
use crate::ctx::ToolCtx;

/// A tool: its contract, and `run`, which is pure with respect to `(input, ctx)`: every
/// effect goes through a capability on `ctx`.
///
/// The Rider validates `input` against the contract's inputs before `run` and the returned
/// value against the contract's output after it. Most tools are written with
/// [`define_tool`](crate::define_tool) rather than by implementing this trait.
#[async_trait::async_trait]
pub trait Tool: Send + Sync {
    /// The tool's interface.
    fn contract(&self) -> &ToolContract;

    /// Runs the tool once.
    async fn run(&self, input: Value, ctx: ToolCtx) -> Result<Value, ToolError>;

    /// Runs the tool once, giving back its value and what the call left to look at (a
    /// report, its folder, screenshots). This is what the Rider calls; the default is
    /// [`Tool::run`] with no artifacts. A tool that leaves artifacts implements this, and its
    /// `run` returns the value alone.
    async fn call(&self, input: Value, ctx: ToolCtx) -> Result<ToolOutput, ToolError> {
        self.run(input, ctx).await.map(ToolOutput::value)
    }
}

/// A shared tool instance.
pub type DynTool = Arc<dyn Tool>;

/// A [`DynTool`] used as a [`Tool`]: one instance shared by every call.
///
/// A `DynTool` is not itself a `Tool`, so a factory that makes (or clones) one cannot be given
/// to [`ToolRegistry::register`](crate::ToolRegistry::register) as it is; wrapped, it can.
/// Only for tools that hold no per-run mutable state: every run uses the same instance.
///
/// ```
/// use std::sync::Arc;
/// use browserflow_contract::Kind;
/// use browserflow_rider::{DynTool, SharedTool, ToolDef, ToolRegistry, define_tool};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Text { text: String }
///
/// let echo = define_tool(ToolDef::new("echo", "1.0.0", Kind::Transform), |input: Text, _ctx| {
///     async move { Ok(input.text) }
/// })
/// .expect("a valid tool");
/// let tool: DynTool = Arc::new(echo);
/// let mut registry = ToolRegistry::new();
/// registry.register(move || SharedTool(tool.clone())).expect("registered");
/// assert!(registry.contract("echo@1.0.0").is_some());
/// ```
#[derive(Clone)]
pub struct SharedTool(pub DynTool);

#[async_trait::async_trait]
impl Tool for SharedTool {
    fn contract(&self) -> &ToolContract {
        self.0.contract()
    }

    async fn run(&self, input: Value, ctx: ToolCtx) -> Result<Value, ToolError> {
        self.0.run(input, ctx).await
    }

    async fn call(&self, input: Value, ctx: ToolCtx) -> Result<ToolOutput, ToolError> {
        self.0.call(input, ctx).await
    }
}

/// How a failure should be treated by the retry policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Trying again may succeed (a dropped connection, a 503, a timeout).
    Transient,
    /// Trying again will fail the same way (a 404, a bad input, a refused capability).
    Terminal,
    /// The run was cancelled.
    Cancelled,
}

/// A tool's failure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// Whether a retry may help.
    pub class: ErrorClass,
    /// What went wrong, for people. Redacted by the Rider before it is written anywhere.
    pub message: String,
    /// What the failed call left to look at (a browser tool: the report up to the failing
    /// step, the failing page).
    pub artifacts: Option<Box<Artifacts>>,
}

impl ToolError {
    /// A failure that a retry may fix.
    pub fn transient(message: impl Into<String>) -> ToolError {
        ToolError {
            class: ErrorClass::Transient,
            message: message.into(),
            artifacts: None,
        }
    }

    /// A failure that a retry will not fix.
    pub fn terminal(message: impl Into<String>) -> ToolError {
        ToolError {
            class: ErrorClass::Terminal,
            message: message.into(),
            artifacts: None,
        }
    }

    /// The failure of a run that was cancelled.
    pub fn cancelled() -> ToolError {
        ToolError {
            class: ErrorClass::Cancelled,
            message: "cancelled".to_owned(),
            artifacts: None,
        }
    }

    /// This failure, with what the call left to look at.
    pub fn with_artifacts(mut self, artifacts: Artifacts) -> ToolError {
        self.artifacts = (!artifacts.is_empty()).then(|| Box::new(artifacts));
        self
    }

    /// The usual class of an HTTP status: 408, 429 and 5xx are transient, the rest terminal.
    pub fn from_http_status(status: u16, what: impl Into<String>) -> ToolError {
        let message = format!("{}: HTTP {status}", what.into());
        if status == 408 || status == 429 || (500..600).contains(&status) {
            ToolError::transient(message)
        } else {
            ToolError::terminal(message)
        }
    }

    /// A capability the tool needs but its contract does not declare.
    pub fn missing_capability(name: &str) -> ToolError {
        ToolError::terminal(format!(
            "this tool has no `{name}` capability: declare \"{name}\" in its contract's capabilities"
        ))
    }
}

impl From<NetError> for ToolError {
    fn from(e: NetError) -> Self {
        if e.is_transient() {
            ToolError::transient(e.to_string())
        } else {
            ToolError::terminal(e.to_string())
        }
    }
}

impl From<reqwest::Error> for ToolError {
    fn from(e: reqwest::Error) -> Self {
        NetError::from(e).into()
    }
}

impl From<FsError> for ToolError {
    fn from(e: FsError) -> Self {
        ToolError::terminal(e.to_string())
    }
}

impl From<SpawnError> for ToolError {
    fn from(e: SpawnError) -> Self {
        match e {
            SpawnError::Cancelled(_) => ToolError::cancelled(),
            other => ToolError::terminal(other.to_string()),
        }
    }
}

impl From<SecretsError> for ToolError {
    fn from(e: SecretsError) -> Self {
        ToolError::terminal(e.to_string())
    }
}
