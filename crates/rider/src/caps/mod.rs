//! The capability objects a tool's context may hold, each present exactly when the tool's
//! contract declares it.

pub mod fs;
pub mod model;
pub mod net;
pub mod secrets;
pub mod spawn;

use std::any::Any;

use serde_json::Value;

use crate::tool::ToolError;

/// The `browser` capability: the Rider's grant of a browser to a step whose contract
/// declares `browser`, implemented by the browser crate.
///
/// The Rider knows nothing of CDP, so the grant carries no browser type to recover: a browser
/// tool drives the browser it was built with (the shells build the tools and the Rider from
/// one browser, `browserflow-catalog`'s one run builder), and asks its context for this grant
/// first — a step that did not declare `browser`, or a Rider given none, is refused before
/// any page opens.
pub trait BrowserCapability: Send + Sync {
    /// A short description for logs and errors (`chromium 156 at ws://…`).
    fn describe(&self) -> String;
}

/// The `model` capability: a declared, recorded model call. The std crate implements it.
#[async_trait::async_trait]
pub trait ModelCapability: Send + Sync {
    /// Sends one request (provider-specific JSON) and returns the provider's answer.
    async fn call(&self, request: Value) -> Result<Value, ToolError>;
    /// For downcasting to the implementation.
    fn as_any(&self) -> &dyn Any;
}
