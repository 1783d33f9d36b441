//! Fixtures: the shipped recordings copied into a temporary folder, and archive surgery.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use browserflow_contract::{ToolContract, ToolRef};
use browserflow_flow::Registry;
use browserflow_pack::{Catalog, DenyList, ExportRequest, Pack, export};

/// The repository's `recordings` folder.
pub fn recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings")
}

/// A temporary folder holding the shipped tools (not the built-in `std/http.post`) and the
/// `daily-price-watch` flow.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub builtins: Registry,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let contracts = recordings().join("contracts");
        std::fs::copy(
            recordings().join("price-alert@1.0.0.json"),
            dir.path().join("price-alert@1.0.0.json"),
        )
        .expect("copy the price-alert code tool");
        // search-price ships as a real tool file; the fixture keeps its bare contract.
        let tool: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(recordings().join("search-price@1.2.0.json"))
                .expect("read search-price"),
        )
        .expect("search-price is JSON");
        std::fs::write(
            dir.path().join("search-price@1.2.0.contract.json"),
            serde_json::to_string_pretty(&tool["contract"]).expect("serialise") + "\n",
        )
        .expect("write the search-price contract");
        std::fs::copy(
            recordings().join("daily-price-watch.flow.json"),
            dir.path().join("daily-price-watch.flow.json"),
        )
        .expect("copy the flow");
        let mut builtins = Registry::new();
        let http = std::fs::read_to_string(contracts.join("std-http.post@1.0.0.contract.json"))
            .expect("read std/http.post");
        builtins
            .insert(ToolContract::from_json_str(&http).expect("a valid contract"))
            .expect("register std/http.post");
        Fixture { dir, builtins }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, text).expect("write a fixture file");
        path
    }

    pub fn catalog(&self) -> Catalog {
        let mut catalog = Catalog::new();
        catalog
            .add_dir(self.dir.path())
            .expect("load the fixture folder");
        catalog
    }

    pub fn export(&self, roots: &[&str]) -> Result<Pack, browserflow_pack::PackError> {
        self.export_with(roots, &DenyList::new())
    }

    pub fn export_with(
        &self,
        roots: &[&str],
        deny: &DenyList,
    ) -> Result<Pack, browserflow_pack::PackError> {
        let catalog = self.catalog();
        export(
            &catalog,
            &ExportRequest {
                name: "shop".into(),
                version: semver::Version::new(1, 0, 0),
                roots: roots
                    .iter()
                    .map(|r| ToolRef::parse(r).expect("a ref"))
                    .collect(),
                builtins: &self.builtins,
                deny,
            },
        )
    }

    /// The pack of the daily-price-watch flow (with both its tools).
    pub fn watch_pack(&self) -> Pack {
        self.export(&["daily-price-watch@1.0.0"])
            .expect("export the flow")
    }
}

/// The entries of a tar archive, in order.
pub fn entries(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = tar::Archive::new(bytes);
    archive
        .entries()
        .expect("entries")
        .map(|e| {
            let mut e = e.expect("an entry");
            let path = e.path().expect("a path").display().to_string();
            let mut data = Vec::new();
            e.read_to_end(&mut data).expect("read an entry");
            (path, data)
        })
        .collect()
}

/// A tar archive with the pack's own header conventions, so only the intended change differs.
pub fn archive(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, data) in entries {
        let mut header = tar::Header::new_ustar();
        // Written raw, so tests can also build entries the tar crate would refuse (`../x`).
        let name = &mut header.as_old_mut().name;
        name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder.append(&header, data.as_slice()).expect("append");
    }
    builder.into_inner().expect("finish")
}

/// Every file (relative path) under `dir`, sorted.
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(base, &path, out);
                } else {
                    out.push(
                        path.strip_prefix(base)
                            .unwrap_or(&path)
                            .display()
                            .to_string(),
                    );
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}
