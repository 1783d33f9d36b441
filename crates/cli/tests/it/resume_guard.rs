//! Resume keeps the journal's promises under edits and concurrency, with real `bflow`
//! processes, real SIGKILLs and a real webhook on 127.0.0.1: an edited flow is refused
//! before any new post, a live run's lease is respected, a killed owner's lease is taken
//! over, and of two resumes at once exactly one proceeds. Read commands never write.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::{stderr, stdout};

/// A webhook that answers each POST after `delay`, recording its path first (so a post
/// counts even if its sender is killed while waiting).
pub(crate) struct SlowWebhook {
    port: u16,
    paths: Arc<Mutex<Vec<String>>>,
}

impl SlowWebhook {
    pub(crate) fn start(delay: Duration) -> SlowWebhook {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let paths = Arc::new(Mutex::new(Vec::new()));
        let sink = paths.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let sink = sink.clone();
                std::thread::spawn(move || answer(stream, &sink, delay));
            }
        });
        SlowWebhook { port, paths }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/hook/{path}", self.port)
    }

    pub(crate) fn posts(&self) -> Vec<String> {
        self.paths.lock().unwrap().clone()
    }
}

fn answer(stream: TcpStream, sink: &Mutex<Vec<String>>, delay: Duration) -> Option<()> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    sink.lock().unwrap().push(path);
    std::thread::sleep(delay);
    let mut stream = stream;
    stream
        .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
        .ok()
}

/// A folder with a flow file, a journal and a webhook.
pub(crate) struct Setup {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) webhook: SlowWebhook,
    pub(crate) post_digest: String,
}

