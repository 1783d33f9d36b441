//! The tables the harness prints (Markdown, so they can be pasted into BENCHMARKS.md).

use std::fmt::Write;

use crate::batch::{BatchResults, BatchSystem, quantile};
use crate::cold::SystemRuns;
use crate::proc_tree::Peak;
use crate::stats::{Summary, ratio};
use crate::warm::WarmReport;

/// Names the table gives special meaning.
pub const BROWSERFLOW: &str = "browserflow";
/// The raw-CDP floor.
pub const FLOOR: &str = "floor (raw CDP)";
/// The name of the optional second `bflow` (`--baseline-bflow`).
pub const BASELINE: &str = "browserflow (baseline)";

fn mib(bytes: f64) -> f64 {
    bytes / (1024.0 * 1024.0)
}

fn ms_cell(s: &Summary) -> String {
    format!(
        "{:.0} ({:.0}–{:.0}, IQR {:.0})",
        s.median,
        s.min,
        s.max,
        s.iqr()
    )
}

fn mib_cell(s: &Summary) -> String {
    format!("{:.0} ({:.0}–{:.0})", s.median, s.min, s.max)
}

fn wall_ms(runs: &SystemRuns) -> Option<Summary> {
    let values: Vec<f64> = runs
        .runs
        .iter()
        .map(|r| r.wall.as_secs_f64() * 1000.0)
        .collect();
    Summary::of(&values)
}

fn peak_mib(runs: &SystemRuns) -> Option<Summary> {
    let values: Vec<f64> = runs
        .runs
        .iter()
        .map(|r| mib(r.peak.rss_bytes as f64))
        .collect();
    Summary::of(&values)
}

/// The cold table: per system the median (min–max, IQR) wall time and peak RSS of the process
/// tree, and browserflow's ratio to it; then browserflow's overhead above the floor.
pub fn cold_table(results: &[SystemRuns], steps: usize) -> String {
    let mut out = String::new();
    let ours = results
        .iter()
        .find(|r| r.name == BROWSERFLOW)
        .and_then(wall_ms);
    let _ = writeln!(
        out,
        "| system | runs ok/failed | wall ms: median (min–max, IQR) | peak RSS MiB of the process tree: median (min–max) | peak processes | browserflow ÷ system (median wall) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for system in results {
        let wall = wall_ms(system);
        let memory = peak_mib(system);
        let processes = system
            .runs
            .iter()
            .map(|r| r.peak.processes)
            .max()
            .unwrap_or(0);
        let relative = match (&ours, &wall) {
            (Some(o), Some(w)) if system.name != BROWSERFLOW => {
                ratio(o.median, w.median).map_or("–".into(), |r| format!("{r:.2}×"))
            }
            _ => "–".into(),
        };
        let _ = writeln!(
            out,
            "| {} | {}/{} | {} | {} | {} | {} |",
            system.name,
            system.runs.len(),
            system.failures.len(),
            wall.as_ref().map_or("–".into(), ms_cell),
            memory.as_ref().map_or("–".into(), mib_cell),
            processes,
            relative
        );
    }
    let baseline = results
        .iter()
        .find(|r| r.name == BASELINE)
        .and_then(wall_ms);
    if let (Some(ours), Some(baseline)) = (&ours, baseline) {
        let verdict = if ours.median <= baseline.median + baseline.iqr() {
            "no slower (within the baseline's IQR)"
        } else {
            "SLOWER than the baseline by more than its IQR"
        };
        let _ = writeln!(
            out,
            "\nbrowserflow against the baseline binary (medians): {:.0} ms vs {:.0} ms, {}: {verdict}.",
            ours.median,
            baseline.median,
            ratio(ours.median, baseline.median).map_or("–".into(), |r| format!("{r:.2}×"))
        );
    }
    let floor = results.iter().find(|r| r.name == FLOOR).and_then(wall_ms);
    if let (Some(ours), Some(floor)) = (ours, floor) {
        let over = ours.median - floor.median;
        let _ = writeln!(
            out,
            "\nbrowserflow above the floor (medians): {over:.0} ms in total, {:.1} ms per step over {steps} steps.",
            over / steps.max(1) as f64
        );
    }
    out
}

/// The peers the acceptance targets compare against (not the floor, not the baseline).
const PEERS: [&str; 2] = ["@puppeteer/replay", "playwright"];

