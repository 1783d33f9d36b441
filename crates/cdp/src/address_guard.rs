//! The address guard: every connection a browser context makes to a host *name* goes
//! through a SOCKS5 proxy of its own on `127.0.0.1`, which resolves the name once, decides on
//! the addresses it resolved to ([`check_resolved`], as for a child frame: a link-local or
//! cloud-metadata address only when the tool's `origins` names that origin; a loopback one
//! only for a tool that names a loopback origin), and connects to exactly the address it
//! checked. The navigation guard (`page/guard.rs`) decides a navigation's name on the same
//! resolution ([`AddressGuard::resolve`]).
//!
//! Why a proxy, and why it is sound against DNS rebinding: a check that resolves a name and
//! then lets the browser resolve it again decides on one answer and connects by another — a
//! name whose server answers a web address first and `169.254.169.254` next (TTL 0) passes
//! the check and reaches the metadata service. Chromium's `--host-resolver-rules` are fixed
//! at launch and cannot say "refuse whatever resolves to link-local". With a SOCKS5 proxy
//! Chromium does not resolve the name at all (SOCKS5 carries the name to the proxy), so the
//! one resolution is the one connected to. Each name resolves once per context (the answer
//! is pinned for the context's life), so the navigation guard's decision and the proxy's
//! connection are on the same addresses, and a page's later requests cannot be rebound
//! either. Requests of every kind go through it (navigations, `fetch`, images, WebSockets,
//! out-of-process frames: one proxy per context), which the `Fetch` interception cannot do
//! without pausing every request.
//!
//! What it does not see: literal loopback and link-local addresses, which Chromium never
//! sends to a proxy (its implicit bypass rules) — those are written in the URL and decided by
//! the navigation guard on the URL itself (`LINK_LOCAL_PATTERNS`). A browser connected to
//! is guarded the same way when its endpoint is on this machine (its context gets this
//! proxy too); one elsewhere cannot reach this machine's `127.0.0.1`, so connecting to it is
//! refused unless `BrowserConfig::unguarded_addresses` vouches for it — then only
//! navigations are checked, the navigation guard resolving their names on its own.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use browserflow_steps::{NavigationRefusal, Origins, check_navigation, check_resolved};

use crate::host_rules::{HostRules, Mapped};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::OnceCell;

/// How long resolving a host name may take; a name that does not resolve in time is not
/// connected to (Chromium shows its own connection error).
pub(crate) const RESOLVE_LIMIT: Duration = Duration::from_secs(5);

/// How long connecting to one resolved address may take before the next is tried.
const CONNECT_LIMIT: Duration = Duration::from_secs(10);

/// One name's resolution in a context: set by its first lookup that found addresses.
type Pin = Arc<OnceCell<Vec<IpAddr>>>;

