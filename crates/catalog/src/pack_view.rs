//! Packs as the desktop app's Export screen shows them: the manifest of a pack before it is
//! written (refs, forms, digests), writing it, and verifying or importing a pack file with
//! the result for people. Each call is what `bflow pack export|verify|import` does.
//!
//! ```no_run
//! use browserflow_catalog::pack_view::{ExportPlan, export_preview};
//! let plan = ExportPlan {
//!     name: "prices".into(),
//!     version: "1.0.0".into(),
//!     roots: vec!["search-price@1.2.0".into()],
//!     dirs: vec!["recordings".into(), "recordings/contracts".into()],
//! };
//! let manifest = export_preview(&plan).expect("exports");
//! println!("{} entries, pack {}", manifest.entries.len(), manifest.digest);
//! ```

use std::path::{Path, PathBuf};

use browserflow_pack::{Catalog, DenyList, ExportRequest, Store, VerifiedPack, VerifyOptions};
use serde::{Deserialize, Serialize};

/// What to export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExportPlan {
    /// The pack name.
    pub name: String,
    /// The pack version (semver).
    pub version: String,
    /// The tools and flows to export, `name@version` (what they require comes along).
    pub roots: Vec<String>,
    /// The folders the roots and their requirements are found in.
    #[cfg_attr(feature = "ts", ts(type = "Array<string>"))]
    pub dirs: Vec<PathBuf>,
}

/// One entry of a pack manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ManifestEntryView {
    /// `name@version`.
    pub reference: String,
    /// `tool`, `flow`, …
    pub form: String,
    /// The tool kind.
    pub kind: String,
    /// The contract digest.
    pub contract_digest: String,
    /// The file's SHA-256 inside the pack.
    pub sha256: String,
    /// The file inside the pack.
    pub file: String,
    /// Whether the person chose it (a root) or it came along as a requirement.
    pub root: bool,
}

/// A signature on a pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SignatureView {
    /// `ed25519-…`.
    pub key_id: String,
    /// Whether the key is trusted.
    pub trusted: bool,
}

/// A pack manifest, for people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ManifestView {
    /// `name@version`.
    pub reference: String,
    /// The pack digest.
    pub digest: String,
    /// The entries.
    pub entries: Vec<ManifestEntryView>,
    /// Tools the pack requires but does not carry (the built-ins), `name@version`.
    pub externals: Vec<String>,
    /// Valid signatures.
    pub signatures: Vec<SignatureView>,
    /// The pack's size in bytes.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size: u64,
}

