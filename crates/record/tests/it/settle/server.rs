//! The settle fixtures' HTTP server on 127.0.0.1: the htmx page of
//! `tests/fixtures/settle/htmx`, and `GET /search?q=…` answered late — 50 to 300 ms, varied
//! from one call to the next — with the product's name and price, or never while `hang` is on
//! (a server that stopped answering). One thread per connection, one request each.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Name and price in cents.
pub const PRODUCTS: [(&str, u64); 3] = [
    ("Desk lamp", 4990),
    ("Electric kettle", 3490),
    ("Office chair", 18900),
];

/// What the server answers for a query: the first product whose name holds it (any case).
pub fn lookup(query: &str) -> Option<(&'static str, u64)> {
    let query = query.trim().to_lowercase();
    PRODUCTS
        .iter()
        .find(|(name, _)| !query.is_empty() && name.to_lowercase().contains(&query))
        .copied()
}

pub struct SlowServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    hang: Arc<AtomicBool>,
    /// How many searches were answered.
    pub answered: Arc<AtomicU64>,
}

impl SlowServer {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binds 127.0.0.1");
        let addr = listener.local_addr().expect("a local address");
        let stop = Arc::new(AtomicBool::new(false));
        let hang = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicU64::new(0));
        let calls = Arc::new(AtomicU64::new(0));
        let (s, h, a) = (stop.clone(), hang.clone(), answered.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::Acquire) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (s, h, a, c) = (s.clone(), h.clone(), a.clone(), calls.clone());
                std::thread::spawn(move || serve(stream, &s, &h, &a, &c));
            }
        });
        Self {
            addr,
            stop,
            hang,
            answered,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// From now on searches are never answered (or answered again).
    pub fn hang(&self, on: bool) {
        self.hang.store(on, Ordering::Release);
    }
}

impl Drop for SlowServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = TcpStream::connect(self.addr);
    }
}

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/settle/htmx")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn serve(
    stream: TcpStream,
    stop: &AtomicBool,
    hang: &AtomicBool,
    answered: &AtomicU64,
    calls: &AtomicU64,
) {
    let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => return,
            Ok(_) if header == "\r\n" || header == "\n" => break,
            Ok(_) => {}
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let (status, content_type, body) = match path {
        "/" | "/index.html" => ("200 OK", "text/html; charset=utf-8", fixture("index.html")),
        "/htmx.min.js" => ("200 OK", "text/javascript", fixture("htmx.min.js")),
        "/search" => {
            if hang.load(Ordering::Acquire) {
                // Never answered: held open until the server stops or the browser gives up.
                while !stop.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                return;
            }
            let n = calls.fetch_add(1, Ordering::AcqRel);
            std::thread::sleep(Duration::from_millis(50 + (n * 97 + 31) % 251));
            let q = form_urlencoded::parse(query.as_bytes())
                .find(|(k, _)| k == "q")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            answered.fetch_add(1, Ordering::AcqRel);
            let (name, price) = match lookup(&q) {
                Some((name, cents)) => (
                    name.to_string(),
                    format!("{}.{:02}", cents / 100, cents % 100),
                ),
                None => ("no match".to_string(), String::new()),
            };
            let html = format!(
                "<p>Name: <span class=\"value\" data-testid=\"name\">{name}</span></p>\n\
                 <p>Price: <span class=\"value\" data-testid=\"price\">{price}</span></p>\n"
            );
            ("200 OK", "text/html; charset=utf-8", html.into_bytes())
        }
        _ => ("404 Not Found", "text/plain", b"not found".to_vec()),
    };
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}
