//! Tampering and bad input: every change is refused, with a message naming what is wrong.

use browserflow_pack::{PackError, Store, VerifyOptions, verify};
use serde_json::Value;

use crate::support::{Fixture, archive, entries, tree};

fn refused(bytes: &[u8]) -> PackError {
    verify(bytes, &VerifyOptions::default()).expect_err("a changed pack must be refused")
}

fn replace_entry(bytes: &[u8], path: &str, data: Vec<u8>) -> Vec<u8> {
    let mut list = entries(bytes);
    let slot = list
        .iter_mut()
        .find(|(p, _)| p == path)
        .expect("the entry exists");
    slot.1 = data;
    archive(&list)
}

fn manifest(bytes: &[u8]) -> Value {
    let list = entries(bytes);
    serde_json::from_slice(&list[0].1).expect("manifest JSON")
}

fn with_manifest(bytes: &[u8], manifest: &Value) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(manifest).expect("json");
    text.push('\n');
    let digest = format!(
        "{}\n",
        browserflow_contract::Digest::of_bytes(text.as_bytes())
    );
    let bytes = replace_entry(bytes, "manifest.json", text.into_bytes());
    replace_entry(&bytes, "manifest.json.sha256", digest.into_bytes())
}

#[test]
fn flipping_any_single_byte_is_refused() {
    let pack = Fixture::new().watch_pack();
    verify(&pack.bytes, &VerifyOptions::default()).expect("the original verifies");
    let mut kinds = std::collections::HashSet::new();
    for at in 0..pack.bytes.len() {
        let mut bytes = pack.bytes.clone();
        bytes[at] ^= 0x20;
        match verify(&bytes, &VerifyOptions::default()) {
            Ok(_) => panic!("flipping byte {at} of {} went unnoticed", bytes.len()),
            Err(e) => {
                assert!(!e.to_string().is_empty());
                kinds.insert(std::mem::discriminant(&e));
            }
        }
    }
    // Header, content and padding changes are told apart.
    assert!(kinds.len() >= 3, "{kinds:?}");
}

#[test]
fn a_changed_file_byte_names_the_file() {
    let pack = Fixture::new().watch_pack();
    let list = entries(&pack.bytes);
    let (path, data) = list
        .iter()
        .find(|(p, _)| p.starts_with("tools/search-price"))
        .expect("tool");
    let mut changed = data.clone();
    let at = changed.iter().position(|b| *b == b'n').expect("an n");
    changed[at] = b'm';
    let err = refused(&replace_entry(&pack.bytes, path, changed));
    assert!(matches!(err, PackError::FileDigest { .. }), "{err}");
    assert!(
        err.to_string().contains("tools/search-price@1.2.0.json"),
        "{err}"
    );
}

#[test]
fn a_removed_file_is_refused_as_missing() {
    let pack = Fixture::new().watch_pack();
    let list: Vec<_> = entries(&pack.bytes)
        .into_iter()
        .filter(|(p, _)| p != "tools/price-alert@1.0.0.json")
        .collect();
    let err = refused(&archive(&list));
    assert!(matches!(err, PackError::MissingFile(_)), "{err}");
    assert!(
        err.to_string().contains("tools/price-alert@1.0.0.json"),
        "{err}"
    );
}

#[test]
fn an_added_file_is_refused_as_extra() {
    let pack = Fixture::new().watch_pack();
    for extra in ["tools/extra@1.0.0.json", "README", "signatures/forged.json"] {
        let mut list = entries(&pack.bytes);
        list.push((extra.to_owned(), b"{}\n".to_vec()));
        let err = refused(&archive(&list));
        assert!(err.to_string().contains(extra), "{extra}: {err}");
        if !extra.starts_with("signatures/") {
            assert!(matches!(err, PackError::ExtraFile(_)), "{err}");
        }
    }
}

