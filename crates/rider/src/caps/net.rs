//! The `net` capability: an HTTP client, optionally limited to allowed hosts (redirects
//! included).
//!
//! TLS is rustls with the `ring` provider, so `https://` works with no system library.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

pub use reqwest;
use reqwest::{Method, RequestBuilder, Url};

/// Why a request was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The URL does not parse.
    #[error("`{url}` is not a URL: {message}")]
    BadUrl {
        /// The URL as given (redacted by the Rider before it is written anywhere).
        url: String,
        /// Why.
        message: String,
    },
    /// The host is not on the allow list.
    #[error("host `{host}` is not allowed (allowed: {allowed})")]
    HostNotAllowed {
        /// The host asked for.
        host: String,
        /// The allow list, comma-separated.
        allowed: String,
    },
    /// The client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    /// The request failed.
    #[error("HTTP request failed: {0}")]
    Request(#[from] reqwest::Error),
}

impl NetError {
    /// Whether retrying may help (connection problems and timeouts).
    pub fn is_transient(&self) -> bool {
        match self {
            NetError::Request(e) => e.is_connect() || e.is_timeout() || e.is_request(),
            _ => false,
        }
    }
}

/// Network settings of a Rider.
#[derive(Debug, Clone)]
pub struct NetOptions {
    /// Only these hosts may be reached; `None`: any host.
    pub allowed_hosts: Option<BTreeSet<String>>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Connection timeout.
    pub connect_timeout: Duration,
}

impl Default for NetOptions {
    fn default() -> Self {
        NetOptions {
            allowed_hosts: None,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
        }
    }
}

/// An HTTP client limited to the allowed hosts. Cheap to clone; clones share a pool.
#[derive(Debug, Clone)]
pub struct NetCap {
    client: reqwest::Client,
    allowed: Option<Arc<BTreeSet<String>>>,
}

impl NetCap {
    /// Builds a client with `options`.
    pub fn new(options: &NetOptions) -> Result<NetCap, NetError> {
        // reqwest is built without a default crypto provider; install ring once per process.
        // An error only means a provider is already installed, which is what we want.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let allowed = options.allowed_hosts.clone().map(Arc::new);
        let redirect_allowed = allowed.clone();
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 10 {
                return attempt.error("too many redirects");
            }
            match (&redirect_allowed, attempt.url().host_str()) {
                (None, _) => attempt.follow(),
                (Some(hosts), Some(host)) if hosts.contains(host) => attempt.follow(),
                _ => attempt.stop(),
            }
        });
        let client = reqwest::Client::builder()
            .timeout(options.timeout)
            .connect_timeout(options.connect_timeout)
            .redirect(policy)
            .build()
            .map_err(|e| NetError::Client(e.to_string()))?;
        Ok(NetCap { client, allowed })
    }

    /// Starts a request, after checking the host is allowed. Finish it with reqwest's
    /// builder (`.json(..)`, `.header(..)`, `.send().await`).
    pub fn request(&self, method: Method, url: &str) -> Result<RequestBuilder, NetError> {
        let parsed = Url::parse(url).map_err(|e| NetError::BadUrl {
            url: url.to_owned(),
            message: e.to_string(),
        })?;
        self.check_host(&parsed)?;
        Ok(self.client.request(method, parsed))
    }

    /// `GET url`.
    pub fn get(&self, url: &str) -> Result<RequestBuilder, NetError> {
        self.request(Method::GET, url)
    }

    /// `POST url`.
    pub fn post(&self, url: &str) -> Result<RequestBuilder, NetError> {
        self.request(Method::POST, url)
    }

    fn check_host(&self, url: &Url) -> Result<(), NetError> {
        let Some(allowed) = &self.allowed else {
            return Ok(());
        };
        let host = url.host_str().unwrap_or_default();
        if allowed.contains(host) {
            Ok(())
        } else {
            Err(NetError::HostNotAllowed {
                host: host.to_owned(),
                allowed: allowed.iter().cloned().collect::<Vec<_>>().join(", "),
            })
        }
    }
}
