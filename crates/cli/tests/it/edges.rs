//! The promises of `bflow run` at its edges: a page whose script never yields ends within the
//! step's budget naming the step and the cause, and keeps its run folder; a `bflow` killed
//! the instant its Chromium starts leaves no profile folder behind once the next one starts;
//! link-local and cloud-metadata addresses are refused unless a tool names them (a listener
//! on `169.254.169.254` in a network namespace of the test's own).
//!
//! One file (over 800 lines) because the address tests share one network-namespace harness
//! (namespace, listeners, its DNS server, a Chromium inside it) defined here; the other edges
//! are short. Split it with the harness moved to its own module when another file needs it.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::stderr;

/// A loopback site: `/` has a button that starts a script that never yields.
fn site() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                    line.clear();
                }
                let body = r#"<!doctype html><title>Loops</title><h1>Loops</h1>
<button id="loop" onclick="setTimeout(() => { for (;;) {} }, 0)">loop</button>"#;
                let _ = (&stream).write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                );
            });
        }
    });
    origin
}

fn tool(dir: &Path, name: &str, origins: Option<Value>, steps: Value) -> String {
    let mut tool = json!({
        "contract": { "name": name, "version": "1.0.0", "kind": "browser", "description": "",
                      "inputs": [], "output": { "type": "object" }, "capabilities": ["browser"] },
        "steps": steps
    });
    if let Some(origins) = origins {
        tool["origins"] = origins;
    }
    crate::write(dir, &format!("{name}@1.0.0.json"), &tool.to_string())
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bflow"))
        .current_dir(dir)
        .args(args)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove("BROWSERFLOW_LOG")
        .output()
        .unwrap()
}

#[test]
fn a_script_that_never_yields_ends_at_the_budget_naming_step_and_cause_with_its_folder() {
    let origin = site();
    let dir = tempfile::tempdir().unwrap();
    let tool = tool(
        dir.path(),
        "loops",
        None,
        json!([
            { "type": "navigate", "url": format!("{origin}/") },
            { "type": "click", "label": "Start the loop",
              "selector": { "candidates": [{ "kind": "css", "value": "#loop" }] } },
            { "type": "wait_for_element", "label": "Wait for the answer", "timeout_ms": 60000,
              "selector": { "candidates": [{ "kind": "css", "value": "#answer" }] } }
        ]),
    );
    let started = Instant::now();
    let out = run(dir.path(), &["run", &tool, "--step-budget", "6"]);
    let took = started.elapsed();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(took < Duration::from_secs(15), "{took:?}: {err}");
    assert!(
        (err.contains("step 2 (click \"Start the loop\")")
            || err.contains("step 3 (wait_for_element \"Wait for the answer\")"))
            && err.contains("the page does not answer"),
        "names the step and the cause: {err}"
    );
    assert!(
        !err.contains("stopped: the step's time budget"),
        "the replay ended itself, not the Rider: {err}"
    );
    let folder = err
        .lines()
        .find_map(|l| l.strip_prefix("run folder (the failing page, report.json): "))
        .unwrap_or_else(|| panic!("the run folder is kept and printed: {err}"));
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(folder).join("report.json")).unwrap(),
    )
    .unwrap();
    // The step named: the click (it ends only once the page answers again, and the loop
    // starts as it returns), or the wait when the click got through first.
    let failed = report["steps"]
        .as_array()
        .and_then(|steps| steps.iter().find(|s| s["status"] == "failed"))
        .unwrap_or_else(|| panic!("a failed step: {report}"));
    assert!(
        err.contains(&format!(
            "step {} (",
            failed["index"].as_u64().unwrap_or(99) + 1
        )),
        "the step named is the one the report says failed: {report} {err}"
    );
    assert!(
        failed["screenshot_withheld"]
            .as_str()
            .is_some_and(|r| r.contains("does not answer")),
        "no screenshot of a page that cannot draw, and why: {report}"
    );
}

