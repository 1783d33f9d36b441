//! A tiny static-file HTTP server on 127.0.0.1 for the embedded fixture shop (used by the tests
//! and by `bflow demo`). One thread accepts; each connection gets a short-lived thread.
//!
//! Two things are not static: files under `downloads/` are sent as attachments
//! (`Content-Disposition`), so following a link to one downloads it; and `POST /upload`
//! takes a `multipart/form-data` form and answers with a page naming each uploaded file with
//! its size (`data-testid="upload-name"`, `"upload-size"`) and the other fields' values.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use include_dir::{Dir, include_dir};

/// The fixture shop site (`tests/fixtures/shop`), embedded in the binary.
pub static SHOP: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../tests/fixtures/shop");

/// What a [`FixtureServer`] serves.
#[derive(Debug, Clone)]
pub enum Site {
    /// A directory embedded in the binary.
    Embedded(&'static Dir<'static>),
    /// Files held in memory, by path relative to the site root (`index.html`, `css/a.css`).
    Files(Arc<BTreeMap<String, Vec<u8>>>),
}

impl Site {
    fn get(&self, path: &str) -> Option<&[u8]> {
        match self {
            Site::Embedded(dir) => dir.get_file(path).map(|f| f.contents()),
            Site::Files(files) => files.get(path).map(Vec::as_slice),
        }
    }
}

/// Every file of the embedded shop, by relative path: start here to serve a variant of it.
pub fn shop_files() -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    collect(&SHOP, &mut files);
    files
}

fn collect(dir: &Dir<'static>, into: &mut BTreeMap<String, Vec<u8>>) {
    for file in dir.files() {
        into.insert(
            file.path().to_string_lossy().replace('\\', "/"),
            file.contents().to_vec(),
        );
    }
    for sub in dir.dirs() {
        collect(sub, into);
    }
}

/// Reads every file under `root` into memory, by relative path.
pub fn read_dir_files(root: &Path) -> std::io::Result<BTreeMap<String, Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, into: &mut BTreeMap<String, Vec<u8>>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(root, &path, into)?;
            } else if let Ok(relative) = path.strip_prefix(root) {
                into.insert(
                    relative.to_string_lossy().replace('\\', "/"),
                    std::fs::read(&path)?,
                );
            }
        }
        Ok(())
    }
    let mut files = BTreeMap::new();
    walk(root, root, &mut files)?;
    Ok(files)
}

/// Serves the embedded shop on `addr` (for example `127.0.0.1:4780`, the demo address the
/// shipped `search-price@1.2.0` recording points at) until the returned server is dropped.
pub fn serve_shop(addr: SocketAddr) -> std::io::Result<FixtureServer> {
    FixtureServer::serve_on(addr, Site::Embedded(&SHOP))
}

/// The `Server` header of every answer: how [`serve_demo_shop`] recognises a shop another
/// process already serves.
pub const SERVER_NAME: &str = "browserflow-shop";

/// Where the demo shop is, once [`serve_demo_shop`] has looked.
#[derive(Debug)]
pub enum DemoShop {
    /// Served by this process at the demo address.
    Served(FixtureServer),
    /// Another process (a `bflow demo`, another app window) already serves the shop at the
    /// demo address: nothing to serve, the shipped tools find it there.
    AlreadyServed {
        /// The shop's origin.
        origin: String,
    },
    /// The demo address is taken by something that is not the shop: the shop is served on
    /// another port, where the shipped tools (which point at the demo address) will not find it.
    Elsewhere {
        /// The shop, on an ephemeral port.
        server: FixtureServer,
        /// The demo address that was taken.
        taken: SocketAddr,
    },
}

impl DemoShop {
    /// The shop's origin, `http://127.0.0.1:<port>`.
    pub fn origin(&self) -> String {
        match self {
            DemoShop::Served(server) | DemoShop::Elsewhere { server, .. } => server.origin(),
            DemoShop::AlreadyServed { origin } => origin.clone(),
        }
    }
}

