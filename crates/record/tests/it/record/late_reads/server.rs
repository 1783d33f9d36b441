//! The quote server: serves `tests/fixtures/late-reads` on 127.0.0.1 and answers
//! `GET /api/quote?q=CODE` after 50 to 300 ms (a different delay each request), as a server
//! round trip of a web app does. One thread per connection, one request per connection.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Product code, name, price.
pub const PRODUCTS: [(&str, &str, &str); 3] = [
    ("keyboard", "Mechanical Keyboard", "$89.00"),
    ("mouse", "Wireless Mouse", "$24.99"),
    ("lamp", "Desk Lamp", "$1,249.50"),
];

pub struct QuoteServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    /// How many quotes were answered (the pages really asked).
    pub answered: Arc<AtomicU64>,
}

impl QuoteServer {
    pub fn start() -> Self {
        let root =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/late-reads");
        let listener = TcpListener::bind("127.0.0.1:0").expect("the quote server binds");
        let addr = listener.local_addr().expect("a local address");
        let stop = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicU64::new(0));
        let (stopped, count) = (stop.clone(), answered.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (root, count) = (root.clone(), count.clone());
                std::thread::spawn(move || serve(stream, &root, &count));
            }
        });
        Self {
            addr,
            stop,
            answered,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for QuoteServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(stream: TcpStream, root: &std::path::Path, answered: &AtomicU64) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    // The headers: nothing in them matters here.
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim_end().is_empty() {
            break;
        }
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let (path, query) = target.split_once('?').unwrap_or((target.as_str(), ""));
    let (status, mime, body) = if path == "/api/quote" {
        let n = answered.fetch_add(1, Ordering::SeqCst);
        // 50..=300 ms, spread over the range from one request to the next.
        std::thread::sleep(Duration::from_millis(50 + (n * 97 + 61) % 251));
        let code = form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| k == "q")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        match PRODUCTS.iter().find(|(c, ..)| *c == code) {
            Some((_, name, price)) => (
                "200 OK",
                "application/json",
                serde_json::json!({ "name": name, "price": price })
                    .to_string()
                    .into_bytes(),
            ),
            None => ("404 Not Found", "application/json", b"{}".to_vec()),
        }
    } else {
        let file = root.join(path.trim_start_matches('/'));
        let mime = match file.extension().and_then(|e| e.to_str()) {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript",
            Some("css") => "text/css",
            _ => "application/octet-stream",
        };
        match std::fs::read(&file) {
            Ok(bytes) if !path.contains("..") => ("200 OK", mime, bytes),
            _ => ("404 Not Found", "text/plain", b"not found".to_vec()),
        }
    };
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {mime}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(&body);
    let mut writer = stream;
    let _ = writer.write_all(&response);
}
