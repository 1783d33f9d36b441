//! A workspace stays usable whatever happens beside it: a pack of its own tools imported into
//! the store, a pack with another version of one of its tools (refused at import, naming
//! both, until `--replace` or `--keep` says which), uninstalling, and a half-edited flow file
//! next to a valid one — always real `bflow` processes on real files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::{stderr, stdout};

/// A workspace folder with `recordings/` holding the shipped `price-alert@1.0.0` (a pure
/// `code` tool: no browser needed) and `alert.flow.json`, which uses it; its own pack store
/// and journal.
struct Workspace {
    dir: tempfile::TempDir,
}

const ALERT_FLOW: &str = r#"{
  "name": "alert",
  "version": "1.0.0",
  "description": "Say whether a keyboard at this price is under 50.",
  "inputs": [],
  "requires": [{"ref": "price-alert@1.0.0", "contract_digest": "sha256:2509aed2132d6793b68336e3d1c3fcd938964d12fb1ed845597ef8da2ad66368"}],
  "steps": [{
    "id": "alert",
    "uses": "price-alert@1.0.0",
    "with": {
      "result": {"value": {"name": "Keyboard", "price": 40, "currency": "EUR"}},
      "threshold": {"value": 50}
    }
  }],
  "output": {"from": "steps.alert.output.message"}
}"#;

impl Workspace {
    fn new() -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let recordings = dir.path().join("recordings");
        std::fs::create_dir_all(&recordings).unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        std::fs::copy(
            root.join("recordings/price-alert@1.0.0.json"),
            recordings.join("price-alert@1.0.0.json"),
        )
        .unwrap();
        std::fs::write(recordings.join("alert.flow.json"), ALERT_FLOW).unwrap();
        Workspace { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn tool(&self) -> PathBuf {
        self.path("recordings/price-alert@1.0.0.json")
    }

    /// `bflow ARGS` run in the workspace, with its own store (`BROWSERFLOW_STORE`) and data.
    fn bflow(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_bflow"))
            .current_dir(self.dir.path())
            .args(args)
            .env("XDG_DATA_HOME", self.path("data"))
            .env("BROWSERFLOW_STORE", self.path("store"))
            .env_remove("BROWSERFLOW_LOG")
            .output()
            .expect("bflow runs")
    }

    /// `bflow pack export` of the workspace's own tool as `mine.bfpack` (the pack `mine@1.0.0`).
    fn export_mine(&self) {
        let export = self.bflow(&[
            "pack",
            "export",
            "--name",
            "mine",
            "--version",
            "1.0.0",
            "price-alert@1.0.0",
            "-o",
            "mine.bfpack",
        ]);
        ok(&export, "export");
    }

    fn run_alert(&self) -> Output {
        self.bflow(&[
            "flow",
            "run",
            "recordings/alert.flow.json",
            "--journal",
            &self.path("journal.sqlite").to_string_lossy(),
        ])
    }
}

fn ok(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed:\nstdout: {}\nstderr: {}",
        stdout(output),
        stderr(output)
    );
}

#[test]
fn a_pack_of_the_workspaces_own_tool_never_breaks_it_and_can_be_uninstalled() {
    let ws = Workspace::new();
    ok(&ws.run_alert(), "the flow before any pack");

    ws.export_mine();
    let import = ws.bflow(&["pack", "import", "mine.bfpack"]);
    ok(&import, "importing a pack of the workspace's own tool");

    // The same tool in the workspace and in the pack is one tool: check and run agree.
    let check = ws.bflow(&["check", "recordings/alert.flow.json"]);
    ok(&check, "check");
    let run = ws.run_alert();
    ok(&run, "the flow with the pack installed");
    assert!(
        stdout(&run).contains("Keyboard is now EUR 40.00, under your threshold of 50."),
        "{}",
        stdout(&run)
    );
    assert!(
        !stderr(&run).contains("twice") && !stderr(&run).contains("WARN"),
        "one tool, nothing to say: {}",
        stderr(&run)
    );

    // Uninstall by name: gone from the store, the workspace still runs.
    let removed = ws.bflow(&["pack", "remove", "mine@1.0.0"]);
    ok(&removed, "remove");
    assert!(
        stdout(&removed).contains("removed mine@1.0.0"),
        "{}",
        stdout(&removed)
    );
    let list = ws.bflow(&["pack", "list"]);
    assert!(
        stdout(&list).contains("no packs installed"),
        "{}",
        stdout(&list)
    );
    let again = ws.bflow(&["pack", "remove", "mine@1.0.0"]);
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("no installed pack is mine@1.0.0"),
        "{}",
        stderr(&again)
    );
    ok(&ws.run_alert(), "the flow after removing the pack");
}

