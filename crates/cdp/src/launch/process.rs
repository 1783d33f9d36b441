//! The Chromium process we launch: its command line, its own process group (ended with one
//! SIGKILL), its throwaway profile in memory (removed once its processes are gone), a guard that ends
//! it if we die first, and the DevTools endpoint it announces on stderr.

use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

use super::BrowserConfig;
use crate::error::BrowserError;

/// Flags every launched browser gets: quiet, deterministic, no background traffic, and no
/// throttling of pages that are not in front (replays run side by side in one browser).
/// `--headless` and, as root, `--no-sandbox` are added by [`super::Browser::launch`].
pub const BASE_FLAGS: &[&str] = &[
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-hang-monitor",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-port=0",
    // No first tab: every replay opens its own page in its own context, and a start page
    // would only cost a renderer process while the browser starts.
    "--no-startup-window",
];

/// Chromium refuses to start its sandbox as root; `/proc/self` is owned by our effective user.
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

/// The whole command line (after the executable) [`Browser::launch`] starts Chromium with:
/// [`BASE_FLAGS`], the throwaway profile `user_data_dir`, `--headless` unless headed,
/// `--no-sandbox` as root and `config.extra_args`. Public so that a benchmark floor launches
/// the very same browser.
pub fn launch_args(config: &BrowserConfig, user_data_dir: &Path) -> Vec<String> {
    let mut args: Vec<String> = BASE_FLAGS.iter().map(|f| f.to_string()).collect();
    args.push(format!("--user-data-dir={}", user_data_dir.display()));
    if config.headless {
        args.push("--headless".into());
    }
    if running_as_root() {
        args.push("--no-sandbox".into());
    }
    args.extend(config.extra_args.iter().cloned());
    args
}

/// Where launched profiles go: memory, so that nothing of a run reaches a disk even while it
/// lasts (the profile holds only browser-wide state; pages live in off-the-record contexts).
const SHARED_MEMORY: &str = "/dev/shm";

/// What every profile folder's name starts with; then its owner, `<pid>-<start time>-`.
const PROFILE_PREFIX: &str = "browserflow-profile-";

/// A process's start time (clock ticks since boot, `/proc/PID/stat` field 22): with its pid,
/// it names one process for good (a pid alone is reused).
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    // Fields after the command: state is field 3, start time field 22.
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// CPU time of the process `root` and every process below it that is still running, plus
/// what its reaped children used, in seconds (`/proc/PID/stat` fields 14–17, in the kernel's
/// fixed `USER_HZ` of 100 a second). `None` where there is no `/proc` or `root` is gone. A
/// process's own figure, Chromium's processes included: what a batch of replays cost.
pub fn tree_cpu_seconds(root: u32) -> Option<f64> {
    const USER_HZ: f64 = 100.0;
    // pid → (parent, own ticks, reaped children's ticks)
    let mut table: HashMap<u32, (u32, u64, u64)> = HashMap::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        // `rest` starts at field 3 (state): parent is field 4, utime..cstime fields 14..17.
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let number = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        table.insert(
            pid,
            (
                number(1) as u32,
                number(11) + number(12),
                number(13) + number(14),
            ),
        );
    }
    let (_, own, reaped) = *table.get(&root)?;
    let mut ticks = own + reaped;
    let mut below = vec![root];
    while let Some(parent) = below.pop() {
        for (pid, (ppid, own, reaped)) in &table {
            if *ppid == parent && *pid != parent {
                ticks += own + reaped;
                below.push(*pid);
            }
        }
    }
    Some(ticks as f64 / USER_HZ)
}

/// The prefix of this process's profile folders: `browserflow-profile-<pid>-<start time>-`.
fn owned_prefix() -> String {
    let pid = std::process::id();
    let start = start_time(pid).unwrap_or(0);
    format!("{PROFILE_PREFIX}{pid}-{start}-")
}

/// Removes the profile folders in `dir` whose owner (the process that made them, named in
/// the folder's name) is gone: a `bflow` killed before its browser's guard could start, or
/// while the guard was being set up, leaves its folder behind, and the next launch sweeps it.
/// Folders of live owners, and folders named otherwise, are left alone; where the system
/// does not tell a process's start time, nothing is swept. Returns how many were removed.
pub(super) fn sweep_orphaned_profiles(dir: &Path) -> usize {
    // Without `/proc` no owner can be told alive (every start time reads as unknown):
    // sweeping then would remove the profiles of browsers other `bflow`s are running.
    if start_time(std::process::id()).is_none() {
        return 0;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name.to_str().and_then(|n| n.strip_prefix(PROFILE_PREFIX)) else {
            continue;
        };
        let mut parts = owner.splitn(3, '-');
        let (Some(Ok(pid)), Some(Ok(start)), Some(_)) = (
            parts.next().map(str::parse::<u32>),
            parts.next().map(str::parse::<u64>),
            parts.next(),
        ) else {
            continue;
        };
        if start_time(pid) == Some(start) {
            continue;
        }
        if std::fs::remove_dir_all(entry.path()).is_ok() {
            tracing::debug!(folder = %entry.path().display(), "removed a dead run's browser profile");
            removed += 1;
        }
    }
    removed
}

