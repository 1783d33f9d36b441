//! `std/http`: `std/http.get`, `std/http.post` and the general `std/http.request`.
//!
//! Their contracts declare `net` only. A secret may be bound to the `url` (a credentialed
//! URL, a webhook), `authorization` (an `Authorization` header value such as
//! `Bearer {secret.API_TOKEN}`) or `body` (a token body) slot; the flow compiler then gives
//! the step `secrets` as well (its effective-capability rule for `http` tools), and the tool
//! resolves the secret at the last moment through `ctx.secrets()`. Every message the tool
//! writes names the slot's placeholder form (`{secret.WEBHOOK_URL}`), never its value.
//!
//! A 2xx answer is the output `{status, headers, body}`. Any other status is an error: 408,
//! 429 and 5xx are transient (the Rider retries them), the rest terminal. A body larger
//! than `max_bytes` (default 10 MiB) is a terminal error; so is a timeout after retries.

mod request;
mod tools;

pub use request::{DEFAULT_MAX_BYTES, Expect, HttpResponse, Method};
pub use tools::{HttpGetInput, HttpPostInput, HttpRequestInput, http_get, http_post, http_request};
