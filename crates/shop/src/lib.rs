//! The demo shop: the embedded fixture site (`tests/fixtures/shop`) served on 127.0.0.1, for
//! `bflow demo`, the app's "Serve demo shop", the benchmark and the tests.
//!
//! The server ([`FixtureServer`]) is axum over hyper on its own thread and runtime, so it
//! serves the same from synchronous tests, async tests and the app. Two things are not
//! static: files under `downloads/` are sent as attachments (`Content-Disposition`), so
//! following a link to one downloads it; and `POST /upload` takes a `multipart/form-data` form
//! (read by axum's `Multipart`, multer) and answers with a page naming each uploaded file
//! with its size (`data-testid="upload-name"`, `"upload-size"`) and the other fields' values.

#![deny(missing_docs)]

mod server;
mod upload;

pub use server::FixtureServer;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
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
    /// The file at `path` (relative, `/`-separated).
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

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
