use std::process::{Command, Stdio};
use std::time::Duration;

use browserflow_bench::proc_tree::{
    PeakSampler, Scope, descendants, parse_stat, sample_process, sample_tree,
};

const MIB: u64 = 1024 * 1024;

#[test]
fn parse_stat_reads_ppid_and_rss_past_a_name_with_spaces_and_parentheses() {
    let line = "4242 (Web Content (x)) S 17 4242 4242 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 12 0 \
                123 456789 2500 18446744073709551615";
    assert_eq!(parse_stat(line), Some((17, 2500)));
    assert_eq!(parse_stat("garbage"), None);
}

#[test]
fn descendants_include_the_root_and_its_grandchildren() {
    // sh → (sleep, sleep): three processes.
    let mut child = Command::new("sh")
        .args(["-c", "sleep 1 & sleep 1 & wait"])
        .spawn()
        .expect("spawn sh");
    std::thread::sleep(Duration::from_millis(300));
    let tree = descendants(child.id());
    let sample = sample_tree(child.id());
    child.wait().expect("wait");
    assert_eq!(tree.first(), Some(&child.id()));
    assert_eq!(tree.len(), 3, "tree: {tree:?}");
    assert_eq!(sample.processes, 3);
    assert!(sample.rss_bytes > 0);
}

#[test]
fn a_finished_process_has_an_empty_tree() {
    let mut child = Command::new("true").spawn().expect("spawn true");
    let pid = child.id();
    child.wait().expect("wait");
    assert_eq!(sample_tree(pid).processes, 0);
    assert_eq!(sample_process(pid).rss_bytes, 0);
}

#[test]
fn the_sampler_sees_memory_held_by_a_grandchild_and_the_process_scope_does_not() {
    // The outer sh waits for an inner sh that holds a 60 MB string for half a second.
    let script = "x=$(head -c 60000000 /dev/zero | tr '\\0' a); sleep 0.5; echo ${#x}";
    let child = Command::new("sh")
        .args(["-c", "sh -c \"$0\"; true", script])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    let tree =
        PeakSampler::start(Scope::Tree(child.id()), Duration::from_millis(5)).expect("sampler");
    let alone =
        PeakSampler::start(Scope::Process(child.id()), Duration::from_millis(5)).expect("sampler");
    let output = child.wait_with_output().expect("wait");
    let (tree, alone) = (tree.stop(), alone.stop());
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "60000000");
    assert!(
        tree.rss_bytes >= 60 * MIB,
        "tree peak {} bytes",
        tree.rss_bytes
    );
    assert!(
        tree.processes >= 2,
        "tree peak processes {}",
        tree.processes
    );
    assert!(tree.samples > 10, "only {} samples", tree.samples);
    assert!(
        alone.rss_bytes < 20 * MIB,
        "the outer sh alone peaked at {} bytes",
        alone.rss_bytes
    );
    assert_eq!(alone.processes, 1);
}