/// The profile folders in /dev/shm made by process `pid`.
fn profiles_of(pid: u32) -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&format!("browserflow-profile-{pid}-")))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `pid` has a child running Chromium.
fn has_chromium_child(pid: u32) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1).map(str::to_string));
        parent.as_deref() == Some(pid.to_string().as_str())
            && std::fs::read_to_string(entry.path().join("comm"))
                .is_ok_and(|c| c.trim().starts_with("chrom"))
    })
}

#[test]
fn a_bflow_killed_as_its_chromium_starts_leaves_no_profile_after_the_next_start() {
    if !Path::new("/dev/shm").is_dir() {
        eprintln!("NOT RUN: no /dev/shm here");
        return;
    }
    let origin = site();
    let dir = tempfile::tempdir().unwrap();
    let tool = tool(
        dir.path(),
        "opens",
        None,
        json!([{ "type": "navigate", "url": format!("{origin}/") }]),
    );
    let mut killed = Vec::new();
    for round in 0..12 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bflow"))
            .current_dir(dir.path())
            .args(["run", &tool])
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        let deadline = Instant::now() + Duration::from_secs(20);
        // Half the rounds at the folder's appearance (before Chromium runs), half at the
        // first Chromium process.
        loop {
            let started = if round % 2 == 0 {
                !profiles_of(pid).is_empty()
            } else {
                has_chromium_child(pid)
            };
            if started || Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        killed.push(pid);
    }
    // The orphan guards end what they watch within about two seconds.
    std::thread::sleep(Duration::from_secs(3));
    let left_before: usize = killed.iter().map(|&pid| profiles_of(pid).len()).sum();
    // Whether a kill above beat the guard is up to the scheduler: one leftover is made
    // for certain, the folder a `bflow` dead before its guard started would leave.
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let planted =
        Path::new("/dev/shm").join(format!("browserflow-profile-{}-1-planted", gone.id()));
    std::fs::create_dir(&planted).unwrap();
    std::fs::write(planted.join("Local State"), "{}").unwrap();
    killed.push(gone.id());
    // The next start sweeps what a dead owner left.
    let out = run(dir.path(), &["run", &tool]);
    assert!(out.status.success(), "{}", stderr(&out));
    let left: Vec<String> = killed.iter().flat_map(|&pid| profiles_of(pid)).collect();
    eprintln!(
        "12 kills: {left_before} folders left before the next start, {} after",
        left.len()
    );
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// A network namespace of the test's own with a listener on `169.254.169.254:80` (and on
/// `[fd00:ec2::254]:80`), and `/etc/hosts` there naming it `metadata.bftest`; removed on drop.
/// The same listener serves, on `127.0.0.1:8080` and `localhost:8081` (two sites: a frame of
/// one in a page of the other is out of process), pages that reach for it (`/attacker`,
/// `/oopif`, `/oopif-frame`, `/redirect`); every request for a path under `/hit/` is
/// appended to `hits`, a file of the test's.
struct MetadataHost {
    name: String,
    server: std::process::Child,
}

/// The page that reaches for the metadata address by every kind of request but navigation,
/// and through an out-of-process frame (`frame`: `oopif` or `oopif-frame`).
const ATTACKER: &str = r#"<!doctype html><title>attacker</title>
<img src="http://169.254.169.254/hit/img">
<img src="http://metadata.bftest/hit/name-img">
<iframe src="http://localhost:8081/FRAME"></iframe>
<script>
for (const url of ['http://169.254.169.254/hit/fetch', 'http://[fd00:ec2::254]/hit/fetch6',
                   'http://2852039166/hit/decimal', 'http://metadata.bftest/hit/name-fetch',
                   '/redirect']) {
  fetch(url, { mode: 'no-cors' }).catch(() => {});
}
for (const url of ['ws://169.254.169.254/hit/ws', 'ws://[fd00:ec2::254]/hit/ws6',
                   'ws://metadata.bftest/hit/name-ws']) {
  try { new WebSocket(url).onerror = () => {}; } catch (e) {}
}
new Worker(URL.createObjectURL(new Blob(["for (const u of ['http://169.254.169.254/hit/worker', 'http://metadata.bftest/hit/name-worker']) fetch(u, { mode: 'no-cors' }).catch(() => {});"], { type: 'text/javascript' })));
setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id="done">done</p>'), 1500);
</script>"#;

impl MetadataHost {
    fn start(hits: &Path) -> Result<MetadataHost, String> {
        let name = format!("bf-edges-{}", std::process::id());
        let ip = |args: &[&str]| -> Result<(), String> {
            let out = Command::new("ip")
                .args(args)
                .output()
                .map_err(|e| e.to_string())?;
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "ip {}: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr)
                ))
            }
        };
        ip(&["netns", "add", &name])?;
        let etc = Path::new("/etc/netns").join(&name);
        let host = MetadataHost {
            name: name.clone(),
            server: Command::new("true").spawn().map_err(|e| e.to_string())?,
        };
        std::fs::create_dir_all(&etc).map_err(|e| e.to_string())?;
        std::fs::write(
            etc.join("hosts"),
            "127.0.0.1 localhost\n::1 localhost\n169.254.169.254 metadata.bftest\n",
        )
        .map_err(|e| e.to_string())?;
        // The namespace's resolver: the listener's DNS server (`rebind.bftest`).
        std::fs::write(
            etc.join("resolv.conf"),
            "nameserver 127.0.0.1\noptions attempts:1 timeout:1\n",
        )
        .map_err(|e| e.to_string())?;
        // The addresses on the namespace's own loopback device: no other kind of device
        // (`dummy`, `veth`) is needed, which not every kernel has.
        ip(&["-n", &name, "link", "set", "lo", "up"])?;
        ip(&[
            "-n",
            &name,
            "addr",
            "add",
            "169.254.169.254/32",
            "dev",
            "lo",
        ])?;
        ip(&["-n", &name, "addr", "add", "10.254.0.1/32", "dev", "lo"])?;
        ip(&[
            "-n",
            &name,
            "addr",
            "add",
            "fd00:ec2::254/128",
            "dev",
            "lo",
            "nodad",
        ])?;
        let server = Command::new("ip")
            .args(["netns", "exec", &name, "python3", "-c"])
            .arg(
                r#"
import http.server, socket, socketserver, sys, threading
hits, attacker = sys.argv[1], sys.argv[2]
OOPIF = b'<!doctype html><script>fetch("http://169.254.169.254/hit/oopif-fetch", { mode: "no-cors" }).catch(() => {});</script><p>frame</p>'
OOPIF_FRAME = b'<!doctype html><p>frame</p><iframe src="http://169.254.169.254/hit/oopif-frame"></iframe>'
REBIND = b'<!doctype html><p id="creds">web page</p><script>setTimeout(() => { try { new WebSocket("ws://" + location.host + "/hit/rebound-ws").onerror = () => {}; } catch (e) {} fetch("/hit/rebound").finally(() => document.body.insertAdjacentHTML("beforeend", "<p id=done>done</p>")); }, 300);</script>'
class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        web = self.server.server_address[0] == '10.254.0.1'
        if web and self.path == '/rebind':
            self.send_response(200)
            self.send_header('Content-Type', 'text/html')
            self.send_header('Content-Length', str(len(REBIND)))
            self.end_headers()
            self.wfile.write(REBIND)
            return
        if not web and self.path == '/rebind':
            with open(hits, 'a') as f:
                f.write(self.path + '\n')
        if self.path.startswith('/hit/') and not web:
            with open(hits, 'a') as f:
                f.write(self.path + '\n')
        if self.path == '/redirect':
            self.send_response(302)
            self.send_header('Location', 'http://169.254.169.254/hit/redirected')
            self.send_header('Content-Length', '0')
            self.end_headers()
            return
        body = b'<!doctype html><title>metadata</title><p id="creds">INSTANCE-CREDENTIALS-7f3a</p>'
        if self.path.startswith('/attacker/'):
            body = attacker.replace('FRAME', self.path.split('/')[2]).encode()
        elif self.path == '/oopif':
            body = OOPIF
        elif self.path == '/oopif-frame':
            body = OOPIF_FRAME
        self.send_response(200)
        self.send_header('Content-Type', 'text/html')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
class V6(socketserver.ThreadingMixIn, http.server.HTTPServer):
    address_family = socket.AF_INET6
v4 = http.server.ThreadingHTTPServer(('169.254.169.254', 80), Page)
v6 = V6(('fd00:ec2::254', 80), Page)
threading.Thread(target=v6.serve_forever, daemon=True).start()
# A DNS server for `rebind.bftest`: its first A answer is the web address, every later one
# the metadata address (TTL 0), as a rebinding attacker's server answers.
asked = []
def dns():
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(('127.0.0.1', 53))
    while True:
        query, client = udp.recvfrom(512)
        end = 12
        while query[end] != 0:
            end += query[end] + 1
        labels, i = [], 12
        while query[i] != 0:
            labels.append(query[i + 1:i + 1 + query[i]].decode().lower())
            i += query[i] + 1
        qtype = int.from_bytes(query[end + 1:end + 3], 'big')
        question = query[12:end + 5]
        known = '.'.join(labels) == 'rebind.bftest'
        answers = b''
        if known and qtype == 1:
            address = '10.254.0.1' if not asked else '169.254.169.254'
            asked.append(address)
            answers = b'\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x00\x00\x04' + socket.inet_aton(address)
        flags = b'\x81\x80' if known else b'\x81\x83'
        count = (1 if answers else 0).to_bytes(2, 'big')
        udp.sendto(query[:2] + flags + b'\x00\x01' + count + b'\x00\x00\x00\x00' + question + answers, client)
threading.Thread(target=dns, daemon=True).start()
web = http.server.ThreadingHTTPServer(('10.254.0.1', 80), Page)
threading.Thread(target=web.serve_forever, daemon=True).start()
for port in (8080, 8081):
    site = http.server.ThreadingHTTPServer(('127.0.0.1', port), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
print('ready', flush=True)
v4.serve_forever()
"#,
            )
            .arg(hits)
            .arg(ATTACKER)
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        let mut host = host;
        host.server = server;
        let mut ready = String::new();
        BufReader::new(host.server.stdout.take().unwrap())
            .read_line(&mut ready)
            .map_err(|e| e.to_string())?;
        if ready.trim() != "ready" {
            return Err("the listener did not start".into());
        }
        Ok(host)
    }

    /// `bflow ARGS` inside the namespace.
    fn bflow(&self, dir: &Path, args: &[&str]) -> std::process::Output {
        Command::new("ip")
            .args(["netns", "exec", &self.name, env!("CARGO_BIN_EXE_bflow")])
            .args(args)
            .current_dir(dir)
            .env("XDG_DATA_HOME", dir.join("data"))
            .env_remove("BROWSERFLOW_LOG")
            .output()
            .unwrap()
    }
}

