//! Import into the content-addressed store, and resolving refs from it.

use browserflow_contract::ToolRef;
use browserflow_flow::Registry;
use browserflow_pack::{Form, PackError, Store, VerifyOptions};

use crate::support::{Fixture, tree};

#[test]
fn export_import_resolve_search_price_from_the_store() {
    let fixture = Fixture::new();
    let pack = fixture.watch_pack();
    let file = fixture.path("shop@1.0.0.bfpack");
    std::fs::write(&file, &pack.bytes).expect("write the pack");

    let data = tempfile::tempdir().expect("temp");
    let store = Store::open(data.path());
    let imported = store
        .import_file(&file, &VerifyOptions::default())
        .expect("import");
    assert!(imported.newly_installed);
    let hex = pack.digest.as_str().trim_start_matches("sha256:");
    assert_eq!(imported.dir, data.path().join(format!("sha256-{hex}")));
    assert_eq!(
        tree(data.path()),
        [
            format!("sha256-{hex}/flows/daily-price-watch@1.0.0.flow.json"),
            format!("sha256-{hex}/manifest.json"),
            format!("sha256-{hex}/pack.bfpack"),
            format!("sha256-{hex}/tools/price-alert@1.0.0.json"),
            format!("sha256-{hex}/tools/search-price@1.2.0.json"),
        ]
    );

    let search = ToolRef::parse("search-price@1.2.0").expect("ref");
    let tool = store.resolve(&search).expect("resolve").expect("installed");
    assert_eq!(tool.form, Form::Tool);
    assert_eq!(tool.pack_digest, pack.digest);
    assert_eq!(tool.pack, "shop@1.0.0");
    assert_eq!(
        tool.contract.output().to_json()["properties"]["price"]["type"],
        "number"
    );
    assert_eq!(
        std::fs::read(&tool.path).expect("read"),
        std::fs::read(fixture.path("search-price@1.2.0.contract.json")).expect("read")
    );
    assert!(
        store
            .resolve(&ToolRef::parse("search-price@9.9.9").expect("ref"))
            .expect("resolve")
            .is_none()
    );

    // `bflow check` and `bflow run` load the store into their registry and compile against it.
    let mut registry = fixture.builtins.clone();
    let loaded = store.load_into(&mut registry).expect("load the store");
    assert_eq!(loaded, 3);
    let watch = registry
        .get(&ToolRef::parse("daily-price-watch@1.0.0").expect("ref"))
        .expect("the flow is registered as a composite");
    assert!(watch.composite.is_some());
    assert_eq!(store.pack_bytes(&pack.digest).expect("archive"), pack.bytes);

    // Importing again changes nothing.
    let again = store
        .import(&pack.bytes, &VerifyOptions::default())
        .expect("import again");
    assert!(!again.newly_installed);
    assert_eq!(store.packs().expect("packs").len(), 1);
}

#[test]
fn a_ref_installed_with_a_different_digest_is_refused() {
    let data = tempfile::tempdir().expect("temp");
    let store = Store::open(data.path());
    let first = Fixture::new();
    store
        .import(
            &first.export(&["search-price@1.2.0"]).expect("export").bytes,
            &VerifyOptions::default(),
        )
        .expect("first import");
    let before = tree(data.path());

    let second = Fixture::new();
    let path = second.path("search-price@1.2.0.contract.json");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace("\"currency\",\n", "")).expect("write");
    let pack = second
        .export(&["search-price@1.2.0"])
        .expect("export the other");
    let err = store
        .import(&pack.bytes, &VerifyOptions::default())
        .expect_err("conflict");
    assert!(matches!(err, PackError::Conflict(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("`search-price@1.2.0` is already installed")
            && text.contains("contract digest"),
        "{text}"
    );
    assert_eq!(tree(data.path()), before, "nothing written");

    // Same contract, different bytes (a changed description): also refused.
    let third = Fixture::new();
    let path = third.path("search-price@1.2.0.contract.json");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace("Search the shop", "Search our shop")).expect("write");
    let pack = third
        .export(&["search-price@1.2.0"])
        .expect("export the third");
    let err = store
        .import(&pack.bytes, &VerifyOptions::default())
        .expect_err("conflict");
    assert!(err.to_string().contains("different file content"), "{err}");
}

#[test]
fn a_file_changed_in_the_store_is_detected_on_resolve() {
    let fixture = Fixture::new();
    let data = tempfile::tempdir().expect("temp");
    let store = Store::open(data.path());
    let imported = store
        .import(&fixture.watch_pack().bytes, &VerifyOptions::default())
        .expect("import");
    let file = imported.dir.join("tools/search-price@1.2.0.json");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("number", "string")).expect("write");
    let err = store
        .resolve(&ToolRef::parse("search-price@1.2.0").expect("ref"))
        .expect_err("a changed file");
    assert!(err.to_string().contains("search-price@1.2.0.json"), "{err}");
}

#[test]
fn externals_must_match_the_program_when_it_says_what_it_has() {
    let fixture = Fixture::new();
    let pack = fixture.watch_pack();
    let empty = Registry::new();
    let err = browserflow_pack::verify(
        &pack.bytes,
        &VerifyOptions {
            builtins: Some(&empty),
            ..Default::default()
        },
    )
    .expect_err("std/http.post is missing");
    assert!(err.to_string().contains("std/http.post@1.0.0"), "{err}");
}

#[test]
fn a_pack_is_removed_by_name_or_digest_and_nothing_else_is() {
    let fixture = Fixture::new();
    let pack = fixture.watch_pack();
    let file = fixture.path("shop@1.0.0.bfpack");
    std::fs::write(&file, &pack.bytes).expect("write the pack");
    let data = tempfile::tempdir().expect("temp");
    let store = Store::open(data.path());
    let search = ToolRef::parse("search-price@1.2.0").expect("ref");

    for which in [
        "shop@1.0.0".to_owned(),
        pack.digest.to_string(),
        pack.digest.as_str().replace("sha256:", "sha256-"),
        pack.digest.as_str()["sha256:".len().."sha256:".len() + 8].to_owned(),
    ] {
        store
            .import_file(&file, &VerifyOptions::default())
            .expect("import");
        assert!(store.resolve(&search).expect("resolve").is_some());
        let removed = store.remove(&which).expect("removed");
        assert_eq!(removed.digest, pack.digest, "{which}");
        assert!(store.packs().expect("packs").is_empty(), "{which}");
        assert!(store.resolve(&search).expect("resolve").is_none());
        assert!(tree(data.path()).is_empty(), "nothing left behind: {which}");
    }

    store
        .import_file(&file, &VerifyOptions::default())
        .expect("import");
    for wrong in ["shop@2.0.0", "sha256:0000", "deadbeefdeadbeef", ""] {
        let refused = store.remove(wrong).expect_err("nothing matches");
        assert!(matches!(refused, PackError::NotInstalled(_)), "{refused}");
    }
    assert_eq!(store.packs().expect("packs").len(), 1, "still installed");
}
