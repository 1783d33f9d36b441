//! A pack never breaks a workspace: the library and the catalog see a workspace tool and an
//! installed pack's copy of it as one tool, say when the pack's differs, refuse such a pack
//! at import until told which to keep, and uninstall it.

use std::path::{Path, PathBuf};

use browserflow_catalog::Catalog;
use browserflow_catalog::library::{ItemSource, Library};
use browserflow_catalog::pack_view::{
    ExportPlan, OnConflict, export_pack, import_pack, remove_pack,
};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Setup {
    _dir: tempfile::TempDir,
    recordings: PathBuf,
    store: PathBuf,
    pack: PathBuf,
}

/// `recordings/` with the shipped `price-alert@1.0.0`, exported as the pack `mine@1.0.0`.
fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let recordings = dir.path().join("recordings");
    std::fs::create_dir_all(&recordings).unwrap();
    std::fs::copy(
        repo_root().join("recordings/price-alert@1.0.0.json"),
        recordings.join("price-alert@1.0.0.json"),
    )
    .unwrap();
    let pack = dir.path().join("mine.bfpack");
    export_pack(
        &ExportPlan {
            name: "mine".into(),
            version: "1.0.0".into(),
            roots: vec!["price-alert@1.0.0".into()],
            dirs: vec![recordings.clone()],
        },
        &pack,
    )
    .unwrap();
    Setup {
        store: dir.path().join("store"),
        recordings,
        pack,
        _dir: dir,
    }
}

fn library(s: &Setup) -> Library {
    Library {
        dirs: vec![s.recordings.clone()],
        store: Some(s.store.clone()),
        history: None,
    }
}

fn tools_of(s: &Setup) -> Result<browserflow_rider::ToolRegistry, browserflow_flow::Diagnostics> {
    Catalog {
        dirs: vec![s.recordings.clone()],
        store: Some(s.store.clone()),
    }
    .tools(&std::sync::Arc::new(
        browserflow_replay::SharedBrowser::new(Default::default()),
    ))
}

#[test]
fn the_same_tool_in_the_workspace_and_a_pack_is_one_tool_listed_with_both_sources() {
    let s = setup();
    let view = import_pack(
        &s.pack,
        &s.store,
        std::slice::from_ref(&s.recordings),
        OnConflict::Refuse,
    );
    assert!(view.ok, "{:?}", view.error);
    assert!(view.conflicts.is_empty());

    let tools = tools_of(&s).expect("one tool, not registered twice");
    assert!(tools.contract("price-alert@1.0.0").is_some());
    let items = library(&s).items();
    assert_eq!(items.len(), 1, "{items:?}");
    let item = &items[0];
    assert!(matches!(item.source, ItemSource::Folder { .. }));
    let copy = item
        .also_in_pack
        .as_ref()
        .expect("the pack's copy is named");
    assert_eq!(copy.pack, "mine@1.0.0");
    assert!(copy.same);

    // Uninstalled by its digest, as the app's Library does.
    assert_eq!(remove_pack(&s.store, &copy.digest).unwrap(), "mine@1.0.0");
    let items = library(&s).items();
    assert!(items[0].also_in_pack.is_none(), "{items:?}");
}

#[test]
fn a_different_tool_under_one_ref_is_refused_naming_both_then_kept_or_replaced() {
    let s = setup();
    let file = s.recordings.join("price-alert@1.0.0.json");
    let original = std::fs::read_to_string(&file).unwrap();
    let edited = original.replace("is now", "dropped to");
    std::fs::write(&file, &edited).unwrap();

    let refused = import_pack(
        &s.pack,
        &s.store,
        std::slice::from_ref(&s.recordings),
        OnConflict::Refuse,
    );
    assert!(!refused.ok);
    assert_eq!(refused.conflicts.len(), 1);
    let conflict = &refused.conflicts[0];
    assert_eq!(conflict.reference, "price-alert@1.0.0");
    assert_eq!(Path::new(&conflict.file), file);
    assert_eq!(conflict.pack, "mine@1.0.0");
    assert!(
        refused
            .error
            .as_deref()
            .is_some_and(|e| e.contains("nothing was installed")),
        "{refused:?}"
    );
    assert!(!s.store.exists() || std::fs::read_dir(&s.store).unwrap().next().is_none());

    let kept = import_pack(
        &s.pack,
        &s.store,
        std::slice::from_ref(&s.recordings),
        OnConflict::Keep,
    );
    assert!(kept.ok, "{:?}", kept.error);
    assert!(kept.replaced.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
    tools_of(&s).expect("the workspace's version is used");
    let holdings = Catalog {
        dirs: vec![s.recordings.clone()],
        store: Some(s.store.clone()),
    }
    .holdings(None)
    .unwrap();
    let warnings: Vec<String> = holdings
        .warnings()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("is used for price-alert@1.0.0"),
        "{warnings:?}"
    );
    let items = library(&s).items();
    assert_eq!(items.len(), 1);
    assert!(items[0].also_in_pack.as_ref().is_some_and(|c| !c.same));

    remove_pack(&s.store, "mine@1.0.0").unwrap();
    let replaced = import_pack(
        &s.pack,
        &s.store,
        std::slice::from_ref(&s.recordings),
        OnConflict::Replace,
    );
    assert!(replaced.ok, "{:?}", replaced.error);
    assert_eq!(replaced.replaced, vec![file.display().to_string()]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    assert!(
        library(&s).items()[0]
            .also_in_pack
            .as_ref()
            .is_some_and(|c| c.same)
    );
}

#[test]
fn a_flow_is_checked_for_what_it_uses_and_a_broken_sibling_is_a_warning() {
    let dir = crate::folders::shipped_watch_folder();
    std::fs::write(
        dir.path().join("broken.flow.json"),
        r#"{"name": "broken", "steps": ["#,
    )
    .unwrap();
    let flow = dir.path().join("daily-price-watch.flow.json");
    // No store: what the user has installed must not decide this test.
    let checked = Catalog {
        dirs: Catalog::for_flow(&flow, &[]).dirs,
        store: None,
    }
    .check_flow(&flow);
    checked.plan.expect("the valid flow compiles");
    let warnings: Vec<String> = checked.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with(&format!(
        "skipped {}: it does not load",
        dir.path().join("broken.flow.json").display()
    )));

    // A tool the flow uses that does not load: its problems are the flow's errors.
    let tool = dir.path().join("search-price@1.2.0.json");
    let text = std::fs::read_to_string(&tool).unwrap();
    std::fs::write(
        &tool,
        text.replacen("\"kind\": \"test_id\"", "\"kind\": \"teleport\"", 1),
    )
    .unwrap();
    let checked = Catalog {
        dirs: vec![dir.path().to_path_buf()],
        store: None,
    }
    .check_flow(&flow);
    let errors = checked.plan.expect_err("a required tool does not load");
    assert!(
        errors
            .iter()
            .any(|d| d.file.as_deref() == Some(tool.display().to_string().as_str())),
        "{errors:?}"
    );
    assert!(
        checked
            .warnings
            .iter()
            .all(|w| !w.to_string().contains("search-price")),
        "the required file is an error, not a warning"
    );
}
