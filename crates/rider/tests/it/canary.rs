//! The secret canary: a flow resolves a secret and sends it to a real server; afterwards no
//! writer holds it in raw, Base64, hex or URL-encoded form.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use browserflow_flow::{Bound, SecretTemplate};
use browserflow_rider::secrecy::SecretString;
use browserflow_rider::{Logger, MapSecrets, Redactor};
use serde_json::json;

use crate::server::Server;
use crate::tools::{compile_flow, fast_options, registry, rider};

const CANARY: &str = "cAnary-7f3e/9+Qz=K2 x";

/// Every form the canary must not appear in: raw, Base64 (both alphabets, padded or not),
/// hex (both cases), URL-encoded (`encodeURIComponent`-style, form-style, and `extra`, the
/// forms seen on the wire).
fn forbidden_forms(extra: &[String]) -> Vec<String> {
    let bytes = CANARY.as_bytes();
    let mut forms = vec![
        CANARY.to_owned(),
        STANDARD.encode(bytes),
        STANDARD_NO_PAD.encode(bytes),
        URL_SAFE.encode(bytes),
        URL_SAFE_NO_PAD.encode(bytes),
        hex::encode(bytes),
        hex::encode_upper(bytes),
        "cAnary-7f3e%2F9%2BQz%3DK2%20x".to_owned(),
        "cAnary-7f3e%2F9%2BQz%3DK2+x".to_owned(),
    ];
    forms.extend(extra.iter().cloned());
    forms
}

fn assert_clean(what: &str, haystack: &[u8], forms: &[String]) {
    for form in forms {
        let found = haystack.windows(form.len()).any(|w| w == form.as_bytes());
        assert!(!found, "{what} contains the canary as `{form}`");
    }
}

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_canary_secret_reaches_the_server_and_no_writer() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let journal_path = dir.path().join("journal.sqlite");
    let rider = rider(
        registry(),
        &journal_path,
        MapSecrets::new().with("CANARY", CANARY),
        fast_options(),
    );

    let logs = Captured::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(rider.redactor().make_writer(move || sink.clone()))
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let step = |id: &str, path: &str| {
        json!({"id": id, "uses": "test/post@1.0.0", "with": {
            "url": {"template": format!("{}{path}?k={{secret.CANARY}}", server.url)},
            "body": {"value": {"note": "hello"}},
            "authorization": {"template": "Bearer {input.token}"}}})
    };
    let inputs = || -> BTreeMap<String, Bound> {
        [(
            "token".to_owned(),
            Bound::Secret(SecretTemplate::reference("CANARY")),
        )]
        .into()
    };
    let flow = |name: &str, steps: Vec<serde_json::Value>, output: &str| {
        json!({"name": name, "version": "1.0.0",
               "inputs": [{"name": "token", "schema": {"type": "string"}, "secret": true}],
               "steps": steps, "output": {"from": output}})
    };
    // A run that succeeds: the server echoes the secret back into the step's output.
    let ok_plan = compile_flow(
        &registry(),
        flow(
            "canary-ok",
            vec![step("send", "/echo")],
            "steps.send.output",
        ),
    );
    assert!(
        ok_plan.steps[0]
            .effective_capabilities
            .contains(&browserflow_contract::Capability::Secrets)
    );
    let outcome = rider.run(&ok_plan, inputs()).await.unwrap();
    // A run that fails: the server answers 500 (retried, then failed) with the secret in the body.
    let bad_plan = compile_flow(
        &registry(),
        flow(
            "canary-bad",
            vec![step("fail", "/status/500")],
            "steps.fail.output",
        ),
    );
    let failure = rider.run(&bad_plan, inputs()).await.unwrap_err();
    drop(_guard);

    // Positive control: the secret really was resolved and sent.
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .any(|r| r.headers.get("authorization").map(String::as_str)
                == Some(&format!("Bearer {CANARY}")))
    );
    let wire_query: Vec<String> = requests
        .iter()
        .filter_map(|r| r.target.split_once("?k=").map(|(_, q)| q.to_owned()))
        .collect();
    assert_eq!(
        wire_query.len(),
        5,
        "1 echo + 4 attempts of the failing step"
    );
    assert_ne!(wire_query[0], CANARY, "the URL carried an encoded form");
    let forms = forbidden_forms(&wire_query);

    // Every writer: journal files, logs, error messages, the report, the run outcome.
    let journal_files: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("journal.sqlite"))
        .collect();
    assert!(
        journal_files
            .iter()
            .any(|p| p.to_string_lossy().ends_with("-wal")),
        "{journal_files:?}"
    );
    for file in &journal_files {
        let bytes = std::fs::read(file).unwrap();
        assert!(!bytes.is_empty());
        assert_clean(&file.display().to_string(), &bytes, &forms);
    }
    let logs = logs.0.lock().unwrap().clone();
    let log_text = String::from_utf8_lossy(&logs);
    assert!(
        log_text.contains("posting to"),
        "the tool logged: {log_text}"
    );
    assert!(log_text.contains("[REDACTED]"), "{log_text}");
    assert_clean("the log output", &logs, &forms);
    assert_eq!(failure.code(), "tool_failed");
    assert!(
        failure.message.contains("[REDACTED]"),
        "{}",
        failure.message
    );
    assert_clean("the failure message", failure.message.as_bytes(), &forms);
    assert_clean(
        "the error's Display",
        failure.error.to_string().as_bytes(),
        &forms,
    );
    assert_clean(
        "the error's Debug",
        format!("{:?}", failure.error).as_bytes(),
        &forms,
    );
    for run_id in [&outcome.run_id, failure.run_id.as_ref().unwrap()] {
        let report = serde_json::to_string(&rider.journal().show(run_id).unwrap()).unwrap();
        assert!(report.contains("[REDACTED]"), "{report}");
        assert_clean("the journal report", report.as_bytes(), &forms);
    }
    let outcome_json = serde_json::to_string(&outcome).unwrap();
    assert!(
        outcome_json.contains(r#""authorization":"[REDACTED]""#),
        "{outcome_json}"
    );
    assert_clean("the run outcome", outcome_json.as_bytes(), &forms);
}

#[test]
fn the_tool_logger_redacts_even_through_a_plain_writer() {
    let logs = Captured::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    let redactor = Redactor::new();
    redactor.register(&SecretString::from(CANARY.to_owned()));
    tracing::subscriber::with_default(subscriber, || {
        let logger = Logger::new("run-1", "step-1", redactor.clone());
        logger.info(format!("token={CANARY} b64={}", STANDARD.encode(CANARY)));
        logger.warn(format!("hex={}", hex::encode(CANARY)));
    });
    let text = String::from_utf8_lossy(&logs.0.lock().unwrap()).into_owned();
    assert!(
        text.contains("run_id=run-1") && text.contains("step_id=step-1"),
        "{text}"
    );
    assert_eq!(text.matches("[REDACTED]").count(), 3, "{text}");
    assert_clean("the logger output", text.as_bytes(), &forbidden_forms(&[]));
}