#[test]
fn another_version_under_one_ref_is_refused_at_import_until_replaced_or_kept() {
    let ws = Workspace::new();
    ws.export_mine();
    let original = std::fs::read_to_string(ws.tool()).unwrap();
    // The person edits the tool in the workspace: same interface, other steps.
    let edited = original.replace("is now", "dropped to");
    assert_ne!(edited, original);
    std::fs::write(ws.tool(), &edited).unwrap();

    let refused = ws.bflow(&["pack", "import", "mine.bfpack"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let said = stderr(&refused);
    for part in [
        "the pack mine@1.0.0 has a different price-alert@1.0.0 than recordings/price-alert@1.0.0.json",
        "different steps",
        "nothing was installed",
        "--replace",
        "--keep",
    ] {
        assert!(said.contains(part), "{part:?} in {said}");
    }
    let list = ws.bflow(&["pack", "list"]);
    assert!(
        stdout(&list).contains("no packs installed"),
        "{}",
        stdout(&list)
    );
    assert_eq!(std::fs::read_to_string(ws.tool()).unwrap(), edited);

    // Keep: installed, the workspace's version is the one used, and runs say so.
    let kept = ws.bflow(&["pack", "import", "mine.bfpack", "--keep"]);
    ok(&kept, "import --keep");
    assert!(
        stdout(&kept).contains("kept recordings/price-alert@1.0.0.json"),
        "{}",
        stdout(&kept)
    );
    let run = ws.run_alert();
    ok(&run, "the flow with the workspace's version kept");
    assert!(
        stdout(&run).contains("Keyboard dropped to EUR 40.00"),
        "{}",
        stdout(&run)
    );
    assert!(
        stderr(&run).contains("recordings/price-alert@1.0.0.json is used for price-alert@1.0.0")
            && stderr(&run).contains("bflow pack remove mine@1.0.0"),
        "{}",
        stderr(&run)
    );

    // Replace: the pack's version is written over the workspace file.
    ok(&ws.bflow(&["pack", "remove", "mine@1.0.0"]), "remove");
    let replaced = ws.bflow(&["pack", "import", "mine.bfpack", "--replace"]);
    ok(&replaced, "import --replace");
    assert!(
        stdout(&replaced).contains("replaced recordings/price-alert@1.0.0.json"),
        "{}",
        stdout(&replaced)
    );
    assert_eq!(std::fs::read_to_string(ws.tool()).unwrap(), original);
    let run = ws.run_alert();
    ok(&run, "the flow after --replace");
    assert!(
        stdout(&run).contains("Keyboard is now EUR 40.00"),
        "{}",
        stdout(&run)
    );
    assert!(!stderr(&run).contains("WARN"), "{}", stderr(&run));
}

#[test]
fn a_broken_sibling_flow_is_a_warning_naming_it_and_the_valid_flow_checks_and_runs() {
    let ws = Workspace::new();
    // A half-edited flow next to the valid one.
    std::fs::write(
        ws.path("recordings/broken.flow.json"),
        r#"{"name": "broken", "version": "1.0.0", "steps": [{"id": "a", "uses": "price-alert@1.0.0", "#,
    )
    .unwrap();

    let check = ws.bflow(&["check", "recordings/alert.flow.json"]);
    ok(&check, "check of the valid flow");
    assert!(
        stdout(&check).starts_with("ok alert@1.0.0"),
        "{}",
        stdout(&check)
    );
    let warned = stderr(&check);
    assert!(
        warned.contains("skipped recordings/broken.flow.json: it does not load"),
        "{warned}"
    );

    let run = ws.run_alert();
    ok(&run, "the valid flow runs");
    assert!(stdout(&run).contains("Keyboard is now"), "{}", stdout(&run));
    assert!(
        stderr(&run).contains("skipped recordings/broken.flow.json"),
        "{}",
        stderr(&run)
    );

    // The broken flow itself is still an error, of its own.
    let own = ws.bflow(&["check", "recordings/broken.flow.json"]);
    assert_eq!(own.status.code(), Some(1), "{}", stderr(&own));
    assert!(
        stderr(&own).contains("recordings/broken.flow.json: 1 problem"),
        "{}",
        stderr(&own)
    );

    // A tool file the flow requires that does not load is the flow's error, named.
    std::fs::write(
        ws.tool(),
        std::fs::read_to_string(ws.tool())
            .unwrap()
            .replace(r#""timeout_ms": 1000"#, r#""timeout_ms": "soon""#),
    )
    .unwrap();
    let needed = ws.bflow(&["check", "recordings/alert.flow.json"]);
    assert_eq!(needed.status.code(), Some(1), "{}", stderr(&needed));
    assert!(
        stderr(&needed).contains("recordings/price-alert@1.0.0.json"),
        "{}",
        stderr(&needed)
    );
}

#[test]
fn a_tool_file_named_by_path_exports_outside_any_workspace() {
    // An empty folder: no `recordings/`.
    let nowhere = tempfile::tempdir().unwrap();
    let ws = Workspace::new();
    let tool = ws.tool();
    let out = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .current_dir(nowhere.path())
        .args([
            "pack",
            "export",
            "--name",
            "alone",
            "--version",
            "1.0.0",
            &tool.to_string_lossy(),
        ])
        .env("XDG_DATA_HOME", nowhere.path().join("data"))
        .output()
        .expect("bflow runs");
    ok(&out, "export of a file outside a workspace");
    assert!(
        nowhere.path().join("alone-1.0.0.bfpack").is_file(),
        "{}",
        stdout(&out)
    );
    assert!(!stderr(&out).contains("No such file"), "{}", stderr(&out));
}
