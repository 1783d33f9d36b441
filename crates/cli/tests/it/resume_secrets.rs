//! A resumed run and the secrets it needs, with real `bflow` processes, a real SIGKILL and a
//! real webhook on 127.0.0.1: every secret a run references — those the flow binds and those its
//! recorded inputs name — is checked before its first step, on the first run and on resume.

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;

use crate::resume_guard::{Setup, kill, step_mut, succeeded};
use crate::stderr;

#[test]
fn an_unset_secret_a_later_step_needs_stops_the_run_before_the_first_post() {
    let setup = Setup::new(Duration::ZERO);
    let mut steps = setup.steps(&[], "input.go");
    // `done` posts to a secret URL; `notify`, before it, posts first.
    step_mut(&mut steps, "done")["with"]["url"] = json!({"from": "secret.LATER_HOOK_URL"});
    setup.write_steps(steps, &[]);
    let flow = setup.flow_path().to_string_lossy().into_owned();
    let run = |secrets_file: Option<&str>| {
        let mut args = vec!["flow", "run", &flow, "--input", "go=true", "--journal"];
        let journal = setup.journal();
        args.push(&journal);
        if let Some(file) = secrets_file {
            args.extend(["--secrets-file", file]);
        }
        setup
            .command(&args)
            .env_remove("BROWSERFLOW_SECRET_LATER_HOOK_URL")
            .output()
            .unwrap()
    };

    let output = run(None);
    assert_eq!(output.status.code(), Some(1));
    let log = stderr(&output);
    assert!(
        log.contains("secret `LATER_HOOK_URL` is not set (set BROWSERFLOW_SECRET_LATER_HOOK_URL"),
        "{log}"
    );
    assert!(log.contains("nothing ran"), "{log}");
    assert!(!log.contains("notify"), "no step started: {log}");
    assert!(setup.webhook.posts().is_empty(), "no post");

    // Set in a secrets file, the same flow runs.
    let secrets = setup.dir.path().join("secrets.env");
    std::fs::write(
        &secrets,
        format!("LATER_HOOK_URL={}\n", setup.webhook.url("secret-done")),
    )
    .unwrap();
    std::fs::set_permissions(
        &secrets,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let output = run(Some(&secrets.to_string_lossy()));
    assert_eq!(succeeded(&output)["output"]["status"], 200);
    assert_eq!(setup.webhook.posts(), ["/hook/notify", "/hook/secret-done"]);
}

#[test]
fn a_resume_whose_recorded_secret_input_is_now_unset_is_refused_before_any_post() {
    let setup = Setup::new(Duration::ZERO);
    let mut done = setup.post("done");
    done["with"]["url"] = json!({"from": "input.hook"});
    done["when"] = json!("steps.notify.output.status != 0");
    let mut notify = setup.post("notify");
    notify["when"] = json!("input.go");
    let flow = json!({
        "name": "guard", "version": "1.0.0", "description": "",
        "inputs": [
            {"name": "go", "schema": {"type": "boolean"}, "secret": false},
            {"name": "hook", "schema": {"type": "string", "format": "uri"}, "secret": true}
        ],
        "requires": [{"ref": "std/http.post@1.0.0", "contract_digest": setup.post_digest}],
        "steps": [notify, done],
        "output": {"from": "steps.done.output"}
    });
    std::fs::write(setup.flow_path(), flow.to_string()).unwrap();
    let flow_arg = setup.flow_path().to_string_lossy().into_owned();
    let journal = setup.journal();
    let hook = setup.webhook.url("secret-done");
    let mut child = setup
        .command(&[
            "flow",
            "run",
            &flow_arg,
            "--input",
            "go=true",
            "--input",
            "hook=secret.RESUME_HOOK",
            "--journal",
            &journal,
        ])
        .env("BROWSERFLOW_SECRET_RESUME_HOOK", &hook)
        .env("BROWSERFLOW_TEST_CRASH_AT", "before-effect:done")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut run_id = None;
    let mut seen = String::new();
    for line in BufReader::new(child.stderr.take().unwrap())
        .lines()
        .map_while(Result::ok)
    {
        seen.push_str(&line);
        seen.push('\n');
        if let Some(rest) = line.split(" as run ").nth(1) {
            run_id = Some(rest.trim().to_owned());
        }
        if line.starts_with("CRASH_POINT") {
            break;
        }
    }
    kill(child);
    let run_id = run_id.unwrap_or_else(|| panic!("the run id is printed: {seen}"));
    assert_eq!(setup.webhook.posts(), ["/hook/notify"]);

    // The secret the run was started with is gone: refused before `done` posts anywhere.
    let output = setup
        .resume_command(&run_id)
        .env_remove("BROWSERFLOW_SECRET_RESUME_HOOK")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let log = stderr(&output);
    assert!(log.contains("secret `RESUME_HOOK` is not set"), "{log}");
    assert!(!log.contains("done"), "no step started: {log}");
    assert_eq!(setup.webhook.posts(), ["/hook/notify"], "no new post");

    // Set again, the run resumes and `done` posts once.
    let output = setup
        .resume_command(&run_id)
        .env("BROWSERFLOW_SECRET_RESUME_HOOK", &hook)
        .output()
        .unwrap();
    succeeded(&output);
    assert_eq!(setup.webhook.posts(), ["/hook/notify", "/hook/secret-done"]);
}
