//! Streamable HTTP: the same server at `http://ADDR/mcp` (rmcp's Streamable HTTP service
//! under axum). On a loopback address no token is needed (the SDK refuses a `Host` that is
//! not loopback, against DNS rebinding); on any other address the server does not start
//! without a bearer token, and every request must carry it (`Authorization: Bearer …`).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::{McpServer, ServeError};

/// The path the server answers on.
pub const MCP_PATH: &str = "/mcp";

impl McpServer {
    /// Serves over Streamable HTTP on `addr` until the process ends. `token`: the bearer
    /// token every request must carry; required unless `addr` is loopback. `bound` is told
    /// the address listened on (port 0 picks a free one) once it is.
    pub async fn serve_http(
        self,
        addr: SocketAddr,
        token: Option<String>,
        bound: impl FnOnce(SocketAddr),
    ) -> Result<(), ServeError> {
        let loopback = addr.ip().is_loopback();
        if !loopback && token.is_none() {
            return Err(ServeError::TokenRequired(addr));
        }
        let mut config = StreamableHttpServerConfig::default();
        if !loopback {
            // Reached by whatever name the network gives it; the token guards it instead.
            config = config.disable_allowed_hosts();
        }
        let server = self.clone();
        let service: StreamableHttpService<McpServer, LocalSessionManager> =
            StreamableHttpService::new(move || Ok(server.clone()), Arc::default(), config);
        let mut router = axum::Router::new().route_service(MCP_PATH, service);
        if let Some(token) = token {
            let expected: Arc<str> = format!("Bearer {token}").into();
            router = router.layer(axum::middleware::from_fn(
                move |request: Request, next: Next| bearer(expected.clone(), request, next),
            ));
        }
        let io = |e: std::io::Error| ServeError::Transport(format!("{addr}: {e}"));
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(io)?;
        bound(listener.local_addr().map_err(io)?);
        axum::serve(listener, router).await.map_err(io)
    }
}

/// Lets a request through only with the expected `Authorization` header (compared in time
/// independent of where it differs).
async fn bearer(expected: Arc<str>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    if equal_in_constant_time(given, expected.as_bytes()) {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "a bearer token is required (Authorization: Bearer <BROWSERFLOW_MCP_TOKEN>)",
        )
            .into_response()
    }
}

fn equal_in_constant_time(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::equal_in_constant_time;

    #[test]
    fn tokens_compare_whole() {
        assert!(equal_in_constant_time(b"Bearer abc", b"Bearer abc"));
        assert!(!equal_in_constant_time(b"Bearer abd", b"Bearer abc"));
        assert!(!equal_in_constant_time(b"Bearer ab", b"Bearer abc"));
        assert!(!equal_in_constant_time(b"", b"Bearer abc"));
    }
}
