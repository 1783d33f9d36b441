//! Export: determinism, closure, externals, pins and the secret check.

use browserflow_contract::ToolRef;
use browserflow_pack::{DenyList, Form, PackError, VerifyOptions, verify};

use crate::support::{Fixture, archive, entries};

fn refs(pack: &browserflow_pack::Pack) -> Vec<String> {
    pack.manifest
        .entries
        .iter()
        .map(|e| e.reference.to_string())
        .collect()
}

#[test]
fn exporting_the_same_tools_twice_gives_byte_identical_packs() {
    let one = Fixture::new().watch_pack();
    // Another folder, files written at another time: the same bytes.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let two = Fixture::new().watch_pack();
    assert_eq!(one.bytes, two.bytes);
    assert_eq!(one.digest, two.digest);
    // The headers follow the documented conventions: rebuilding with them changes nothing.
    assert_eq!(archive(&entries(&one.bytes)), one.bytes);
    let names: Vec<String> = entries(&one.bytes).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        names,
        [
            "manifest.json",
            "manifest.json.sha256",
            "flows/daily-price-watch@1.0.0.flow.json",
            "tools/price-alert@1.0.0.json",
            "tools/search-price@1.2.0.json"
        ]
    );
    let mut archive = tar::Archive::new(one.bytes.as_slice());
    for entry in archive.entries().expect("entries") {
        let entry = entry.expect("entry");
        let header = entry.header();
        assert_eq!(header.mtime().expect("mtime"), 0);
        assert_eq!(header.mode().expect("mode"), 0o644);
        assert_eq!(
            (header.uid().expect("uid"), header.gid().expect("gid")),
            (0, 0)
        );
    }
}

#[test]
fn a_flow_pulls_in_the_tools_it_requires_pinned_and_records_built_ins_as_externals() {
    let fixture = Fixture::new();
    let pack = fixture.watch_pack();
    assert_eq!(
        refs(&pack),
        [
            "daily-price-watch@1.0.0",
            "price-alert@1.0.0",
            "search-price@1.2.0"
        ]
    );
    let flow = pack
        .manifest
        .entry(&ToolRef::parse("daily-price-watch@1.0.0").expect("ref"))
        .expect("the flow");
    assert_eq!(flow.form, Form::Flow);
    assert_eq!(flow.contract.kind().as_str(), "composite");
    assert_eq!(flow.requires.len(), 3);
    for pin in &flow.requires {
        let digest = match pack.manifest.entry(&pin.reference) {
            Some(tool) => tool.contract_digest.clone(),
            None => {
                let external = pack
                    .manifest
                    .externals
                    .iter()
                    .find(|e| e.reference == pin.reference)
                    .expect("a pin is packed or external");
                external.contract_digest.clone()
            }
        };
        assert_eq!(digest, pin.contract_digest, "{}", pin.reference);
    }
    let externals: Vec<String> = pack
        .manifest
        .externals
        .iter()
        .map(|e| e.reference.to_string())
        .collect();
    assert_eq!(externals, ["std/http.post@1.0.0"]);
    assert_eq!(pack.manifest.file_name(), "shop-1.0.0.bfpack");
    let verified = verify(
        &pack.bytes,
        &VerifyOptions {
            builtins: Some(&fixture.builtins),
            ..Default::default()
        },
    )
    .expect("the export verifies");
    assert_eq!(verified.digest, pack.digest);
}

#[test]
fn a_composite_pulls_in_its_inner_flow() {
    let fixture = Fixture::new();
    let watch = fixture.watch_pack();
    let watch_digest = &watch.manifest.entries[0].contract_digest;
    fixture.write(
        "weekly.flow.json",
        &format!(
            r#"{{"name": "weekly-watch", "version": "2.0.0",
                "inputs": [{{"name": "query", "schema": {{"type": "string", "minLength": 1}}, "secret": false}}],
                "requires": [{{"ref": "daily-price-watch@1.0.0", "contract_digest": "{watch_digest}"}}],
                "steps": [{{"id": "watch", "uses": "daily-price-watch@1.0.0",
                           "with": {{"query": {{"from": "input.query"}}, "threshold": {{"value": 20}}}}}}],
                "output": {{"from": "steps.watch.output"}}}}"#
        ),
    );
    let pack = fixture
        .export(&["weekly-watch@2.0.0"])
        .expect("export the composite");
    assert_eq!(
        refs(&pack),
        [
            "daily-price-watch@1.0.0",
            "price-alert@1.0.0",
            "search-price@1.2.0",
            "weekly-watch@2.0.0"
        ]
    );
    verify(&pack.bytes, &VerifyOptions::default()).expect("verifies");
}

