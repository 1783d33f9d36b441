use std::path::PathBuf;
use std::time::Duration;

use browserflow_bench::cold::{ColdSystem, RunError, run_interleaved, run_once};

fn shell(name: &str, script: &str, expect: &str) -> ColdSystem {
    ColdSystem {
        name: name.into(),
        program: PathBuf::from("sh"),
        args: vec!["-c".into(), script.into()],
        env: vec![("BENCH_TEST_PRICE".into(), "89.99".into())],
        expect: expect.into(),
    }
}

#[test]
fn a_run_counts_when_the_process_succeeds_and_prints_the_expected_text() {
    let system = shell("ok", "sleep 0.2; echo \"price $BENCH_TEST_PRICE\"", "89.99");
    let run = run_once(&system, Duration::from_millis(5)).expect("run");
    assert!(
        run.wall >= Duration::from_millis(200),
        "wall {:?}",
        run.wall
    );
    assert!(run.wall < Duration::from_secs(5));
    assert!(run.peak.samples > 0);
}

#[test]
fn a_run_fails_on_a_wrong_output_or_a_bad_exit_status() {
    let wrong = run_once(
        &shell("wrong", "echo 59.00", "89.99"),
        Duration::from_millis(5),
    );
    assert!(matches!(wrong, Err(RunError::Failed { ref stdout, .. }) if stdout == "59.00"));
    let crashed = run_once(
        &shell("crashed", "echo 89.99; echo boom >&2; exit 3", "89.99"),
        Duration::from_millis(5),
    );
    match crashed {
        Err(RunError::Failed { status, stderr, .. }) => {
            assert!(status.contains('3'), "status {status}");
            assert_eq!(stderr, "boom");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn interleaving_runs_every_system_every_round_starting_with_a_different_one() {
    let systems = [
        shell("a", "echo 89.99", "89.99"),
        shell("b", "echo 89.99", "89.99"),
    ];
    let mut order = Vec::new();
    let results = run_interleaved(&systems, 3, Duration::from_millis(5), |round, system, _| {
        order.push((round, system.name.clone()))
    });
    let names: Vec<String> = order.iter().map(|(_, n)| n.clone()).collect();
    assert_eq!(names, ["a", "b", "b", "a", "a", "b"]);
    assert!(
        results
            .iter()
            .all(|r| r.runs.len() == 3 && r.failures.is_empty())
    );
}
