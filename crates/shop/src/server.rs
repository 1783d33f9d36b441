//! [`FixtureServer`]: a [`Site`] served by axum on 127.0.0.1, on a thread of its own with a
//! single-threaded tokio runtime (every answer is in memory: one thread keeps up with a
//! browser, and the caller may or may not be inside a runtime of its own).

use std::net::SocketAddr;
use std::thread::JoinHandle;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_LENGTH, CONTENT_TYPE, SERVER,
};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::sync::oneshot;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::upload::{UploadPart, upload_page};
use crate::{SERVER_NAME, SHOP, Site};

/// The largest request body the server reads (uploads of test files); a larger one is
/// answered `413` without being read.
const MAX_BODY: usize = 8 * 1024 * 1024;

/// A running server of a [`Site`]; stops when dropped (its open connections closed with it).
#[derive(Debug)]
pub struct FixtureServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl FixtureServer {
    /// Serves the embedded fixture shop on an ephemeral port of 127.0.0.1.
    pub fn shop() -> std::io::Result<Self> {
        Self::serve(&SHOP)
    }

    /// Serves `site` on an ephemeral port of 127.0.0.1; `/` is `index.html`.
    pub fn serve(site: &'static include_dir::Dir<'static>) -> std::io::Result<Self> {
        Self::serve_on(SocketAddr::from(([127, 0, 0, 1], 0)), Site::Embedded(site))
    }

    /// Serves in-memory `files` on an ephemeral port of 127.0.0.1.
    pub fn serve_files(
        files: std::collections::BTreeMap<String, Vec<u8>>,
    ) -> std::io::Result<Self> {
        Self::serve_on(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            Site::Files(std::sync::Arc::new(files)),
        )
    }

    /// Serves `site` on `addr` (port 0: an ephemeral one). The address is bound before this
    /// returns, so a taken one is this call's error (`AddrInUse`) and the server answers as
    /// soon as it returns.
    pub fn serve_on(addr: SocketAddr, site: Site) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("fixture-server-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => listener,
                        Err(e) => {
                            tracing::error!(%addr, "the shop cannot listen: {e}");
                            return;
                        }
                    };
                    let serve = axum::serve(listener, app(site));
                    tokio::select! {
                        result = serve => {
                            if let Err(e) = result {
                                tracing::error!(%addr, "the shop stopped serving: {e}");
                            }
                        }
                        _ = stopped => {}
                    }
                });
                // Dropping the runtime here ends every connection still open.
            })?;
        Ok(Self {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:<port>` (no trailing slash).
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

impl Drop for FixtureServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Every request goes to [`answer`]; every answer says it is the shop's and is never cached
/// (a test changes a site between runs).
fn app(site: Site) -> Router {
    Router::new()
        .fallback(answer)
        .with_state(site)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(SetResponseHeaderLayer::overriding(
            SERVER,
            HeaderValue::from_static(SERVER_NAME),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
}

/// `GET`/`HEAD` of a site file (`/` is `index.html`; the path as sent, not decoded), `POST
/// /upload`, else `405` for another method on a file and `404` for anything missing.
async fn answer(State(site): State<Site>, request: Request) -> Response {
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|length| length > MAX_BODY) {
        return status(StatusCode::PAYLOAD_TOO_LARGE, "");
    }
    let method = request.method().clone();
    let path = request.uri().path().trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path }.to_owned();
    if method == Method::POST && path == "upload" {
        return upload(request).await;
    }
    let Some(contents) = body_of(&site, &path) else {
        return status(StatusCode::NOT_FOUND, "not found");
    };
    if method != Method::GET && method != Method::HEAD {
        return status(StatusCode::METHOD_NOT_ALLOWED, "");
    }
    let length = contents.len();
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from(contents)
    };
    let mut response = (
        [
            (CONTENT_TYPE, HeaderValue::from_static(content_type(&path))),
            (CONTENT_LENGTH, HeaderValue::from(length)),
        ],
        body,
    )
        .into_response();
    if let Some(name) = path.strip_prefix("downloads/")
        && let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
    {
        response.headers_mut().insert(CONTENT_DISPOSITION, value);
    }
    response
}

/// The file at `path`, without copying an embedded one.
fn body_of(site: &Site, path: &str) -> Option<Bytes> {
    match site {
        Site::Embedded(dir) => dir.get_file(path).map(|f| Bytes::from_static(f.contents())),
        Site::Files(_) => site.get(path).map(Bytes::copy_from_slice),
    }
}

/// `POST /upload`: the page naming each part of a `multipart/form-data` body; a body that is
/// not one is said on the page, a body over [`MAX_BODY`] is `413`.
async fn upload(request: Request) -> Response {
    let page = |parts: Option<Vec<UploadPart>>| {
        (
            [(CONTENT_TYPE, content_type("x.html"))],
            upload_page(parts.as_deref()),
        )
            .into_response()
    };
    let Ok(mut multipart) = Multipart::from_request(request, &()).await else {
        return page(None);
    };
    let mut parts = Vec::new();
    loop {
        match multipart.next_field().await {
            Ok(None) => return page(Some(parts)),
            Ok(Some(field)) => {
                let name = field.name().unwrap_or_default().to_owned();
                let filename = field.file_name().map(str::to_owned);
                match field.bytes().await {
                    Ok(content) => parts.push(UploadPart {
                        name,
                        filename,
                        content,
                    }),
                    Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                        return status(StatusCode::PAYLOAD_TOO_LARGE, "");
                    }
                    Err(_) => return page(None),
                }
            }
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                return status(StatusCode::PAYLOAD_TOO_LARGE, "");
            }
            Err(_) => return page(None),
        }
    }
}

/// A plain-text answer with `status`.
fn status(status: StatusCode, text: &'static str) -> Response {
    (status, [(CONTENT_TYPE, "text/plain")], text).into_response()
}

/// The `Content-Type` of a site file, by extension.
fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "csv" => "text/csv; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
#[path = "server_tests.rs"]
mod tests;