impl Drop for MetadataHost {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
        let _ = std::fs::remove_dir_all(Path::new("/etc/netns").join(&self.name));
    }
}

#[test]
fn link_local_and_metadata_addresses_are_refused_unless_the_tool_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let host = match MetadataHost::start(&dir.path().join("hits")) {
        Ok(host) => host,
        Err(why) => {
            eprintln!(
                "NOT RUN: no network namespace with a link-local listener here ({why}); \
                 the guard's rule is covered by the steps crate's unit tests"
            );
            return;
        }
    };
    let read = |url: &str| {
        json!([
            { "type": "navigate", "url": url },
            { "type": "extract", "field": "creds", "kind": "string",
              "selector": { "candidates": [{ "kind": "css", "value": "#creds" }] } }
        ])
    };
    let metadata = "http://169.254.169.254/latest/meta-data/";
    // Named by the tool: the listener answers (the control: it is reachable).
    let named = tool(
        dir.path(),
        "named",
        Some(json!(["http://169.254.169.254"])),
        read(metadata),
    );
    let out = host.bflow(dir.path(), &["run", &named]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("INSTANCE-CREDENTIALS-7f3a"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // `*`, origins taken from the steps, the IPv6 metadata address, a name resolving there.
    for (name, origins, url) in [
        ("star", Some(json!(["*"])), metadata.to_string()),
        ("steps", None, metadata.to_string()),
        (
            "decimal",
            Some(json!(["*"])),
            "http://2852039166/latest/".into(),
        ),
        (
            "ipv6",
            Some(json!(["*"])),
            "http://[fd00:ec2::254]/latest/".into(),
        ),
        (
            "name",
            Some(json!(["*"])),
            "http://metadata.bftest/latest/".into(),
        ),
    ] {
        let file = tool(dir.path(), name, origins, read(&url));
        let out = host.bflow(dir.path(), &["run", &file]);
        let err = stderr(&out);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!out.status.success(), "{name}: {err}");
        assert!(
            !stdout.contains("INSTANCE-CREDENTIALS") && !err.contains("INSTANCE-CREDENTIALS"),
            "{name}: nothing was read: {stdout} {err}"
        );
        assert!(
            err.contains("link-local or cloud-metadata address"),
            "{name}: says why: {err}"
        );
    }
}

