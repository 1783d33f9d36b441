//! `cargo bench -p browserflow-bench --bench replay`: the search-price journey on the embedded
//! shop, cold and warm, with per-step times, printed as a table (screenshots off, then on).
//!
//! `BENCH_COLD`, `BENCH_WARM` override the number of runs; `BENCH_JSON=1` also prints the
//! figures as JSON.

use browserflow_bench::replay_bench::{BenchOptions, replay_bench};
use browserflow_replay::ReplayOptions;

fn runs(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo test --benches` runs bench targets with `--bench` absent: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    for screenshots in [false, true] {
        let options = BenchOptions {
            cold_runs: if quick { 1 } else { runs("BENCH_COLD", 5) },
            warm_runs: if quick { 2 } else { runs("BENCH_WARM", 20) },
            floor_samples: if quick { 10 } else { 200 },
            replay: ReplayOptions {
                screenshots,
                ..ReplayOptions::default()
            },
            ..BenchOptions::default()
        };
        let summary = replay_bench(&options).await?;
        println!("{}", summary.table());
        if std::env::var_os("BENCH_JSON").is_some() {
            println!("{}", serde_json::to_string_pretty(&summary)?);
        }
    }
    Ok(())
}
