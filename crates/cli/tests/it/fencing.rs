//! A deposed `bflow` never acts again, with real processes and a real webhook: a `flow run`
//! is stopped with SIGSTOP while its post is in flight, its lease expires, a `flow resume`
//! takes the run over, posts, succeeds and releases the lease; then the first is continued
//! with SIGCONT. It must not post again, must not write over the journal, and must exit
//! non-zero saying it was deposed (before the fence was sound, it posted again, exited 0
//! "succeeded" and overwrote the attempt rows). The same with the run stopped during its
//! browser step: continued, that step is stopped as soon as the heartbeat finds the lease
//! gone.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::resume_guard::{Setup, succeeded};
use crate::{stderr, stdout};

/// The lease of both processes: the stopped one is taken over after it.
const TTL_MS: &str = "1000";

fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} {pid}");
}

#[test]
fn a_flow_run_stopped_in_flight_and_continued_after_the_resume_finished_exits_deposed() {
    // The webhook answers after 1.5 s: the first `notify` is still in flight when stopped.
    let setup = Setup::new(Duration::from_millis(1500));
    setup.write_flow(&[], "input.go");
    let flow = setup.flow_path().to_string_lossy().into_owned();
    let journal = setup.journal();
    let old = setup
        .command(&[
            "flow",
            "run",
            &flow,
            "--input",
            "go=true",
            "--journal",
            &journal,
        ])
        .env(browserflow_catalog::LEASE_TTL_ENV, TTL_MS)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while setup.webhook.posts().is_empty() {
        assert!(Instant::now() < deadline, "the run never posted");
        std::thread::sleep(Duration::from_millis(10));
    }
    signal(old.id(), "STOP");
    let listed = setup
        .command(&["journal", "list", "--journal", &journal, "--json"])
        .output()
        .unwrap();
    let run: Value = serde_json::from_str(stdout(&listed).lines().next().unwrap()).unwrap();
    let run_id = run["run_id"].as_str().unwrap().to_owned();
    std::thread::sleep(Duration::from_millis(1700));

    // The resume takes over (the stopped owner's heartbeat expired), posts `notify` again
    // under the same key — its outcome was in doubt —, posts `done`, and releases the lease.
    let resumed = setup
        .resume_command(&run_id)
        .env(browserflow_catalog::LEASE_TTL_ENV, TTL_MS)
        .output()
        .unwrap();
    succeeded(&resumed);
    let log = stderr(&resumed);
    assert!(log.contains("taking over the lease"), "{log}");
    assert!(log.contains("its heartbeat expired"), "{log}");
    assert_eq!(
        setup.webhook.posts(),
        ["/hook/notify", "/hook/notify", "/hook/done"]
    );
    let before = setup.show(&run_id);
    assert_eq!(before["status"], "succeeded");
    assert_eq!(before["lease"], Value::Null, "released");

    signal(old.id(), "CONT");
    let output = old.wait_with_output().unwrap();
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{log}");
    assert!(log.contains("error [journal]"), "{log}");
    assert!(log.contains("was deposed"), "{log}");
    assert!(log.contains("taken over and then released"), "{log}");
    assert!(
        !log.contains("resume with"),
        "a deposed run is not this process's to resume: {log}"
    );
    assert!(stdout(&output).is_empty(), "no output printed");
    assert_eq!(
        setup.webhook.posts(),
        ["/hook/notify", "/hook/notify", "/hook/done"],
        "the deposed process posted nothing more"
    );
    assert_eq!(setup.show(&run_id), before, "and wrote nothing");
}

/// A page server that answers its first request at once and holds every later one open
/// without answering: a browser step that asks it a second time waits until stopped.
struct AnswersOnce {
    port: u16,
    requests: Arc<Mutex<usize>>,
}

impl AnswersOnce {
    fn start() -> AnswersOnce {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(0));
        let count = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let count = count.clone();
                std::thread::spawn(move || answer_once(stream, &count));
            }
        });
        AnswersOnce { port, requests }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/after", self.port)
    }

    fn requests(&self) -> usize {
        *self.requests.lock().unwrap()
    }
}

fn answer_once(mut stream: TcpStream, count: &Mutex<usize>) -> Option<()> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    if !line.contains(" /after ") {
        return None; // the favicon
    }
    let first = {
        let mut count = count.lock().unwrap();
        *count += 1;
        *count == 1
    };
    if first {
        stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nafter")
            .ok()
    } else {
        // Held open, unanswered, for longer than any test waits.
        std::thread::sleep(Duration::from_secs(300));
        None
    }
}

