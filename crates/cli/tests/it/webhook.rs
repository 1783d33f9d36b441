//! A real webhook receiver on 127.0.0.1: it answers every POST with `200 {"ok":true}` and
//! records what it received, like a chat or alerting service would.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub idempotency_key: Option<String>,
    pub body: String,
}

pub struct Webhook {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Webhook {
    pub fn start() -> Webhook {
        Webhook::start_with_delay(std::time::Duration::ZERO)
    }

    /// A receiver that takes `delay` to answer each POST (a slow service: runs are caught
    /// mid-flight), each on a thread of its own. A request is recorded when it has been
    /// read, before the answer.
    pub fn start_with_delay(delay: std::time::Duration) -> Webhook {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let sink = Arc::clone(&sink);
                let handle = move || serve(stream, delay, &sink);
                if delay.is_zero() {
                    handle();
                } else {
                    std::thread::spawn(handle);
                }
            }
        });
        Webhook { port, received }
    }

    /// `http://127.0.0.1:PORT/PATH`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, delay: std::time::Duration, sink: &Mutex<Vec<Received>>) -> Option<()> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    let mut length = 0usize;
    let mut idempotency_key = None;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim().to_owned();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().ok()?,
                "idempotency-key" => idempotency_key = Some(value),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    sink.lock().unwrap().push(Received {
        path,
        idempotency_key,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    std::thread::sleep(delay);
    let reply = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{\"ok\":true}";
    let mut stream = stream;
    stream.write_all(reply).ok()?;
    Some(())
}
