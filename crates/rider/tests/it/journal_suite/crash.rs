//! Crash tests with real processes: the runner is SIGKILLed at each named point of an
//! effectful step, then resumed in a new process.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use browserflow_rider::{JournalLocation, idempotency_key};
use serde_json::{Value, json};

use super::Backend;
use crate::server::Server;

pub const TOKEN: &str = "tok-Crash/Test+Token=1";

/// A running child process and the lines it prints.
pub struct Runner {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Runner {
    pub fn start(spec: Value, crash_at: Option<&str>) -> Runner {
        let exe = std::env::current_exe().expect("test binary");
        let mut command = Command::new(exe);
        command
            .args([
                "child::runner",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("BF_CHILD", spec.to_string())
            .env("BROWSERFLOW_SECRET_API_TOKEN", TOKEN)
            .env_remove("BROWSERFLOW_CRASH_AT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(point) = crash_at {
            command.env("BROWSERFLOW_CRASH_AT", point);
        }
        let mut child = command.spawn().expect("spawn the runner");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Runner {
            child,
            stdin,
            lines,
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (`STOP`, `CONT`) to the process, as `kill -SIGNAL` does.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status()
            .expect("kill");
        assert!(status.success(), "kill -{signal}");
    }

    /// Lets a runner waiting at its pause point (`pause_at`) go on.
    pub fn go_on(&mut self) {
        let stdin = self.stdin.as_mut().expect("stdin");
        stdin.write_all(b"go\n").expect("write to the runner");
        stdin.flush().expect("flush");
    }

    /// The rest of the first line starting with `prefix`.
    pub fn wait_for(&self, prefix: &str) -> String {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("the runner never printed `{prefix}`"));
            // libtest may print `test child::runner ... ` on the same line first.
            if let Some(at) = line.find(prefix) {
                return line[at + prefix.len()..].trim().to_owned();
            }
        }
    }

    /// Kills the process with SIGKILL and reaps it.
    pub fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        let status = self.child.wait().expect("wait");
        assert!(!status.success());
    }

    pub fn finish(mut self) {
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "runner exited with {status}");
    }
}

pub fn spec(
    journal: &JournalLocation,
    server: &Server,
    mode: &str,
    run_id: &str,
    variant: &str,
) -> Value {
    json!({"journal": journal.to_string(), "server": server.url, "mode": mode, "run_id": run_id, "variant": variant})
}

/// `(step_id, idempotency_key, output)` of every recorded effect, read through the journal.
pub fn effects(journal: &JournalLocation, run_id: &str) -> Vec<(String, String, Value)> {
    let report = journal.open_read_only().unwrap().show(run_id).unwrap();
    let mut effects: Vec<_> = report
        .steps
        .into_iter()
        .filter_map(|s| Some((s.step_id, s.idempotency_key?, s.output?)))
        .collect();
    effects.sort_by(|a, b| a.0.cmp(&b.0));
    effects
}

/// Runs the crash flow, kills the runner at `point` of `step`, resumes it in a new process,
/// and checks the guarantees. `calls_after_resume` is what the server must have seen for
/// the crashed step's key in the end.
fn crash_and_resume(
    backend: &dyn Backend,
    point: &str,
    step: &str,
    calls_before_resume: usize,
    calls_after_resume: usize,
) {
    let server = Server::start();
    let fresh = backend.fresh();
    let journal = fresh.location.clone();
    let runner = Runner::start(
        spec(&journal, &server, "run", "", "v1"),
        Some(&format!("{point}:{step}")),
    );
    let run_id = runner.wait_for("RUN_ID");
    let at = runner.wait_for("CRASH_POINT");
    assert_eq!(at, format!("{point} {step}"));
    runner.kill();

    let key = idempotency_key(&run_id, step);
    assert_eq!(
        server.counts().get(&key).copied().unwrap_or(0),
        calls_before_resume,
        "{point}: calls before resume"
    );
    let before = effects(&journal, &run_id);
    let report = journal.open_read_only().unwrap().show(&run_id).unwrap();
    assert_eq!(report.status, "running", "a killed run is left running");

    let resumed = Runner::start(spec(&journal, &server, "resume", &run_id, "v1"), None);
    let outcome: Value = serde_json::from_str(&resumed.wait_for("OUTCOME")).unwrap();
    resumed.finish();
    assert_eq!(outcome["run_id"], json!(run_id));
    assert_eq!(outcome["output"]["a"]["path"], json!("/effect"));
    assert_eq!(outcome["output"]["b"]["path"], json!("/effect"));

    // Every key's outcome is recorded exactly once; the server saw at most two calls per key.
    let after = effects(&journal, &run_id);
    let steps: Vec<&str> = after.iter().map(|(s, _, _)| s.as_str()).collect();
    assert_eq!(steps, ["first", "second"], "{point}");
    for (step_id, recorded_key, _) in &after {
        assert_eq!(recorded_key, &idempotency_key(&run_id, step_id));
    }
    // The secret came from the child's environment (BROWSERFLOW_SECRET_API_TOKEN).
    let bearer = format!("Bearer {TOKEN}");
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.headers.get("authorization") == Some(&bearer))
    );
    let counts = server.counts();
    assert_eq!(
        counts.get(&key).copied(),
        Some(calls_after_resume),
        "{point}: {counts:?}"
    );
    assert!(counts.values().all(|&n| n <= 2), "{counts:?}");
    assert_eq!(counts.len(), 2, "one key per effectful step: {counts:?}");
    // Nothing recorded before the crash is lost or rewritten.
    for recorded in &before {
        assert!(after.contains(recorded), "{point}: {recorded:?} was lost");
    }
    let report = journal.open_read_only().unwrap().show(&run_id).unwrap();
    assert_eq!(report.status, "succeeded");
    assert_eq!(report.sessions, 2);
    let first = report.steps.iter().find(|s| s.step_id == step).unwrap();
    assert_eq!(
        first.attempts as usize,
        if point == "after-commit" { 1 } else { 2 }
    );
    // The recorded response tells which call the journal kept.
    let response: HashMap<String, Value> = after
        .iter()
        .map(|(s, _, out)| (s.clone(), out["response"].clone()))
        .collect();
    assert_eq!(response[step]["count"], json!(calls_after_resume));
}

pub fn killed_before_the_effect_resumes_with_one_call(backend: &dyn Backend) {
    crash_and_resume(backend, "before-effect", "first", 0, 1);
}

pub fn killed_after_the_effect_before_the_commit_resumes_with_a_second_call_under_the_same_key(
    backend: &dyn Backend,
) {
    crash_and_resume(backend, "after-effect", "first", 1, 2);
}

pub fn killed_after_the_commit_resumes_without_calling_again(backend: &dyn Backend) {
    crash_and_resume(backend, "after-commit", "first", 1, 1);
}

pub fn killed_after_the_second_effect_replays_both_recorded_outcomes(backend: &dyn Backend) {
    crash_and_resume(backend, "after-effect", "second", 1, 2);
}