#[test]
fn a_contract_edited_in_place_is_refused_at_every_depth_of_cover_up() {
    let pack = Fixture::new().watch_pack();
    let file = "tools/search-price@1.2.0.json";
    let original = entries(&pack.bytes)
        .into_iter()
        .find(|(p, _)| p == file)
        .expect("tool")
        .1;
    let mut contract: Value = serde_json::from_slice(&original).expect("json");
    contract["output"]["properties"]["price"]["type"] = "string".into();
    let mut edited = serde_json::to_string_pretty(&contract).expect("json");
    edited.push('\n');
    let edited = edited.into_bytes();

    // 1. The file alone: its SHA-256 no longer matches.
    let err = refused(&replace_entry(&pack.bytes, file, edited.clone()));
    assert!(matches!(err, PackError::FileDigest { .. }), "{err}");
    assert!(err.to_string().contains(file), "{err}");

    // 2. And the manifest's file hash: the file's contract differs from the manifest's.
    let mut m = manifest(&pack.bytes);
    let index = m["entries"]
        .as_array()
        .and_then(|a| a.iter().position(|e| e["file"] == file))
        .expect("entry");
    m["entries"][index]["sha256"] = browserflow_contract::Digest::of_bytes(&edited)
        .to_string()
        .into();
    let err = refused(&with_manifest(
        &replace_entry(&pack.bytes, file, edited.clone()),
        &m,
    ));
    assert!(matches!(err, PackError::Contract { .. }), "{err}");
    assert!(err.to_string().contains("search-price@1.2.0"), "{err}");

    // 3. And the manifest's contract: the recorded digest does not match it.
    m["entries"][index]["contract"] = contract.clone();
    let err = refused(&with_manifest(
        &replace_entry(&pack.bytes, file, edited.clone()),
        &m,
    ));
    assert!(
        err.to_string().contains("search-price@1.2.0") && err.to_string().contains("digest"),
        "{err}"
    );

    // 4. And the digest: the flow's pin no longer matches the tool.
    let parsed =
        browserflow_contract::ToolContract::from_json(&contract).expect("still a contract");
    m["entries"][index]["contract_digest"] = parsed.contract_digest().to_string().into();
    let err = refused(&with_manifest(
        &replace_entry(&pack.bytes, file, edited),
        &m,
    ));
    let text = err.to_string();
    assert!(
        text.contains("daily-price-watch@1.0.0") && text.contains("search-price@1.2.0"),
        "{text}"
    );
}

#[test]
fn an_edited_composite_contract_in_the_manifest_is_refused() {
    let pack = Fixture::new().watch_pack();
    let mut m = manifest(&pack.bytes);
    let entries_list = m["entries"].as_array_mut().expect("entries");
    let flow = entries_list
        .iter_mut()
        .find(|e| e["form"] == "flow")
        .expect("flow");
    flow["contract"]["description"] = "changed".into();
    let err = refused(&with_manifest(&pack.bytes, &m));
    assert!(matches!(err, PackError::Contract { .. }), "{err}");
    assert!(err.to_string().contains("daily-price-watch@1.0.0"), "{err}");
}

#[test]
fn truncated_archives_non_packs_and_path_traversal_are_refused_and_nothing_is_written() {
    let pack = Fixture::new().watch_pack();
    let root = tempfile::tempdir().expect("temp");
    let store = Store::open(root.path().join("store"));
    let traversal = archive(&[
        (
            "manifest.json".to_owned(),
            entries(&pack.bytes)[0].1.clone(),
        ),
        ("../x".to_owned(), b"escaped".to_vec()),
    ]);
    let absolute = archive(&[("/tmp/x".to_owned(), b"escaped".to_vec())]);
    let nested = archive(&[("tools/../../x".to_owned(), b"escaped".to_vec())]);
    let no_manifest = archive(&[("tools/a@1.0.0.json".to_owned(), b"{}".to_vec())]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated in the middle",
            pack.bytes[..pack.bytes.len() / 2].to_vec(),
            "truncated",
        ),
        (
            "truncated at a block",
            pack.bytes[..pack.bytes.len() - 1024].to_vec(),
            "",
        ),
        (
            "truncated trailer",
            pack.bytes[..pack.bytes.len() - 512].to_vec(),
            "",
        ),
        ("empty", Vec::new(), "truncated"),
        (
            "text",
            b"hello, this is not a pack\n".to_vec(),
            "not a pack",
        ),
        (
            "json",
            br#"{"name": "search-price"}"#.repeat(100),
            "not a pack",
        ),
        ("zeros", vec![0u8; 4096], "no entry"),
        ("no manifest", no_manifest, "manifest.json"),
        ("path traversal", traversal, "../x"),
        ("absolute path", absolute, "/tmp/x"),
        ("nested traversal", nested, "tools/../../x"),
    ];
    for (what, bytes, needle) in cases {
        let err = store
            .import(&bytes, &VerifyOptions::default())
            .expect_err(what);
        assert!(err.to_string().contains(needle), "{what}: {err}");
        assert!(
            tree(root.path()).is_empty(),
            "{what}: wrote {:?}",
            tree(root.path())
        );
    }
    assert!(!root.path().join("x").exists());
}

#[test]
fn duplicate_and_non_file_entries_are_refused() {
    let pack = Fixture::new().watch_pack();
    let mut list = entries(&pack.bytes);
    list.push(list[1].clone());
    let err = refused(&archive(&list));
    assert!(err.to_string().contains("twice"), "{err}");

    let mut builder = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_ustar();
    header.set_path("tools").expect("path");
    header.set_entry_type(tar::EntryType::Symlink);
    header.set_link_name("/etc").expect("link");
    header.set_size(0);
    header.set_cksum();
    builder.append(&header, std::io::empty()).expect("append");
    let err = refused(&builder.into_inner().expect("finish"));
    assert!(matches!(err, PackError::UnsafePath { .. }), "{err}");
    assert!(err.to_string().contains("regular files"), "{err}");
}