impl Setup {
    pub(crate) fn new(delay: Duration) -> Setup {
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
            webhook: SlowWebhook::start(delay),
            post_digest: post["contract_digest"].as_str().unwrap().to_owned(),
        }
    }

    pub(crate) fn flow_path(&self) -> PathBuf {
        self.dir.path().join("guard.flow.json")
    }

    pub(crate) fn journal(&self) -> String {
        self.dir
            .path()
            .join("j.sqlite")
            .to_string_lossy()
            .into_owned()
    }

    pub(crate) fn post(&self, id: &str) -> Value {
        json!({"id": id, "uses": "std/http.post@1.0.0", "with": {
            "url": {"value": self.webhook.url(id)}, "body": {"value": id}}})
    }

    /// `notify` posts when `notify_when` holds, then `done` posts; `before` steps go first.
    pub(crate) fn steps(&self, before: &[&str], notify_when: &str) -> Vec<Value> {
        let mut steps: Vec<Value> = before.iter().map(|id| self.post(id)).collect();
        let mut notify = self.post("notify");
        notify["when"] = json!(notify_when);
        steps.push(notify);
        // Always true (a skipped `notify` reads as null, which is not 0), and it makes
        // `done` wait for `notify`, so a crash at `done` comes after `notify` finished.
        let mut done = self.post("done");
        done["when"] = json!("steps.notify.output.status != 0");
        steps.push(done);
        steps
    }

    pub(crate) fn write_flow(&self, before: &[&str], notify_when: &str) {
        self.write_steps(self.steps(before, notify_when), &[]);
    }

    /// The flow of `steps`, pinning std/http.post and each of `pins` (`[ref, digest]`).
    pub(crate) fn write_steps(&self, steps: Vec<Value>, pins: &[[&str; 2]]) {
        let mut requires =
            vec![json!({"ref": "std/http.post@1.0.0", "contract_digest": self.post_digest})];
        requires.extend(
            pins.iter()
                .map(|[r, digest]| json!({"ref": r, "contract_digest": digest})),
        );
        let flow = json!({
            "name": "guard", "version": "1.0.0", "description": "",
            "inputs": [{"name": "go", "schema": {"type": "boolean"}, "secret": false}],
            "requires": requires,
            "steps": steps,
            "output": {"from": "steps.done.output"}
        });
        std::fs::write(self.flow_path(), flow.to_string()).unwrap();
    }

    /// Writes the pure `code` tool `tag@1.0.0` beside the flow, whose output schema is
    /// `output`; returns its contract digest.
    pub(crate) fn write_tag_tool(&self, output: Value) -> String {
        let tool = json!({
            "code": {"source": "function run(input) { return 'tagged'; }", "timeout_ms": 1000},
            "contract": {
                "name": "tag", "version": "1.0.0", "kind": "code",
                "description": "A fixed tag.", "inputs": [], "output": output,
                "capabilities": []
            }
        });
        let path = self.dir.path().join("tag@1.0.0.json");
        std::fs::write(&path, tool.to_string()).unwrap();
        let digest = self
            .command(&["contract", "digest", &path.to_string_lossy()])
            .output()
            .unwrap();
        assert!(digest.status.success(), "{}", stderr(&digest));
        stdout(&digest).trim().to_owned()
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bflow"));
        command
            .current_dir(self.dir.path())
            .args(args)
            .env_remove("BROWSERFLOW_TEST_CRASH_AT")
            .env_remove("BROWSERFLOW_LOG");
        command
    }

    /// Starts `flow run` stopped dead at `point` of step `step`; returns the live process
    /// and its run id once it is there.
    pub(crate) fn run_until(&self, go: bool, point: &str, step: &str) -> (Child, String) {
        let flow = self.flow_path().to_string_lossy().into_owned();
        let go = format!("go={go}");
        let mut child = self
            .command(&[
                "flow",
                "run",
                &flow,
                "--input",
                &go,
                "--journal",
                &self.journal(),
            ])
            .env("BROWSERFLOW_TEST_CRASH_AT", format!("{point}:{step}"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut run_id = None;
        let mut seen = String::new();
        let lines = BufReader::new(child.stderr.take().unwrap()).lines();
        for line in lines.map_while(Result::ok) {
            seen.push_str(&line);
            seen.push('\n');
            if let Some(rest) = line.split(" as run ").nth(1) {
                run_id = Some(rest.trim().to_owned());
            }
            if line.starts_with("CRASH_POINT") {
                break;
            }
        }
        assert!(
            seen.contains("CRASH_POINT"),
            "never reached {point}: {seen}"
        );
        (child, run_id.expect("the run id is printed first"))
    }

    /// Runs until `point` of `step`, then SIGKILLs the process.
    pub(crate) fn run_and_kill(&self, go: bool, point: &str, step: &str) -> String {
        let (child, run_id) = self.run_until(go, point, step);
        kill(child);
        run_id
    }

    pub(crate) fn resume_command(&self, run_id: &str) -> Command {
        let mut command = self.command(&["flow", "resume", run_id, "--journal", &self.journal()]);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        command
    }

    pub(crate) fn resume(&self, run_id: &str) -> Output {
        self.resume_command(run_id).output().unwrap()
    }

    pub(crate) fn show(&self, run_id: &str) -> Value {
        let shown = self
            .command(&[
                "journal",
                "show",
                run_id,
                "--journal",
                &self.journal(),
                "--json",
            ])
            .output()
            .unwrap();
        assert!(shown.status.success(), "{}", stderr(&shown));
        serde_json::from_str::<Value>(&stdout(&shown)).unwrap()
    }

    pub(crate) fn status(&self, run_id: &str) -> Value {
        self.show(run_id)["status"].clone()
    }
}

pub(crate) fn kill(mut child: Child) {
    child.kill().unwrap(); // SIGKILL
    assert!(!child.wait().unwrap().success(), "the run was killed");
}

fn refused(output: &Output, code: &str) -> String {
    assert_eq!(output.status.code(), Some(1), "{}", stderr(output));
    let log = stderr(output);
    assert!(log.contains(&format!("error [{code}]")), "{log}");
    log
}

pub(crate) fn succeeded(output: &Output) -> Value {
    assert!(output.status.success(), "{}", stderr(output));
    serde_json::from_str(&stdout(output)).unwrap()
}

#[test]
fn an_inserted_first_step_or_a_when_edit_is_refused_before_any_post_and_the_restored_flow_resumes()
{
    let setup = Setup::new(Duration::ZERO);
    setup.write_flow(&[], "input.go");
    let run_id = setup.run_and_kill(true, "before-effect", "done");
    assert_eq!(setup.webhook.posts(), ["/hook/notify"], "notify posted");

    // A std/http.post step inserted first: refused before it posts.
    setup.write_flow(&["pre"], "input.go");
    let log = refused(&setup.resume(&run_id), "divergence");
    assert!(
        log.contains("step `pre` was inserted at position 0"),
        "{log}"
    );
    assert!(log.contains("Restore the flow"), "{log}");
    assert!(log.contains("start a new run"), "{log}");
    assert!(!log.contains("pre succeeded"), "{log}");

    // `when` turned false on the step that posted: refused, not reported skipped.
    setup.write_flow(&[], "!input.go");
    let log = refused(&setup.resume(&run_id), "divergence");
    assert!(
        log.contains("step `notify`: its `when` was `input.go` and is now `!input.go`"),
        "{log}"
    );
    assert!(!log.contains("notify skipped"), "{log}");
    assert_eq!(setup.webhook.posts(), ["/hook/notify"], "no new post");

    // The restored flow resumes: notify is not posted again, done posts once.
    setup.write_flow(&[], "input.go");
    succeeded(&setup.resume(&run_id));
    assert_eq!(setup.webhook.posts(), ["/hook/notify", "/hook/done"]);
    assert_eq!(setup.status(&run_id), "succeeded");
}

/// `pre` posts, the pure `tag` follows it, `notify` follows `tag`, `done` follows `notify`:
/// a chain, so a crash at `done` comes after all three finished.
fn chained_steps(setup: &Setup) -> Vec<Value> {
    let mut steps = setup.steps(&["pre"], "input.go && steps.tag.output == \"tagged\"");
    steps.insert(
        1,
        json!({"id": "tag", "uses": "tag@1.0.0", "with": {},
               "when": "steps.pre.output.status != 0"}),
    );
    steps
}

pub(crate) fn step_mut<'a>(steps: &'a mut [Value], id: &str) -> &'a mut Value {
    steps.iter_mut().find(|s| s["id"] == id).unwrap()
}

