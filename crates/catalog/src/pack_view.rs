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

pub use crate::pack_runnable::NotRunnable;
use crate::pack_runnable::{list, not_runnable};

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
    /// Tools and flows of the pack that workspace files define differently (import only):
    /// with [`OnConflict::Refuse`] nothing was installed and the person chooses.
    pub conflicts: Vec<ConflictView>,
    /// Workspace files replaced by the pack's version ([`OnConflict::Replace`]).
    pub replaced: Vec<String>,
}

/// What an import does when the pack carries a tool or flow that a workspace file defines
/// differently under the same `name@version`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum OnConflict {
    /// Install nothing and name each conflict (the default).
    #[default]
    Refuse,
    /// Write the pack's version over each workspace file, then install.
    Replace,
    /// Install, keeping the workspace files: they are used, the pack's are shadowed.
    Keep,
}

/// A tool or flow the pack carries that a workspace file defines differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConflictView {
    /// `name@version`.
    pub reference: String,
    /// The workspace file.
    pub file: String,
    /// The pack, `name@version`.
    pub pack: String,
    /// How they differ, in words.
    pub difference: String,
}

impl std::fmt::Display for ConflictView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the pack {} has a different {} than {} ({})",
            self.pack, self.reference, self.file, self.difference
        )
    }
}

/// Why an import did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The pack does not verify, or the store refused it.
    #[error(transparent)]
    Pack(#[from] browserflow_pack::PackError),
    /// Workspace files define some of the pack's tools differently; nothing was installed.
    #[error("{}; nothing was installed: replace the workspace files with the pack's versions, or keep them (they are used instead of the pack's)", conflicts_text(.0))]
    Conflicts(Vec<ConflictView>),
    /// Tools of the pack that `bflow run` would refuse; nothing was installed.
    #[error("{}; nothing was installed", list(.0))]
    NotRunnable(Vec<NotRunnable>),
    /// A workspace file could not be replaced.
    #[error("cannot replace {path}: {source}")]
    Replace {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

fn conflicts_text(conflicts: &[ConflictView]) -> String {
    conflicts
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// What [`import_into`] did.
#[derive(Debug, Clone)]
pub struct ImportDone {
    /// The pack as the store holds it.
    pub imported: browserflow_pack::Imported,
    /// The conflicts there were (kept or replaced as asked).
    pub conflicts: Vec<ConflictView>,
    /// The workspace files replaced by the pack's version.
    pub replaced: Vec<String>,
}

/// The tools and flows of `pack` that a file in `workspace` defines differently (the same
/// `name@version`, another contract or other content than `metadata`). The same tool in both
/// places is one tool and no conflict.
pub fn workspace_conflicts(pack: &VerifiedPack, workspace: &[PathBuf]) -> Vec<ConflictView> {
    let documents = crate::holdings::folder_documents(workspace);
    let mut out = Vec::new();
    for entry in &pack.manifest.entries {
        let Some((file, _, ours)) = documents.iter().find(|(_, r, _)| *r == entry.reference) else {
            continue;
        };
        let theirs = pack
            .files()
            .iter()
            .find(|(name, _)| *name == entry.file)
            .and_then(|(_, bytes)| browserflow_contract::parse_json_slice(bytes).ok());
        if crate::holdings::same_tool(Some(ours), theirs.as_ref()) {
            continue;
        }
        let ours_digest = browserflow_contract::ToolContract::from_document(ours)
            .ok()
            .map(|c| c.contract_digest());
        let difference = if entry.form == browserflow_pack::Form::Tool
            && ours_digest.as_ref() != Some(&entry.contract_digest)
        {
            "its inputs, output or capabilities differ"
        } else {
            "the same interface with different steps"
        };
        out.push(ConflictView {
            reference: entry.reference.to_string(),
            file: file.display().to_string(),
            pack: pack.manifest.reference(),
            difference: difference.to_string(),
        });
    }
    out
}

/// Verifies the pack file at `path` and installs it into the store at `store`, first
/// comparing it with the `workspace` folders ([`workspace_conflicts`]) and doing what
/// `on_conflict` says when a file there defines one of its tools differently.
pub fn import_into(
    path: &Path,
    store: &Path,
    options: &VerifyOptions<'_>,
    workspace: &[PathBuf],
    on_conflict: OnConflict,
) -> Result<ImportDone, ImportError> {
    let pack = browserflow_pack::verify_file(path, options)?;
    let refused = not_runnable(&pack);
    if !refused.is_empty() {
        return Err(ImportError::NotRunnable(refused));
    }
    let conflicts = workspace_conflicts(&pack, workspace);
    let mut replaced = Vec::new();
    if !conflicts.is_empty() {
        match on_conflict {
            OnConflict::Refuse => return Err(ImportError::Conflicts(conflicts)),
            OnConflict::Keep => {}
            OnConflict::Replace => {
                for conflict in &conflicts {
                    let file = manifest_file(&pack, &conflict.reference);
                    let bytes = pack
                        .files()
                        .iter()
                        .find(|(name, _)| Some(name.as_str()) == file)
                        .map(|(_, bytes)| bytes.as_slice())
                        .unwrap_or_default();
                    replace_file(Path::new(&conflict.file), bytes).map_err(|source| {
                        ImportError::Replace {
                            path: conflict.file.clone(),
                            source,
                        }
                    })?;
                    replaced.push(conflict.file.clone());
                }
            }
        }
    }
    let imported = Store::open(store.to_path_buf()).import_file(path, options)?;
    Ok(ImportDone {
        imported,
        conflicts,
        replaced,
    })
}

fn manifest_file<'a>(pack: &'a VerifiedPack, reference: &str) -> Option<&'a str> {
    pack.manifest
        .entries
        .iter()
        .find(|e| e.reference.to_string() == reference)
        .map(|e| e.file.as_str())
}

/// Writes `bytes` beside `path` and moves them into place, so the file is never half written.
fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staged = path.with_file_name(format!(".{name}.replacing-{}", std::process::id()));
    std::fs::write(&staged, bytes)?;
    std::fs::rename(&staged, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&staged);
    })
}

