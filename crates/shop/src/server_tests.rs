//! The shop's answers, over real connections to a server on 127.0.0.1.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::FixtureServer;

/// An answer: the status code, the headers (names lowercase) and the body.
struct Answer {
    status: u16,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `head` (request line and headers, without the blank line; `Connection: close` is
/// added) and `body`, and reads the whole answer.
fn send(server: &FixtureServer, head: &str, body: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(server.addr()).expect("connected");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    let head = format!(
        "{head}\r\nHost: {}\r\nConnection: close\r\n\r\n",
        server.addr()
    );
    stream.write_all(head.as_bytes()).expect("head sent");
    // The server may answer (413) before reading a body it refuses.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Answer {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

fn get(server: &FixtureServer, path: &str) -> Answer {
    send(server, &format!("GET {path} HTTP/1.1"), b"")
}

#[test]
fn pages_are_served_with_their_type_length_and_the_shop_s_headers() {
    let server = FixtureServer::shop().expect("served");
    let index = get(&server, "/");
    assert_eq!(index.status, 200);
    assert_eq!(
        index.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(index.header("server"), Some(crate::SERVER_NAME));
    assert_eq!(index.header("cache-control"), Some("no-store"));
    assert_eq!(
        index.body,
        crate::SHOP
            .get_file("index.html")
            .expect("index")
            .contents()
    );
    assert_eq!(
        index.header("content-length"),
        Some(index.body.len().to_string().as_str())
    );
    // The query is not part of the path.
    assert_eq!(get(&server, "/search.html?q=lamp").status, 200);
    let css = get(&server, "/shop.css");
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    // HEAD: the length of the file, no body.
    let head = send(&server, "HEAD /index.html HTTP/1.1", b"");
    assert_eq!(head.status, 200);
    assert_eq!(
        head.header("content-length"),
        Some(index.body.len().to_string().as_str())
    );
    assert!(head.body.is_empty());
}

#[test]
fn downloads_are_attachments() {
    let server = FixtureServer::shop().expect("served");
    let receipt = get(&server, "/downloads/receipt-1001.csv");
    assert_eq!(receipt.status, 200);
    assert_eq!(
        receipt.header("content-type"),
        Some("text/csv; charset=utf-8")
    );
    assert_eq!(
        receipt.header("content-disposition"),
        Some("attachment; filename=\"receipt-1001.csv\"")
    );
}

#[test]
fn missing_files_wrong_methods_and_large_bodies_are_refused() {
    let server = FixtureServer::shop().expect("served");
    let missing = get(&server, "/no-such-page.html");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.text(), "not found");
    assert_eq!(missing.header("server"), Some(crate::SERVER_NAME));
    let post = send(
        &server,
        "POST /index.html HTTP/1.1\r\nContent-Length: 0",
        b"",
    );
    assert_eq!(post.status, 405);
    // Announced over 8 MiB: refused without being read.
    let large = send(
        &server,
        "POST /upload HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=X\r\nContent-Length: 9000000",
        b"--X",
    );
    assert_eq!(large.status, 413);
    assert_eq!(large.header("server"), Some(crate::SERVER_NAME));
}

#[test]
fn in_memory_files_are_served_as_given() {
    let files = BTreeMap::from([
        ("index.html".to_owned(), b"<p>variant</p>".to_vec()),
        ("data/a.json".to_owned(), b"{}".to_vec()),
    ]);
    let server = FixtureServer::serve_files(files).expect("served");
    assert_eq!(get(&server, "/").text(), "<p>variant</p>");
    let json = get(&server, "/data/a.json");
    assert_eq!(json.header("content-type"), Some("application/json"));
    assert_eq!(json.text(), "{}");
}

#[test]
fn an_upload_is_answered_with_each_file_s_name_and_size_and_each_field_s_value() {
    let server = FixtureServer::shop().expect("served");
    let body =
        b"preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello <b>\r\n\
--XyZ\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"a b.txt\"\r\n\
Content-Type: text/plain\r\n\r\nline1\r\nline2\r\n--XyZ--\r\n";
    let answer = send(
        &server,
        &format!(
            "POST /upload HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: {}",
            body.len()
        ),
        body,
    );
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let page = answer.text();
    assert!(
        page.contains(
            "<li>note: <span data-testid=\"upload-field-note\">hello &lt;b&gt;</span></li>"
        ),
        "{page}"
    );
    assert!(
        page.contains("<span data-testid=\"upload-name\">a b.txt</span>"),
        "{page}"
    );
    assert!(
        page.contains("<span data-testid=\"upload-size\">12</span>"),
        "{page}"
    );
    // A body that is not a form is said on the page.
    let plain = send(
        &server,
        "POST /upload HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: 5",
        b"hello",
    );
    assert_eq!(plain.status, 200);
    assert!(
        plain.text().contains("data-testid=\"upload-error\""),
        "{}",
        plain.text()
    );
}

#[test]
fn a_dropped_server_no_longer_answers() {
    let server = FixtureServer::shop().expect("served");
    let addr = server.addr();
    assert_eq!(get(&server, "/").status, 200);
    drop(server);
    assert!(TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err());
}
