//! A tiny static-file HTTP server on 127.0.0.1 for the embedded fixture shop (used by the tests
//! and by `bflow demo`). One thread accepts; each connection gets a short-lived thread.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
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
        loop {
            header.clear();
            match reader.read_line(&mut header) {
                Ok(0) | Err(_) => return,
                Ok(_) if header == "\r\n" || header == "\n" => break,
                Ok(_) => {}
            }
        }
        let mut parts = request_line.split_whitespace();
        let method = parts.next().unwrap_or_default();
        let target = parts.next().unwrap_or("/");
        let path = target.split(['?', '#']).next().unwrap_or("/");
        let path = path.trim_start_matches('/');
        let path = if path.is_empty() { "index.html" } else { path };
        let response = match site.get(path) {
            Some(contents) if method == "GET" || method == "HEAD" => {
                let body = if method == "HEAD" { &[][..] } else { contents };
                build_response("200 OK", content_type(path), contents.len(), body)
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
         Cache-Control: no-store\r\nConnection: keep-alive\r\n\r\n"
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
}