fn sorted_posts(setup: &Setup) -> Vec<String> {
    let mut posts = setup.webhook.posts();
    posts.sort();
    posts
}

#[test]
fn an_insert_between_a_removal_a_rename_a_rewire_or_a_pin_change_is_refused_before_any_post_and_the_restored_flow_resumes()
 {
    let setup = Setup::new(Duration::ZERO);
    let string_output = json!({"type": "string"});
    let tag_digest = setup.write_tag_tool(string_output.clone());
    let pins = [["tag@1.0.0", tag_digest.as_str()]];
    setup.write_steps(chained_steps(&setup), &pins);
    let run_id = setup.run_and_kill(true, "before-effect", "done");
    assert_eq!(sorted_posts(&setup), ["/hook/notify", "/hook/pre"]);

    let refuse = |steps: Vec<Value>, pins: &[[&str; 2]], expected: &str| {
        setup.write_steps(steps, pins);
        let log = refused(&setup.resume(&run_id), "divergence");
        assert!(log.contains(expected), "expected `{expected}` in: {log}");
        assert!(log.contains("Restore the flow"), "{log}");
        assert!(!log.contains("succeeded in"), "no step ran: {log}");
        assert_eq!(
            sorted_posts(&setup),
            ["/hook/notify", "/hook/pre"],
            "no new post after: {expected}"
        );
    };

    // Inserted between two recorded steps.
    let mut steps = chained_steps(&setup);
    steps.insert(2, setup.post("mid"));
    refuse(steps, &pins, "step `mid` was inserted at position 2");

    // Removed (its follower now waits for `pre` instead).
    let mut steps = chained_steps(&setup);
    steps.retain(|s| s["id"] != "tag");
    step_mut(&mut steps, "notify")["when"] = json!("input.go && steps.pre.output.status != 0");
    refuse(
        steps,
        &[],
        "step `tag` (position 1) is absent from the flow",
    );

    // Renamed, same tool and bindings.
    let mut steps = chained_steps(&setup);
    step_mut(&mut steps, "pre")["id"] = json!("pre2");
    step_mut(&mut steps, "tag")["when"] = json!("steps.pre2.output.status != 0");
    refuse(steps, &pins, "step `pre` (position 0) was renamed `pre2`");

    // Re-wired: another value into a slot of the step that posted.
    let mut steps = chained_steps(&setup);
    step_mut(&mut steps, "notify")["with"]["body"] = json!({"value": "changed"});
    refuse(steps, &pins, "step `notify`: the binding of `body` changed");

    // Pin changed: the same tool ref with another contract, pinned anew.
    let nullable_digest = setup.write_tag_tool(json!({"type": ["null", "string"]}));
    refuse(
        chained_steps(&setup),
        &[["tag@1.0.0", nullable_digest.as_str()]],
        &format!("step `tag`: the contract digest was {tag_digest} and is now {nullable_digest}"),
    );

    // Restored: resumes to the right output, `pre` and `notify` not posted again.
    assert_eq!(setup.write_tag_tool(string_output), tag_digest);
    setup.write_steps(chained_steps(&setup), &pins);
    let resumed = succeeded(&setup.resume(&run_id));
    assert_eq!(resumed["output"], json!({"status": 200, "body": "ok"}));
    assert_eq!(
        setup.webhook.posts().last().map(String::as_str),
        Some("/hook/done")
    );
    assert_eq!(
        sorted_posts(&setup),
        ["/hook/done", "/hook/notify", "/hook/pre"]
    );
    assert_eq!(setup.status(&run_id), "succeeded");
}