/// What one context's proxy allows, the names it resolved, and what it refused.
#[derive(Debug, Default)]
pub(crate) struct AddressGuard {
    /// `None` until a page of the context is guarded: everything is let through.
    origins: Mutex<Option<Origins>>,
    /// Each name's one resolution (by host and port), pinned for the context's life.
    pins: Mutex<HashMap<(String, u16), Pin>>,
    /// Connections refused, oldest first.
    refused: Mutex<Vec<NavigationRefusal>>,
    /// The browser's `--host-rules` / `--host-resolver-rules`, which names resolve by
    /// (`host_rules.rs`): behind a proxy Chromium applies neither to a name.
    host_rules: Arc<HostRules>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl AddressGuard {
    /// From now on, connections are held to `origins`.
    pub(crate) fn set_origins(&self, origins: Origins) {
        *lock(&self.origins) = Some(origins);
    }

    /// Connections refused so far, oldest first.
    pub(crate) fn refused(&self) -> Vec<NavigationRefusal> {
        lock(&self.refused).clone()
    }

    /// The addresses `host` resolves to in this context (under the browser's host rules):
    /// resolved by the first caller, the same answer for every later one (a failed or empty
    /// resolution is not kept).
    pub(crate) async fn resolve(&self, host: &str, port: u16) -> Vec<IpAddr> {
        let Mapped::Host(mapped_host, mapped_port) = self.host_rules.map(host, port) else {
            return Vec::new();
        };
        let cell = lock(&self.pins)
            .entry((host.to_ascii_lowercase(), port))
            .or_default()
            .clone();
        let resolved = cell
            .get_or_try_init(|| async {
                let lookup = tokio::net::lookup_host((mapped_host.as_str(), mapped_port));
                let found = tokio::time::timeout(RESOLVE_LIMIT, lookup).await;
                match found {
                    Ok(Ok(found)) => {
                        let addresses: Vec<IpAddr> = found.map(|a| a.ip()).collect();
                        if addresses.is_empty() {
                            Err(())
                        } else {
                            Ok(addresses)
                        }
                    }
                    _ => Err(()),
                }
            })
            .await;
        resolved.cloned().unwrap_or_default()
    }

    /// The port a connection to `host:port` is made on: another only when a host rule says so.
    fn connection_port(&self, host: &str, port: u16) -> u16 {
        match self.host_rules.map(host, port) {
            Mapped::Host(_, mapped_port) => mapped_port,
            Mapped::NotFound => port,
        }
    }

    /// Whether a connection to `host:port`, resolved to `addresses`, may be made. The scheme
    /// is not known to a proxy: allowed when it would be under `http` or `https`.
    fn decide(&self, host: &str, port: u16, addresses: &[IpAddr]) -> Result<(), NavigationRefusal> {
        let Some(origins) = lock(&self.origins).clone() else {
            return Ok(());
        };
        let mut first_refusal = None;
        for scheme in ["https", "http"] {
            let url = format!("{scheme}://{host}:{port}/");
            let decided = check_navigation(&url, false, &origins)
                .and_then(|()| check_resolved(&url, false, &origins, addresses));
            match decided {
                Ok(()) => return Ok(()),
                Err(refusal) => {
                    first_refusal.get_or_insert(refusal);
                }
            }
        }
        Err(first_refusal.unwrap_or_else(|| unreachable!("two schemes were decided")))
    }
}

/// A running proxy of one context; ends (stops accepting) when dropped.
#[derive(Debug)]
pub(crate) struct AddressProxy {
    pub(crate) guard: Arc<AddressGuard>,
    /// `socks5://127.0.0.1:PORT`, for `Target.createBrowserContext`'s `proxyServer`.
    pub(crate) server: String,
    accepting: tokio::task::AbortHandle,
}

impl Drop for AddressProxy {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

impl AddressProxy {
    /// A proxy listening on a free port of `127.0.0.1`, resolving names by `host_rules`.
    pub(crate) async fn start(host_rules: Arc<HostRules>) -> std::io::Result<AddressProxy> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let server = format!("socks5://{}", listener.local_addr()?);
        let guard = Arc::new(AddressGuard {
            host_rules,
            ..AddressGuard::default()
        });
        let serving = guard.clone();
        let accepting = tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    continue;
                };
                let guard = serving.clone();
                tokio::spawn(async move {
                    if let Err(error) = serve(client, &guard).await {
                        tracing::debug!(%error, "a proxied connection ended");
                    }
                });
            }
        })
        .abort_handle();
        Ok(AddressProxy {
            guard,
            server,
            accepting,
        })
    }
}

/// SOCKS5 (RFC 1928) reply codes used.
const SUCCEEDED: u8 = 0;
const NOT_ALLOWED: u8 = 2;
const HOST_UNREACHABLE: u8 = 4;
const COMMAND_NOT_SUPPORTED: u8 = 7;
const ADDRESS_TYPE_NOT_SUPPORTED: u8 = 8;

/// Where a SOCKS5 `CONNECT` asks to go.
#[derive(Debug, PartialEq)]
enum Destination {
    Name(String, u16),
    Address(SocketAddr),
}

/// One client connection: the greeting (no authentication), one `CONNECT`, the decision,
/// then the bytes both ways.
async fn serve(mut client: TcpStream, guard: &AddressGuard) -> std::io::Result<()> {
    let mut head = [0u8; 2];
    client.read_exact(&mut head).await?;
    let mut methods = vec![0u8; usize::from(head[1])];
    client.read_exact(&mut methods).await?;
    if head[0] != 5 || !methods.contains(&0) {
        client.write_all(&[5, 0xff]).await?;
        return Ok(());
    }
    client.write_all(&[5, 0]).await?;
    let mut request = [0u8; 4];
    client.read_exact(&mut request).await?;
    let destination = match request[3] {
        1 => {
            let mut ip = [0u8; 4];
            client.read_exact(&mut ip).await?;
            Destination::Address(SocketAddr::new(ip.into(), read_port(&mut client).await?))
        }
        4 => {
            let mut ip = [0u8; 16];
            client.read_exact(&mut ip).await?;
            Destination::Address(SocketAddr::new(ip.into(), read_port(&mut client).await?))
        }
        3 => {
            let mut len = [0u8; 1];
            client.read_exact(&mut len).await?;
            let mut name = vec![0u8; usize::from(len[0])];
            client.read_exact(&mut name).await?;
            let name = String::from_utf8_lossy(&name).into_owned();
            destination_of_name(name, read_port(&mut client).await?)
        }
        _ => return reply(&mut client, ADDRESS_TYPE_NOT_SUPPORTED).await,
    };
    if request[1] != 1 {
        return reply(&mut client, COMMAND_NOT_SUPPORTED).await;
    }
    let (host, port, addresses, connection_port) = match destination {
        Destination::Address(address) => {
            let host = match address.ip() {
                IpAddr::V4(ip) => ip.to_string(),
                IpAddr::V6(ip) => format!("[{ip}]"),
            };
            (host, address.port(), vec![address.ip()], address.port())
        }
        Destination::Name(name, _) if !is_host_name(&name) => {
            tracing::warn!("a connection of the page to a malformed host name refused");
            return reply(&mut client, NOT_ALLOWED).await;
        }
        Destination::Name(name, port) => {
            let addresses = guard.resolve(&name, port).await;
            let connection_port = guard.connection_port(&name, port);
            (name, port, addresses, connection_port)
        }
    };
    if let Err(refusal) = guard.decide(&host, port, &addresses) {
        tracing::warn!(%refusal, "a connection of the page refused");
        lock(&guard.refused).push(refusal);
        return reply(&mut client, NOT_ALLOWED).await;
    }
    let mut upstream = None;
    for address in &addresses {
        let target = SocketAddr::new(*address, connection_port);
        if let Ok(Ok(stream)) =
            tokio::time::timeout(CONNECT_LIMIT, TcpStream::connect(target)).await
        {
            upstream = Some(stream);
            break;
        }
    }
    let Some(mut upstream) = upstream else {
        return reply(&mut client, HOST_UNREACHABLE).await;
    };
    reply(&mut client, SUCCEEDED).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}