/// The reproduction with a browser step: `browse` opens a page the webhook answers
/// after 1.5 s, then a second page, and reads it. The run is stopped while Chromium waits
/// for the first, its lease expires, a `flow resume` takes over (its own browser: it gets
/// the second page's one answer), posts and succeeds. Continued, the first process asks
/// for the second page, which is never answered: its heartbeat finds the lease gone and
/// stops the step (without that it would wait out its 30 s navigation budget), and it
/// exits deposed having posted nothing and written nothing.
#[test]
fn a_flow_run_stopped_in_its_browser_step_and_continued_after_the_resume_finished_exits_deposed() {
    let setup = Setup::new(Duration::from_millis(1500));
    let after = AnswersOnce::start();
    let page = serde_json::json!({
        "contract": { "name": "page", "version": "1.0.0", "kind": "browser", "description": "",
                      "inputs": [], "capabilities": ["browser"],
                      "output": { "type": "object", "properties": { "text": { "type": "string" } },
                                  "required": ["text"] } },
        "steps": [
            { "type": "navigate", "url": setup.webhook.url("page") },
            { "type": "navigate", "url": after.url() },
            { "type": "extract", "field": "text", "kind": "string",
              "selector": { "candidates": [{ "kind": "css", "value": "body" }] } }
        ]
    });
    let tool = crate::write(setup.dir.path(), "page@1.0.0.json", &page.to_string());
    let digest = setup
        .command(&["contract", "digest", &tool])
        .output()
        .unwrap();
    assert!(digest.status.success(), "{}", stderr(&digest));
    let digest = stdout(&digest).trim().to_owned();
    let mut steps = setup.steps(&[], "input.go");
    // `notify` posts what the page said: it waits for `browse`.
    steps[0]["with"]["body"] = serde_json::json!({"from": "steps.browse.output.text"});
    steps.insert(
        0,
        serde_json::json!({"id": "browse", "uses": "page@1.0.0", "with": {}}),
    );
    setup.write_steps(steps, &[["page@1.0.0", &digest]]);
    let flow = setup.flow_path().to_string_lossy().into_owned();
    let journal = setup.journal();
    let old = setup
        .command(&[
            "flow",
            "run",
            &flow,
            "--input",
            "go=true",
            "--journal",
            &journal,
        ])
        .env(browserflow_catalog::LEASE_TTL_ENV, TTL_MS)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while setup.webhook.posts().is_empty() {
        assert!(
            Instant::now() < deadline,
            "the browser never asked for the page"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    signal(old.id(), "STOP");
    assert_eq!(setup.webhook.posts(), ["/hook/page"]);
    let listed = setup
        .command(&["journal", "list", "--journal", &journal, "--json"])
        .output()
        .unwrap();
    let run: Value = serde_json::from_str(stdout(&listed).lines().next().unwrap()).unwrap();
    let run_id = run["run_id"].as_str().unwrap().to_owned();
    std::thread::sleep(Duration::from_millis(1700));

    let resumed = setup
        .resume_command(&run_id)
        .env(browserflow_catalog::LEASE_TTL_ENV, TTL_MS)
        .output()
        .unwrap();
    let report = succeeded(&resumed);
    let log = stderr(&resumed);
    assert!(log.contains("its heartbeat expired"), "{log}");
    assert_eq!(after.requests(), 1, "the new owner read the second page");
    let posts = |path: &str| {
        setup
            .webhook
            .posts()
            .iter()
            .filter(|p| p.as_str() == path)
            .count()
    };
    assert_eq!(
        [posts("/hook/notify"), posts("/hook/done")],
        [1, 1],
        "{:?}",
        setup.webhook.posts()
    );
    let before = setup.show(&run_id);
    assert_eq!(before["status"], "succeeded", "{report}");
    assert_eq!(before["lease"], Value::Null, "released");

    signal(old.id(), "CONT");
    let continued = Instant::now();
    let output = old.wait_with_output().unwrap();
    let stopped_after = continued.elapsed();
    let log = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{log}");
    assert!(log.contains("error [journal]"), "{log}");
    assert!(log.contains("was deposed"), "{log}");
    assert!(!log.contains("succeeded"), "{log}");
    assert!(stdout(&output).is_empty(), "no output printed");
    assert!(
        stopped_after < Duration::from_secs(15),
        "the deposed step was stopped, not left to its 30 s budget: {stopped_after:?}"
    );
    assert_eq!(
        [posts("/hook/notify"), posts("/hook/done")],
        [1, 1],
        "the deposed process posted nothing: {:?}",
        setup.webhook.posts()
    );
    assert_eq!(setup.show(&run_id), before, "and wrote nothing");
    eprintln!(
        "the deposed process exited {stopped_after:?} after it was continued; second-page requests: {}",
        after.requests()
    );
}