/// A fresh profile directory in memory (under [`SHARED_MEMORY`]); where that is missing or
/// cannot be written, a private directory under the system temp dir, with a warning (that
/// may be a disk). Its name says which process owns it, so that a later launch sweeps it
/// should this process die before removing it ([`sweep_orphaned_profiles`], run first).
pub(super) fn in_memory_profile() -> std::io::Result<tempfile::TempDir> {
    let prefix = owned_prefix();
    let builder = || {
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        builder
    };
    let shared_memory = Path::new(SHARED_MEMORY);
    let refused = if shared_memory.is_dir() {
        sweep_orphaned_profiles(shared_memory);
        match builder().tempdir_in(shared_memory) {
            Ok(dir) => return Ok(dir),
            Err(error) => error.to_string(),
        }
    } else {
        "it does not exist".to_string()
    };
    sweep_orphaned_profiles(&std::env::temp_dir());
    let dir = builder().tempdir()?;
    tracing::warn!(
        profile = %dir.path().display(),
        "no Chromium profile in memory ({SHARED_MEMORY}: {refused}); using the temp dir instead"
    );
    Ok(dir)
}

/// A launched browser process and the profile directory it owns.
pub(super) struct ChromeProcess {
    pub(super) child: Child,
    // Dropped after the child: the directory is removed once the browser is gone.
    pub(super) user_data_dir: Option<tempfile::TempDir>,
}

/// How long the profile remover waits for a killed browser's processes to be gone before it
/// removes the profile anyway (SIGKILL takes effect within milliseconds).
const KILL_WAIT: Duration = Duration::from_millis(2000);

impl ChromeProcess {
    /// Ends the browser at once: SIGKILL to it and every process it started. The profile is a
    /// throwaway, so an orderly shutdown would only flush files deleted next (and take
    /// hundreds of milliseconds). The profile is removed once those processes are gone (see
    /// [`kill_and_remove_profile`]), without anyone waiting for it.
    pub(super) fn kill(mut self) {
        let dir = self.user_data_dir.take().map(tempfile::TempDir::keep);
        match (self.child.id(), dir) {
            (Some(pid), Some(dir)) => kill_and_remove_profile(pid, dir),
            (Some(pid), None) => {
                sigkill_tree(pid);
            }
            (None, Some(dir)) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            (None, None) => {}
        }
        // Dropping the child (kill on drop) leaves its reaping to Tokio.
        tracing::debug!(target: "browserflow::timing", "chromium killed");
    }
}

/// Makes sure a browser we launched does not outlive us when we die without ending it (a
/// SIGKILL, a crash): a detached `sh`, parented to init, checks once a second that this process
/// is alive; once it is not, it kills the browser `pid` (its renderers follow) and removes its
/// `profile`. It ends by itself when the browser is gone. The browser leads its own process
/// group, so one signal ends all its processes. The workspace forbids `unsafe`, so
/// `PR_SET_PDEATHSIG` (set between fork and exec) is not an option.
pub(super) fn guard_against_orphaning(pid: u32, profile: &Path) {
    const GUARD: &str = r#"( parent=$1; browser=$2; dir=$3
  while kill -0 "$parent" 2>/dev/null; do
    kill -0 "$browser" 2>/dev/null || exit 0
    sleep 1
  done
  kill -KILL "-$browser" 2>/dev/null
  sleep 1
  rm -rf -- "$dir" ) </dev/null >/dev/null 2>&1 &"#;
    // The outer `sh` returns at once (the guard runs in the background), so waiting for it
    // leaves no zombie behind.
    let _ = std::process::Command::new("sh")
        .arg("-c")
        .arg(GUARD)
        .arg("browserflow-orphan-guard")
        .arg(std::process::id().to_string())
        .arg(pid.to_string())
        .arg(profile)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .status();
}

