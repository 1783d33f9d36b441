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

/// The `browser` capability, implemented by the browser crate. Browser tools downcast it
/// (through [`BrowserCapability::as_any`]) to the concrete handle they were written for.
pub trait BrowserCapability: Send + Sync {
    /// For downcasting to the implementation.
    fn as_any(&self) -> &dyn Any;
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
