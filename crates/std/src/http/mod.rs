//! `std/http`: `std/http.get`, `std/http.post` and the general `std/http.request`.
//!
//! Their contracts declare `net` only. A secret may be bound to the `url` (a credentialed
//! URL, a webhook), `authorization` (an `Authorization` header value such as
//! `Bearer {secret.API_TOKEN}`; `get` and `request`) or `body` (a token body) slot; the flow compiler then gives
//! the step `secrets` as well (its effective-capability rule for `http` tools), and the tool
//! resolves the secret at the last moment through `ctx.secrets()`. Every message the tool
//! writes names the slot's placeholder form (`{secret.WEBHOOK_URL}`), never its value.
//!
//! `std/http.post` keeps the contract the canonical flow pins: `url`, a text `body` and plain
//! `headers` in, `{status, body}` (text) out. `get` and `request` answer `{status, headers,
//! body}` with a JSON or text body. A 2xx answer is the output. Any other status is an error: 408,
//! 429 and 5xx are transient (the Rider retries them), the rest terminal. A body larger
//! than `max_bytes` (default 10 MiB) is a terminal error; so is a timeout after retries.

mod post;
mod request;
mod tools;

pub use post::{HttpPost, http_post, http_post_contract};
pub use request::{DEFAULT_MAX_BYTES, Expect, HttpResponse, Method};
pub use tools::{HttpGetInput, HttpRequestInput, http_get, http_request};
