//! Schedules with real `bflow worker` processes, a per-second cron expression and a real
//! webhook on 127.0.0.1: with two workers, one of them SIGKILLed and restarted, each slot
//! runs once (one run id per slot; each post once per idempotency key, a killed run's
//! in-doubt post at most twice); SIGTERM stops a worker with exit 0; slots missed while no
//! worker ran are caught up once; pause, resume, run-now and a failure's webhook work; bad
//! input is refused before anything is stored; read commands never write.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::webhook::Webhook;
use crate::{stderr, stdout};

struct Setup {
    dir: tempfile::TempDir,
    /// A database's URL; a file in `dir` when `None`.
    database: Option<String>,
    webhook: Webhook,
    post_digest: String,
}

impl Setup {
    /// The schedules in the journal database `url`.
    fn on(url: String) -> Setup {
        Setup {
            database: Some(url),
            ..Setup::new()
        }
    }

    fn new() -> Setup {
        let listed = Command::new(env!("CARGO_BIN_EXE_bflow"))
            .args(["tools", "list", "--json"])
            .output()
            .unwrap();
        assert!(listed.status.success(), "{}", stderr(&listed));
        let post = stdout(&listed)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|t| t["ref"] == "std/http.post@1.0.0")
            .expect("std/http.post is built in");
        Setup {
            dir: tempfile::tempdir().unwrap(),
            database: None,
            webhook: Webhook::start(),
            post_digest: post["contract_digest"].as_str().unwrap().to_owned(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn journal(&self) -> String {
        match &self.database {
            Some(url) => url.clone(),
            None => self.path("j.sqlite").to_string_lossy().into_owned(),
        }
    }

    /// A flow that posts `ping` then `done` to `url_base` (`…/ping`, `…/done`).
    fn write_flow(&self, name: &str, url_base: &str) -> String {
        let post = |id: &str| {
            json!({"id": id, "uses": "std/http.post@1.0.0", "with": {
                "url": {"value": format!("{url_base}/{id}")}, "body": {"value": id}}})
        };
        let mut done = post("done");
        done["when"] = json!("steps.ping.output.status != 0");
        let flow = json!({
            "name": name, "version": "1.0.0", "description": "",
            "inputs": [{"name": "go", "schema": {"type": "boolean"}, "secret": false}],
            "requires": [{"ref": "std/http.post@1.0.0", "contract_digest": self.post_digest}],
            "steps": [post("ping"), done],
            "output": {"from": "steps.done.output"}
        });
        let path = self.path(&format!("{name}.flow.json"));
        std::fs::write(&path, flow.to_string()).unwrap();
        path.to_string_lossy().into_owned()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bflow"));
        command
            .current_dir(self.dir.path())
            .args(args)
            .env_remove("BROWSERFLOW_TEST_CRASH_AT")
            .env_remove("BROWSERFLOW_LOG")
            .env("XDG_DATA_HOME", self.path("data"));
        command
    }

    fn bflow(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.bflow(args);
        assert!(
            output.status.success(),
            "bflow {args:?}: {}{}",
            stdout(&output),
            stderr(&output)
        );
        stdout(&output)
    }

    fn worker(&self, log: &str, grace: &str) -> Child {
        self.worker_with(log, grace, &[])
    }

    fn worker_with(&self, log: &str, grace: &str, more: &[&str]) -> Child {
        let log = std::fs::File::create(self.path(log)).unwrap();
        let journal = self.journal();
        let mut args = vec![
            "worker",
            "--journal",
            &journal,
            "--poll",
            "0.2",
            "--grace",
            grace,
            "--concurrency",
            "4",
            "--drain",
            "20",
        ];
        args.extend_from_slice(more);
        self.command(&args)
            // A killed worker's runs are taken over after this.
            .env(browserflow_catalog::LEASE_TTL_ENV, "1500")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap()
    }

    fn log(&self, log: &str) -> String {
        std::fs::read_to_string(self.path(log)).unwrap_or_default()
    }

    /// The schedule and its firings, as `schedule show --json` says.
    fn show(&self, name: &str) -> Value {
        let shown = self.ok(&[
            "schedule",
            "show",
            name,
            "--journal",
            &self.journal(),
            "--limit",
            "1000",
            "--json",
        ]);
        serde_json::from_str(&shown).unwrap()
    }

    fn firings(&self, name: &str) -> Vec<Value> {
        let mut firings = self.show(name)["firings"].as_array().unwrap().clone();
        firings.sort_by_key(|f| f["slot_ms"].as_i64().unwrap());
        firings
    }

    /// Waits until `name` has at least `count` firings.
    fn wait_for_firings(&self, name: &str, count: usize, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let seen = self.firings(name).len();
            if seen >= count {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "only {seen} of {count} firings of `{name}` within {within:?}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Waits until no firing of `name` is running.
    fn wait_settled(&self, name: &str, within: Duration) {
        let deadline = Instant::now() + within;
        while self.firings(name).iter().any(|f| f["state"] == "running") {
            assert!(Instant::now() < deadline, "{:#?}", self.firings(name));
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal}");
}

/// SIGTERMs `child` and waits for it: a worker stops claiming, drains, exits 0.
fn terminate(mut child: Child, log: &str) {
    signal(&child, "TERM");
    let status = child.wait().unwrap();
    assert!(status.success(), "the worker exited {status}: {log}");
}

fn kill(mut child: Child) {
    signal(&child, "KILL");
    let _ = child.wait();
}

fn journal_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn two_workers_one_killed_and_restarted_run_each_slot_once_and_catch_up_once() {
    each_slot_once_and_one_catch_up(Setup::new());
}

/// The same on a PostgreSQL journal: the claims of slots and the runs' leases are the
/// database's rows, shared by the workers.
#[test]
fn on_postgres_two_workers_one_killed_and_restarted_run_each_slot_once_and_catch_up_once() {
    let Some(cluster) = crate::pg_cluster::cluster() else {
        return;
    };
    each_slot_once_and_one_catch_up(Setup::on(cluster.fresh_database()));
}

fn each_slot_once_and_one_catch_up(setup: Setup) {
    let flow = setup.write_flow("tick", &setup.webhook.url("tick"));
    let journal = setup.journal();
    let added = setup.ok(&[
        "schedule",
        "add",
        "every2s",
        &flow,
        "--cron",
        "*/2 * * * * *",
        "--tz",
        "UTC",
        "--input",
        "go=true",
        "--journal",
        &journal,
    ]);
    assert!(added.contains("added schedule `every2s`"), "{added}");
    assert!(added.contains("next run:"), "{added}");

    // A grace of 30 s: a slot seen late by a loaded machine still runs on time.
    let a = setup.worker("a.log", "30");
    let b = setup.worker("b.log", "30");
    setup.wait_for_firings("every2s", 3, Duration::from_secs(60));
    // One worker dies mid-flight; the other goes on, and takes over what the dead one held.
    kill(a);
    let a2 = setup.worker("a2.log", "30");
    setup.wait_for_firings("every2s", 7, Duration::from_secs(90));
    terminate(b, &setup.log("b.log"));
    terminate(a2, &setup.log("a2.log"));
    setup.wait_settled("every2s", Duration::from_secs(60));
    let before_pause = setup.firings("every2s");

    // Every slot between the first and the last firing, each once; every run succeeded or
    // was skipped because the previous one still ran.
    let slots: Vec<i64> = before_pause
        .iter()
        .map(|f| f["slot_ms"].as_i64().unwrap())
        .collect();
    let first = slots[0];
    let last = *slots.last().unwrap();
    let expected: Vec<i64> = (0..=(last - first) / 2000)
        .map(|i| first + i * 2000)
        .collect();
    assert_eq!(slots, expected, "{before_pause:#?}");
    let mut run_ids = BTreeSet::new();
    for firing in &before_pause {
        assert!(
            firing["state"] == "succeeded" || firing["state"] == "skipped",
            "{firing:#?}\nA: {}\nA2: {}\nB: {}",
            setup.log("a.log"),
            setup.log("a2.log"),
            setup.log("b.log")
        );
        assert!(run_ids.insert(firing["run_id"].as_str().unwrap().to_owned()));
    }
    let succeeded = before_pause
        .iter()
        .filter(|f| f["state"] == "succeeded")
        .count();
    // The runs themselves, in the journal: one per succeeded firing, each succeeded.
    for firing in before_pause.iter().filter(|f| f["state"] == "succeeded") {
        let run_id = firing["run_id"].as_str().unwrap();
        let shown = setup.ok(&["journal", "show", run_id, "--journal", &journal, "--json"]);
        let shown: Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(shown["status"], "succeeded", "{shown:#}");
    }
    // Each post once per idempotency key; only a post in flight when its worker was
    // killed may have gone twice.
    let mut per_key: BTreeMap<String, usize> = BTreeMap::new();
    for received in setup.webhook.received() {
        let key = received
            .idempotency_key
            .clone()
            .expect("http.post sends a key");
        *per_key.entry(key).or_default() += 1;
    }
    assert_eq!(
        per_key.len(),
        2 * succeeded,
        "two posts a run, {succeeded} runs"
    );
    let twice = per_key.values().filter(|n| **n == 2).count();
    assert!(per_key.values().all(|n| *n <= 2), "{per_key:#?}");
    assert!(twice <= 1, "{per_key:#?}");
    eprintln!(
        "{} slots, {succeeded} runs, {} posts, {twice} key(s) posted twice",
        slots.len(),
        setup.webhook.received().len()
    );

    // No worker for a while: several slots pass. A new worker (a grace of 1 s: older slots
    // count as missed) runs one slot of those it finds passed — the latest missed, or the
    // one still on time —, not each of them.
    std::thread::sleep(Duration::from_secs(7));
    let c_started = browserflow_schedule::jiff::Timestamp::now().as_millisecond();
    let c = setup.worker("c.log", "1");
    setup.wait_for_firings("every2s", before_pause.len() + 2, Duration::from_secs(60));
    terminate(c, &setup.log("c.log"));
    setup.wait_settled("every2s", Duration::from_secs(60));
    let after = setup.firings("every2s");
    let passed: Vec<i64> = after[before_pause.len()..]
        .iter()
        .map(|f| f["slot_ms"].as_i64().unwrap())
        .filter(|slot| *slot <= c_started)
        .collect();
    assert_eq!(
        passed.len(),
        1,
        "caught up {passed:?} after {last}, worker at {c_started}"
    );
    assert!(c_started - last >= 6000);
    let c_log = setup.log("c.log");
    assert!(
        c_log.contains("slot(s) missed while no worker ran"),
        "{c_log}"
    );
}

#[test]
fn pause_resume_run_now_and_a_failure_told_to_its_webhook() {
    let setup = Setup::new();
    let journal = setup.journal();
    // Posts to a closed port: the run fails after its retries.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        format!("http://127.0.0.1:{port}")
    };
    let flow = setup.write_flow("broken", &closed);
    let canary = "CANARY-hook-7f3a9";
    let hook = setup.webhook.url(&format!("alerts/{canary}"));
    setup.ok(&[
        "schedule",
        "add",
        "nightly",
        &flow,
        "--cron",
        "0 3 * * *",
        "--tz",
        "Europe/Paris",
        "--input",
        "go=true",
        "--notify",
        "secret.HOOK",
        "--journal",
        &journal,
    ]);
    let listed = setup.ok(&["schedule", "list", "--journal", &journal]);
    assert!(listed.contains("nightly"), "{listed}");
    assert!(listed.contains("03:00:00 CE"), "the local time: {listed}");
    assert!(listed.contains(":00:00"), "{listed}");
    assert!(listed.contains("active"), "{listed}");

    setup.ok(&["schedule", "pause", "nightly", "--journal", &journal]);
    let listed = setup.ok(&["schedule", "list", "--journal", &journal]);
    assert!(listed.contains("paused"), "{listed}");
    setup.ok(&["schedule", "resume", "nightly", "--journal", &journal]);
    assert_eq!(setup.show("nightly")["schedule"]["paused"], false);

    // Read commands never write.
    let before = journal_bytes(Path::new(&journal));
    setup.ok(&["schedule", "list", "--journal", &journal]);
    setup.ok(&["schedule", "show", "nightly", "--journal", &journal]);
    assert_eq!(before, journal_bytes(Path::new(&journal)));

    let ran = setup
        .command(&["schedule", "run-now", "nightly", "--journal", &journal])
        .env("BROWSERFLOW_SECRET_HOOK", &hook)
        .output()
        .unwrap();
    assert!(!ran.status.success(), "the flow posts to a closed port");
    let said = stderr(&ran);
    assert!(said.contains("failed"), "{said}");
    let firings = setup.firings("nightly");
    assert_eq!(firings.len(), 1, "{firings:#?}");
    assert_eq!(firings[0]["state"], "failed");
    assert_eq!(firings[0]["manual"], true);
    // A manual firing moves no slot: the next run is still tonight's 03:00.
    let told: Vec<_> = setup
        .webhook
        .received()
        .into_iter()
        .filter(|r| r.path.contains("alerts"))
        .collect();
    assert_eq!(told.len(), 1, "{told:#?}");
    let body: Value = serde_json::from_str(&told[0].body).unwrap();
    assert_eq!(body["schedule"], "nightly");
    assert_eq!(body["status"], "failed");
    assert_eq!(body["run_id"], firings[0]["run_id"]);
    // The webhook's URL is a secret: in no file beside the journal, nor in what was said.
    assert!(!said.contains(canary), "{said}");
    for entry in walk(setup.dir.path()) {
        if entry.ends_with("flow.json") {
            continue;
        }
        let bytes = std::fs::read(&entry).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(canary),
            "{} holds the webhook URL",
            entry.display()
        );
    }
    setup.ok(&["schedule", "remove", "nightly", "--journal", &journal]);
    let listed = setup.ok(&["schedule", "list", "--journal", &journal]);
    assert!(listed.contains("no schedules"), "{listed}");
}

/// `GET path` on `address`: the status code and the body.
fn probe(address: &str, path: &str) -> (u16, String) {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {address}\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let code = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (code, body)
}

/// Polls `path` on `address` until it answers `code`.
fn wait_probe(address: &str, path: &str, code: u16, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        let (got, body) = probe(address, path);
        if got == code {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "{path} answered {got} ({body}), not {code}, within {within:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A receiver that holds every request unanswered until released: a run in flight.
struct HeldReceiver {
    port: u16,
    held: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    release: std::sync::mpsc::Sender<()>,
}

impl HeldReceiver {
    fn start() -> HeldReceiver {
        use std::io::{Read as _, Write as _};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let held = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (release, released) = std::sync::mpsc::channel::<()>();
        let counter = held.clone();
        std::thread::spawn(move || {
            let mut waiting = Vec::new();
            let released = released;
            listener.set_nonblocking(true).unwrap();
            loop {
                match listener.accept() {
                    Ok((stream, _)) => {
                        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        waiting.push(stream);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
                if released.try_recv().is_ok() {
                    break;
                }
            }
            listener.set_nonblocking(false).unwrap();
            let answer = |mut stream: std::net::TcpStream| {
                stream.set_nonblocking(false).unwrap();
                let mut buffer = [0u8; 4096];
                stream
                    .set_read_timeout(Some(Duration::from_millis(200)))
                    .unwrap();
                let _ = stream.read(&mut buffer);
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{\"ok\":true}");
            };
            for stream in waiting {
                answer(stream);
            }
            for stream in listener.incoming().flatten() {
                answer(stream);
            }
        });
        HeldReceiver {
            port,
            held,
            release,
        }
    }
}

#[test]
fn a_worker_answers_probes_ready_while_it_runs_and_not_ready_while_it_drains() {
    let setup = Setup::new();
    let journal = setup.journal();
    // A port taken: refused naming the address, before anything runs.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken_address = taken.local_addr().unwrap().to_string();
    let refused = setup.bflow(&["worker", "--journal", &journal, "--health", &taken_address]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains(&taken_address),
        "{}",
        stderr(&refused)
    );

    let worker = setup.worker_with("w.log", "30", &["--health", "127.0.0.1:0"]);
    let address = {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let log = setup.log("w.log");
            if let Some(rest) = log.split("worker health: http://").nth(1) {
                break rest.split('/').next().unwrap().to_owned();
            }
            assert!(Instant::now() < deadline, "no health address said: {log}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_probe(&address, "/readyz", 200, Duration::from_secs(30));
    assert_eq!(probe(&address, "/livez").0, 200);
    let status: Value = serde_json::from_str(&probe(&address, "/status").1).unwrap();
    assert_eq!(status["phase"], "running", "{status:#}");
    assert_eq!(status["ready"], true);
    let id = status["worker"].as_str().unwrap();
    assert!(
        !id.is_empty() && setup.log("w.log").contains(&format!("worker {id} on")),
        "{status:#}"
    );

    // A run held in flight, then SIGTERM: live, not ready, while it drains.
    let receiver = HeldReceiver::start();
    let flow = setup.write_flow("held", &format!("http://127.0.0.1:{}", receiver.port));
    setup.ok(&[
        "schedule",
        "add",
        "held",
        &flow,
        "--cron",
        "* * * * * *",
        "--tz",
        "UTC",
        "--input",
        "go=true",
        "--journal",
        &journal,
    ]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while receiver.held.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "no run reached the receiver");
        std::thread::sleep(Duration::from_millis(50));
    }
    setup.ok(&["schedule", "pause", "held", "--journal", &journal]);
    signal(&worker, "TERM");
    let reason = wait_probe(&address, "/readyz", 503, Duration::from_secs(10));
    assert!(reason.contains("stopping"), "{reason}");
    assert_eq!(probe(&address, "/livez").0, 200, "draining is alive");
    let status: Value = serde_json::from_str(&probe(&address, "/status").1).unwrap();
    assert_eq!(status["phase"], "draining", "{status:#}");
    assert!(status["in_flight"].as_u64().unwrap() >= 1, "{status:#}");
    receiver.release.send(()).unwrap();
    let mut worker = worker;
    let status = worker.wait().unwrap();
    assert!(status.success(), "{}", setup.log("w.log"));
    assert!(
        std::net::TcpStream::connect(&address).is_err(),
        "the probes stop with the worker"
    );
    setup.wait_settled("held", Duration::from_secs(30));
    let firings = setup.firings("held");
    assert!(
        firings.iter().any(|f| f["state"] == "succeeded")
            && firings
                .iter()
                .all(|f| f["state"] == "succeeded" || f["state"] == "skipped"),
        "drained runs finish (the others were skipped while one ran): {firings:#?}"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn bad_schedules_are_refused_naming_what_before_anything_is_stored() {
    let setup = Setup::new();
    let flow = setup.write_flow("tick", &setup.webhook.url("tick"));
    let journal = setup.journal();
    let add = |extra: &[&str]| {
        let mut args = vec!["schedule", "add", "s", &flow, "--journal", &journal];
        args.extend_from_slice(extra);
        setup.bflow(&args)
    };
    let cases: [(&[&str], &str); 6] = [
        (&["--cron", "61 * * * *", "--tz", "UTC"], "61 * * * *"),
        (
            &["--cron", "0 8 * * *", "--tz", "Mars/Olympus"],
            "Mars/Olympus",
        ),
        (
            &["--cron", "0 8 * * *", "--tz", "UTC", "--input", "nope=1"],
            "nope",
        ),
        (&["--cron", "0 8 * * *", "--tz", "UTC"], "go"),
        (
            &[
                "--cron",
                "0 8 * * *",
                "--tz",
                "UTC",
                "--input",
                "go=true",
                "--notify",
                "https://x",
            ],
            "secret.NAME",
        ),
        (
            &["--cron", "0 0 30 2 *", "--tz", "UTC", "--input", "go=true"],
            "30 2",
        ),
    ];
    for (extra, named) in cases {
        let output = add(extra);
        assert!(!output.status.success(), "{extra:?} was accepted");
        let said = stderr(&output);
        assert!(said.contains(named), "{extra:?}: {said}");
        assert!(!said.contains("panicked"), "{said}");
    }
    if Path::new(&journal).exists() {
        let listed = setup.ok(&["schedule", "list", "--journal", &journal]);
        assert!(listed.contains("no schedules"), "{listed}");
    }
    let bad_name = setup.bflow(&[
        "schedule",
        "add",
        "no spaces",
        &flow,
        "--cron",
        "0 8 * * *",
        "--tz",
        "UTC",
        "--input",
        "go=true",
        "--journal",
        &journal,
    ]);
    assert!(!bad_name.status.success());
    assert!(
        stderr(&bad_name).contains("no spaces"),
        "{}",
        stderr(&bad_name)
    );
    let unknown = setup.bflow(&["schedule", "pause", "ghost", "--journal", &journal]);
    assert!(!unknown.status.success());
    assert!(stderr(&unknown).contains("ghost"), "{}", stderr(&unknown));
}
