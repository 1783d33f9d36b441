//! CPU time and peak memory of everything a run starts, measured by the kernel: the run's
//! process joins a cgroup of its own (v1 `cpuacct` and `memory` hierarchies) before it execs,
//! so every process it starts — Chromium's zygote, renderers, GPU and network services, and
//! whatever outlives the main process — is charged to it. `/proc` sampling ([`crate::proc_tree`])
//! misses processes that start and end between two samples and everything reparented away
//! from the tree; the cgroup misses nothing.
//!
//! Needs root and the v1 hierarchies mounted writable at `/sys/fs/cgroup/{cpuacct,memory}`;
//! elsewhere [`RunCgroup::create`] says why not, and the figures are reported as not measured.
//!
//! Memory is `memory.max_usage_in_bytes`: the cgroup's peak charge, which includes page cache
//! the run itself brought in (files read for the first time) besides anonymous memory and
//! `/dev/shm`. Shared pages are counted once, unlike summed RSS.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const CPUACCT: &str = "/sys/fs/cgroup/cpuacct";
const MEMORY: &str = "/sys/fs/cgroup/memory";

/// What a run cost, measured by its cgroup.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CgroupUsage {
    /// CPU time of every process of the run, user and system.
    pub cpu_seconds: f64,
    /// The peak memory charged to the run.
    pub peak_bytes: u64,
    /// Processes still alive when the main one had exited and the grace ran out (killed).
    pub outlived: usize,
}

/// Why a run could not be measured in a cgroup.
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    /// The v1 hierarchy is not there or not writable (not root, cgroup v2 only).
    #[error("no writable cgroup v1 {hierarchy} hierarchy at {path}: {source}")]
    Unavailable {
        /// `cpuacct` or `memory`.
        hierarchy: &'static str,
        /// Where it was looked for.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// Reading a counter failed.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

/// A pair of cgroups (cpuacct, memory) for one run, removed when dropped.
#[derive(Debug)]
pub struct RunCgroup {
    cpu: PathBuf,
    memory: PathBuf,
}

/// How long processes a run leaves behind may take to end before they are killed (they are
/// charged to the run either way).
pub const OUTLIVE_GRACE: Duration = Duration::from_secs(5);

/// `program args` in `cgroup` when there is one ([`RunCgroup::command`]), plainly otherwise.
pub fn command_in(cgroup: Option<&RunCgroup>, program: &Path, args: &[String]) -> Command {
    match cgroup {
        Some(cgroup) => cgroup.command(program, args),
        None => {
            let mut command = Command::new(program);
            command.args(args);
            command
        }
    }
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl RunCgroup {
    /// Fresh cgroups for one run.
    pub fn create() -> Result<RunCgroup, CgroupError> {
        let name = format!(
            "browserflow-bench-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let make = |root: &str, hierarchy: &'static str| {
            let path = Path::new(root).join(&name);
            fs::create_dir(&path).map_err(|source| CgroupError::Unavailable {
                hierarchy,
                path: path.clone(),
                source,
            })?;
            Ok::<PathBuf, CgroupError>(path)
        };
        let cpu = make(CPUACCT, "cpuacct")?;
        let memory = match make(MEMORY, "memory") {
            Ok(memory) => memory,
            Err(error) => {
                let _ = fs::remove_dir(&cpu);
                return Err(error);
            }
        };
        Ok(RunCgroup { cpu, memory })
    }

    /// A command that joins these cgroups and then execs `program` with `args`: a shell
    /// writes its own pid into both `cgroup.procs` and `exec`s, so the program and everything
    /// it starts are charged from their first instruction (no `unsafe` `pre_exec` needed).
    pub fn command(&self, program: &Path, args: &[String]) -> Command {
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(r#"echo $$ > "$1" && echo $$ > "$2" && shift 2 && exec "$@""#)
            .arg("sh")
            .arg(self.cpu.join("cgroup.procs"))
            .arg(self.memory.join("cgroup.procs"))
            .arg(program)
            .args(args);
        command
    }

    fn kill_all(&self) {
        let pids: Vec<String> = self.pids().iter().map(|p| p.to_string()).collect();
        if !pids.is_empty() {
            let _ = Command::new("kill")
                .arg("-KILL")
                .args(&pids)
                .stderr(std::process::Stdio::null())
                .status();
        }
    }

    fn pids(&self) -> Vec<u32> {
        fs::read_to_string(self.cpu.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// After the main process exited: waits up to `grace` for the processes it left to end
    /// (they are charged to the run), kills those still there, and reads what the run cost.
    pub fn finish(&self, grace: Duration) -> Result<CgroupUsage, CgroupError> {
        let deadline = Instant::now() + grace;
        let mut outlived = 0;
        loop {
            let pids = self.pids();
            if pids.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                outlived = outlived.max(pids.len());
                self.kill_all();
                std::thread::sleep(Duration::from_millis(50));
                if Instant::now() >= deadline + Duration::from_secs(5) {
                    break;
                }
                continue;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let read = |path: PathBuf| -> Result<u64, CgroupError> {
            fs::read_to_string(&path)
                .map_err(|source| CgroupError::Read {
                    path: path.clone(),
                    source,
                })
                .map(|text| text.trim().parse().unwrap_or(0))
        };
        let cpu_ns = read(self.cpu.join("cpuacct.usage"))?;
        let peak_bytes = read(self.memory.join("memory.max_usage_in_bytes"))?;
        Ok(CgroupUsage {
            cpu_seconds: cpu_ns as f64 / 1e9,
            peak_bytes,
            outlived,
        })
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        // A cgroup with processes cannot be removed; `finish` empties it.
        self.kill_all();
        for path in [&self.cpu, &self.memory] {
            for _ in 0..50 {
                if fs::remove_dir(path).is_ok() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Root with cgroup v1 here; elsewhere the test says it did not run.
    #[test]
    fn a_child_that_outlives_its_parent_is_charged_and_its_cpu_counted() {
        let cgroup = match RunCgroup::create() {
            Ok(cgroup) => cgroup,
            Err(error) => {
                eprintln!("NOT RUN: {error}");
                return;
            }
        };
        // The parent exits at once; its background child burns 0.4 CPU-seconds (its own CPU
        // clock: right under load too) holding 64 MiB, then ends by itself within the grace.
        let script = "( python3 -c 'import time\nb = bytearray(64 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\nwhile time.process_time() < 0.4: pass' & ) ; exit 0";
        let status = cgroup
            .command(Path::new("sh"), &["-c".into(), script.into()])
            .status()
            .unwrap();
        assert!(status.success());
        let usage = cgroup.finish(Duration::from_secs(20)).unwrap();
        assert_eq!(usage.outlived, 0, "{usage:?}");
        assert!(
            usage.cpu_seconds >= 0.4,
            "the child's CPU counted: {usage:?}"
        );
        assert!(
            usage.peak_bytes >= 64 << 20,
            "the child's memory: {usage:?}"
        );
        // One that never ends is killed at the grace, and said.
        let cgroup = RunCgroup::create().unwrap();
        let mut command = cgroup.command(
            Path::new("sh"),
            &["-c".into(), "( sleep 30 & ) ; exit 0".into()],
        );
        assert!(command.status().unwrap().success());
        let usage = cgroup.finish(Duration::from_millis(300)).unwrap();
        assert_eq!(usage.outlived, 1, "{usage:?}");
    }
}