/// Where a SOCKS5 name goes: Chromium sends every host as a name, literal addresses too
/// (`169.254.169.254`, an IPv6 one without its brackets), and an address is decided as
/// that address — never as a name, which no URL could hold.
fn destination_of_name(name: String, port: u16) -> Destination {
    let bare = name
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(&name);
    match bare.parse::<IpAddr>() {
        Ok(ip) => Destination::Address(SocketAddr::new(ip, port)),
        Err(_) => Destination::Name(name, port),
    }
}

/// Whether `name` is a host a URL can hold (the decision is made on a URL of it: one that
/// does not parse would decide nothing, so it is refused).
fn is_host_name(name: &str) -> bool {
    matches!(
        url::Url::parse(&format!("http://{name}/"))
            .ok()
            .and_then(|u| u.host().map(|h| h.to_owned())),
        Some(url::Host::Domain(_))
    )
}

async fn read_port(client: &mut TcpStream) -> std::io::Result<u16> {
    let mut port = [0u8; 2];
    client.read_exact(&mut port).await?;
    Ok(u16::from_be_bytes(port))
}

/// A reply with `code` (and a bound address of zeros: Chromium does not read it).
async fn reply(client: &mut TcpStream, code: u8) -> std::io::Result<()> {
    client.write_all(&[5, code, 0, 1, 0, 0, 0, 0, 0, 0]).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(list: &[&str]) -> Origins {
        Origins::only(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn names_resolving_to_link_local_are_refused_unless_named() {
        let guard = AddressGuard::default();
        let metadata: IpAddr = "169.254.169.254".parse().unwrap();
        let web: IpAddr = "93.184.215.14".parse().unwrap();
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        // Unguarded: everything goes.
        assert!(guard.decide("meta.test", 80, &[metadata]).is_ok());
        guard.set_origins(Origins::Any);
        assert!(guard.decide("meta.test", 80, &[metadata]).is_err());
        assert!(guard.decide("meta.test", 80, &[web, metadata]).is_err());
        assert!(guard.decide("web.test", 443, &[web]).is_ok());
        // `*` never includes loopback reached by a name.
        assert!(guard.decide("web.test", 80, &[loopback]).is_err());
        // Named (either scheme): allowed.
        guard.set_origins(only(&["http://meta.test"]));
        assert!(guard.decide("meta.test", 80, &[metadata]).is_ok());
        assert!(guard.decide("meta.test", 8080, &[metadata]).is_err());
        guard.set_origins(only(&["https://meta.test:8443"]));
        assert!(guard.decide("meta.test", 8443, &[metadata]).is_ok());
        // A literal IPv6 metadata address, as a proxy client sends it.
        guard.set_origins(Origins::Any);
        let v6: IpAddr = "fd00:ec2::254".parse().unwrap();
        assert!(guard.decide("[fd00:ec2::254]", 80, &[v6]).is_err());
        assert_eq!(guard.refused().len(), 0, "decide alone keeps nothing");
    }

    #[tokio::test]
    async fn a_name_resolves_once_per_context() {
        let guard = AddressGuard::default();
        let first = guard.resolve("localhost", 80).await;
        assert!(!first.is_empty());
        assert_eq!(lock(&guard.pins).len(), 1);
        assert_eq!(guard.resolve("LOCALHOST", 80).await, first);
        assert_eq!(lock(&guard.pins).len(), 1);
        // A name that does not resolve is not pinned empty: asked again next time.
        assert!(guard.resolve("nothing.invalid", 80).await.is_empty());
        let pinned = lock(&guard.pins)[&("nothing.invalid".to_string(), 80)].clone();
        assert!(pinned.get().is_none());
    }

    /// A server on a free loopback port that says `hello` to every connection; its port.
    async fn hello_site() -> u16 {
        let site = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let port = site.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = site.accept().await {
                let _ = stream.write_all(b"hello").await;
            }
        });
        port
    }

    /// A SOCKS5 `CONNECT` to `name:port` through the proxy; the reply code.
    async fn connect(server: &str, name: &str, port: u16) -> (u8, TcpStream) {
        let address = server.strip_prefix("socks5://").unwrap();
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream.write_all(&[5, 1, 0]).await.unwrap();
        let mut greeting = [0u8; 2];
        stream.read_exact(&mut greeting).await.unwrap();
        assert_eq!(greeting, [5, 0]);
        let mut request = vec![5, 1, 0, 3, name.len() as u8];
        request.extend_from_slice(name.as_bytes());
        request.extend_from_slice(&port.to_be_bytes());
        stream.write_all(&request).await.unwrap();
        let mut answer = [0u8; 10];
        stream.read_exact(&mut answer).await.unwrap();
        (answer[1], stream)
    }

    #[tokio::test]
    async fn the_proxy_connects_to_what_it_checked_and_refuses_the_rest() {
        let port = hello_site().await;
        let proxy = AddressProxy::start(Arc::default()).await.unwrap();
        // Named loopback origin: connected, the bytes come through.
        proxy
            .guard
            .set_origins(only(&[&format!("http://localhost:{port}")]));
        let (code, mut stream) = connect(&proxy.server, "localhost", port).await;
        assert_eq!(code, SUCCEEDED);
        let mut hello = [0u8; 5];
        stream.read_exact(&mut hello).await.unwrap();
        assert_eq!(&hello, b"hello");
        // `*`: a name resolving to loopback is refused, and kept.
        proxy.guard.set_origins(Origins::Any);
        let (code, _) = connect(&proxy.server, "localhost", port).await;
        assert_eq!(code, NOT_ALLOWED);
        let refused = proxy.guard.refused();
        assert_eq!(refused.len(), 1);
        assert!(
            refused[0].to_string().contains("localhost"),
            "{}",
            refused[0]
        );
    }

    #[tokio::test]
    async fn an_address_sent_as_a_name_is_decided_as_that_address() {
        let proxy = AddressProxy::start(Arc::default()).await.unwrap();
        proxy.guard.set_origins(Origins::Any);
        // Chromium sends literal addresses as SOCKS5 names, IPv6 ones without brackets.
        for name in [
            "169.254.169.254",
            "fd00:ec2::254",
            "[fd00:ec2::254]",
            "::ffff:169.254.169.254",
        ] {
            let (code, _) = connect(&proxy.server, name, 80).await;
            assert_eq!(code, NOT_ALLOWED, "{name}");
        }
        assert_eq!(proxy.guard.refused().len(), 4);
        // A name no URL could hold decides nothing: refused.
        let (code, _) = connect(&proxy.server, "a b", 80).await;
        assert_eq!(code, NOT_ALLOWED);
    }

    #[tokio::test]
    async fn names_resolve_by_the_browsers_host_rules_and_are_still_decided() {
        let port = hello_site().await;
        let rules = HostRules::from_args(&[format!(
            "--host-rules=MAP mapped.test 127.0.0.1, MAP other.test 127.0.0.1:{port}"
        )]);
        let proxy = AddressProxy::start(Arc::new(rules)).await.unwrap();
        proxy.guard.set_origins(only(&[
            &format!("http://mapped.test:{port}"),
            "http://other.test",
        ]));
        let (code, mut stream) = connect(&proxy.server, "mapped.test", port).await;
        assert_eq!(code, SUCCEEDED);
        let mut hello = [0u8; 5];
        stream.read_exact(&mut hello).await.unwrap();
        assert_eq!(&hello, b"hello");
        // A rule's port is the one connected to.
        let (code, mut stream) = connect(&proxy.server, "other.test", 80).await;
        assert_eq!(code, SUCCEEDED);
        stream.read_exact(&mut hello).await.unwrap();
        // Mapped to loopback, a name the tool does not name is still refused.
        proxy.guard.set_origins(Origins::Any);
        let (code, _) = connect(&proxy.server, "mapped.test", port).await;
        assert_eq!(code, NOT_ALLOWED);
    }
}
