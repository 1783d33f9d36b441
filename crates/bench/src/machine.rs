//! What the benchmark ran on: CPU, cores, memory, kernel, load average, tool versions.

use std::process::Command;

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`), as printed there.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".into())
}

/// One line per fact: CPU model and cores, memory, kernel, Chromium and Node versions.
pub fn describe(chrome: &str) -> Vec<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|l| l.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or("unknown".into(), |kb| {
            format!("{:.1} GiB", kb as f64 / 1048576.0)
        });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    vec![
        format!("CPU: {model}, {cores} cores available"),
        format!("memory: {memory}; Linux {kernel}"),
        format!("chromium: {}", version_of(chrome, "--version")),
        format!("node: {}", version_of("node", "--version")),
    ]
}

fn version_of(program: &str, flag: &str) -> String {
    Command::new(program)
        .arg(flag)
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|s| s.lines().next().unwrap_or_default().trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}