/// Kills the browser `pid` with all its processes now and returns at once; its `profile`
/// directory is removed by a detached `sh` as soon as they are gone. Removing it before
/// would race the browser's network service, which outlives the browser for a moment and
/// writes into the profile. Without `sh`, waits here and removes it itself. The browser must
/// lead its own process group (spawned with `process_group(0)`, as `Browser::launch` does).
/// Public so that a benchmark floor ends Chromium exactly as browserflow does.
pub fn kill_and_remove_profile(pid: u32, profile: PathBuf) {
    sigkill_tree(pid);
    // Polls the group's processes in /proc (gone, or zombies, is done) for at most ~2 s.
    const REMOVER: &str = r#"dir=$1; group=$2; n=0
alive() {
  for stat in /proc/[0-9]*/stat; do
    read -r line < "$stat" 2>/dev/null || continue
    set -- ${line##*) }
    [ "$3" = "$group" ] && [ "$1" != Z ] && [ "$1" != X ] && return 0
  done
  return 1
}
while [ $n -lt 200 ] && alive; do sleep 0.01; n=$((n+1)); done
rm -rf -- "$dir""#;
    let spawned = std::process::Command::new("sh")
        .arg("-c")
        .arg(REMOVER)
        .arg("browserflow-profile-remover")
        .arg(&profile)
        .arg(pid.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        // Its own process group: a Ctrl-C that ends us does not stop the clean-up.
        .process_group(0)
        .spawn();
    if spawned.is_err() {
        wait_exited(pid, std::time::Instant::now() + KILL_WAIT);
        let _ = std::fs::remove_dir_all(&profile);
    }
}

/// Sends SIGKILL to the process group `pid` leads (the browser and every process it started,
/// at once: one `kill(1)`, as the standard library signals only its own children).
pub fn sigkill_tree(pid: u32) {
    let _ = std::process::Command::new("kill")
        .arg("-KILL")
        .arg("--")
        .arg(format!("-{pid}"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// Waits until `pid` has exited (or is a zombie), or `deadline` passed.
pub fn wait_exited(pid: u32, deadline: std::time::Instant) {
    let running = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            let state = stat
                .rfind(')')
                .and_then(|end| stat[end + 1..].split_whitespace().next());
            !matches!(state, Some("Z" | "X") | None)
        })
    };
    while running() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
}

pub(super) async fn read_ws_endpoint(
    child: &mut Child,
    path: &Path,
    timeout: Duration,
) -> Result<String, BrowserError> {
    let Some(stderr) = child.stderr.take() else {
        return Err(BrowserError::LaunchExited {
            path: path.to_path_buf(),
            stderr: String::new(),
        });
    };
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = String::new();
    let found = tokio::time::timeout(timeout, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(pos) = line.find("ws://") {
                return Some(line[pos..].trim().to_string());
            }
            seen.push_str(&line);
            seen.push('\n');
        }
        None
    })
    .await;
    match found {
        Ok(Some(endpoint)) => {
            // Keep draining stderr so Chromium never blocks on a full pipe.
            tokio::spawn(async move {
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::trace!(target: "chromium", "{line}");
                }
            });
            Ok(endpoint)
        }
        Ok(None) => Err(BrowserError::LaunchExited {
            path: path.to_path_buf(),
            stderr: seen,
        }),
        Err(_) => Err(BrowserError::LaunchTimeout {
            path: path.to_path_buf(),
            waited_ms: timeout.as_millis() as u64,
            stderr: seen,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_trees_cpu_counts_its_children_running_and_reaped() {
        let me = std::process::id();
        let before = tree_cpu_seconds(me).expect("this process");
        // A child that burns CPU (a fixed amount of work, however loaded the machine) and
        // one that waits: the first is counted once reaped, the second while it runs.
        let burn = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
        let status = std::process::Command::new("sh")
            .args(["-c", burn])
            .status()
            .expect("sh runs");
        assert!(status.success());
        let after = tree_cpu_seconds(me).expect("this process");
        assert!(after - before >= 0.05, "{before} → {after}");
        let mut waiting = std::process::Command::new("sh")
            .args(["-c", &format!("{burn}; sleep 30")])
            .spawn()
            .expect("sh starts");
        let child = waiting.id();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while tree_cpu_seconds(child).unwrap_or(0.0) < 0.05 && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        let running = tree_cpu_seconds(child).expect("the child runs");
        assert!(running >= 0.05, "{running}");
        assert!(tree_cpu_seconds(me).expect("this process") >= after + running - 0.01);
        let _ = waiting.kill();
        let _ = waiting.wait();
        assert_eq!(tree_cpu_seconds(u32::MAX), None, "no such process");
    }

    #[test]
    fn only_folders_of_dead_owners_are_swept() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mine = dir.path().join(format!("{}abc123", owned_prefix()));
        // pid 1 lives, but did not start at tick 1 (its start time is another).
        let reused_pid = dir.path().join(format!("{PROFILE_PREFIX}1-1-xyz"));
        let dead = dir
            .path()
            .join(format!("{PROFILE_PREFIX}{}-5-xyz", u32::MAX - 1));
        let foreign = dir.path().join(format!("{PROFILE_PREFIX}Ab12cd"));
        let unrelated = dir.path().join("something-else");
        for folder in [&mine, &reused_pid, &dead, &foreign, &unrelated] {
            std::fs::create_dir(folder).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(dead.join("Local State"), "{}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sweep_orphaned_profiles(dir.path()), 2);
        assert!(mine.exists() && foreign.exists() && unrelated.exists());
        assert!(!reused_pid.exists() && !dead.exists());
    }
}
