//! `browserflow-bench`: serves the fixture shop, runs the cold comparison (browserflow,
//! @puppeteer/replay, Playwright, the raw-CDP floor) interleaved over `--runs` rounds, then the
//! warm and concurrency measurements, and prints Markdown tables.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use browserflow_bench::batch::{Rows, run_batches};
use browserflow_bench::cold::{ColdRun, ColdSystem, RunError, run_interleaved};
use browserflow_bench::systems::{
    Layout, baseline_system, cold_systems, write_playwright_script, write_rebased_tool,
};
use browserflow_bench::warm::{Journey, run_warm};
use browserflow_bench::{machine, report};
use browserflow_shop::serve_shop;
use browserflow_steps::ToolFile;
use clap::Parser;
use serde_json::json;

/// The repository root, as built.
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
/// The journey's search; the DevTools and Playwright fixtures are recorded with it.
const QUERY: &str = "keyboard";
/// What every system must extract for a run to count.
const PRICE: &str = "89.99";

#[derive(Parser)]
#[command(
    about = "Benchmark browserflow against @puppeteer/replay, Playwright and a raw-CDP floor"
)]
struct Args {
    /// Rounds of the interleaved cold comparison (each round runs every system once).
    #[arg(long, default_value_t = 7)]
    runs: usize,
    /// Sequential warm replays.
    #[arg(long, default_value_t = 10)]
    warm_runs: usize,
    /// Concurrency levels on one warm browser.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16")]
    concurrency: Vec<usize>,
    /// Rounds per concurrency level.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Memory sampling interval in milliseconds.
    #[arg(long, default_value_t = 5)]
    sample_ms: u64,
    /// Where to serve the fixture shop (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// The `bench/` directory (peer scripts, node_modules, journeys).
    #[arg(long)]
    bench_dir: Option<PathBuf>,
    /// The tool to replay.
    #[arg(long)]
    tool: Option<PathBuf>,
    /// The `bflow` binary (default: next to this one).
    #[arg(long)]
    bflow: Option<PathBuf>,
    /// Another `bflow` to run beside this one in the same interleaved rounds, as
    /// "browserflow (baseline)": for example a release build of the previous commit, to show
    /// a change is no slower.
    #[arg(long)]
    baseline_bflow: Option<PathBuf>,
    /// The tool the baseline `bflow` replays (default: `--tool`): the same journey written
    /// without the fields the baseline predates.
    #[arg(long, requires = "baseline_bflow")]
    baseline_tool: Option<PathBuf>,
    /// The `bench-floor` binary (default: next to this one).
    #[arg(long)]
    floor: Option<PathBuf>,
    /// Chromium.
    #[arg(long, default_value = "/usr/bin/chromium")]
    chrome: PathBuf,
    /// Node.js.
    #[arg(long, default_value = "node")]
    node: PathBuf,
    /// Skip the cold comparison.
    #[arg(long)]
    no_cold: bool,
    /// Skip the warm and concurrency measurements.
    #[arg(long)]
    no_warm: bool,
    /// Rows of each batch of the batch comparison.
    #[arg(long, default_value_t = 100)]
    batch_rows: usize,
    /// Rows at once in the batch comparison.
    #[arg(long, value_delimiter = ',', default_value = "1,4,8")]
    batch_concurrency: Vec<usize>,
    /// Batches per system and level.
    #[arg(long, default_value_t = 1)]
    batch_rounds: usize,
    /// Skip the batch comparison.
    #[arg(long)]
    no_batch: bool,
}