/// A verified (or installed) pack file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VerifyView {
    /// The file.
    pub path: String,
    /// Whether every digest (and signature) checks.
    pub ok: bool,
    /// The manifest, when it verifies.
    pub manifest: Option<ManifestView>,
    /// Why it does not verify.
    pub error: Option<String>,
    /// Where it was installed (import only).
    pub installed_in: Option<String>,
    /// Whether the import installed it now (`false`: it was already there).
    pub newly_installed: Option<bool>,
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum PackViewError {
    /// The version is not semver.
    #[error("the pack version `{0}` is not a semantic version (like 1.0.0)")]
    Version(String),
    /// Nothing was chosen.
    #[error("choose at least one tool or flow to export")]
    NoRoots,
    /// The built-in contracts did not load.
    #[error("{0}")]
    Builtins(String),
    /// The pack crate refused.
    #[error(transparent)]
    Pack(#[from] browserflow_pack::PackError),
}

fn request_parts(plan: &ExportPlan) -> Result<(Catalog, semver::Version), PackViewError> {
    if plan.roots.is_empty() {
        return Err(PackViewError::NoRoots);
    }
    let version = plan
        .version
        .trim()
        .parse::<semver::Version>()
        .map_err(|_| PackViewError::Version(plan.version.clone()))?;
    let mut catalog = Catalog::new();
    for dir in plan.dirs.iter().filter(|d| d.is_dir()) {
        catalog.add_dir(dir)?;
    }
    Ok((catalog, version))
}

fn export_with<T>(
    plan: &ExportPlan,
    write: impl FnOnce(&Catalog, &ExportRequest<'_>) -> Result<T, browserflow_pack::PackError>,
) -> Result<T, PackViewError> {
    let builtins =
        crate::builtin_contracts().map_err(|d| PackViewError::Builtins(d.to_string()))?;
    let (mut catalog, version) = request_parts(plan)?;
    let roots = plan
        .roots
        .iter()
        .map(|r| catalog.root(r))
        .collect::<Result<Vec<_>, _>>()?;
    let deny = DenyList::from_env();
    let request = ExportRequest {
        name: plan.name.trim().to_string(),
        version,
        roots,
        builtins: &builtins,
        deny: &deny,
    };
    Ok(write(&catalog, &request)?)
}

/// The manifest the export would write (nothing is written).
pub fn export_preview(plan: &ExportPlan) -> Result<ManifestView, PackViewError> {
    export_with(plan, |catalog, request| {
        browserflow_pack::export(catalog, request).map(|pack| {
            manifest_view(
                &pack.manifest,
                &pack.digest.to_string(),
                &[],
                pack.bytes.len(),
            )
        })
    })
}

/// Writes the pack to `out` and returns its manifest.
pub fn export_pack(plan: &ExportPlan, out: &Path) -> Result<ManifestView, PackViewError> {
    export_with(plan, |catalog, request| {
        browserflow_pack::export_to_file(catalog, request, out).map(|pack| {
            manifest_view(
                &pack.manifest,
                &pack.digest.to_string(),
                &[],
                pack.bytes.len(),
            )
        })
    })
}

/// Verifies the pack file at `path` (no trusted keys: signatures are reported, untrusted).
pub fn verify_pack(path: &Path) -> VerifyView {
    let mut view = empty_verify(path);
    let builtins = match crate::builtin_contracts() {
        Ok(b) => b,
        Err(d) => {
            view.error = Some(d.to_string());
            return view;
        }
    };
    match browserflow_pack::verify_file(path, &options(&builtins)) {
        Ok(pack) => fill_verified(&mut view, &pack, path),
        Err(e) => view.error = Some(e.to_string()),
    }
    view
}

/// Verifies the pack file at `path` and installs it into the store at `store`.
pub fn import_pack(path: &Path, store: &Path) -> VerifyView {
    let mut view = empty_verify(path);
    let builtins = match crate::builtin_contracts() {
        Ok(b) => b,
        Err(d) => {
            view.error = Some(d.to_string());
            return view;
        }
    };
    match Store::open(store.to_path_buf()).import_file(path, &options(&builtins)) {
        Ok(imported) => {
            fill_verified(&mut view, &imported.pack, path);
            view.installed_in = Some(imported.dir.display().to_string());
            view.newly_installed = Some(imported.newly_installed);
        }
        Err(e) => view.error = Some(e.to_string()),
    }
    view
}

fn options(builtins: &browserflow_flow::Registry) -> VerifyOptions<'_> {
    VerifyOptions {
        trusted_keys: Vec::new(),
        require_signature: false,
        builtins: Some(builtins),
        expected_digest: None,
    }
}

fn empty_verify(path: &Path) -> VerifyView {
    VerifyView {
        path: path.display().to_string(),
        ok: false,
        manifest: None,
        error: None,
        installed_in: None,
        newly_installed: None,
    }
}

fn fill_verified(view: &mut VerifyView, pack: &VerifiedPack, path: &Path) {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let signatures: Vec<SignatureView> = pack
        .signatures
        .iter()
        .map(|s| SignatureView {
            key_id: s.key_id.clone(),
            trusted: s.trusted,
        })
        .collect();
    view.ok = true;
    view.manifest = Some(manifest_view(
        &pack.manifest,
        &pack.digest.to_string(),
        &signatures,
        usize::try_from(size).unwrap_or(usize::MAX),
    ));
}

fn manifest_view(
    manifest: &browserflow_pack::Manifest,
    digest: &str,
    signatures: &[SignatureView],
    size: usize,
) -> ManifestView {
    ManifestView {
        reference: manifest.reference(),
        digest: digest.to_string(),
        entries: manifest
            .entries
            .iter()
            .map(|e| ManifestEntryView {
                reference: e.reference.to_string(),
                form: e.form.as_str().to_string(),
                kind: e.contract.kind().as_str().to_string(),
                contract_digest: e.contract_digest.to_string(),
                sha256: e.sha256.to_string(),
                file: e.file.clone(),
                root: manifest.roots.contains(&e.reference),
            })
            .collect(),
        externals: manifest
            .externals
            .iter()
            .map(|x| x.reference.to_string())
            .collect(),
        signatures: signatures.to_vec(),
        size: size as u64,
    }
}