/// What the metadata listener of `host` was asked for under `/hit/`, sorted.
fn hits(dir: &Path) -> Vec<String> {
    let mut hits: Vec<String> = std::fs::read_to_string(dir.join("hits"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    hits.sort();
    hits
}

#[test]
fn a_page_and_its_out_of_process_frames_reach_no_link_local_address_by_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let host = match MetadataHost::start(&dir.path().join("hits")) {
        Ok(host) => host,
        Err(why) => {
            eprintln!("NOT RUN: no network namespace with a link-local listener here ({why})");
            return;
        }
    };
    let attack = |frame: &str| {
        json!([
            { "type": "navigate", "url": format!("http://127.0.0.1:8080/attacker/{frame}") },
            { "type": "extract", "field": "done", "kind": "string",
              "selector": { "candidates": [{ "kind": "css", "value": "#done" }] } }
        ])
    };
    let site = ["http://127.0.0.1:8080", "http://localhost:8081"];
    // The control: a tool that names the metadata addresses lets every request through, the
    // out-of-process frame's too (so the listener is reachable from the page and its frames).
    let named = tool(
        dir.path(),
        "named",
        Some(json!([
            site[0],
            site[1],
            "http://169.254.169.254",
            "http://[fd00:ec2::254]",
            "http://metadata.bftest"
        ])),
        attack("oopif"),
    );
    let out = host.bflow(dir.path(), &["run", &named]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reached = hits(dir.path());
    for path in [
        "/hit/img",
        "/hit/fetch",
        "/hit/fetch6",
        "/hit/decimal",
        "/hit/name-fetch",
        "/hit/name-img",
        "/hit/redirected",
        "/hit/oopif-fetch",
        "/hit/ws",
        "/hit/ws6",
        "/hit/name-ws",
        "/hit/worker",
        "/hit/name-worker",
    ] {
        assert!(
            reached.iter().any(|h| h == path),
            "the control reaches {path}: {reached:?}"
        );
    }
    std::fs::remove_file(dir.path().join("hits")).unwrap();

    // Not named: images, fetches (in any notation, by a name resolving there, redirected or
    // not) and the out-of-process frame's fetch are refused; the page sees failed requests,
    // the run goes on.
    let refused = tool(dir.path(), "refused", Some(json!(site)), attack("oopif"));
    let out = host.bflow(dir.path(), &["run", &refused]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("done"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(hits(dir.path()), Vec::<String>::new(), "nothing reached");

    // The out-of-process frame's own frame navigating there: refused, and the step fails
    // naming the URL.
    let framed = tool(
        dir.path(),
        "framed",
        Some(json!(site)),
        attack("oopif-frame"),
    );
    let out = host.bflow(dir.path(), &["run", &framed]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("http://169.254.169.254/hit/oopif-frame")
            && err.contains("link-local or cloud-metadata address"),
        "{err}"
    );
    assert_eq!(hits(dir.path()), Vec::<String>::new(), "nothing reached");
}

/// DNS rebinding: `rebind.bftest` answers a web address first and the metadata address on
/// every later lookup. The guard's one resolution of the name is what the browser connects
/// to (the context's address guard), so neither the navigation nor the page's later request
/// to its own origin reaches the metadata address.
#[test]
fn a_name_rebound_to_a_metadata_address_never_reaches_it() {
    let dir = tempfile::tempdir().unwrap();
    let host = match MetadataHost::start(&dir.path().join("hits")) {
        Ok(host) => host,
        Err(why) => {
            eprintln!("NOT RUN: no network namespace with a link-local listener here ({why})");
            return;
        }
    };
    let steps = json!([
        { "type": "navigate", "url": "http://rebind.bftest/rebind" },
        { "type": "extract", "field": "creds", "kind": "string",
          "selector": { "candidates": [{ "kind": "css", "value": "#creds" }] } },
        { "type": "wait_for_element",
          "selector": { "candidates": [{ "kind": "css", "value": "#done" }] } }
    ]);
    let file = tool(dir.path(), "rebind", Some(json!(["*"])), steps);
    let out = host.bflow(dir.path(), &["run", &file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout.contains("web page") && !stdout.contains("INSTANCE-CREDENTIALS"),
        "the page of the first answer: {stdout}"
    );
    assert_eq!(
        hits(dir.path()),
        Vec::<String>::new(),
        "nothing reached the metadata address"
    );
}

/// A Chromium started inside `host`'s namespace with the launcher's own command line
/// (`launch_args`), as an operator starts a browser to connect to; killed on drop.
struct NamespacedChromium {
    child: std::process::Child,
    ws: String,
    _profile: tempfile::TempDir,
}

impl MetadataHost {
    fn chromium(&self) -> NamespacedChromium {
        let profile = tempfile::tempdir().unwrap();
        let chrome = browserflow_cdp::find_chromium(None).unwrap();
        let args = browserflow_cdp::launch_args(
            &browserflow_cdp::BrowserConfig::default(),
            profile.path(),
        );
        let mut child = Command::new("ip")
            .args(["netns", "exec", &self.name])
            .arg(chrome)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let ws = loop {
            let line = lines
                .next()
                .expect("chromium announces its endpoint")
                .unwrap();
            if let Some(ws) = line.strip_prefix("DevTools listening on ") {
                break ws.trim().to_string();
            }
        };
        // Chromium goes on writing to its standard error: keep reading it.
        std::thread::spawn(move || lines.for_each(drop));
        NamespacedChromium {
            child,
            ws,
            _profile: profile,
        }
    }
}

impl Drop for NamespacedChromium {
    fn drop(&mut self) {
        // `ip netns exec` and Chromium's launcher script exec the browser: this is its pid,
        // and its own processes end with it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `bflow run --browser-ws`: a browser the project did not launch. On this machine it gets
/// the address guard as a launched one does (its context's proxy), so a page's requests to a
/// name resolving to the metadata address reach nothing; `--unguarded-addresses` gives that
/// up on purpose (the browser resolves names itself — the control that the guard is what
/// stops them); a browser elsewhere is refused before anything runs unless vouched for.
#[test]
fn a_browser_connected_to_is_guarded_and_one_elsewhere_refused_unless_vouched_for() {
    let dir = tempfile::tempdir().unwrap();
    // Elsewhere: refused before anything runs (nothing listens there: no connection is tried).
    let site_tool = tool(
        dir.path(),
        "site",
        Some(json!(["http://127.0.0.1:8080"])),
        json!([{ "type": "navigate", "url": "http://127.0.0.1:8080/" }]),
    );
    let started = Instant::now();
    let out = run(
        dir.path(),
        &[
            "run",
            &site_tool,
            "--browser-ws",
            "ws://192.0.2.1:9222/devtools/browser/x?token=OPERATOR-TOKEN",
        ],
    );
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("the browser at ws://192.0.2.1:9222 is not on this machine")
            && err.contains("--unguarded-addresses")
            && !err.contains("OPERATOR-TOKEN"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // A flow is refused before anything of it is read or run.
    let out = run(
        dir.path(),
        &[
            "flow",
            "run",
            "no-such-flow.json",
            "--browser-ws",
            "ws://192.0.2.1:9222/devtools/browser/x",
        ],
    );
    assert!(
        stderr(&out).contains("is not on this machine") && !stderr(&out).contains("no-such-flow"),
        "{}",
        stderr(&out)
    );
    // Vouched for, it is connected to — and a failure to connect names no token either.
    let out = run(
        dir.path(),
        &[
            "run",
            &site_tool,
            "--browser-ws",
            "ws://127.0.0.1:9/devtools/browser/x?token=OPERATOR-TOKEN",
            "--unguarded-addresses",
        ],
    );
    let err = stderr(&out);
    assert!(
        !out.status.success()
            && err.contains("could not connect to the CDP endpoint ws://127.0.0.1:9")
            && !err.contains("OPERATOR-TOKEN"),
        "{err}"
    );
    let unguarded = run(dir.path(), &["run", &site_tool, "--unguarded-addresses"]);
    assert!(
        !unguarded.status.success() && stderr(&unguarded).contains("--browser-ws"),
        "the flag means nothing alone: {}",
        stderr(&unguarded)
    );

    let host = match MetadataHost::start(&dir.path().join("hits")) {
        Ok(host) => host,
        Err(why) => {
            eprintln!("NOT RUN: no network namespace with a link-local listener here ({why})");
            return;
        }
    };
    let chromium = host.chromium();
    let attack = json!([
        { "type": "navigate", "url": "http://127.0.0.1:8080/attacker/oopif" },
        { "type": "extract", "field": "done", "kind": "string",
          "selector": { "candidates": [{ "kind": "css", "value": "#done" }] } }
    ]);
    let site = ["http://127.0.0.1:8080", "http://localhost:8081"];
    let by_name = ["/hit/name-fetch", "/hit/name-img", "/hit/name-ws"];
    // The control: named, the connected browser's requests by name reach the listener
    // through the guard.
    let named = tool(
        dir.path(),
        "named",
        Some(json!([site[0], site[1], "http://metadata.bftest"])),
        attack.clone(),
    );
    let out = host.bflow(dir.path(), &["run", &named, "--browser-ws", &chromium.ws]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reached = hits(dir.path());
    for path in by_name {
        assert!(
            reached.iter().any(|h| h == path),
            "the control reaches {path}: {reached:?}"
        );
    }
    std::fs::remove_file(dir.path().join("hits")).unwrap();

    // Guarded: nothing reached, the run goes on.
    let refused = tool(dir.path(), "refused", Some(json!(site)), attack);
    let out = host.bflow(dir.path(), &["run", &refused, "--browser-ws", &chromium.ws]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(hits(dir.path()), Vec::<String>::new(), "nothing reached");

    // Vouched for: unguarded, the browser's own resolution lets a name through.
    let out = host.bflow(
        dir.path(),
        &[
            "run",
            &refused,
            "--browser-ws",
            &chromium.ws,
            "--unguarded-addresses",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        hits(dir.path()).iter().any(|h| h == "/hit/name-fetch"),
        "unguarded, a name is the browser's: {:?}",
        hits(dir.path())
    );
}
