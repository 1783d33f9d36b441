//! A folder with a stranger in it (a JSON file that is not a tool, flow or contract) still
//! serves its tools and flows; the catalog names the stranger for the shell to say once.

use std::path::PathBuf;

use browserflow_catalog::Catalog;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A folder holding the shipped daily-price-watch flow and the two tools it uses.
pub fn shipped_watch_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "daily-price-watch.flow.json",
        "price-alert@1.0.0.json",
        "search-price@1.2.0.json",
    ] {
        std::fs::copy(
            repo_root().join("recordings").join(name),
            dir.path().join(name),
        )
        .unwrap();
    }
    dir
}

#[test]
fn a_stranger_is_skipped_and_named_while_the_folders_tools_and_flows_load() {
    let dir = shipped_watch_folder();
    std::fs::write(dir.path().join("settings.json"), r#"{"a":1}"#).unwrap();
    let flow = dir.path().join("daily-price-watch.flow.json");
    let catalog = Catalog::for_flow(&flow, &[]);

    let contracts = catalog
        .contracts()
        .expect("the stranger does not break the folder");
    browserflow_flow::check_file(&flow, &contracts).expect("the flow compiles");
    let tools = catalog
        .tools(&std::sync::Arc::new(
            browserflow_replay::SharedBrowser::new(Default::default()),
        ))
        .expect("the stranger does not break the tools");
    assert!(
        tools.contract("price-alert@1.0.0").is_some(),
        "the folder's tools are runnable"
    );
    let strangers = catalog.strangers();
    assert_eq!(strangers.len(), 1, "{strangers:?}");
    assert!(strangers[0].path.ends_with("settings.json"));

    // A tool file with an error is not a stranger: it still fails, naming its file.
    std::fs::write(
        dir.path().join("broken@1.0.0.json"),
        r#"{"contract": {"name": "broken"}, "steps": []}"#,
    )
    .unwrap();
    let errors = catalog.contracts().unwrap_err();
    assert!(
        errors.iter().any(|d| d
            .file
            .as_deref()
            .is_some_and(|f| f.ends_with("broken@1.0.0.json"))),
        "{errors:?}"
    );
    assert_eq!(catalog.strangers().len(), 1);
}
