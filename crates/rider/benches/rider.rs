//! Rider costs: a pure step, a journaled (effectful) step, and resuming a 1,000-step run.
//!
//! `cargo bench -p browserflow-rider` prints each figure with its target from the brief:
//! pure step: microseconds; journaled step: ≤ 1 ms; resume of 1,000 steps: ≤ 100 ms.
//! The journal is a real SQLite file (WAL, synchronous=NORMAL) in a temporary directory.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use browserflow_contract::{Capability, Kind};
use browserflow_flow::{FlowSpec, Plan, compile};
use browserflow_rider::{
    MapSecrets, Rider, RiderOptions, RunEvent, SqliteJournal, Tool, ToolCtx, ToolDef, ToolRegistry,
    define_tool,
};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

fn upper() -> impl Tool {
    define_tool(
        ToolDef::new("bench/upper", "1.0.0", Kind::Transform),
        |input: Text, _ctx| async move { Ok(input.text.to_uppercase()) },
    )
    .expect("valid tool")
}

/// An effectful tool (it holds `net`) whose effect is free, so the figure is the Rider's own
/// cost: context, validation, two journal commits.
fn effect() -> impl Tool {
    define_tool(
        ToolDef::new("bench/effect", "1.0.0", Kind::Http).capabilities([Capability::Net]),
        |input: Text, ctx: ToolCtx| async move {
            // A fixed-size output, so the chain's payloads do not grow from step to step.
            let head: String = input.text.chars().take(8).collect();
            Ok(format!("{head}:{}", &ctx.idempotency_key()[..8]))
        },
    )
    .expect("valid tool")
}

fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(upper).expect("upper");
    registry.register(effect).expect("effect");
    registry
}

/// A chain of `n` steps; `effectful(i)` picks the tool of step i.
fn chain(n: usize, effectful: impl Fn(usize) -> bool) -> Plan {
    let registry = registry();
    let steps: Vec<Value> = (0..n)
        .map(|i| {
            let uses = if effectful(i) {
                "bench/effect@1.0.0"
            } else {
                "bench/upper@1.0.0"
            };
            let text = if i == 0 {
                json!({"value": "start"})
            } else {
                json!({"from": format!("steps.s{}.output", i - 1)})
            };
            json!({"id": format!("s{i}"), "uses": uses, "with": {"text": text}})
        })
        .collect();
    let requires: Vec<Value> = ["bench/upper@1.0.0", "bench/effect@1.0.0"]
        .iter()
        .map(|r| json!({"ref": r, "contract_digest": registry.contract(r).expect("registered").contract_digest().to_string()}))
        .collect();
    let flow = json!({"name": "bench", "version": "1.0.0", "requires": requires, "steps": steps,
                      "output": {"from": format!("steps.s{}.output", n - 1)}});
    let spec = FlowSpec::from_json(&flow).expect("flow spec");
    compile(&spec, &registry.contract_registry().expect("contracts")).expect("flow compiles")
}

/// When the last step of the latest run finished, and when the run itself finished (after
/// writing its batched rows).
#[derive(Default)]
struct Marks {
    last_step: Option<Instant>,
    run_end: Option<Instant>,
}

fn rider(dir: &std::path::Path, marks: Arc<Mutex<Marks>>) -> Rider {
    let journal = Arc::new(SqliteJournal::open(dir.join("bench.sqlite")).expect("journal"));
    let options = RiderOptions {
        on_event: Some(Arc::new(move |event: &RunEvent| {
            let mut marks = marks.lock().expect("marks");
            match event {
                RunEvent::StepFinished { .. } => marks.last_step = Some(Instant::now()),
                RunEvent::RunFinished { .. } => marks.run_end = Some(Instant::now()),
                _ => {}
            }
        })),
        ..RiderOptions::default()
    };
    Rider::new(registry(), journal, Arc::new(MapSecrets::new()), options).expect("rider")
}

fn report(name: &str, per: Duration, target: &str, ok: bool) {
    let micros = per.as_secs_f64() * 1e6;
    let verdict = if ok { "meets" } else { "MISSES" };
    println!("{name:<34} {micros:>12.1} µs   target {target:<10} {verdict}");
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let marks = Arc::new(Mutex::new(Marks::default()));
    let rider = rider(dir.path(), marks.clone());
    const N: usize = 1000;
    const ROUNDS: u32 = 5;

    // Pure steps: 1,000 in a chain. Execution (validation, context, the tool) is timed up to
    // the last step's end; the rows for the report are written in one batch after it.
    let pure = chain(N, |_| false);
    runtime
        .block_on(rider.run(&pure, BTreeMap::new()))
        .expect("warm-up");
    let (mut executing, mut total) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..ROUNDS {
        let started = Instant::now();
        runtime
            .block_on(rider.run(&pure, BTreeMap::new()))
            .expect("pure run");
        total += started.elapsed();
        let marks = marks.lock().expect("marks");
        executing += marks.last_step.expect("a step finished") - started;
    }
    let pure_step = executing / (ROUNDS * N as u32);
    let pure_with_row = total / (ROUNDS * N as u32);

    // Journaled steps: every step effectful, two commits each.
    let journaled = chain(N / 5, |_| true);
    runtime
        .block_on(rider.run(&journaled, BTreeMap::new()))
        .expect("warm-up");
    let started = Instant::now();
    for _ in 0..ROUNDS {
        runtime
            .block_on(rider.run(&journaled, BTreeMap::new()))
            .expect("journaled run");
    }
    let journaled_step = started.elapsed() / (ROUNDS * (N / 5) as u32);

    // Resume: a 1,000-step run (every other step effectful), recorded, then resumed: 500
    // outcomes come from the journal, 500 pure steps are re-run.
    let mixed = chain(N, |i| i % 2 == 0);
    let mut resume_times = Vec::new();
    for _ in 0..ROUNDS {
        let outcome = runtime
            .block_on(rider.run(&mixed, BTreeMap::new()))
            .expect("mixed run");
        let started = Instant::now();
        let resumed = runtime
            .block_on(rider.resume(&outcome.run_id, &mixed))
            .expect("resume");
        resume_times.push(started.elapsed());
        assert_eq!(resumed.output, outcome.output);
        assert_eq!(resumed.steps_replayed, N / 2);
    }
    resume_times.sort();
    let resume = resume_times[resume_times.len() / 2];

    println!(
        "browserflow-rider benchmark ({ROUNDS} rounds; journal: SQLite WAL, synchronous=NORMAL)"
    );
    report(
        "pure step",
        pure_step,
        "µs",
        pure_step < Duration::from_micros(100),
    );
    report(
        "pure step + its batched report row",
        pure_with_row,
        "µs",
        pure_with_row < Duration::from_micros(100),
    );
    report(
        "journaled (effectful) step",
        journaled_step,
        "≤ 1 ms",
        journaled_step <= Duration::from_millis(1),
    );
    report(
        "resume of a 1,000-step run (median)",
        resume,
        "≤ 100 ms",
        resume <= Duration::from_millis(100),
    );
    println!(
        "ratios: journaled/pure = {:.1}x; resume per step = {:.1} µs",
        journaled_step.as_secs_f64() / pure_step.as_secs_f64(),
        resume.as_secs_f64() * 1e6 / N as f64
    );
}