#[test]
fn a_tool_alone_exports_alone_and_files_can_be_named_by_path() {
    let fixture = Fixture::new();
    let mut catalog = browserflow_pack::Catalog::new();
    let path = fixture.path("search-price@1.2.0.contract.json");
    let root = catalog
        .root(path.to_str().expect("utf-8"))
        .expect("a file root");
    assert_eq!(root.to_string(), "search-price@1.2.0");
    let deny = DenyList::new();
    let pack = browserflow_pack::export(
        &catalog,
        &browserflow_pack::ExportRequest {
            name: "prices".into(),
            version: semver::Version::new(0, 1, 0),
            roots: vec![root],
            builtins: &fixture.builtins,
            deny: &deny,
        },
    )
    .expect("export");
    assert_eq!(refs(&pack), ["search-price@1.2.0"]);
    assert!(pack.manifest.externals.is_empty());
}

#[test]
fn a_missing_ref_and_a_wrong_pin_are_refused_by_name() {
    let fixture = Fixture::new();
    let err = fixture.export(&["nope@1.0.0"]).expect_err("unknown root");
    assert!(err.to_string().contains("`nope@1.0.0`"), "{err}");

    std::fs::remove_file(fixture.path("price-alert@1.0.0.json")).expect("remove");
    let err = fixture
        .export(&["daily-price-watch@1.0.0"])
        .expect_err("missing tool");
    let text = err.to_string();
    assert!(
        text.contains("`price-alert@1.0.0`") && text.contains("daily-price-watch@1.0.0"),
        "{text}"
    );

    let fixture = Fixture::new();
    let flow = std::fs::read_to_string(fixture.path("daily-price-watch.flow.json")).expect("read");
    let wrong = flow.replace(
        "sha256:6ada91fe84b56d50ab47cfac9122c8e3e07d4212ba8e3023f1d4032299421d1c",
        &format!("sha256:{}", "0".repeat(64)),
    );
    assert_ne!(wrong, flow, "the fixture pins search-price");
    fixture.write("daily-price-watch.flow.json", &wrong);
    let err = fixture
        .export(&["daily-price-watch@1.0.0"])
        .expect_err("wrong pin");
    let text = err.to_string();
    assert!(
        text.contains("daily-price-watch@1.0.0") && text.contains("search-price@1.2.0"),
        "{text}"
    );
}

#[test]
fn a_secret_input_with_a_default_is_refused() {
    let fixture = Fixture::new();
    fixture.write(
        "login.json",
        r#"{"name": "login", "version": "1.0.0", "kind": "browser", "description": "",
            "inputs": [{"name": "password", "schema": {"type": "string", "default": "hunter22"}, "secret": true}],
            "output": {"type": "boolean"}, "capabilities": ["browser", "secrets"]}"#,
    );
    let err = fixture
        .export(&["login@1.0.0"])
        .expect_err("a secret default");
    assert!(matches!(err, PackError::Secret(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("`password`") && text.contains("login@1.0.0"),
        "{text}"
    );
    assert!(!text.contains("hunter22"));
}

#[test]
fn a_flow_binding_a_literal_into_a_secret_slot_is_refused() {
    let fixture = Fixture::new();
    let login = fixture.write(
        "login.json",
        r#"{"contract": {"name": "login", "version": "1.0.0", "kind": "browser", "description": "",
            "inputs": [{"name": "password", "schema": {"type": "string"}, "secret": true}],
            "output": {"type": "boolean"}, "capabilities": ["browser", "secrets"]},
            "steps": []}"#,
    );
    let mut catalog = browserflow_pack::Catalog::new();
    catalog
        .add_file(&login)
        .expect("a tool file with a top-level contract");
    let digest = {
        let text = std::fs::read_to_string(&login).expect("read");
        let value: serde_json::Value = serde_json::from_str(&text).expect("json");
        browserflow_contract::ToolContract::from_document(&value)
            .expect("contract")
            .contract_digest()
    };
    for (binding, refused) in [
        (r#"{"value": "hunter22"}"#, true),
        (r#"{"template": "hunter22"}"#, true),
        (r#"{"from": "secret.PASSWORD"}"#, false),
    ] {
        fixture.write(
            "sign-in.flow.json",
            &format!(
                r#"{{"name": "sign-in", "version": "1.0.0",
                    "requires": [{{"ref": "login@1.0.0", "contract_digest": "{digest}"}}],
                    "steps": [{{"id": "login", "uses": "login@1.0.0", "with": {{"password": {binding}}}}}],
                    "output": {{"from": "steps.login.output"}}}}"#
            ),
        );
        let result = fixture.export(&["sign-in@1.0.0"]);
        if refused {
            let err = result.expect_err("a literal in a secret slot");
            assert!(matches!(err, PackError::Secret(_)), "{err}");
            let text = err.to_string();
            assert!(
                text.contains("`password`") && text.contains("step `login`"),
                "{text}"
            );
            assert!(!text.contains("hunter22"), "{text}");
        } else {
            result.expect("a secret reference is fine");
        }
    }
}

