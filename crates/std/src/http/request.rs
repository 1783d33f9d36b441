//! One HTTP exchange: secrets resolved at the last moment, status classes, size cap,
//! cancellation, and messages that never hold a secret value.

use std::collections::BTreeMap;
use std::time::Duration;

use browserflow_rider::secrecy::{ExposeSecret, SecretString};
use browserflow_rider::{Redactor, SECRET_TEMPLATE_KEY, SecretInput, ToolCtx, ToolError};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue};
use serde_json::Value;

/// The default cap on a response body: 10 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    /// GET
    Get,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
    /// HEAD
    Head,
}

impl Method {
    fn to_reqwest(self) -> reqwest::Method {
        match self {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
            Method::Head => reqwest::Method::HEAD,
        }
    }
}

/// How to read a response body.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// JSON when the `Content-Type` says JSON, text otherwise.
    #[default]
    Auto,
    /// JSON; anything else is an error.
    Json,
    /// Text (UTF-8, invalid bytes replaced).
    Text,
}

/// A successful answer: the tool's output.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct HttpResponse {
    /// The status code (2xx).
    pub status: u16,
    /// The response headers, names in lower case (repeated headers joined with `, `).
    pub headers: BTreeMap<String, String>,
    /// The body: JSON, or a string of text (empty for HEAD).
    pub body: Value,
}

/// Everything one exchange needs, inputs still unresolved.
pub(crate) struct Request {
    pub method: Method,
    pub url: SecretInput,
    pub body: Option<Value>,
    pub content_type: Option<String>,
    pub headers: BTreeMap<String, String>,
    pub authorization: Option<SecretInput>,
    pub timeout_ms: Option<u64>,
    pub max_bytes: Option<u64>,
    pub expect: Expect,
}

enum Body {
    Json(Vec<u8>),
    Text(SecretString),
}

/// Resolves secret-bearing inputs and remembers every value, so messages can be scrubbed
/// even before the Rider's own redactor sees them.
struct Resolver<'c> {
    ctx: &'c ToolCtx,
    scrub: Redactor,
}

impl Resolver<'_> {
    fn expose(&self, slot: &str, input: &SecretInput) -> Result<SecretString, ToolError> {
        if !input.is_secret() {
            return Ok(SecretString::from(input.display().into_owned()));
        }
        let secrets = self.ctx.secrets().ok_or_else(|| {
            ToolError::terminal(format!(
                "slot `{slot}` carries a secret but this step has no `secrets` capability (bind it through a flow, which grants it)"
            ))
        })?;
        let value = secrets
            .expose(input)
            .map_err(|e| ToolError::terminal(format!("slot `{slot}`: {e}")))?;
        self.scrub.register(&value);
        Ok(value)
    }

    fn clean(&self, message: String) -> String {
        self.scrub.redact_string(&message)
    }
}

fn body_of(value: Option<Value>, resolver: &Resolver<'_>) -> Result<Option<Body>, ToolError> {
    Ok(match value {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(Body::Text(SecretString::from(text))),
        Some(Value::Object(map)) if map.len() == 1 && map.contains_key(SECRET_TEMPLATE_KEY) => {
            let input = SecretInput::from_json(&Value::Object(map))
                .map_err(|e| ToolError::terminal(format!("slot `body`: {e}")))?;
            Some(Body::Text(resolver.expose("body", &input)?))
        }
        Some(other) => {
            Some(Body::Json(serde_json::to_vec(&other).map_err(|e| {
                ToolError::terminal(format!("slot `body`: {e}"))
            })?))
        }
    })
}