/// Uninstalls the pack `which` (its `name@version` or digest) from the store at `store`;
/// returns its `name@version`.
pub fn remove_pack(store: &Path, which: &str) -> Result<String, browserflow_pack::PackError> {
    Store::open(store.to_path_buf())
        .remove(which)
        .map(|pack| pack.manifest.reference())
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
    /// Tools the pack would carry that `bflow run` would refuse; nothing was written.
    #[error("{}; nothing was written", list(.0))]
    NotRunnable(Vec<NotRunnable>),
}

/// Refuses an export that would carry a tool `bflow run` refuses ([`NotRunnable`]): the pack
/// is built in memory and each of its recorded tools read as a tool file. What `bflow pack
/// export` and the Export screen call before writing.
pub fn check_export(catalog: &Catalog, request: &ExportRequest<'_>) -> Result<(), PackViewError> {
    let pack = browserflow_pack::export(catalog, request)?;
    let verified = browserflow_pack::verify(&pack.bytes, &options(request.builtins))?;
    let refused = not_runnable(&verified);
    if refused.is_empty() {
        Ok(())
    } else {
        Err(PackViewError::NotRunnable(refused))
    }
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
    check_export(&catalog, &request)?;
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

/// Verifies the pack file at `path` and installs it into the store at `store`
/// ([`import_into`], no trusted keys), comparing it with the `workspace` folders first.
pub fn import_pack(
    path: &Path,
    store: &Path,
    workspace: &[PathBuf],
    on_conflict: OnConflict,
) -> VerifyView {
    let mut view = empty_verify(path);
    let builtins = match crate::builtin_contracts() {
        Ok(b) => b,
        Err(d) => {
            view.error = Some(d.to_string());
            return view;
        }
    };
    match import_into(path, store, &options(&builtins), workspace, on_conflict) {
        Ok(done) => {
            fill_verified(&mut view, &done.imported.pack, path);
            view.installed_in = Some(done.imported.dir.display().to_string());
            view.newly_installed = Some(done.imported.newly_installed);
            view.conflicts = done.conflicts;
            view.replaced = done.replaced;
        }
        Err(ImportError::Conflicts(conflicts)) => {
            view.error = Some(ImportError::Conflicts(conflicts.clone()).to_string());
            view.conflicts = conflicts;
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
        conflicts: Vec::new(),
        replaced: Vec::new(),
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