#[test]
fn a_when_turned_true_on_a_skipped_step_is_refused_without_posting() {
    let setup = Setup::new(Duration::ZERO);
    setup.write_flow(&[], "input.go");
    let run_id = setup.run_and_kill(false, "before-effect", "done");
    assert!(setup.webhook.posts().is_empty(), "notify was skipped");

    setup.write_flow(&[], "!input.go");
    let log = refused(&setup.resume(&run_id), "divergence");
    assert!(
        log.contains("its `when` was `input.go` and is now `!input.go`"),
        "{log}"
    );
    assert!(
        setup.webhook.posts().is_empty(),
        "the skipped step never posted"
    );

    setup.write_flow(&[], "input.go");
    succeeded(&setup.resume(&run_id));
    assert_eq!(setup.webhook.posts(), ["/hook/done"]);
}

#[test]
fn a_step_appended_after_the_last_recorded_one_runs_and_is_said() {
    let setup = Setup::new(Duration::ZERO);
    setup.write_flow(&[], "input.go");
    let run_id = setup.run_and_kill(true, "before-effect", "done");
    // Add a step after `done`, the last recorded one.
    let mut flow: Value =
        serde_json::from_str(&std::fs::read_to_string(setup.flow_path()).unwrap()).unwrap();
    flow["steps"]
        .as_array_mut()
        .unwrap()
        .push(setup.post("extra"));
    std::fs::write(setup.flow_path(), flow.to_string()).unwrap();
    let resumed = setup.resume(&run_id);
    succeeded(&resumed);
    let log = stderr(&resumed);
    assert!(log.contains("the flow changed after step `done`"), "{log}");
    assert!(log.contains("step `extra` was inserted"), "{log}");
    // `done` and `extra` are independent: they may post in either order.
    let mut posts = setup.webhook.posts();
    posts.sort();
    assert_eq!(posts, ["/hook/done", "/hook/extra", "/hook/notify"]);
}