fn cpu_seconds(runs: &SystemRuns) -> Option<Summary> {
    let values: Vec<f64> = runs
        .runs
        .iter()
        .filter_map(|r| r.cost.map(|c| c.cpu_seconds))
        .collect();
    Summary::of(&values)
}

fn cgroup_peak_mib(runs: &SystemRuns) -> Option<Summary> {
    let values: Vec<f64> = runs
        .runs
        .iter()
        .filter_map(|r| r.cost.map(|c| mib(c.peak_bytes as f64)))
        .collect();
    Summary::of(&values)
}

/// What each cold run cost, measured by its cgroup (every process it started, those that
/// outlived it included), then browserflow against the cheaper and the faster peer: the
/// targets are CPU ≤ 0.5× the cheaper peer's and wall ≤ 0.5× the faster peer's (medians).
/// `None` when no run was measured in a cgroup.
pub fn cold_cost_table(results: &[SystemRuns]) -> Option<String> {
    if results.iter().all(|r| cpu_seconds(r).is_none()) {
        return None;
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| system | CPU-s of the whole tree: median (min–max) | peak memory MiB, cgroup: median (min–max) | processes left at exit (killed after 5 s) |"
    );
    let _ = writeln!(out, "|---|---|---|---|");
    for system in results {
        let cpu = cpu_seconds(system);
        let memory = cgroup_peak_mib(system);
        let outlived: usize = system
            .runs
            .iter()
            .filter_map(|r| r.cost.map(|c| c.outlived))
            .sum();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            system.name,
            cpu.map_or("–".into(), |s| format!(
                "{:.2} ({:.2}–{:.2})",
                s.median, s.min, s.max
            )),
            memory.as_ref().map_or("–".into(), mib_cell),
            outlived
        );
    }
    let ours = results.iter().find(|r| r.name == BROWSERFLOW);
    let peers: Vec<&SystemRuns> = results
        .iter()
        .filter(|r| PEERS.contains(&r.name.as_str()))
        .collect();
    let cheaper_cpu = peers
        .iter()
        .filter_map(|p| cpu_seconds(p).map(|s| (p.name.as_str(), s.median)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let faster_wall = peers
        .iter()
        .filter_map(|p| wall_ms(p).map(|s| (p.name.as_str(), s.median)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some(ours) = ours {
        if let (Some(cpu), Some((peer, theirs))) = (cpu_seconds(ours), cheaper_cpu) {
            let r = cpu.median / theirs;
            let _ = writeln!(
                out,
                "
CPU: browserflow {:.2} s vs the cheaper peer ({peer}) {theirs:.2} s: {r:.2}× — target ≤ 0.50×: {}.",
                cpu.median,
                if r <= 0.5 { "met" } else { "NOT met" }
            );
        }
        if let (Some(wall), Some((peer, theirs))) = (wall_ms(ours), faster_wall) {
            let r = wall.median / theirs;
            let _ = writeln!(
                out,
                "Wall: browserflow {:.0} ms vs the faster peer ({peer}) {theirs:.0} ms: {r:.2}× — target ≤ 0.50×: {}.",
                wall.median,
                if r <= 0.5 { "met" } else { "NOT met" }
            );
        }
    }
    Some(out)
}

/// The warm tables: sequential replays with per-step medians, then concurrency levels.
pub fn warm_tables(warm: &WarmReport) -> String {
    let mut out = String::new();
    if let Some(s) = Summary::of(&warm.sequential.replay_ms) {
        let _ = writeln!(
            out,
            "browserflow warm (one browser, new context per replay, {} replays): {} ms per replay\n",
            s.count,
            ms_cell(&s)
        );
    }
    let _ = writeln!(out, "| step (warm) | median ms | min–max ms |");
    let _ = writeln!(out, "|---|---|---|");
    for (step, values) in &warm.sequential.steps_ms {
        if let Some(s) = Summary::of(values) {
            let _ = writeln!(
                out,
                "| {step} | {:.1} | {:.1}–{:.1} |",
                s.median, s.min, s.max
            );
        }
    }
    let _ = writeln!(
        out,
        "\n| replays at once (one warm browser) | throughput replays/s: median (min–max) | latency ms: median (max) | peak RSS MiB, benchmark process | peak RSS MiB, Chromium tree (processes) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    for level in &warm.levels {
        let throughput = Summary::of(&level.throughput);
        let latency = Summary::of(&level.latency_ms);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.0} | {} |",
            level.concurrency,
            throughput.map_or("–".into(), |s| format!(
                "{:.2} ({:.2}–{:.2})",
                s.median, s.min, s.max
            )),
            latency.map_or("–".into(), |s| format!("{:.0} ({:.0})", s.median, s.max)),
            mib(level.ours.rss_bytes as f64),
            peak_cell(&level.chromium)
        );
    }
    out
}

fn peak_cell(peak: &Peak) -> String {
    format!("{:.0} ({})", mib(peak.rss_bytes as f64), peak.processes)
}

/// The batch table: per concurrency level and system, rows right, throughput, row latency
/// p50/p95, CPU-seconds per row and peak memory (cgroup); then the targets: at concurrency 4
/// throughput ≥ 2× the faster peer's and CPU per row ≤ 0.5× the cheaper peer's; at
/// concurrency 8 peak memory ≤ the cheaper peer's.
pub fn batch_table(results: &[BatchResults]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| rows at once | system | rows right / rows (batches failed) | throughput rows/s: median (min–max) | row latency ms: p50 / p95 | CPU-s per row: median | peak memory MiB (cgroup): median |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for level in results {
        let (right, total) = level.right_of();
        let rows = level.row_ms();
        let _ = writeln!(
            out,
            "| {} | {} | {right}/{total} ({}) | {} | {} / {} | {} | {} |",
            level.concurrency,
            level.system.name(),
            level.failures.len(),
            level.throughput().map_or("–".into(), |s| format!(
                "{:.2} ({:.2}–{:.2})",
                s.median, s.min, s.max
            )),
            quantile(&rows, 0.5).map_or("–".into(), |v| format!("{v:.0}")),
            quantile(&rows, 0.95).map_or("–".into(), |v| format!("{v:.0}")),
            level
                .cpu_per_row()
                .map_or("–".into(), |s| format!("{:.3}", s.median)),
            level
                .peak_bytes()
                .map_or("–".into(), |s| format!("{:.0}", mib(s.median))),
        );
    }
    let at = |concurrency: usize, system: BatchSystem| {
        results
            .iter()
            .find(|r| r.concurrency == concurrency && r.system == system)
    };
    let peers = [BatchSystem::Playwright, BatchSystem::Puppeteer];
    let best_peer =
        |concurrency: usize, value: &dyn Fn(&BatchResults) -> Option<f64>, highest: bool| {
            peers
                .iter()
                .filter_map(|&p| at(concurrency, p).and_then(|r| value(r).map(|v| (p.name(), v))))
                .reduce(|a, b| if (b.1 > a.1) == highest { b } else { a })
        };
    let throughput = |r: &BatchResults| r.throughput().map(|s| s.median);
    let cpu = |r: &BatchResults| r.cpu_per_row().map(|s| s.median);
    let memory = |r: &BatchResults| r.peak_bytes().map(|s| s.median);
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    if let (Some(ours), Some((peer, theirs))) = (
        at(4, BatchSystem::Browserflow).and_then(throughput),
        best_peer(4, &throughput, true),
    ) {
        let r = ours / theirs;
        let _ = writeln!(
            out,
            "\nThroughput at 4 rows at once: browserflow {ours:.2} rows/s vs the faster peer ({peer}) {theirs:.2}: {r:.2}× — target ≥ 2×: {}.",
            verdict(r >= 2.0)
        );
    }
    if let (Some(ours), Some((peer, theirs))) = (
        at(4, BatchSystem::Browserflow).and_then(cpu),
        best_peer(4, &cpu, false),
    ) {
        let r = ours / theirs;
        let _ = writeln!(
            out,
            "CPU per row at 4 rows at once: browserflow {ours:.3} s vs the cheaper peer ({peer}) {theirs:.3} s: {r:.2}× — target ≤ 0.5×: {}.",
            verdict(r <= 0.5)
        );
    }
    if let (Some(ours), Some((peer, theirs))) = (
        at(8, BatchSystem::Browserflow).and_then(memory),
        best_peer(8, &memory, false),
    ) {
        let _ = writeln!(
            out,
            "Peak memory at 8 rows at once: browserflow {:.0} MiB vs the cheaper peer ({peer}) {:.0} MiB — target ≤: {}.",
            mib(ours),
            mib(theirs),
            verdict(ours <= theirs)
        );
    }
    out
}
