//! The canonical flow end to end, as a user runs it: `bflow flow run
//! recordings/daily-price-watch.flow.json` replays search-price in real Chromium against the
//! shop served by `bflow demo --serve`, decides with the price-alert code tool, and posts to
//! a real webhook on 127.0.0.1 whose URL is a secret. Crashes are real SIGKILLs.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::shop::Shop;
use crate::webhook::Webhook;
use crate::{stderr, stdout};

fn flow() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings/daily-price-watch.flow.json")
}

/// A run's folder, its journal, its webhook and the canary hidden in the webhook's secret URL.
pub struct Setup {
    dir: tempfile::TempDir,
    journal: Option<String>,
    pub webhook: Webhook,
    canary: String,
}

impl Setup {
    /// A journal file in the run's folder.
    pub fn new() -> Setup {
        let canary = format!("canary-{}", std::process::id());
        Setup {
            dir: tempfile::tempdir().unwrap(),
            journal: None,
            webhook: Webhook::start(),
            canary,
        }
    }

    /// The journal `location` (a database), the run folders in the run's folder.
    pub fn on(location: String) -> Setup {
        Setup {
            journal: Some(location),
            ..Setup::new()
        }
    }

    pub fn journal(&self) -> String {
        self.journal.clone().unwrap_or_else(|| {
            self.dir
                .path()
                .join("j.sqlite")
                .to_string_lossy()
                .into_owned()
        })
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bflow"));
        command
            .current_dir(self.dir.path())
            // A database's run folders go in the data folder: this run's own.
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .args(args)
            .env(
                "BROWSERFLOW_SECRET_WEBHOOK_URL",
                self.webhook.url(&format!("hooks/{}", self.canary)),
            )
            // Every log line the run can write, so the canary check covers logs too.
            .env("BROWSERFLOW_LOG", "debug")
            .env_remove("BROWSERFLOW_TEST_CRASH_AT");
        command
    }

    pub fn run_args(&self, threshold: &str) -> Vec<String> {
        [
            "flow",
            "run",
            &flow().to_string_lossy(),
            "--input",
            "query=keyboard",
            "--input",
            &format!("threshold={threshold}"),
            "--journal",
            &self.journal(),
        ]
        .map(str::to_owned)
        .to_vec()
    }

    pub fn run(&self, threshold: &str) -> Output {
        let args = self.run_args(threshold);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.command(&args).output().unwrap()
    }

    pub fn resume(&self, run_id: &str) -> Output {
        self.command(&["flow", "resume", run_id, "--journal", &self.journal()])
            .output()
            .unwrap()
    }

    /// Runs the flow until the Rider reaches `point` of the `notify` step, then SIGKILLs it.
    /// Returns the run id and what the process had written on stderr.
    pub fn run_and_kill_at(&self, point: &str, threshold: &str) -> (String, String) {
        let args = self.run_args(threshold);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = self
            .command(&args)
            .env("BROWSERFLOW_TEST_CRASH_AT", format!("{point}:notify"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut run_id = None;
        let mut seen = String::new();
        for line in BufReader::new(child.stderr.take().unwrap()).lines() {
            let line = line.unwrap();
            seen.push_str(&line);
            seen.push('\n');
            if let Some(rest) = line.split(" as run ").nth(1) {
                run_id = Some(rest.trim().to_owned());
            }
            if line.starts_with("CRASH_POINT") {
                break;
            }
        }
        assert!(
            seen.contains("CRASH_POINT"),
            "never reached {point}: {seen}"
        );
        let browsers = children_of(child.id());
        assert!(!browsers.is_empty(), "the run's Chromium is running");
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(!status.success(), "the run was killed");
        // The Chromium it launched does not outlive it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while browsers.iter().any(|pid| running(*pid)) {
            assert!(
                std::time::Instant::now() < deadline,
                "Chromium {browsers:?} outlived the killed run"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        (run_id.expect("the run id is printed first"), seen)
    }

    /// No file the runs left (journal, its WAL, invocation, screenshots, reports) and no
    /// text in `outputs` contains the canary.
    pub fn assert_canary_absent(&self, outputs: &[&str]) {
        for text in outputs {
            assert!(!text.contains(&self.canary), "the secret leaked: {text}");
        }
        let mut files = 0;
        walk(self.dir.path(), &mut |path| {
            files += 1;
            let bytes = std::fs::read(path).unwrap();
            assert!(
                !bytes
                    .windows(self.canary.len())
                    .any(|w| w == self.canary.as_bytes()),
                "the secret is in {}",
                path.display()
            );
        });
        assert!(files >= 3, "the journal and the run folder were written");
    }
}

fn walk(dir: &Path, visit: &mut dyn FnMut(&Path)) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, visit);
        } else {
            visit(&path);
        }
    }
}

