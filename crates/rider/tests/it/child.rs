//! The child process of the crash and divergence tests: this test binary, re-executed with
//! `BF_CHILD` set. It runs or resumes the crash-test flow against a real journal file and a
//! real server, printing `RUN_ID …`, then `OUTCOME …` or `FAILURE …`; with
//! `BROWSERFLOW_CRASH_AT=point:step` it prints `CRASH_POINT …` at that point and blocks there
//! until the test kills it. With `"pause_at": "point:step"` in the spec it prints `PAUSED …`
//! there and waits for a line on its stdin (the fencing tests stop it with SIGSTOP
//! meanwhile), then goes on; `"ttl_ms"` sets its lease's time to live; the variant
//! `slow_first` makes the step `first` post to `/slow/MS` (MS = `"slow_ms"`).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use browserflow_flow::Bound;
use browserflow_rider::{
    ChainSecrets, CrashPoint, JournalLocation, RiderOptions, RunEvent, ToolRegistry,
};
use serde_json::{Value, json};

use crate::tools::{
    compile_flow, crash_flow, fast_options, post, post_changed, rider_at, shape, slugify,
};

#[test]
#[ignore = "entry point of the crash tests' child processes; does nothing unless BF_CHILD is set"]
fn runner() {
    let Ok(spec) = std::env::var("BF_CHILD") else {
        return;
    };
    let spec: Value = serde_json::from_str(&spec).expect("BF_CHILD is JSON");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run(spec));
}

fn say(line: String) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

async fn run(spec: Value) {
    let text = |key: &str| spec[key].as_str().unwrap_or_default().to_owned();
    let mut registry = ToolRegistry::new();
    registry.register(slugify).unwrap();
    registry.register(shape).unwrap();
    if text("variant") == "changed" {
        registry.register(post_changed).unwrap();
    } else {
        registry.register(post).unwrap();
    }
    let mut flow = crash_flow();
    if text("variant") == "slow_first" {
        let ms = spec["slow_ms"].as_u64().unwrap_or(1000);
        flow["steps"][1]["with"]["url"] =
            json!({"template": format!("{{input.server}}/slow/{ms}")});
    }
    let plan = compile_flow(&registry, flow);
    let crash_at = std::env::var("BROWSERFLOW_CRASH_AT")
        .ok()
        .and_then(|value| {
            let (point, step) = value.split_once(':')?;
            Some((CrashPoint::parse(point)?, step.to_owned()))
        });
    let mut options = RiderOptions {
        on_event: Some(Arc::new(|event: &RunEvent| {
            if let RunEvent::RunStarted { run_id, .. } = event {
                say(format!("RUN_ID {run_id}"));
            }
        })),
        ..fast_options()
    };
    if let Some(ms) = spec["ttl_ms"].as_u64() {
        options.lease_ttl = std::time::Duration::from_millis(ms);
    }
    let pause_at = spec["pause_at"].as_str().and_then(|value| {
        let (point, step) = value.split_once(':')?;
        Some((CrashPoint::parse(point)?, step.to_owned()))
    });
    if let Some((wanted, wanted_step)) = pause_at {
        options.crash_hook = Some(Arc::new(move |point, step| {
            if point == wanted && step == wanted_step {
                say(format!("PAUSED {} {step}", point.as_str()));
                // Wait for the test's word (it stops and continues this process meanwhile).
                let mut line = String::new();
                let _ = std::io::stdin().read_line(&mut line);
            }
        }));
    }
    if let Some((wanted, wanted_step)) = crash_at {
        options.crash_hook = Some(Arc::new(move |point, step| {
            if point == wanted && step == wanted_step {
                say(format!("CRASH_POINT {} {step}", point.as_str()));
                // Block here: the test kills the process with SIGKILL.
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                }
            }
        }));
    }
    let secrets = ChainSecrets::standard(None).expect("env secrets");
    let rider = rider_at(
        registry,
        &JournalLocation::parse(&text("journal")).unwrap(),
        secrets,
        options,
    );
    let result = if text("mode") == "resume" {
        rider.resume(&text("run_id"), &plan).await
    } else {
        let inputs: BTreeMap<String, Bound> = [
            (
                "title".to_owned(),
                Bound::Value(json!("Crash Test: Title!")),
            ),
            ("server".to_owned(), Bound::Value(json!(text("server")))),
        ]
        .into();
        rider.run(&plan, inputs).await
    };
    match result {
        Ok(outcome) => say(format!(
            "OUTCOME {}",
            serde_json::to_string(&outcome).unwrap()
        )),
        Err(failure) => say(format!(
            "FAILURE {}",
            json!({"run_id": failure.run_id, "code": failure.code(), "message": failure.message})
        )),
    }
}
