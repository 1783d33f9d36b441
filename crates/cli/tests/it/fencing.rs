//! A deposed `bflow` never acts again, with real processes and a real webhook: a `flow run`
//! is stopped with SIGSTOP while its post is in flight, its lease expires, a `flow resume`
//! takes the run over, posts, succeeds and releases the lease; then the first is continued
//! with SIGCONT. It must not post again, must not write over the journal, and must exit
//! non-zero saying it was deposed (before the fence was sound, it posted again, exited 0
//! "succeeded" and overwrote the attempt rows).

use std::process::{Command, Stdio};
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
