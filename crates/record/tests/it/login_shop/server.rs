//! The login shop's server: renders `tests/fixtures/login-shop` on 127.0.0.1, checks the
//! credentials of `POST /login`, keeps the signed-in user in a session cookie, and answers
//! pages and subresources late (a server-rendered site whose stylesheet, script and logo still
//! load long after `DOMContentLoaded`). One thread per connection, keep-alive.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Pages are rendered slower than the previous page's subresources arrive, so the old document
/// stops loading while the next one is awaited (as in the replay crate's late-subresources test).
const PAGE_DELAY: Duration = Duration::from_millis(400);
const STYLESHEET_DELAY: Duration = Duration::from_millis(150);
const SCRIPT_AND_IMAGE_DELAY: Duration = Duration::from_millis(350);

/// A user and their password, and whether they get member prices (10 % off).
pub struct User {
    pub name: &'static str,
    pub password: &'static str,
    pub member: bool,
}

pub const USERS: [User; 2] = [
    User {
        name: "ada",
        password: "engine-1843-notes",
        member: true,
    },
    User {
        name: "grace",
        password: "cobol-1959-compiler",
        member: false,
    },
];

/// SKU, name, list price in cents.
pub const PRODUCTS: [(&str, &str, u64); 4] = [
    ("lamp-01", "Desk lamp", 4990),
    ("kettle-02", "Electric kettle", 3490),
    ("chair-03", "Office chair", 18900),
    ("mug-04", "Coffee mug", 950),
];

/// What a user pays for a product, in cents: members 10 % off, rounded to the cent.
pub fn price_cents(user: &User, list_cents: u64) -> u64 {
    if user.member {
        (list_cents * 9 + 5) / 10
    } else {
        list_cents
    }
}

pub struct LoginShop {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    /// How many sign-ins were refused (the server really checked).
    pub refused: Arc<AtomicU64>,
}

struct Shared {
    root: PathBuf,
    sessions: Mutex<HashMap<String, &'static User>>,
    next_session: AtomicU64,
    refused: Arc<AtomicU64>,
}

impl LoginShop {
    pub fn start() -> Self {
        let root =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/login-shop");
        let listener = TcpListener::bind("127.0.0.1:0").expect("the login shop binds 127.0.0.1");
        let addr = listener.local_addr().expect("a local address");
        let stop = Arc::new(AtomicBool::new(false));
        let refused = Arc::new(AtomicU64::new(0));
        let shared = Arc::new(Shared {
            root,
            sessions: Mutex::new(HashMap::new()),
            next_session: AtomicU64::new(1),
            refused: refused.clone(),
        });
        let stopped = stop.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let shared = shared.clone();
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        Self {
            addr,
            stop,
            refused,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for LoginShop {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

struct Request {
    method: String,
    path: String,
    query: String,
    cookie: Option<String>,
    body: Vec<u8>,
}

/// Reads one request; `None` when the connection is closed or the request is malformed.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let (mut length, mut cookie) = (0usize, None);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().ok()?,
            "cookie" => cookie = Some(value.trim().to_string()),
            _ => {}
        }
    }
    // A form is small: refuse anything that is not.
    if length > 64 * 1024 {
        return None;
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (target, String::new()),
    };
    Some(Request {
        method,
        path,
        query,
        cookie,
        body,
    })
}

fn serve(stream: TcpStream, shared: &Shared) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        let response = respond(&request, shared);
        if writer.write_all(&response).is_err() {
            return;
        }
    }
}

fn response(status: &str, headers: &[(&str, String)], mime: &str, body: &[u8]) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {mime}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn see_other(location: &str, headers: &[(&str, String)]) -> Vec<u8> {
    let mut all = vec![("Location", location.to_string())];
    all.extend(headers.iter().cloned());
    std::thread::sleep(PAGE_DELAY);
    response("303 See Other", &all, "text/plain", b"")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn fragment(root: &Path, name: &str) -> String {
    std::fs::read_to_string(root.join(name))
        .unwrap_or_else(|e| panic!("the login shop's {name}: {e}"))
}

/// `head.html` + `page` + `foot.html`, each `{{key}}` replaced by its (already escaped) value.
fn page(
    shared: &Shared,
    status: &str,
    title: &str,
    user: Option<&User>,
    page: &str,
    values: &[(&str, String)],
) -> Vec<u8> {
    let signed_in = user
        .map(|u| {
            format!(
                "<span data-testid=\"user\">· signed in as {}</span>",
                escape(u.name)
            )
        })
        .unwrap_or_default();
    let mut html = fragment(&shared.root, "head.html")
        + &fragment(&shared.root, page)
        + &fragment(&shared.root, "foot.html");
    html = html
        .replace("{{title}}", &escape(title))
        .replace("{{signed_in}}", &signed_in);
    for (key, value) in values {
        html = html.replace(&format!("{{{{{key}}}}}"), value);
    }
    std::thread::sleep(PAGE_DELAY);
    response(status, &[], "text/html; charset=utf-8", html.as_bytes())
}

fn form(bytes: &[u8]) -> HashMap<String, String> {
    form_urlencoded::parse(bytes).into_owned().collect()
}

fn signed_in(request: &Request, shared: &Shared) -> Option<&'static User> {
    let cookie = request.cookie.as_deref()?;
    let token = cookie
        .split(';')
        .filter_map(|c| c.trim().strip_prefix("session="))
        .next()?;
    shared.sessions.lock().ok()?.get(token).copied()
}

