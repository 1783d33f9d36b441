//! The seams of starting a run hold in the source: one Rider builder for the shells, no
//! browser capability downcast, no run folder passed through a run's environment.

use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under the library and binary sources of the crates and the app.
fn sources() -> Vec<PathBuf> {
    let root = repo_root();
    let mut roots: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path().join("src"))
        .collect();
    roots.push(root.join("src-tauri/src"));
    let mut files = Vec::new();
    while let Some(dir) = roots.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                roots.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

#[test]
fn one_rider_builder_no_downcast_no_run_folder_variable() {
    let files = sources();
    assert!(files.len() > 100, "the sources were found: {}", files.len());
    let mut builders = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read");
        let name = file
            .strip_prefix(repo_root())
            .unwrap_or(file)
            .display()
            .to_string();
        assert!(!text.contains("downcast_ref"), "{name} downcasts");
        assert!(
            !text.contains("BROWSERFLOW_RUN_DIR"),
            "{name} passes the run folder as a variable"
        );
        if text.contains("Rider::new(") && !name.starts_with("crates/rider/") {
            builders.push(name);
        }
    }
    assert_eq!(
        builders,
        ["crates/catalog/src/runs/mod.rs"],
        "Rider builders"
    );
}
