//! [`ModelClient`]: the one client of OpenAI-compatible chat-completions endpoints.
//!
//! Both callers of a model use it: the std crate's live `model` capability (a tool's declared
//! call) and the recorder's model assistance (names, descriptions, selectors at authoring
//! time). It lives here, beside the [`NetCap`] it sends through, because the Rider is the
//! lowest layer both depend on.
//!
//! An answer is read at most [`MAX_ANSWER_BYTES`]: a longer one (announced by its
//! `Content-Length`, or found while reading a stream that does not end) is refused with
//! [`ModelClientError::TooLarge`] before more is held in memory.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use super::net::{NetCap, NetError, NetOptions};
use crate::tool::ToolError;

/// The largest answer read from a model endpoint (16 MiB, the bound of every JSON document
/// browserflow reads).
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// How many bytes of a refused answer an error quotes.
const QUOTED_BYTES: usize = 200;

/// Why a model call failed. The messages name the endpoint, never the API key.
#[derive(Debug, thiserror::Error)]
pub enum ModelClientError {
    /// The endpoint was refused before anything was sent (not a URL, host not allowed).
    #[error("{source}")]
    Refused {
        /// The endpoint.
        endpoint: String,
        /// Why.
        #[source]
        source: NetError,
    },
    /// The API key cannot be sent as a header value.
    #[error("the model API key is not a valid header value")]
    BadKey,
    /// Sending the request or reading the answer failed.
    #[error("model call to {endpoint}: {message}")]
    Request {
        /// The endpoint.
        endpoint: String,
        /// What failed (without the URL, which is `endpoint`).
        message: String,
        /// Whether a retry may help (connection problems and timeouts).
        transient: bool,
    },
    /// The answer is longer than [`MAX_ANSWER_BYTES`]; reading stopped there.
    #[error("model call to {endpoint}: the answer exceeds {limit} bytes")]
    TooLarge {
        /// The endpoint.
        endpoint: String,
        /// The bound that was reached.
        limit: usize,
    },
    /// The endpoint answered with a status outside 2xx.
    #[error("model call to {endpoint}: HTTP {status}{}", quoted(.body_start))]
    Status {
        /// The endpoint.
        endpoint: String,
        /// The HTTP status.
        status: u16,
        /// The start of the answer's body, for the person reading the error.
        body_start: String,
    },
    /// The answer is not JSON.
    #[error("model call to {endpoint}: the answer is not JSON: {message}")]
    NotJson {
        /// The endpoint.
        endpoint: String,
        /// The parser's message.
        message: String,
    },
}

fn quoted(body_start: &str) -> String {
    if body_start.is_empty() {
        String::new()
    } else {
        format!(" — {body_start}")
    }
}

/// A tool's model call fails as the HTTP capability's do: connection problems, timeouts and
/// the statuses 408, 429 and 5xx may pass on a retry, the rest will not.
impl From<ModelClientError> for ToolError {
    fn from(e: ModelClientError) -> Self {
        match &e {
            ModelClientError::Refused { source, .. } => {
                if source.is_transient() {
                    ToolError::transient(e.to_string())
                } else {
                    ToolError::terminal(e.to_string())
                }
            }
            ModelClientError::Request {
                transient: true, ..
            } => ToolError::transient(e.to_string()),
            ModelClientError::Status {
                endpoint,
                status,
                body_start,
            } => {
                let mut error =
                    ToolError::from_http_status(*status, format!("model call to {endpoint}"));
                error.message.push_str(&quoted(body_start));
                error
            }
            ModelClientError::BadKey
            | ModelClientError::Request { .. }
            | ModelClientError::TooLarge { .. }
            | ModelClientError::NotJson { .. } => ToolError::terminal(e.to_string()),
        }
    }
}

/// A client of `POST {base_url}/chat/completions` (`base_url` such as
/// `https://api.openai.com/v1`), sending the API key, when there is one, as a bearer token
/// marked sensitive.
pub struct ModelClient {
    base_url: String,
    api_key: Option<SecretString>,
    net: NetCap,
}

impl std::fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelClient")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[REDACTED]"))
            .finish()
    }
}

impl ModelClient {
    /// A client of `base_url` whose calls each end within `timeout`.
    pub fn new(
        base_url: &str,
        api_key: Option<SecretString>,
        timeout: Duration,
    ) -> Result<ModelClient, NetError> {
        let net = NetCap::new(&NetOptions {
            timeout,
            ..NetOptions::default()
        })?;
        Ok(ModelClient {
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            net,
        })
    }

    /// The endpoint called: `{base_url}/chat/completions`.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }

    /// Sends `body` (a chat-completions request, JSON) and returns the answer as JSON: read
    /// at most [`MAX_ANSWER_BYTES`], and only from a 2xx answer.
    pub async fn post_json(&self, body: Vec<u8>) -> Result<Value, ModelClientError> {
        let endpoint = self.endpoint();
        let mut builder = self
            .net
            .post(&endpoint)
            .map_err(|source| ModelClientError::Refused {
                endpoint: endpoint.clone(),
                source,
            })?
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(key) = &self.api_key {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose_secret()))
                .map_err(|_| ModelClientError::BadKey)?;
            value.set_sensitive(true);
            builder = builder.header(AUTHORIZATION, value);
        }
        let failed = |e: reqwest::Error| ModelClientError::Request {
            endpoint: endpoint.clone(),
            transient: e.is_timeout() || e.is_connect() || e.is_request(),
            message: e.without_url().to_string(),
        };
        let too_large = || ModelClientError::TooLarge {
            endpoint: endpoint.clone(),
            limit: MAX_ANSWER_BYTES,
        };
        let mut response = builder.send().await.map_err(failed)?;
        let status = response.status().as_u16();
        // An answer announced as too long is refused before any of it is read.
        if response
            .content_length()
            .is_some_and(|length| length > MAX_ANSWER_BYTES as u64)
        {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        if !(200..300).contains(&status) {
            let start = &bytes[..bytes.len().min(QUOTED_BYTES)];
            return Err(ModelClientError::Status {
                endpoint,
                status,
                body_start: String::from_utf8_lossy(start).trim().to_owned(),
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| ModelClientError::NotJson {
            endpoint,
            message: e.to_string(),
        })
    }
}