fn euros(cents: u64) -> String {
    format!("€{}.{:02}", cents / 100, cents % 100)
}

fn respond(request: &Request, shared: &Shared) -> Vec<u8> {
    let static_file = |name: &str, delay: Duration, mime: &str| {
        std::thread::sleep(delay);
        match std::fs::read(shared.root.join(name)) {
            Ok(body) => response("200 OK", &[], mime, &body),
            Err(_) => response("404 Not Found", &[], "text/plain", b""),
        }
    };
    let user = signed_in(request, shared);
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/static/site.css") => static_file("site.css", STYLESHEET_DELAY, "text/css"),
        ("GET", "/static/site.js") => {
            static_file("site.js", SCRIPT_AND_IMAGE_DELAY, "text/javascript")
        }
        ("GET", "/static/logo.png") => static_file("logo.png", SCRIPT_AND_IMAGE_DELAY, "image/png"),
        ("GET", "/" | "/login") => page(shared, "200 OK", "Sign in", None, "login.html", &[]),
        ("POST", "/login") => {
            let fields = form(&request.body);
            let (name, password) = (
                fields
                    .get("username")
                    .map(String::as_str)
                    .unwrap_or_default(),
                fields
                    .get("password")
                    .map(String::as_str)
                    .unwrap_or_default(),
            );
            match USERS
                .iter()
                .find(|u| u.name == name && u.password == password)
            {
                Some(user) => {
                    let token = format!("s{}", shared.next_session.fetch_add(1, Ordering::SeqCst));
                    if let Ok(mut sessions) = shared.sessions.lock() {
                        sessions.insert(token.clone(), user);
                    }
                    see_other(
                        "/products",
                        &[(
                            "Set-Cookie",
                            format!("session={token}; Path=/; HttpOnly; SameSite=Lax"),
                        )],
                    )
                }
                None => {
                    shared.refused.fetch_add(1, Ordering::SeqCst);
                    page(
                        shared,
                        "401 Unauthorized",
                        "Sign-in failed",
                        None,
                        "signin-failed.html",
                        &[],
                    )
                }
            }
        }
        ("GET", "/products") => {
            let Some(user) = user else {
                return see_other("/login", &[]);
            };
            let q = form(request.query.as_bytes())
                .remove("q")
                .unwrap_or_default()
                .to_lowercase();
            let matches: Vec<_> = PRODUCTS
                .iter()
                .filter(|(_, name, _)| name.to_lowercase().contains(q.trim()))
                .collect();
            // A search that finds exactly one product goes straight to it, as shops do.
            if let [(sku, _, _)] = matches.as_slice()
                && !q.trim().is_empty()
            {
                return see_other(&format!("/product?sku={sku}"), &[]);
            }
            let rows: String = matches
                .iter()
                .map(|(sku, name, cents)| {
                    format!(
                        "<li><a href=\"/product?sku={sku}\">{}</a> {}</li>\n",
                        escape(name),
                        euros(price_cents(user, *cents))
                    )
                })
                .collect();
            let rows = if rows.is_empty() {
                "<li>No product matches.</li>".to_string()
            } else {
                rows
            };
            page(
                shared,
                "200 OK",
                "Products",
                Some(user),
                "products.html",
                &[("rows", rows)],
            )
        }
        ("GET", "/product") => {
            let Some(user) = user else {
                return see_other("/login", &[]);
            };
            let sku = form(request.query.as_bytes())
                .remove("sku")
                .unwrap_or_default();
            match PRODUCTS.iter().find(|(s, _, _)| *s == sku) {
                Some((_, name, cents)) => {
                    let note = if user.member { "(member price)" } else { "" };
                    page(
                        shared,
                        "200 OK",
                        name,
                        Some(user),
                        "product.html",
                        &[
                            ("name", escape(name)),
                            ("price", euros(price_cents(user, *cents))),
                            ("note", note.to_string()),
                        ],
                    )
                }
                None => response("404 Not Found", &[], "text/plain", b"no such product"),
            }
        }
        _ => response("404 Not Found", &[], "text/plain", b""),
    }
}