/// Serves the embedded shop at `addr` (the demo address the shipped tools point at); when
/// `addr` is taken, finds out whether by the shop itself ([`DemoShop::AlreadyServed`]) or by
/// something else (then serves on an ephemeral port: [`DemoShop::Elsewhere`]).
pub fn serve_demo_shop(addr: SocketAddr) -> std::io::Result<DemoShop> {
    match serve_shop(addr) {
        Ok(server) => Ok(DemoShop::Served(server)),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            if serves_the_shop(addr) {
                Ok(DemoShop::AlreadyServed {
                    origin: format!("http://{addr}"),
                })
            } else {
                Ok(DemoShop::Elsewhere {
                    server: FixtureServer::shop()?,
                    taken: addr,
                })
            }
        }
        Err(e) => Err(e),
    }
}

/// Whether the server at `addr` answers `GET /index.html` as the shop does (its `Server`
/// header), within a second.
fn serves_the_shop(addr: SocketAddr) -> bool {
    let probe = || -> std::io::Result<bool> {
        let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
        stream.set_read_timeout(Some(Duration::from_secs(1)))?;
        stream.write_all(
            format!("GET /index.html HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )?;
        let mut head = Vec::new();
        // The status line and headers only: at most 8 KiB.
        let mut reader = BufReader::new(stream).take(8 * 1024);
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line)? == 0 || line == "\r\n" {
                break;
            }
            head.push(line.trim_end().to_ascii_lowercase());
        }
        let wanted = format!("server: {SERVER_NAME}");
        Ok(head
            .first()
            .is_some_and(|status| status.starts_with("http/1.1 200"))
            && head.contains(&wanted))
    };
    probe().unwrap_or(false)
}

/// A running static-file server; stops when dropped.
#[derive(Debug)]
pub struct FixtureServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept_thread: Option<JoinHandle<()>>,
}

impl FixtureServer {
    /// Serves the embedded fixture shop on an ephemeral port of 127.0.0.1.
    pub fn shop() -> std::io::Result<Self> {
        Self::serve(&SHOP)
    }

    /// Serves `site` on an ephemeral port of 127.0.0.1; `/` is `index.html`.
    pub fn serve(site: &'static Dir<'static>) -> std::io::Result<Self> {
        Self::serve_on(SocketAddr::from(([127, 0, 0, 1], 0)), Site::Embedded(site))
    }

    /// Serves in-memory `files` on an ephemeral port of 127.0.0.1.
    pub fn serve_files(files: BTreeMap<String, Vec<u8>>) -> std::io::Result<Self> {
        Self::serve_on(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            Site::Files(Arc::new(files)),
        )
    }

