//! `bflow pack`: export → sign → verify → import → `bflow run` from the store, with real
//! Chromium against the fixture shop served by `bflow demo --serve`.

use std::process::Command;

use crate::shop::Shop;
use crate::{bflow, stderr, stdout};

#[test]
fn export_sign_import_then_run_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let pack = dir.path().join("shop-tools@1.0.0.bfpack");
    let pack_arg = pack.to_string_lossy().into_owned();
    let recordings = root.join("recordings");
    let export = |out: &str| {
        bflow(&[
            "pack",
            "export",
            "--name",
            "shop-tools",
            "--version",
            "1.0.0",
            "--tools",
            &recordings.to_string_lossy(),
            "search-price@1.2.0",
            "-o",
            out,
        ])
    };
    let out = export(&pack_arg);
    assert!(out.status.success(), "{}", stderr(&out));
    let again = dir.path().join("again.bfpack");
    assert!(export(&again.to_string_lossy()).status.success());
    assert_eq!(
        std::fs::read(&pack).unwrap(),
        std::fs::read(&again).unwrap(),
        "the same tools give byte-identical packs"
    );

    let key = dir.path().join("k");
    assert!(
        bflow(&["pack", "keygen", &key.to_string_lossy()])
            .status
            .success()
    );
    let public = format!("{}.pub", key.display());
    let private = format!("{}.key", key.display());
    assert!(
        bflow(&["pack", "sign", &pack_arg, "--key", &private])
            .status
            .success()
    );
    let verified = bflow(&[
        "pack",
        "verify",
        &pack_arg,
        "--trust",
        &public,
        "--require-signature",
    ]);
    assert!(verified.status.success(), "{}", stderr(&verified));
    assert!(
        stdout(&verified).contains("(trusted)"),
        "{}",
        stdout(&verified)
    );

    let store = dir.path().join("store");
    let store_arg = store.to_string_lossy().into_owned();
    let imported = bflow(&[
        "pack", "import", &pack_arg, "--store", &store_arg, "--trust", &public,
    ]);
    assert!(imported.status.success(), "{}", stderr(&imported));

    // Run from the store: no folder holds the tool (the working folder has no recordings).
    let _shop = Shop::start();
    let run = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .current_dir(dir.path())
        .args([
            "run",
            "search-price@1.2.0",
            "--store",
            &store_arg,
            "--input",
            "query=keyboard",
        ])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    let output: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(output["price"], 89.99);
    assert_eq!(output["currency"], "USD");

    // One flipped byte is refused, naming what is wrong.
    let mut bytes = std::fs::read(&pack).unwrap();
    bytes[1100] ^= 0x01;
    std::fs::write(&pack, bytes).unwrap();
    let tampered = bflow(&["pack", "verify", &pack_arg]);
    assert_eq!(tampered.status.code(), Some(1));
    assert!(
        stderr(&tampered).contains("does not verify"),
        "{}",
        stderr(&tampered)
    );
}

