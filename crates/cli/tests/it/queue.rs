//! Queued runs with real `bflow worker` processes and a real, slow webhook on 127.0.0.1:
//! `bflow flow run --enqueue` records runs that workers claim, each with its lease; a worker
//! SIGKILLed mid-run has its runs taken over once its lease lapses, one SIGTERMed drains and
//! exits 0, every run succeeds with each effect recorded once and posted at most twice (the
//! in-doubt post of a killed run). On PostgreSQL (the acceptance test: 3 workers, 30 runs)
//! and on SQLite (smaller). `bflow runs cancel` of a queued and of a running run; a flow
//! changed since its run was queued is refused; a run still in hand at the end of a
//! worker's drain goes back to the queue; bad input names what is wrong.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::webhook::Webhook;
use crate::{stderr, stdout};

struct Setup {
    dir: tempfile::TempDir,
    journal: String,
    webhook: Webhook,
    post_digest: String,
}

impl Setup {
    /// A journal in the database `url`, or a file in the test's folder; a webhook taking
    /// `delay` per post.
    fn new(database: Option<String>, delay: Duration) -> Setup {
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
        let dir = tempfile::tempdir().unwrap();
        let journal =
            database.unwrap_or_else(|| dir.path().join("j.sqlite").to_string_lossy().into_owned());
        Setup {
            dir,
            journal,
            webhook: Webhook::start_with_delay(delay),
            post_digest: post["contract_digest"].as_str().unwrap().to_owned(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A flow posting `ping` then `done`, each `body` as given.
    fn write_flow(&self, name: &str, body: &str) -> String {
        let post = |id: &str| {
            json!({"id": id, "uses": "std/http.post@1.0.0", "with": {
                "url": {"value": self.webhook.url(id)}, "body": {"value": body}}})
        };
        // `done` after `ping`: a run is caught between its two posts.
        let mut done = post("done");
        done["when"] = json!("steps.ping.output.status != 0");
        let flow = json!({
            "name": name, "version": "1.0.0", "description": "",
            "inputs": [{"name": "n", "schema": {"type": "integer"}, "secret": false}],
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
            .env_remove("BROWSERFLOW_JOURNAL")
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

    /// Queues a run of `flow`; its id.
    fn enqueue(&self, flow: &str, n: usize) -> String {
        let input = format!("n={n}");
        let out = self.ok(&[
            "flow",
            "run",
            flow,
            "--enqueue",
            "--input",
            &input,
            "--journal",
            &self.journal,
        ]);
        let run_id = out.trim().to_owned();
        assert!(!run_id.is_empty() && !run_id.contains(' '), "{out}");
        run_id
    }

    fn worker(&self, log: &str, concurrency: &str) -> Child {
        self.worker_draining(log, concurrency, "30")
    }

    fn worker_draining(&self, log: &str, concurrency: &str, drain: &str) -> Child {
        let log = std::fs::File::create(self.path(log)).unwrap();
        self.command(&[
            "worker",
            "--journal",
            &self.journal,
            "--poll",
            "0.2",
            "--concurrency",
            concurrency,
            "--drain",
            drain,
        ])
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

    fn logs(&self, names: &[&str]) -> String {
        names
            .iter()
            .map(|n| format!("--- {n}\n{}", self.log(n)))
            .collect()
    }

    /// Every run, as `runs list --json` says, by id.
    fn runs(&self) -> BTreeMap<String, Value> {
        self.ok(&[
            "runs",
            "list",
            "--journal",
            &self.journal,
            "--limit",
            "1000",
            "--json",
        ])
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|r| (r["run_id"].as_str().unwrap().to_owned(), r))
        .collect()
    }

    fn show(&self, run_id: &str) -> Value {
        let shown = self.ok(&["runs", "show", run_id, "--journal", &self.journal, "--json"]);
        serde_json::from_str(&shown).unwrap()
    }

    fn status(&self, run_id: &str) -> String {
        self.show(run_id)["status"].as_str().unwrap().to_owned()
    }

    /// Waits until `done` says so of the runs, or fails with the workers' logs.
    fn wait_until(
        &self,
        what: &str,
        within: Duration,
        logs: &[&str],
        done: impl Fn(&BTreeMap<String, Value>) -> bool,
    ) {
        let deadline = Instant::now() + within;
        loop {
            let runs = self.runs();
            if done(&runs) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not within {within:?}\n{runs:#?}\n{}",
                self.logs(logs)
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Posts received per idempotency key.
    fn posts_per_key(&self) -> BTreeMap<String, usize> {
        let mut per_key: BTreeMap<String, usize> = BTreeMap::new();
        for received in self.webhook.received() {
            let key = received.idempotency_key.expect("http.post sends a key");
            *per_key.entry(key).or_default() += 1;
        }
        per_key
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

/// SIGTERMs a worker: it stops claiming, finishes or gives back what it holds, exits 0.
fn terminate(mut child: Child, log: &str) {
    signal(&child, "TERM");
    let status = child.wait().unwrap();
    assert!(status.success(), "the worker exited {status}:\n{log}");
}

fn kill(mut child: Child) {
    signal(&child, "KILL");
    let _ = child.wait();
}

fn count(log: &str, needle: &str) -> usize {
    log.matches(needle).count()
}

/// Runs claimed and not yet ended by the worker whose log this is.
fn in_flight(log: &str) -> usize {
    let claimed = count(log, "claimed queued run ");
    let ended = count(log, "queued run ") - claimed;
    claimed.saturating_sub(ended)
}

#[test]
fn on_postgres_three_workers_one_killed_one_terminated_run_thirty_queued_runs_each_effect_once() {
    let Some(cluster) = crate::pg_cluster::cluster() else {
        return;
    };
    queued_runs_survive_a_killed_and_a_terminated_worker(
        Setup::new(Some(cluster.fresh_database()), Duration::from_millis(150)),
        30,
        "3",
    );
}

#[test]
fn on_sqlite_three_workers_one_killed_one_terminated_run_queued_runs_each_effect_once() {
    queued_runs_survive_a_killed_and_a_terminated_worker(
        Setup::new(None, Duration::from_millis(150)),
        10,
        "2",
    );
}

fn queued_runs_survive_a_killed_and_a_terminated_worker(
    setup: Setup,
    runs: usize,
    concurrency: &str,
) {
    let concurrency = concurrency.to_owned();
    let flow = setup.write_flow("queued-posts", "hello");
    let started = Instant::now();
    let queued: BTreeSet<String> = (0..runs).map(|n| setup.enqueue(&flow, n)).collect();
    assert_eq!(queued.len(), runs);
    let listed = setup.runs();
    assert!(
        queued.iter().all(|id| listed[id]["status"] == "queued"),
        "{listed:#?}"
    );
    let logs = ["a.log", "b.log", "c.log"];
    let a = setup.worker("a.log", &concurrency);
    let b = setup.worker("b.log", &concurrency);
    let c = setup.worker("c.log", &concurrency);
    // A is SIGKILLed while it holds runs mid-flight (claimed, not ended).
    let deadline = Instant::now() + Duration::from_secs(120);
    while in_flight(&setup.log("a.log")) == 0 || setup.webhook.received().len() < 4 {
        assert!(Instant::now() < deadline, "{}", setup.logs(&logs));
        std::thread::sleep(Duration::from_millis(20));
    }
    let held_by_a = in_flight(&setup.log("a.log"));
    kill(a);
    // B is SIGTERMed while it works: it drains and exits 0.
    std::thread::sleep(Duration::from_millis(300));
    terminate(b, &setup.logs(&logs));
    setup.wait_until(
        "every queued run succeeded",
        Duration::from_secs(240),
        &logs,
        |listed| {
            queued
                .iter()
                .all(|id| listed.get(id).is_some_and(|r| r["status"] == "succeeded"))
        },
    );
    terminate(c, &setup.logs(&logs));
    let elapsed = started.elapsed();

    // Each effect recorded once: two effect steps a run, each with its key, succeeded once.
    let mut recorded_keys = BTreeSet::new();
    let mut workers: BTreeMap<String, usize> = BTreeMap::new();
    let mut sessions_over_one = 0;
    for run_id in &queued {
        let shown = setup.show(run_id);
        assert_eq!(shown["status"], "succeeded", "{shown:#}");
        assert_eq!(shown["queued"], true);
        *workers
            .entry(shown["worker"].as_str().unwrap().to_owned())
            .or_default() += 1;
        if shown["sessions"].as_i64().unwrap() > 1 {
            sessions_over_one += 1;
        }
        let steps = shown["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 2, "{shown:#}");
        for step in steps {
            assert_eq!(step["status"], "succeeded", "{shown:#}");
            assert!(step["effectful"].as_bool().unwrap());
            assert!(recorded_keys.insert(step["idempotency_key"].as_str().unwrap().to_owned()));
        }
    }
    let per_key = setup.posts_per_key();
    let posted_keys: BTreeSet<String> = per_key.keys().cloned().collect();
    assert_eq!(
        posted_keys, recorded_keys,
        "every key posted is a recorded effect"
    );
    assert!(per_key.values().all(|n| *n <= 2), "{per_key:#?}");
    let twice = per_key.values().filter(|n| **n == 2).count();
    let took_over = logs
        .iter()
        .map(|l| count(&setup.log(l), "took it over"))
        .sum::<usize>();
    assert!(
        took_over >= 1,
        "the killed worker's runs were taken over:\n{}",
        setup.logs(&logs)
    );
    assert!(
        twice <= held_by_a,
        "only posts in flight at the kill go twice: {twice} > {held_by_a}"
    );
    eprintln!(
        "queue figures: {runs} runs succeeded in {:.1} s; {} effects recorded (each once); {} posts; {} keys posted twice (at most 2 per key); worker A SIGKILLed holding {held_by_a} run(s), {took_over} taken over; worker B SIGTERMed, exit 0; {sessions_over_one} run(s) ran in more than one session; runs finished per worker {:?}",
        elapsed.as_secs_f64(),
        recorded_keys.len(),
        setup.webhook.received().len(),
        twice,
        workers.values().collect::<Vec<_>>()
    );
}

#[test]
fn runs_cancel_stops_a_queued_and_a_running_run_and_names_bad_input() {
    // Slow posts: the running run is caught between its two posts.
    let setup = Setup::new(None, Duration::from_millis(1500));
    let flow = setup.write_flow("cancelled", "x");
    let never = setup.enqueue(&flow, 1);
    let running = setup.enqueue(&flow, 2);
    let said = setup.ok(&["runs", "cancel", &never, "--journal", &setup.journal]);
    assert!(said.contains("will never start"), "{said}");
    assert_eq!(setup.status(&never), "cancelled");
    let table = setup.ok(&["runs", "list", "--journal", &setup.journal]);
    assert!(table.contains("WORKER"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.contains(&never) && l.contains("cancelled")),
        "{table}"
    );

    let worker = setup.worker("w.log", "1");
    setup.wait_until(
        "the run started",
        Duration::from_secs(60),
        &["w.log"],
        |runs| runs[&running]["status"] == "running",
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while setup.webhook.received().is_empty() {
        assert!(Instant::now() < deadline, "{}", setup.log("w.log"));
        std::thread::sleep(Duration::from_millis(20));
    }
    let asked = Instant::now();
    let said = setup.ok(&["runs", "cancel", &running, "--journal", &setup.journal]);
    assert!(said.contains("cancel requested"), "{said}");
    setup.wait_until(
        "the run cancelled",
        Duration::from_secs(30),
        &["w.log"],
        |runs| runs[&running]["status"] == "cancelled",
    );
    let stopped_in = asked.elapsed();
    terminate(worker, &setup.log("w.log"));
    let received = setup.webhook.received();
    assert!(
        received.iter().all(|r| r.path == "/ping"),
        "the cancelled run never reached its second post: {received:?}"
    );
    assert_eq!(
        received.len(),
        1,
        "only the running run posted, once: {received:?}"
    );
    let shown = setup.show(&running);
    assert_eq!(shown["error"]["code"], "cancelled", "{shown:#}");
    assert!(
        stopped_in < Duration::from_secs(5),
        "stopped promptly: {stopped_in:?}"
    );
    eprintln!(
        "a running run stopped {} ms after `runs cancel`",
        stopped_in.as_millis()
    );

    // Bad input, each named.
    let finished = setup.bflow(&["runs", "cancel", &running, "--journal", &setup.journal]);
    assert!(!finished.status.success());
    let message = stderr(&finished);
    assert!(
        message.contains(&running) && message.contains("has ended (cancelled)"),
        "{message}"
    );
    let unknown = setup.bflow(&["runs", "cancel", "no-such-run", "--journal", &setup.journal]);
    assert!(!unknown.status.success());
    assert!(
        stderr(&unknown).contains("no run `no-such-run`"),
        "{}",
        stderr(&unknown)
    );
    let unknown = setup.bflow(&["runs", "show", "no-such-run", "--journal", &setup.journal]);
    assert!(
        stderr(&unknown).contains("no run `no-such-run`"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn a_queued_run_whose_flow_changed_is_refused_and_a_read_never_writes() {
    let setup = Setup::new(None, Duration::ZERO);
    let flow = setup.write_flow("changing", "before");
    let run_id = setup.enqueue(&flow, 1);
    // The flow file changes before a worker claims the run.
    setup.write_flow("changing", "after");
    let journal = PathBuf::from(&setup.journal);
    let bytes = std::fs::read(&journal).unwrap();
    setup.ok(&["runs", "list", "--journal", &setup.journal]);
    setup.ok(&["runs", "show", &run_id, "--journal", &setup.journal]);
    assert_eq!(std::fs::read(&journal).unwrap(), bytes, "reads never write");
    let worker = setup.worker("w.log", "1");
    setup.wait_until(
        "the run refused",
        Duration::from_secs(60),
        &["w.log"],
        |runs| runs[&run_id]["status"] == "failed",
    );
    terminate(worker, &setup.log("w.log"));
    let shown = setup.show(&run_id);
    assert_eq!(shown["error"]["code"], "divergence", "{shown:#}");
    let message = shown["error"]["message"].as_str().unwrap();
    assert!(message.contains("since the run was queued"), "{message}");
    assert!(setup.webhook.received().is_empty(), "nothing was posted");
}

#[test]
fn a_worker_stopped_with_a_run_in_hand_puts_it_back_in_the_queue_for_another() {
    // Posts slower than the drain: the run is still in hand when the drain ends.
    let setup = Setup::new(None, Duration::from_millis(2500));
    let flow = setup.write_flow("given-back", "x");
    let run_id = setup.enqueue(&flow, 1);
    let first = setup.worker_draining("w1.log", "1", "0.3");
    let deadline = Instant::now() + Duration::from_secs(60);
    while setup.webhook.received().is_empty() {
        assert!(Instant::now() < deadline, "{}", setup.log("w1.log"));
        std::thread::sleep(Duration::from_millis(20));
    }
    let asked = Instant::now();
    terminate(first, &setup.log("w1.log"));
    let stopped_in = asked.elapsed();
    assert!(
        stopped_in < Duration::from_secs(2),
        "within the drain: {stopped_in:?}"
    );
    assert!(
        setup.log("w1.log").contains("back in the queue"),
        "{}",
        setup.log("w1.log")
    );
    assert_eq!(setup.status(&run_id), "queued");
    let second = setup.worker("w2.log", "1");
    setup.wait_until(
        "the run succeeded",
        Duration::from_secs(60),
        &["w1.log", "w2.log"],
        |runs| runs[&run_id]["status"] == "succeeded",
    );
    terminate(second, &setup.log("w2.log"));
    let per_key = setup.posts_per_key();
    assert_eq!(per_key.len(), 2, "{per_key:?}");
    // The post in flight at the stop was sent again under its key: at most twice.
    assert!(per_key.values().all(|n| *n <= 2), "{per_key:?}");
    eprintln!(
        "a worker stopped {} ms after SIGTERM with its run given back; posts per key {:?}",
        stopped_in.as_millis(),
        per_key.values().collect::<Vec<_>>()
    );
}

/// A run started at once (not queued) is seen by `runs list` and `runs show` like a queued one,
/// with the journal named by `BROWSERFLOW_JOURNAL` instead of `--journal`; a read through the
/// variable never writes either.
#[test]
fn a_run_started_at_once_is_listed_and_shown_with_the_journal_from_the_environment() {
    let setup = Setup::new(None, Duration::ZERO);
    let flow = setup.write_flow("direct", "hello");
    let run = setup
        .command(&["flow", "run", &flow, "--input", "n=1"])
        .env("BROWSERFLOW_JOURNAL", &setup.journal)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}{}", stdout(&run), stderr(&run));
    let from_env = |args: &[&str]| {
        let output = setup
            .command(args)
            .env("BROWSERFLOW_JOURNAL", &setup.journal)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "bflow {args:?}: {}{}",
            stdout(&output),
            stderr(&output)
        );
        stdout(&output)
    };
    let journal = PathBuf::from(&setup.journal);
    let bytes = std::fs::read(&journal).unwrap();
    let listed: Vec<Value> = from_env(&["runs", "list", "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(listed.len(), 1, "{listed:#?}");
    assert_eq!(listed[0]["status"], "succeeded", "{listed:#?}");
    let run_id = listed[0]["run_id"].as_str().unwrap().to_owned();
    let shown: Value =
        serde_json::from_str(&from_env(&["runs", "show", &run_id, "--json"])).unwrap();
    assert_eq!(shown["status"], "succeeded", "{shown:#}");
    assert_eq!(shown["run_id"], run_id.as_str(), "{shown:#}");
    let table = from_env(&["runs", "show", &run_id]);
    assert!(table.contains("ping") && table.contains("done"), "{table}");
    assert_eq!(std::fs::read(&journal).unwrap(), bytes, "reads never write");
    assert_eq!(setup.webhook.received().len(), 2, "one post per step");
}