#[test]
fn a_live_run_is_not_resumed_and_once_killed_its_lease_is_taken_over() {
    let setup = Setup::new(Duration::ZERO);
    setup.write_flow(&[], "input.go");
    let (owner, run_id) = setup.run_until(true, "before-effect", "done");

    let log = refused(&setup.resume(&run_id), "lease_held");
    assert!(log.contains(&format!("pid {}", owner.id())), "{log}");
    assert!(log.contains("is being executed by owner"), "{log}");
    assert_eq!(setup.webhook.posts(), ["/hook/notify"], "no second post");
    assert_eq!(setup.status(&run_id), "running");
    // `journal show` names who holds the run.
    let shown = setup.show(&run_id);
    let lease = &shown["lease"];
    assert_eq!(lease["pid"], owner.id(), "{shown}");
    assert!(
        lease["owner"].as_str().is_some_and(|o| !o.is_empty()),
        "{shown}"
    );
    assert!(
        lease["host"].as_str().is_some_and(|h| !h.is_empty()),
        "{shown}"
    );
    let heartbeat = lease["heartbeat_at_ms"].as_i64().unwrap();
    assert!(
        lease["expires_at_ms"].as_i64().unwrap() > heartbeat,
        "{shown}"
    );
    assert!(
        lease["expires_at"].as_str().unwrap().ends_with('Z'),
        "{shown}"
    );
    assert!(
        lease["heartbeat_at"].as_str().unwrap().starts_with("20"),
        "{shown}"
    );

    kill(owner);
    let resumed = setup.resume(&run_id);
    succeeded(&resumed);
    let log = stderr(&resumed);
    assert!(log.contains("taking over the lease"), "{log}");
    assert!(log.contains("its process is gone"), "{log}");
    assert_eq!(setup.webhook.posts(), ["/hook/notify", "/hook/done"]);
}

#[test]
fn of_two_resumes_started_at_once_exactly_one_proceeds_and_posts_once() {
    // The webhook answers slowly, so the winner still holds the lease when the other tries.
    let setup = Setup::new(Duration::from_millis(1500));
    setup.write_flow(&[], "input.go");
    let run_id = setup.run_and_kill(true, "before-effect", "notify");
    assert!(setup.webhook.posts().is_empty());

    let first = setup.resume_command(&run_id).spawn().unwrap();
    let second = setup.resume_command(&run_id).spawn().unwrap();
    let outputs = [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ];
    let winners = outputs.iter().filter(|o| o.status.success()).count();
    assert_eq!(
        winners,
        1,
        "{:?}",
        outputs.iter().map(stderr).collect::<Vec<_>>()
    );
    let loser = outputs.iter().find(|o| !o.status.success()).unwrap();
    refused(loser, "lease_held");
    assert_eq!(
        setup.webhook.posts(),
        ["/hook/notify", "/hook/done"],
        "one post each"
    );
    assert_eq!(setup.status(&run_id), "succeeded");
}

fn sha256_of(path: &Path) -> String {
    browserflow_contract::Digest::of_bytes(&std::fs::read(path).unwrap()).to_string()
}

/// Another application's SQLite database (made with `sqlite3`, page size 512: a table
/// `notes` with one row), as its non-zero byte runs in a 1024-byte file.
const FOREIGN_DB: &[(usize, &str)] = &[
    (
        0,
        "53514c69746520666f726d61742033000200010100402020000000020000000200000000000000000000000100000004000000000000000000000001",
    ),
    (95, "02002e63010d0000000101b20001b2"),
    (
        434,
        "4c010617171701797461626c656e6f7465736e6f74657302435245415445205441424c45206e6f7465732028696420494e5445474552205052494d415259204b45592c20746578742054455854290d0000000101f70001f7",
    ),
    (1015, "07010300156d696e65"),
];

fn write_foreign_db(path: &Path) {
    let mut bytes = vec![0u8; 1024];
    for (offset, hex) in FOREIGN_DB {
        for (i, pair) in hex.as_bytes().chunks(2).enumerate() {
            let text = std::str::from_utf8(pair).unwrap();
            bytes[offset + i] = u8::from_str_radix(text, 16).unwrap();
        }
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn journal_list_and_show_never_write_to_a_foreign_database() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("foreign.db");
    write_foreign_db(&foreign);
    let before = sha256_of(&foreign);
    let path = foreign.to_string_lossy().into_owned();
    for args in [
        vec!["journal", "list", "--journal", &path],
        vec!["journal", "show", "some-run", "--journal", &path],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_bflow"))
            .args(&args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        let log = stderr(&output);
        assert!(log.contains("is not a browserflow journal"), "{log}");
        assert!(log.contains("nothing was written"), "{log}");
        assert!(log.contains("notes"), "it says what the file holds: {log}");
    }
    assert_eq!(sha256_of(&foreign), before, "not a byte changed");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "no -wal or -shm beside it: {names:?}");

    let missing = dir.path().join("none.sqlite");
    let output = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args(["journal", "list", "--journal", &missing.to_string_lossy()])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("no journal at"),
        "{}",
        stderr(&output)
    );
    assert!(!missing.exists(), "a read does not create the journal");
}