#[test]
fn a_denied_value_in_any_form_is_refused_without_showing_it() {
    use base64::Engine as _;
    let secret = "tok 9f8e/7d6c+5b4a";
    let forms = [
        ("raw", secret.to_owned()),
        (
            "Base64",
            base64::engine::general_purpose::STANDARD.encode(format!("Bearer {secret}")),
        ),
        ("hex", hex::encode(secret)),
        (
            "URL-encoded",
            "https://hooks.example/x?k=tok%209f8e%2F7d6c%2B5b4a".to_owned(),
        ),
    ];
    let mut deny = DenyList::new();
    deny.add("BROWSERFLOW_SECRET_TOKEN", secret);
    let fixture = Fixture::new();
    fixture
        .export_with(&["search-price@1.2.0"], &deny)
        .expect("clean files pass");
    for (form, text) in forms {
        let fixture = Fixture::new();
        let path = fixture.path("search-price@1.2.0.contract.json");
        let contract = std::fs::read_to_string(&path).expect("read");
        let leaked = contract.replace(
            "Search the shop and read the first result's price.",
            &format!("Uses {text} to search."),
        );
        std::fs::write(&path, leaked).expect("write");
        let err = fixture
            .export_with(&["search-price@1.2.0"], &deny)
            .expect_err(form);
        let message = err.to_string();
        assert!(matches!(err, PackError::Secret(_)), "{form}: {message}");
        assert!(
            message.contains("BROWSERFLOW_SECRET_TOKEN"),
            "{form}: {message}"
        );
        assert!(
            message.contains("tools/search-price@1.2.0.json"),
            "{form}: {message}"
        );
        assert!(!message.contains(secret), "{form}: {message}");
    }
}

#[test]
fn a_folder_file_defining_a_ref_twice_breaks_only_an_export_that_needs_it() {
    let fixture = Fixture::new();
    // An old copy of the code tool beside it, with other content: nothing needs it for the
    // search-price export, and the file named by path wins over the folder's.
    let original = std::fs::read_to_string(fixture.path("price-alert@1.0.0.json")).expect("read");
    fixture.write(
        "price-alert@1.0.0 (old copy).json",
        &original.replace("is now", "dropped to"),
    );
    let pack = fixture
        .export(&["search-price@1.2.0"])
        .expect("an unrelated duplicate breaks nothing");
    assert_eq!(refs(&pack), ["search-price@1.2.0"]);

    let refused = fixture
        .export(&["price-alert@1.0.0"])
        .expect_err("the export needs the ambiguous ref");
    let said = refused.to_string();
    assert!(
        said.contains("`price-alert@1.0.0` is defined more than once with different content")
            && said.contains("price-alert@1.0.0 (old copy).json")
            && said.contains("name the one to export by its path"),
        "{said}"
    );

    let mut catalog = fixture.catalog();
    let named = fixture.path("price-alert@1.0.0.json");
    let root = catalog
        .root(named.to_str().expect("utf-8"))
        .expect("the file named by path");
    let deny = DenyList::new();
    let pack = browserflow_pack::export(
        &catalog,
        &browserflow_pack::ExportRequest {
            name: "alerts".into(),
            version: semver::Version::new(1, 0, 0),
            roots: vec![root],
            builtins: &fixture.builtins,
            deny: &deny,
        },
    )
    .expect("the named file decides");
    let (_, bytes) = entries(&pack.bytes)
        .into_iter()
        .find(|(name, _)| name == "tools/price-alert@1.0.0.json")
        .expect("the tool is in the pack");
    assert_eq!(String::from_utf8(bytes).expect("utf-8"), original);
}
