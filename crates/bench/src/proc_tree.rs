//! Memory of a process tree, read from `/proc` (Linux): the resident set of a process and all
//! its descendants, summed, and a background sampler that keeps the peak of that sum.
//!
//! Summed RSS counts pages shared between processes (Chromium's shared libraries, the zygote's
//! copy-on-write pages) once per process, as `ps` and most "peak memory" figures do. Every
//! system is measured the same way, so the comparison is fair; the absolute number is an upper
//! bound of the memory actually used.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// One reading of a process tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeSample {
    /// Summed resident set size, in bytes.
    pub rss_bytes: u64,
    /// How many processes the tree had (the root included, when alive).
    pub processes: usize,
}

/// The kernel's page size in bytes (`getconf PAGESIZE`; 4096 when that cannot be asked).
pub fn page_size() -> u64 {
    static PAGE: OnceLock<u64> = OnceLock::new();
    *PAGE.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("PAGESIZE")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(4096)
    })
}

/// `(parent pid, resident pages)` of `pid` from `/proc/PID/stat`, or `None` when it is gone.
pub fn parent_and_rss_pages(pid: u32) -> Option<(u32, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat)
}

/// Parses a `/proc/PID/stat` line into `(ppid, rss pages)`. The command name sits between the
/// first `(` and the last `)` and may itself contain spaces and parentheses.
pub fn parse_stat(stat: &str) -> Option<(u32, u64)> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields after the name start at field 3 (state); ppid is field 4, rss field 24.
    let ppid = fields.get(1)?.parse().ok()?;
    let rss = fields.get(21)?.parse().ok()?;
    Some((ppid, rss))
}

/// Every live process: pid → (ppid, rss pages).
fn all_processes() -> HashMap<u32, (u32, u64)> {
    let mut table = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return table;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(info) = parent_and_rss_pages(pid) {
            table.insert(pid, info);
        }
    }
    table
}

/// The pids of `root` and all its descendants that are alive now (`root` first).
pub fn descendants(root: u32) -> Vec<u32> {
    tree_of(root, &all_processes())
}

fn tree_of(root: u32, table: &HashMap<u32, (u32, u64)>) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&pid, &(ppid, _)) in table {
        children.entry(ppid).or_default().push(pid);
    }
    let mut tree = Vec::new();
    let mut queue = vec![root];
    if !table.contains_key(&root) {
        return tree;
    }
    while let Some(pid) = queue.pop() {
        tree.push(pid);
        if let Some(kids) = children.get(&pid) {
            queue.extend(kids.iter().copied());
        }
    }
    tree
}

/// The summed RSS of `root` and its descendants now; zero processes when `root` is gone.
pub fn sample_tree(root: u32) -> TreeSample {
    let table = all_processes();
    let tree = tree_of(root, &table);
    let pages: u64 = tree
        .iter()
        .filter_map(|pid| table.get(pid))
        .map(|t| t.1)
        .sum();
    TreeSample {
        rss_bytes: pages * page_size(),
        processes: tree.len(),
    }
}

/// The RSS of `pid` alone (no descendants).
pub fn sample_process(pid: u32) -> TreeSample {
    match parent_and_rss_pages(pid) {
        Some((_, pages)) => TreeSample {
            rss_bytes: pages * page_size(),
            processes: 1,
        },
        None => TreeSample::default(),
    }
}

/// What a [`PeakSampler`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Peak {
    /// The largest summed RSS of any one sample, in bytes.
    pub rss_bytes: u64,
    /// The most processes seen in one sample.
    pub processes: usize,
    /// How many samples were taken.
    pub samples: usize,
}

/// Which processes a [`PeakSampler`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The process and all its descendants.
    Tree(u32),
    /// The process alone.
    Process(u32),
}

impl Scope {
    fn sample(self) -> TreeSample {
        match self {
            Scope::Tree(pid) => sample_tree(pid),
            Scope::Process(pid) => sample_process(pid),
        }
    }
}

/// Samples a process (tree) every `interval` on a background thread and keeps the peak.
#[derive(Debug)]
pub struct PeakSampler {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Peak>>,
}

impl PeakSampler {
    /// Starts sampling `scope` now (the first sample is taken immediately).
    pub fn start(scope: Scope, interval: Duration) -> std::io::Result<PeakSampler> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("peak-sampler".into())
            .spawn(move || {
                let mut peak = Peak::default();
                loop {
                    let sample = scope.sample();
                    peak.rss_bytes = peak.rss_bytes.max(sample.rss_bytes);
                    peak.processes = peak.processes.max(sample.processes);
                    peak.samples += 1;
                    if flag.load(Ordering::SeqCst) {
                        return peak;
                    }
                    std::thread::sleep(interval);
                }
            })?;
        Ok(PeakSampler {
            stop,
            thread: Some(thread),
        })
    }

    /// Stops sampling (after one last sample) and returns the peak.
    pub fn stop(mut self) -> Peak {
        self.stop.store(true, Ordering::SeqCst);
        self.thread
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for PeakSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