pub fn output_of(run: &Output) -> serde_json::Value {
    assert!(run.status.success(), "{}", stderr(run));
    serde_json::from_str(&stdout(run)).unwrap()
}

#[test]
fn posts_once_under_the_threshold_and_never_over_it() {
    let _shop = Shop::start();
    let setup = Setup::new();

    let under = setup.run("100");
    let result = output_of(&under);
    assert_eq!(result["output"]["dropped"], true);
    assert_eq!(result["output"]["price"], 89.99);
    assert_eq!(result["output"]["currency"], "USD");
    let posts = setup.webhook.received();
    assert_eq!(posts.len(), 1, "one alert: {posts:?}");
    assert_eq!(posts[0].path, format!("/hooks/{}", setup.canary));
    assert_eq!(posts[0].body, result["output"]["message"].as_str().unwrap());
    assert!(posts[0].body.contains("Mechanical Keyboard"), "{posts:?}");
    assert!(
        posts[0].idempotency_key.is_some(),
        "effects carry their key"
    );
    let log = stderr(&under);
    assert!(log.contains("notify succeeded"), "{log}");
    // The browser step's screenshots and report are in the run's own folder, beside the
    // invocation that resumes it.
    let run_folder = Path::new(&setup.journal())
        .parent()
        .unwrap()
        .join("runs")
        .join(result["run_id"].as_str().unwrap());
    assert!(
        run_folder.join("invocation.json").is_file(),
        "{}",
        run_folder.display()
    );
    let step_folder = run_folder.join("search-search-price@1.2.0");
    assert!(
        step_folder.join("report.json").is_file(),
        "{}",
        step_folder.display()
    );
    assert!(
        std::fs::read_dir(&step_folder)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".png")),
        "the step's screenshots: {}",
        step_folder.display()
    );

    let over = setup.run("50");
    let result = output_of(&over);
    assert_eq!(result["output"]["dropped"], false);
    assert_eq!(
        setup.webhook.received().len(),
        1,
        "no alert over the threshold"
    );
    assert!(
        !stderr(&over).contains("notify succeeded"),
        "{}",
        stderr(&over)
    );

    let shown = setup
        .command(&[
            "journal",
            "show",
            result["run_id"].as_str().unwrap(),
            "--journal",
            &setup.journal(),
            "--json",
        ])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_str(&stdout(&shown)).unwrap();
    assert_eq!(report["status"], "succeeded");

    setup.assert_canary_absent(&[
        &stdout(&under),
        &stderr(&under),
        &stdout(&over),
        &stderr(&over),
        &stdout(&shown),
        &stderr(&shown),
    ]);
}

#[test]
fn killed_after_the_post_and_resumed_it_does_not_post_again() {
    let _shop = Shop::start();
    let setup = Setup::new();

    // Killed once the post is committed to the journal: the resume replays it from there.
    let (run_id, log) = setup.run_and_kill_at("after-commit", "100");
    assert_eq!(setup.webhook.received().len(), 1, "posted before the kill");
    let resumed = setup.resume(&run_id);
    let result = output_of(&resumed);
    assert_eq!(result["run_id"], run_id);
    assert_eq!(result["output"]["dropped"], true);
    assert_eq!(
        setup.webhook.received().len(),
        1,
        "the resume did not post again"
    );
    assert!(
        stderr(&resumed).contains("resuming"),
        "{}",
        stderr(&resumed)
    );

    // Killed after the webhook answered but before the journal knew: the outcome is in
    // doubt, so the resume sends the post again with the same idempotency key, and the
    // receiver sees one alert however many deliveries it got.
    let (run_id, log2) = setup.run_and_kill_at("after-effect", "100");
    let before = setup.webhook.received();
    assert_eq!(before.len(), 2, "the second run posted before the kill");
    let again = setup.resume(&run_id);
    let result2 = output_of(&again);
    assert_eq!(result2["output"]["dropped"], true);
    let after = setup.webhook.received();
    assert_eq!(after.len(), 3, "the in-doubt post was delivered again");
    assert_eq!(
        after[2].idempotency_key, after[1].idempotency_key,
        "with the same idempotency key"
    );
    assert_ne!(after[1].idempotency_key, after[0].idempotency_key);

    setup.assert_canary_absent(&[
        &log,
        &log2,
        &stdout(&resumed),
        &stderr(&resumed),
        &stdout(&again),
        &stderr(&again),
    ]);
}

/// The direct children of `pid` (from `/proc`).
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|tasks| {
            tasks
                .flatten()
                .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
                .flat_map(|c| {
                    c.split_whitespace()
                        .filter_map(|p| p.parse().ok())
                        .collect::<Vec<u32>>()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The process exists and is not a zombie.
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}
