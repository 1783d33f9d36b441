//! The three `std/http` tools and their inputs.

use std::collections::BTreeMap;

use browserflow_contract::{Capability, Kind};
use browserflow_rider::{DefineError, SecretInput, Tool, ToolDef, define_tool};
use serde_json::Value;

use super::request::{Expect, Method, Request, perform};

/// The input of `std/http.get`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpGetInput {
    /// The URL; may carry a secret (a credentialed URL).
    pub url: SecretInput,
    /// Extra request headers (plain values).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The `Authorization` header value; may carry a secret (`Bearer {secret.TOKEN}`).
    #[serde(default)]
    pub authorization: Option<SecretInput>,
    /// The request timeout in milliseconds (default: the Rider's network timeout).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// The largest response body accepted, in bytes (default 10 MiB).
    #[serde(default)]
    pub max_bytes: Option<u64>,
    /// How to read the response body: `auto` (JSON when the response says so), `json`, `text`.
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// The input of `std/http.request`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpRequestInput {
    /// The method.
    pub method: Method,
    /// The URL; may carry a secret.
    pub url: SecretInput,
    /// The body (not with GET or HEAD): a string is sent as text, any other value as JSON.
    #[serde(default)]
    pub body: Option<Value>,
    /// The `Content-Type`.
    #[serde(default)]
    pub content_type: Option<String>,
    /// Extra request headers (plain values).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The `Authorization` header value; may carry a secret.
    #[serde(default)]
    pub authorization: Option<SecretInput>,
    /// The request timeout in milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// The largest response body accepted, in bytes (default 10 MiB).
    #[serde(default)]
    pub max_bytes: Option<u64>,
    /// How to read the response body.
    #[serde(default)]
    pub expect: Option<Expect>,
}

fn def(name: &str, description: &str) -> ToolDef {
    ToolDef::new(name, "1.0.0", Kind::Http)
        .description(description)
        .capabilities([Capability::Net])
}

/// `std/http.get@1.0.0`.
pub fn http_get() -> Result<impl Tool, DefineError> {
    define_tool(
        def(
            "std/http.get",
            "GET a URL; a non-2xx status is an error (5xx, 408, 429 retryable).",
        ),
        |input: HttpGetInput, ctx| async move {
            let request = Request {
                method: Method::Get,
                url: input.url,
                body: None,
                content_type: None,
                headers: input.headers,
                authorization: input.authorization,
                timeout_ms: input.timeout_ms,
                max_bytes: input.max_bytes,
                expect: input.expect.unwrap_or_default(),
            };
            perform(request, &ctx).await
        },
    )
}

/// `std/http.request@1.0.0`.
pub fn http_request() -> Result<impl Tool, DefineError> {
    define_tool(
        def(
            "std/http.request",
            "Any HTTP request; a non-2xx status is an error (5xx, 408, 429 retryable).",
        ),
        |input: HttpRequestInput, ctx| async move {
            let request = Request {
                method: input.method,
                url: input.url,
                body: input.body,
                content_type: input.content_type,
                headers: input.headers,
                authorization: input.authorization,
                timeout_ms: input.timeout_ms,
                max_bytes: input.max_bytes,
                expect: input.expect.unwrap_or_default(),
            };
            perform(request, &ctx).await
        },
    )
}