#[test]
fn a_stranger_json_file_beside_the_flow_is_skipped_with_one_warning_and_run_check_and_resume_work()
{
    let setup = Setup::new(Duration::ZERO);
    setup.write_flow(&[], "input.go");
    std::fs::write(setup.dir.path().join("settings.json"), r#"{"a":1}"#).unwrap();
    let warned_once = |output: &Output| {
        let log = stderr(output);
        assert_eq!(
            log.matches("settings.json").count(),
            1,
            "one warning: {log}"
        );
        assert!(log.contains("WARN"), "{log}");
        assert!(log.contains("not a tool, flow or contract"), "{log}");
    };
    let flow = setup.flow_path().to_string_lossy().into_owned();

    let checked = setup.command(&["check", &flow]).output().unwrap();
    assert!(checked.status.success(), "{}", stderr(&checked));
    warned_once(&checked);

    let ran = setup
        .command(&[
            "flow",
            "run",
            &flow,
            "--input",
            "go=false",
            "--journal",
            &setup.journal(),
        ])
        .output()
        .unwrap();
    assert_eq!(succeeded(&ran)["output"]["status"], 200);
    warned_once(&ran);

    let run_id = setup.run_and_kill(true, "before-effect", "done");
    let resumed = setup.resume(&run_id);
    assert_eq!(succeeded(&resumed)["output"]["status"], 200);
    warned_once(&resumed);
    assert_eq!(
        setup.webhook.posts(),
        ["/hook/done", "/hook/notify", "/hook/done"]
    );
}

#[test]
fn the_resume_hint_of_a_failed_run_works_when_pasted() {
    let setup = Setup::new(Duration::ZERO);
    let journal_dir = setup.dir.path().join("my runs");
    std::fs::create_dir(&journal_dir).unwrap();
    let journal = journal_dir.join("j.sqlite").to_string_lossy().into_owned();
    // `tag` throws the first time round: the run fails after `notify` posted.
    let tool = setup.dir.path().join("tag@1.0.0.json");
    let digest = setup.write_tag_tool(json!({"type": "string"}));
    let working = std::fs::read_to_string(&tool).unwrap();
    std::fs::write(
        &tool,
        working.replace("return 'tagged';", "throw new Error('boom');"),
    )
    .unwrap();
    let mut done = setup.post("done");
    done["when"] = json!("steps.tag.output == \"tagged\"");
    let steps = vec![
        setup.post("notify"),
        json!({"id": "tag", "uses": "tag@1.0.0", "with": {},
               "when": "steps.notify.output.status != 0"}),
        done,
    ];
    setup.write_steps(steps, &[["tag@1.0.0", digest.as_str()]]);
    let flow = setup.flow_path().to_string_lossy().into_owned();
    let failed = setup
        .command(&[
            "flow",
            "run",
            &flow,
            "--input",
            "go=true",
            "--journal",
            &journal,
        ])
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    let log = stderr(&failed);
    let hint = log
        .lines()
        .find_map(|l| l.strip_prefix("resume with: "))
        .unwrap_or_else(|| panic!("a resume hint: {log}"));
    assert!(hint.contains("--journal"), "{hint}");
    assert_eq!(setup.webhook.posts(), ["/hook/notify"]);

    // Fixed, and the hint pasted as it is, from another folder.
    std::fs::write(&tool, working).unwrap();
    let words = shlex::split(hint).unwrap();
    let resumed = Command::new(&words[0])
        .args(&words[1..])
        .current_dir("/")
        .env_remove("BROWSERFLOW_TEST_CRASH_AT")
        .output()
        .unwrap();
    assert_eq!(succeeded(&resumed)["output"]["status"], 200);
    assert_eq!(setup.webhook.posts(), ["/hook/notify", "/hook/done"]);
}
