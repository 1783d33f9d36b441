//! [`OpenAiModel`]: the live `model` capability for OpenAI-compatible endpoints.

use std::any::Any;
use std::time::Duration;

use browserflow_rider::secrecy::{ExposeSecret, SecretString};
use browserflow_rider::{ModelCapability, NetCap, NetOptions, ToolError};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use serde_json::Value;

/// The largest answer read from a model endpoint.
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// Calls `POST {base_url}/chat/completions` (`base_url` such as `https://api.openai.com/v1`).
pub struct OpenAiModel {
    base_url: String,
    api_key: Option<SecretString>,
    net: NetCap,
}

impl std::fmt::Debug for OpenAiModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiModel")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[REDACTED]"))
            .finish()
    }
}

impl OpenAiModel {
    /// A client of `base_url`, sending `api_key` as a bearer token when given.
    pub fn new(
        base_url: &str,
        api_key: Option<SecretString>,
        timeout: Duration,
    ) -> Result<OpenAiModel, ToolError> {
        let net = NetCap::new(&NetOptions {
            timeout,
            ..NetOptions::default()
        })?;
        Ok(OpenAiModel {
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            net,
        })
    }

    /// The endpoint called.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }
}

#[async_trait::async_trait]
impl ModelCapability for OpenAiModel {
    async fn call(&self, request: Value) -> Result<Value, ToolError> {
        let endpoint = self.endpoint();
        let body = serde_json::to_vec(&request)
            .map_err(|e| ToolError::terminal(format!("model request: {e}")))?;
        let mut builder = self
            .net
            .post(&endpoint)?
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(key) = &self.api_key {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose_secret()))
                .map_err(|_| {
                    ToolError::terminal("the model API key is not a valid header value")
                })?;
            value.set_sensitive(true);
            builder = builder.header(AUTHORIZATION, value);
        }
        let what = format!("model call to {endpoint}");
        let fail = |e: reqwest::Error| {
            let transient = e.is_timeout() || e.is_connect() || e.is_request();
            let message = format!("{what}: {}", e.without_url());
            if transient {
                ToolError::transient(message)
            } else {
                ToolError::terminal(message)
            }
        };
        let mut response = builder.send().await.map_err(fail)?;
        let status = response.status().as_u16();
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(fail)? {
            if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(ToolError::terminal(format!(
                    "{what}: the answer exceeds {MAX_ANSWER_BYTES} bytes"
                )));
            }
            bytes.extend_from_slice(&chunk);
        }
        if !(200..300).contains(&status) {
            let mut error = ToolError::from_http_status(status, what);
            let snippet = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
            if !snippet.trim().is_empty() {
                error.message.push_str(&format!(" — {}", snippet.trim()));
            }
            return Err(error);
        }
        serde_json::from_slice(&bytes)
            .map_err(|e| ToolError::terminal(format!("{what}: the answer is not JSON: {e}")))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