fn reqwest_failure(e: reqwest::Error, what: &str) -> ToolError {
    // Without the URL: it may hold a secret.
    let transient = e.is_timeout() || e.is_connect() || e.is_request();
    let timed_out = e.is_timeout();
    let why = if timed_out {
        "timed out".to_owned()
    } else {
        error_chain(&e.without_url())
    };
    let message = format!("{what}: {why}");
    if transient {
        ToolError::transient(message)
    } else {
        ToolError::terminal(message)
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// Performs the exchange.
pub(crate) async fn perform(request: Request, ctx: &ToolCtx) -> Result<HttpResponse, ToolError> {
    let net = ctx.require_net()?;
    let resolver = Resolver {
        ctx,
        scrub: Redactor::new(),
    };
    let shown_url = request.url.display().into_owned();
    let what = format!("{} {shown_url}", request.method.to_reqwest());
    let result = exchange(request, ctx, net, &resolver, &what).await;
    result.map_err(|e| ToolError {
        message: resolver.clean(e.message),
        ..e
    })
}

async fn exchange(
    request: Request,
    ctx: &ToolCtx,
    net: &browserflow_rider::NetCap,
    resolver: &Resolver<'_>,
    what: &str,
) -> Result<HttpResponse, ToolError> {
    let url = resolver.expose("url", &request.url)?;
    let authorization = match &request.authorization {
        Some(input) => Some(resolver.expose("authorization", input)?),
        None => None,
    };
    let body = body_of(request.body, resolver)?;
    if body.is_some() && matches!(request.method, Method::Get | Method::Head) {
        return Err(ToolError::terminal(format!(
            "{what}: a {:?} request has no body",
            request.method
        )));
    }
    let mut builder = net
        .request(request.method.to_reqwest(), url.expose_secret())
        .map_err(|e| ToolError::terminal(format!("{what}: {}", bad_url_message(e))))?;
    for (name, value) in &request.headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| ToolError::terminal(format!("{what}: `{name}` is not a header name")))?;
        let value = HeaderValue::from_str(value).map_err(|_| {
            ToolError::terminal(format!(
                "{what}: the value of header `{name}` is not a valid header value"
            ))
        })?;
        builder = builder.header(header, value);
    }
    if let Some(auth) = &authorization {
        let mut value = HeaderValue::from_str(auth.expose_secret()).map_err(|_| {
            ToolError::terminal(format!(
                "{what}: `authorization` is not a valid header value"
            ))
        })?;
        value.set_sensitive(true);
        builder = builder.header(AUTHORIZATION, value);
    }
    if !matches!(request.method, Method::Get | Method::Head)
        && !request
            .headers
            .keys()
            .any(|k| k.eq_ignore_ascii_case("idempotency-key"))
    {
        // The key is stable across attempts and resumes: a receiver can drop repeats.
        builder = builder.header("Idempotency-Key", ctx.idempotency_key());
    }
    let explicit_type = request.content_type.clone().or_else(|| {
        request
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.clone())
    });
    // A `Content-Type` among the headers was already added above: send it once.
    let type_in_headers = request
        .headers
        .keys()
        .any(|k| k.eq_ignore_ascii_case("content-type"));
    builder = match &body {
        None => builder,
        Some(_) if type_in_headers => builder,
        Some(Body::Json(_)) => builder.header(
            CONTENT_TYPE,
            explicit_type.unwrap_or_else(|| "application/json".to_owned()),
        ),
        Some(Body::Text(_)) => builder.header(
            CONTENT_TYPE,
            explicit_type.unwrap_or_else(|| "text/plain; charset=utf-8".to_owned()),
        ),
    };
    builder = match body {
        None => builder,
        Some(Body::Json(bytes)) => builder.body(bytes),
        Some(Body::Text(text)) => builder.body(text.expose_secret().to_owned()),
    };
    if let Some(ms) = request.timeout_ms {
        builder = builder.timeout(Duration::from_millis(ms));
    }
    let max_bytes = request.max_bytes.unwrap_or(DEFAULT_MAX_BYTES);
    let timeout = request.timeout_ms.map(Duration::from_millis);
    let exchange = async {
        let mut response = builder.send().await.map_err(|e| reqwest_failure(e, what))?;
        let status = response.status().as_u16();
        let headers = header_map(response.headers());
        if let Some(length) = response.content_length()
            && length > max_bytes
        {
            return Err(too_large(what, max_bytes));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| reqwest_failure(e, what))?
        {
            if (bytes.len() + chunk.len()) as u64 > max_bytes {
                return Err(too_large(what, max_bytes));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok((status, headers, bytes))
    };
    let (status, headers, bytes) = tokio::select! {
        result = exchange => result?,
        _ = ctx.signal().cancelled() => return Err(ToolError::cancelled()),
        _ = sleep_opt(timeout) => return Err(ToolError::transient(format!("{what}: timed out"))),
    };
    if !(200..300).contains(&status) {
        let snippet = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
        let mut error = ToolError::from_http_status(status, what.to_owned());
        if !snippet.trim().is_empty() {
            error.message.push_str(&format!(" — {}", snippet.trim()));
        }
        return Err(error);
    }
    let is_json = headers.get("content-type").is_some_and(|t| {
        let t = t.to_ascii_lowercase();
        t.starts_with("application/json") || t.contains("+json")
    });
    let body = if bytes.is_empty() && request.expect != Expect::Json {
        Value::String(String::new())
    } else {
        match request.expect {
            Expect::Text => Value::String(String::from_utf8_lossy(&bytes).into_owned()),
            Expect::Json => serde_json::from_slice(&bytes).map_err(|e| {
                ToolError::terminal(format!("{what}: the response is not JSON: {e}"))
            })?,
            Expect::Auto if is_json => serde_json::from_slice(&bytes).map_err(|e| {
                ToolError::terminal(format!("{what}: the response says JSON but is not: {e}"))
            })?,
            Expect::Auto => Value::String(String::from_utf8_lossy(&bytes).into_owned()),
        }
    };
    ctx.logger()
        .info(format!("{what} → {status} ({} bytes)", bytes.len()));
    Ok(HttpResponse {
        status,
        headers,
        body,
    })
}

async fn sleep_opt(timeout: Option<Duration>) {
    match timeout {
        // A little after reqwest's own timeout, which gives the better message.
        Some(t) => tokio::time::sleep(t + Duration::from_millis(250)).await,
        None => std::future::pending().await,
    }
}

fn too_large(what: &str, max_bytes: u64) -> ToolError {
    ToolError::terminal(format!(
        "{what}: the response body exceeds the cap of {max_bytes} bytes (`max_bytes`)"
    ))
}

fn bad_url_message(e: browserflow_rider::NetError) -> String {
    match e {
        // The URL itself may be a secret: say what is wrong, not what it is.
        browserflow_rider::NetError::BadUrl { message, .. } => {
            format!("not a valid URL: {message}")
        }
        other => other.to_string(),
    }
}

fn header_map(headers: &reqwest::header::HeaderMap) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        out.entry(name.as_str().to_owned())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    out
}
