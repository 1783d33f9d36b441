//! Hostile and wrong files given to `bflow`: bounded reads (size, depth), repeated keys, and
//! every problem of a tool file reported.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::{bflow, stderr, stdout, write};

fn recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings")
}

fn search_price() -> serde_json::Value {
    let text = std::fs::read_to_string(recordings().join("search-price@1.2.0.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Peak resident memory of a process, from `/proc` (KiB).
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `bflow args`, watching its peak memory until it exits; panics past `deadline`.
fn run_watched(args: &[&str], deadline: Duration) -> (std::process::Output, Duration, u64) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        if let Some(kib) = peak_rss_kib(child.id()) {
            peak = peak.max(kib);
        }
        if started.elapsed() > deadline {
            child.kill().unwrap();
            panic!("bflow {args:?} still running after {deadline:?} (peak {peak} KiB)");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let elapsed = started.elapsed();
    (child.wait_with_output().unwrap(), elapsed, peak)
}

/// Generous for a loaded machine; the real bound is memory, which the test checks too.
const DEADLINE: Duration = Duration::from_secs(60);
/// 16 MiB read at most, plus the binary itself: far below this.
const MAX_PEAK_KIB: u64 = 200 * 1024;

#[test]
fn contract_check_of_dev_zero_fails_fast() {
    let (out, elapsed, peak) = run_watched(&["contract", "check", "/dev/zero"], DEADLINE);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("/dev/zero") && err.contains("not valid JSON"),
        "{err}"
    );
    assert!(
        elapsed < DEADLINE && peak < MAX_PEAK_KIB,
        "{elapsed:?} {peak} KiB"
    );
}

#[test]
fn contract_check_of_an_endless_pipe_stops_at_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("endless");
    // Spaces forever, until bflow closes its end.
    let writer = endless_fifo(&fifo, b' ');
    let path = fifo.to_string_lossy().into_owned();
    let (out, elapsed, peak) = run_watched(&["contract", "check", &path], DEADLINE);
    let written = writer.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(
        err.trim_end(),
        format!("error: {path}: is larger than the limit of 16 MiB"),
        "each cause once"
    );
    assert!(written <= 17 * 1024 * 1024, "read {written} bytes");
    assert!(peak < MAX_PEAK_KIB, "peak {peak} KiB in {elapsed:?}");
}

/// A FIFO fed `byte` until its reader goes away; returns how many bytes went in.
fn endless_fifo(path: &Path, byte: u8) -> std::thread::JoinHandle<u64> {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
    let path = path.to_owned();
    std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        let chunk = vec![byte; 64 * 1024];
        let mut written: u64 = 0;
        while pipe.write_all(&chunk).is_ok() {
            written += chunk.len() as u64;
        }
        written
    })
}

#[test]
fn pack_verify_of_an_endless_pipe_or_dev_zero_fails_fast_with_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("endless.bfpack");
    let writer = endless_fifo(&fifo, 0);
    let path = fifo.to_string_lossy().into_owned();
    let (out, elapsed, peak) = run_watched(&["pack", "verify", &path], DEADLINE);
    let written = writer.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the pack is larger than the limit of 64 MiB"),
        "{}",
        stderr(&out)
    );
    assert!(written <= 65 * 1024 * 1024, "read {written} bytes");
    assert!(peak < MAX_PEAK_KIB, "peak {peak} KiB in {elapsed:?}");

    let (out, _, peak) = run_watched(&["pack", "verify", "/dev/zero"], DEADLINE);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("larger than the limit"),
        "{}",
        stderr(&out)
    );
    assert!(peak < MAX_PEAK_KIB, "peak {peak} KiB");
}

#[test]
fn deep_nesting_is_refused_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "deep.json", &"[".repeat(100_000));
    let out = bflow(&["contract", "check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("nests deeper than the limit of 64 levels") && err.contains("[too_deep]"),
        "{err}"
    );
}

#[test]
fn a_repeated_kind_is_refused_with_its_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let text = serde_json::to_string_pretty(&search_price())
        .unwrap()
        .replacen(
            "\"kind\": \"browser\"",
            "\"kind\": \"browser\", \"kind\": \"code\"",
            1,
        );
    let file = write(dir.path(), "twice.json", &text);
    let out = bflow(&["contract", "check", &file]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{file}:/contract/kind: the key `kind` appears twice in one object [duplicate_key]"
        )),
        "{err}"
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn a_tool_file_is_checked_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut tool = search_price();
    tool["contract"]["bar"] = json!(1);
    tool["steps"][0]["baz"] = json!(true);
    let file = write(dir.path(), "unknown.json", &tool.to_string());
    let out = bflow(&["contract", "check", &file]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.starts_with(&format!("{file}: 2 problems\n")), "{err}");
    assert!(
        err.contains(&format!("{file}:/contract/bar: unknown field `bar`")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{file}:/steps/0/baz: unknown field `baz`")),
        "{err}"
    );

    let mut tool = search_price();
    tool["contract"]["version"] = json!(12);
    tool["steps"][0]["url"] = json!(["http://x"]);
    let candidates = tool["steps"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s.get("selector").is_some())
        .unwrap();
    tool["steps"][candidates]["selector"]["candidates"][0]["kind"] = json!(["css"]);
    let file = write(dir.path(), "three.json", &tool.to_string());
    let out = bflow(&["contract", "check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with(&format!("{file}: 3 problems\n")), "{err}");
    for line in [
        "/contract/version: expected a string".to_owned(),
        "/steps/0/url: expected a string, found array".to_owned(),
        format!("/steps/{candidates}/selector/candidates/0/kind: expected a string"),
    ] {
        assert!(
            err.contains(&format!("{file}:{line}")),
            "{line} missing from\n{err}"
        );
    }

    // The shipped tool file is fine, and the line says the steps were checked.
    let shipped = recordings().join("search-price@1.2.0.json");
    let out = bflow(&["contract", "check", &shipped.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).trim_end().ends_with("steps checked)"),
        "{}",
        stdout(&out)
    );
}