    /// Serves `site` on `addr` (port 0: an ephemeral one).
    pub fn serve_on(addr: SocketAddr, site: Site) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stop_flag = stop.clone();
        let accept_thread = std::thread::Builder::new()
            .name(format!("fixture-server-{}", addr.port()))
            .spawn(move || {
                for stream in listener.incoming() {
                    if stop_flag.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let site = site.clone();
                    let _ = std::thread::Builder::new()
                        .name("fixture-conn".into())
                        .spawn(move || serve_connection(stream, &site));
                }
            })?;
        Ok(Self {
            addr,
            stop,
            accept_thread: Some(accept_thread),
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
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept so the thread sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
        if let Some(thread) = self.accept_thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve_connection(stream: TcpStream, site: &Site) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    // Keep-alive: serve requests until the client closes or goes quiet.
    loop {
        let mut request_line = String::new();
        match reader.read_line(&mut request_line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let mut header = String::new();
        let mut content_length = 0usize;
        let mut request_type = String::new();
        loop {
            header.clear();
            match reader.read_line(&mut header) {
                Ok(0) | Err(_) => return,
                Ok(_) if header == "\r\n" || header == "\n" => break,
                Ok(_) => {
                    if let Some((name, value)) = header.split_once(':') {
                        let value = value.trim();
                        if name.eq_ignore_ascii_case("content-length") {
                            content_length = value.parse().unwrap_or(0);
                        } else if name.eq_ignore_ascii_case("content-type") {
                            request_type = value.to_string();
                        }
                    }
                }
            }
        }
        // Uploads are small test files; anything larger is refused rather than buffered.
        if content_length > MAX_BODY {
            let _ = writer.write_all(&build_response(
                "413 Content Too Large",
                "text/plain",
                0,
                &[],
            ));
            return;
        }
        let mut body = vec![0; content_length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let mut parts = request_line.split_whitespace();
        let method = parts.next().unwrap_or_default();
        let target = parts.next().unwrap_or("/");
        let path = target.split(['?', '#']).next().unwrap_or("/");
        let path = path.trim_start_matches('/');
        let path = if path.is_empty() { "index.html" } else { path };
        let response = match site.get(path) {
            _ if method == "POST" && path == "upload" => {
                let page = upload_page(&request_type, &body);
                build_response(
                    "200 OK",
                    content_type("x.html"),
                    page.len(),
                    page.as_bytes(),
                )
            }
            Some(contents) if method == "GET" || method == "HEAD" => {
                let body = if method == "HEAD" { &[][..] } else { contents };
                let mut response =
                    build_response("200 OK", content_type(path), contents.len(), body);
                if let Some(name) = path.strip_prefix("downloads/") {
                    response = with_header(
                        response,
                        &format!("Content-Disposition: attachment; filename=\"{name}\""),
                    );
                }
                response
            }
            Some(_) => build_response("405 Method Not Allowed", "text/plain", 0, &[]),
            None => {
                let body = b"not found";
                build_response("404 Not Found", "text/plain", body.len(), body)
            }
        };
        if writer.write_all(&response).is_err() {
            return;
        }
    }
}

fn build_response(status: &str, content_type: &str, length: usize, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n\
         Cache-Control: no-store\r\nConnection: keep-alive\r\nServer: {SERVER_NAME}\r\n\r\n"
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// The largest request body the server reads (uploads of test files).
const MAX_BODY: usize = 8 * 1024 * 1024;

/// Inserts one header line after the status line.
fn with_header(response: Vec<u8>, header: &str) -> Vec<u8> {
    let Some(end) = response.windows(2).position(|w| w == b"\r\n") else {
        return response;
    };
    let mut out = response[..end + 2].to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&response[end + 2..]);
    out
}

/// One part of a `multipart/form-data` body.
#[derive(Debug, PartialEq)]
struct FormPart {
    name: String,
    filename: Option<String>,
    content: Vec<u8>,
}

/// Splits a `multipart/form-data` body into its parts; `None` when it is not one.
fn multipart(content_type: &str, body: &[u8]) -> Option<Vec<FormPart>> {
    let boundary = content_type
        .split(';')
        .map(str::trim)
        .find_map(|p| p.strip_prefix("boundary="))?
        .trim_matches('"');
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    let mut parts = Vec::new();
    let mut rest = body;
    // Skip the preamble up to the first delimiter.
    let start = find(rest, delimiter)?;
    rest = &rest[start + delimiter.len()..];
    loop {
        if rest.starts_with(b"--") {
            return Some(parts);
        }
        rest = rest.strip_prefix(b"\r\n")?;
        let headers_end = find(rest, b"\r\n\r\n")?;
        let headers = String::from_utf8_lossy(&rest[..headers_end]).into_owned();
        rest = &rest[headers_end + 4..];
        let end = find(rest, delimiter)?;
        // The content ends before the CRLF that precedes the next delimiter.
        let content = rest[..end].strip_suffix(b"\r\n").unwrap_or(&rest[..end]);
        let disposition = headers
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))
            .unwrap_or_default();
        let param = |key: &str| {
            disposition.split(';').map(str::trim).find_map(|p| {
                p.strip_prefix(key)
                    .and_then(|v| v.strip_prefix('='))
                    .map(|v| v.trim_matches('"').to_string())
            })
        };
        parts.push(FormPart {
            name: param("name").unwrap_or_default(),
            filename: param("filename"),
            content: content.to_vec(),
        });
        rest = &rest[end + delimiter.len()..];
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page `POST /upload` answers with.
fn upload_page(content_type: &str, body: &[u8]) -> String {
    let items = match multipart(content_type, body) {
        None => "<li data-testid=\"upload-error\">not a multipart/form-data body</li>".to_string(),
        Some(parts) => parts
            .iter()
            .map(|part| match &part.filename {
                Some(filename) => format!(
                    "<li>{}: <span data-testid=\"upload-name\">{}</span> \
                     (<span data-testid=\"upload-size\">{}</span> bytes)</li>",
                    escape_html(&part.name),
                    escape_html(filename),
                    part.content.len()
                ),
                None => format!(
                    "<li>{}: <span data-testid=\"upload-field-{}\">{}</span></li>",
                    escape_html(&part.name),
                    escape_html(&part.name),
                    escape_html(&String::from_utf8_lossy(&part.content))
                ),
            })
            .collect(),
    };
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Upload received</title>\
         <link rel=\"stylesheet\" href=\"/shop.css\"></head>\n<body><main><h1>Upload received</h1>\
         <ul data-testid=\"upload-result\">{items}</ul><a href=\"/files.html\">Back</a></main></body></html>\n"
    )
}

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
mod tests {
    use super::*;

    #[test]
    fn multipart_bodies_split_into_fields_and_files() {
        let body =
            b"preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n\
--XyZ\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"a b.txt\"\r\n\
Content-Type: text/plain\r\n\r\nline1\r\nline2\r\n--XyZ--\r\n";
        let parts = multipart("multipart/form-data; boundary=XyZ", body).unwrap();
        assert_eq!(
            parts,
            vec![
                FormPart {
                    name: "note".into(),
                    filename: None,
                    content: b"hello".to_vec()
                },
                FormPart {
                    name: "attachment".into(),
                    filename: Some("a b.txt".into()),
                    content: b"line1\r\nline2".to_vec()
                },
            ]
        );
        assert!(multipart("text/plain", body).is_none());
        let page = upload_page("multipart/form-data; boundary=XyZ", body);
        assert!(
            page.contains("<span data-testid=\"upload-name\">a b.txt</span>"),
            "{page}"
        );
        assert!(
            page.contains("<span data-testid=\"upload-size\">12</span>"),
            "{page}"
        );
    }

    fn free_loopback_addr() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("its address")
    }

    #[test]
    fn the_demo_shop_is_served_at_the_demo_address_when_it_is_free() {
        let addr = free_loopback_addr();
        let shop = serve_demo_shop(addr).expect("served");
        assert!(matches!(shop, DemoShop::Served(_)), "{shop:?}");
        assert_eq!(shop.origin(), format!("http://{addr}"));
    }

    #[test]
    fn a_shop_already_served_at_the_demo_address_is_used_not_duplicated() {
        let addr = free_loopback_addr();
        let _first = serve_shop(addr).expect("the first shop");
        let second = serve_demo_shop(addr).expect("found");
        match second {
            DemoShop::AlreadyServed { origin } => assert_eq!(origin, format!("http://{addr}")),
            other => panic!("expected the shop already there, got {other:?}"),
        }
    }

    #[test]
    fn a_demo_address_taken_by_another_program_is_named_and_the_shop_goes_elsewhere() {
        // Something that is not the shop: it accepts and answers another server's header.
        let stranger = TcpListener::bind("127.0.0.1:0").expect("bound");
        let addr = stranger.local_addr().expect("address");
        std::thread::spawn(move || {
            for stream in stranger.incoming().flatten() {
                let mut stream = stream;
                let mut buf = [0u8; 1024];
                let _ = stream.read(&mut buf);
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 0\r\n\r\n");
            }
        });
        match serve_demo_shop(addr).expect("served elsewhere") {
            DemoShop::Elsewhere { server, taken } => {
                assert_eq!(taken, addr);
                assert_ne!(server.addr(), addr);
            }
            other => panic!("expected the shop elsewhere, got {other:?}"),
        }
    }
}