fn sibling(name: &str) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(name)))
        .unwrap_or_else(|| PathBuf::from(name))
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("browserflow-bench: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let repo = Path::new(REPO);
    let layout = Layout {
        bench_dir: args.bench_dir.clone().unwrap_or_else(|| repo.join("bench")),
        bflow: args.bflow.clone().unwrap_or_else(|| sibling("bflow")),
        floor: args.floor.clone().unwrap_or_else(|| sibling("bench-floor")),
        chrome: args.chrome.clone(),
        node: args.node.clone(),
    };
    let tool_path = args
        .tool
        .clone()
        .unwrap_or_else(|| repo.join("recordings/search-price@1.2.0.json"));
    let tool = ToolFile::load(&tool_path)
        .map_err(|e| format!("cannot read the tool {}: {e}", tool_path.display()))?;
    let shop = serve_shop(args.addr)
        .map_err(|e| format!("cannot serve the fixture shop on {}: {e}", args.addr))?;
    let origin = shop.origin();
    let scratch = tempfile::Builder::new()
        .prefix("browserflow-bench-")
        .tempdir()?;
    let rebased = write_rebased_tool(&tool, &origin, scratch.path())?;
    let playwright = write_playwright_script(&tool, scratch.path())?;
    let interval = Duration::from_millis(args.sample_ms.max(1));

    println!("# browserflow benchmark\n");
    println!("- started: {} (unix time)", unix_now());
    for line in machine::describe(&layout.chrome.display().to_string()) {
        println!("- {line}");
    }
    println!("- load average at start: {}", machine::load_average());
    println!(
        "- shop: {origin}; journey: {} ({} steps)",
        tool.contract.reference(),
        tool.steps.len()
    );
    println!(
        "- memory sampled every {} ms (summed RSS of the process tree)\n",
        interval.as_millis()
    );

    if !args.no_cold {
        let mut systems = cold_systems(&layout, &rebased, &playwright, &origin, QUERY, PRICE);
        if let Some(baseline) = &args.baseline_bflow {
            let baseline_tool = match &args.baseline_tool {
                Some(path) => {
                    let tool = ToolFile::load(path)
                        .map_err(|e| format!("cannot read the tool {}: {e}", path.display()))?;
                    let dir = scratch.path().join("baseline");
                    std::fs::create_dir_all(&dir)?;
                    Some(write_rebased_tool(&tool, &origin, &dir)?)
                }
                None => None,
            };
            systems.insert(
                1,
                baseline_system(&systems[0], baseline, baseline_tool.as_deref()),
            );
        }
        for system in &systems {
            println!("- `{}`: `{}`", system.name, system.command_line());
        }
        println!();
        let started = Instant::now();
        let results = run_interleaved(&systems, args.runs, interval, progress);
        eprintln!(
            "cold comparison took {:.0} s",
            started.elapsed().as_secs_f64()
        );
        println!(
            "## Cold: whole process, fresh Chromium ({} interleaved rounds)\n",
            args.runs
        );
        print!("{}", report::cold_table(&results, tool.steps.len()));
        match report::cold_cost_table(&results) {
            Some(table) => {
                println!("\n### Cold: what each run cost, measured by its cgroup\n");
                print!("{table}");
            }
            None => {
                let why = browserflow_bench::cgroup::RunCgroup::create()
                    .err()
                    .map_or("unknown".into(), |e| e.to_string());
                println!("\nCPU and cgroup memory: NOT MEASURED ({why}).");
            }
        }
        for system in &results {
            for failure in system.failures.iter().take(2) {
                println!("\n{} failure: {failure}", system.name);
            }
        }
        println!(
            "\nload average after the cold runs: {}\n",
            machine::load_average()
        );
    }

    if !args.no_batch {
        let rows = Rows::write(scratch.path(), args.batch_rows)?;
        let started = Instant::now();
        let results = run_batches(
            &layout,
            &rebased,
            &origin,
            &rows,
            &args.batch_concurrency,
            args.batch_rounds,
            scratch.path(),
            |system, concurrency, outcome| match outcome {
                Ok(run) => eprintln!(
                    "batch {concurrency}×: {:<12} {}/{} right in {:.1} s ({:.2} rows/s){}",
                    system.name(),
                    run.right,
                    run.total,
                    run.wall.as_secs_f64(),
                    run.throughput(),
                    run.cost.map_or(String::new(), |c| format!(
                        ", {:.1} CPU-s, {:.0} MiB",
                        c.cpu_seconds,
                        c.peak_bytes as f64 / 1048576.0
                    ))
                ),
                Err(why) => eprintln!("batch {concurrency}×: {} FAILED: {why}", system.name()),
            },
        );
        eprintln!(
            "batch comparison took {:.0} s",
            started.elapsed().as_secs_f64()
        );
        println!(
            "## Batch: {} rows on one browser, a context per row ({} batch(es) per system and level, interleaved)\n",
            args.batch_rows, args.batch_rounds
        );
        print!("{}", report::batch_table(&results));
        for level in &results {
            for run in &level.runs {
                for wrong in &run.wrong {
                    println!(
                        "\n{} at {}: {wrong}",
                        level.system.name(),
                        level.concurrency
                    );
                }
            }
            for failure in &level.failures {
                println!(
                    "\n{} at {} failed: {failure}",
                    level.system.name(),
                    level.concurrency
                );
            }
        }
        println!(
            "\nload average after the batches: {}\n",
            machine::load_average()
        );
    }

    if !args.no_warm {
        let journey = Journey {
            steps: tool.rebase_to(&origin).steps,
            inputs: json!({ "query": QUERY })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            expected_price: json!(89.99),
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let warm = runtime.block_on(run_warm(
            &journey,
            args.warm_runs,
            &args.concurrency,
            args.rounds,
            interval,
        ))?;
        println!("## Warm: one browser, in process\n");
        print!("{}", report::warm_tables(&warm));
        println!("\nload average at the end: {}", machine::load_average());
    }
    Ok(())
}

fn progress(round: usize, system: &ColdSystem, outcome: &Result<ColdRun, RunError>) {
    match outcome {
        Ok(run) => eprintln!(
            "round {}: {:<20} {:>7.0} ms {:>6.0} MiB {}",
            round + 1,
            system.name,
            run.wall.as_secs_f64() * 1000.0,
            run.peak.rss_bytes as f64 / 1048576.0,
            run.cost.map_or(String::new(), |c| format!(
                "{:.2} CPU-s {:.0} MiB (cgroup)",
                c.cpu_seconds,
                c.peak_bytes as f64 / 1048576.0
            ))
        ),
        Err(error) => eprintln!("round {}: {} FAILED: {error}", round + 1, system.name),
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