#[test]
fn export_without_out_writes_name_at_version_and_list_names_each_pack_and_its_tools() {
    let dir = tempfile::tempdir().unwrap();
    let recordings = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings");
    let in_dir = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_bflow"))
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    let export = in_dir(&[
        "pack",
        "export",
        "--name",
        "shop-tools",
        "--version",
        "1.2.3",
        "--tools",
        &recordings.to_string_lossy(),
        "search-price@1.2.0",
    ]);
    assert!(export.status.success(), "{}", stderr(&export));
    let written = dir.path().join("shop-tools-1.2.3.bfpack");
    assert!(written.is_file(), "{}", stdout(&export));
    assert!(
        stdout(&export).contains("wrote shop-tools-1.2.3.bfpack"),
        "{}",
        stdout(&export)
    );

    let store = dir.path().join("store");
    let store_arg = store.to_string_lossy().into_owned();
    let empty = in_dir(&["pack", "list", "--store", &store_arg]);
    assert!(empty.status.success(), "{}", stderr(&empty));
    assert!(
        stdout(&empty).contains("no packs installed"),
        "{}",
        stdout(&empty)
    );
    let imported = in_dir(&[
        "pack",
        "import",
        "shop-tools-1.2.3.bfpack",
        "--store",
        &store_arg,
    ]);
    assert!(imported.status.success(), "{}", stderr(&imported));
    let listed = in_dir(&["pack", "list", "--store", &store_arg]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let text = stdout(&listed);
    assert!(text.starts_with("shop-tools@1.2.3  sha256:"), "{text}");
    assert!(
        text.lines().any(|l| l.contains("search-price@1.2.0")
            && l.contains("browser")
            && l.contains("sha256:")),
        "{text}"
    );
}

#[test]
fn pack_push_of_an_endless_file_fails_fast_naming_the_limit() {
    let started = std::time::Instant::now();
    let out = bflow(&["pack", "push", "/dev/zero", "oci://127.0.0.1:9/none:latest"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("larger than the limit of 64 MiB"),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

/// A pack never carries a tool `bflow run` refuses: `pack export` of a tool whose step
/// navigates to `javascript:` fails naming the tool and the step's pointer and writes
/// nothing; a pack built around that check (with the pack library itself) is refused by
/// `pack import`, and nothing is installed.
#[test]
fn packs_never_carry_a_tool_run_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tools = dir.path().join("tools");
    std::fs::create_dir(&tools).unwrap();
    let mut tool: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("recordings/search-price@1.2.0.json")).unwrap(),
    )
    .unwrap();
    *tool.pointer_mut("/steps/0/url").unwrap() = serde_json::json!("javascript:alert(1)");
    std::fs::write(
        tools.join("search-price@1.2.0.json"),
        serde_json::to_string_pretty(&tool).unwrap(),
    )
    .unwrap();
    let pack = dir.path().join("bad.bfpack");
    let pack_arg = pack.to_string_lossy().into_owned();
    let tools_arg = tools.to_string_lossy().into_owned();
    let export = bflow(&[
        "pack",
        "export",
        "--name",
        "bad",
        "--version",
        "1.0.0",
        "--tools",
        &tools_arg,
        "search-price@1.2.0",
        "-o",
        &pack_arg,
    ]);
    let err = stderr(&export);
    assert_eq!(export.status.code(), Some(1), "{err}");
    for needed in ["search-price@1.2.0", "/steps/0/url", "javascript:"] {
        assert!(err.contains(needed), "names {needed}: {err}");
    }
    assert!(!pack.exists(), "nothing written");

    // The same pack, built without the check.
    let mut catalog = browserflow_pack::Catalog::new();
    catalog.add_dir(&tools).unwrap();
    let builtins = browserflow_catalog::builtin_contracts().unwrap();
    let request = browserflow_pack::ExportRequest {
        name: "bad".into(),
        version: semver::Version::new(1, 0, 0),
        roots: vec![catalog.root("search-price@1.2.0").unwrap()],
        builtins: &builtins,
        deny: &browserflow_pack::DenyList::new(),
    };
    browserflow_pack::export_to_file(&catalog, &request, &pack).unwrap();
    let store = dir.path().join("store");
    let store_arg = store.to_string_lossy().into_owned();
    let import = bflow(&["pack", "import", &pack_arg, "--store", &store_arg]);
    let err = stderr(&import);
    assert_eq!(import.status.code(), Some(1), "{err}");
    for needed in [
        "search-price@1.2.0",
        "/steps/0/url",
        "nothing was installed",
    ] {
        assert!(err.contains(needed), "names {needed}: {err}");
    }
    let listed = bflow(&["pack", "list", "--store", &store_arg]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert!(
        stdout(&listed).contains("no packs installed"),
        "{}",
        stdout(&listed)
    );
}
