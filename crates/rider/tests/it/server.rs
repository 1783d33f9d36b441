//! A real HTTP/1.1 server on 127.0.0.1 that records every request and counts them per
//! `Idempotency-Key`. Paths:
//!
//! - `/effect`: 200 with `{"key", "count", "path"}` (count: requests seen with this key);
//! - `/echo`: 200 with `{"authorization", "query", "body"}`, echoing what it received;
//! - `/flaky/N`: 503 for the first N requests with a given key, then 200;
//! - `/status/CODE`: that status, with the request's Authorization header as the body;
//! - `/slow/MS`: waits MS milliseconds, then 200 (tracks the peak of concurrent requests).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Request {
    pub target: String,
    pub headers: HashMap<String, String>,
    pub body: String,
}

#[derive(Default)]
struct State {
    requests: Mutex<Vec<Request>>,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    stopped: AtomicBool,
}

pub struct Server {
    pub url: String,
    state: Arc<State>,
}

impl Server {
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let state = Arc::new(State::default());
        let accept_state = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_state.stopped.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let state = accept_state.clone();
                std::thread::spawn(move || serve(stream, &state));
            }
        });
        Server { url, state }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Requests seen per idempotency key.
    pub fn counts(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for r in self.requests() {
            if let Some(key) = r.headers.get("idempotency-key") {
                *counts.entry(key.clone()).or_insert(0) += 1;
            }
        }
        counts
    }

    pub fn peak_concurrency(&self) -> usize {
        self.state.peak.load(Ordering::Relaxed)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.state.stopped.store(true, Ordering::Relaxed);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
    }
}

fn serve(stream: TcpStream, state: &State) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let target = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((k, v)) = header.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        let length: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let request = Request {
            target,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        };
        let (status, response) = respond(&request, state);
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{response}",
            response.len()
        );
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

fn respond(request: &Request, state: &State) -> (u16, String) {
    let key = request
        .headers
        .get("idempotency-key")
        .cloned()
        .unwrap_or_default();
    let seen = {
        let mut requests = state.requests.lock().unwrap();
        requests.push(request.clone());
        requests
            .iter()
            .filter(|r| {
                r.headers.get("idempotency-key") == Some(&key) && r.target == request.target
            })
            .count()
    };
    let path = request.target.split('?').next().unwrap_or("/").to_owned();
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match parts.as_slice() {
        ["effect"] => (
            200,
            serde_json::json!({"key": key, "count": seen, "path": path}).to_string(),
        ),
        ["echo"] => (
            200,
            serde_json::json!({
                "authorization": request.headers.get("authorization"),
                "query": request.target.split_once('?').map(|(_, q)| q),
                "body": request.body,
            })
            .to_string(),
        ),
        ["flaky", n] => {
            let failures: usize = n.parse().unwrap_or(0);
            if seen <= failures {
                (503, r#"{"error":"try again"}"#.to_owned())
            } else {
                (
                    200,
                    serde_json::json!({"key": key, "count": seen, "path": path}).to_string(),
                )
            }
        }
        ["status", code] => (
            code.parse().unwrap_or(500),
            serde_json::json!({"authorization": request.headers.get("authorization")}).to_string(),
        ),
        ["slow", ms] => {
            let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            state.peak.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(ms.parse().unwrap_or(100)));
            state.in_flight.fetch_sub(1, Ordering::SeqCst);
            (
                200,
                serde_json::json!({"key": key, "count": seen, "path": path}).to_string(),
            )
        }
        _ => (404, "{}".to_owned()),
    }
}
