//! The local content-addressed store of imported packs.
//!
//! ```text
//! <root>/sha256-<hex>/manifest.json      the pack's manifest; <hex> is its SHA-256
//! <root>/sha256-<hex>/pack.bfpack        the archive as imported (with its signatures)
//! <root>/sha256-<hex>/tools/<ref>.json   the tool files
//! <root>/sha256-<hex>/flows/<ref>.flow.json
//! ```
//!
//! A pack is verified in full before anything is written, unpacked into a temporary folder
//! inside the root and renamed into place, so a folder under its digest is always complete.
//! Nothing is ever written outside the root: every path comes from a verified manifest entry
//! whose path was checked component by component.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use browserflow_contract::{Digest, ToolContract, ToolRef};
use browserflow_flow::Registry;

use crate::error::PackError;
use crate::manifest::{Form, Manifest};
use crate::verify::{VerifiedPack, VerifyOptions, verify};

/// The store: a folder of `sha256-<hex>` pack folders.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

/// A pack in the store.
#[derive(Debug, Clone)]
pub struct InstalledPack {
    /// The pack digest.
    pub digest: Digest,
    /// Its folder.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
}

/// A tool or flow in the store.
#[derive(Debug, Clone)]
pub struct InstalledTool {
    /// `name@version`.
    pub reference: ToolRef,
    /// Tool or flow.
    pub form: Form,
    /// The contract (a flow's composite contract).
    pub contract: ToolContract,
    /// Its digest.
    pub contract_digest: Digest,
    /// The file, inside the pack folder.
    pub path: PathBuf,
    /// The pack it came from.
    pub pack_digest: Digest,
    /// That pack's `NAME@VERSION`.
    pub pack: String,
}

/// What [`Store::import`] did.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The verified pack.
    pub pack: VerifiedPack,
    /// Its folder in the store.
    pub dir: PathBuf,
    /// `false` when the same pack was already installed (nothing was written).
    pub newly_installed: bool,
}

impl Store {
    /// The store at `root` (created on first import).
    pub fn open(root: impl Into<PathBuf>) -> Store {
        Store { root: root.into() }
    }

    /// The default root: `<data dir>/browserflow/packs` (on Linux
    /// `$XDG_DATA_HOME/browserflow/packs`, else `~/.local/share/browserflow/packs`).
    pub fn default_root() -> Result<PathBuf, PackError> {
        dirs::data_dir()
            .map(|d| d.join("browserflow").join("packs"))
            .ok_or_else(|| PackError::Store {
                path: PathBuf::new(),
                message: "no data directory is known for this user (set XDG_DATA_HOME or HOME)"
                    .into(),
            })
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every installed pack, by digest.
    pub fn packs(&self) -> Result<Vec<InstalledPack>, PackError> {
        let entries = match std::fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(PackError::Io {
                    path: self.root.clone(),
                    cause: e,
                });
            }
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("sha256-"))
            })
            .collect();
        dirs.sort();
        dirs.iter().map(|dir| read_installed(dir)).collect()
    }

    /// Verifies `bytes` and installs the pack. Refused, before anything is written: any
    /// verification failure, and a ref already installed (from another pack) with a
    /// different contract digest or different file content.
    pub fn import(&self, bytes: &[u8], options: &VerifyOptions<'_>) -> Result<Imported, PackError> {
        let pack = verify(bytes, options)?;
        let dir = self.root.join(folder_name(&pack.digest));
        if dir.is_dir() {
            let installed = read_installed(&dir)?;
            if installed.digest == pack.digest {
                return Ok(Imported {
                    pack,
                    dir,
                    newly_installed: false,
                });
            }
        }
        self.check_conflicts(&pack)?;
        std::fs::create_dir_all(&self.root).map_err(PackError::io(&self.root))?;
        let hex = pack.digest.as_str().trim_start_matches("sha256:");
        let incoming = self
            .root
            .join(format!(".incoming-{hex}-{}", std::process::id()));
        let written = write_folder(&incoming, &pack, bytes);
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&incoming);
            return Err(e);
        }
        if let Err(e) = std::fs::rename(&incoming, &dir) {
            let _ = std::fs::remove_dir_all(&incoming);
            return Err(PackError::Io {
                path: dir,
                cause: e,
            });
        }
        Ok(Imported {
            pack,
            dir,
            newly_installed: true,
        })
    }

    /// Reads and [imports](Store::import) a pack file.
    pub fn import_file(
        &self,
        path: impl AsRef<Path>,
        options: &VerifyOptions<'_>,
    ) -> Result<Imported, PackError> {
        let path = path.as_ref();
        let bytes = crate::read_bounded(path, crate::MAX_PACK_BYTES)?;
        self.import(&bytes, options)
    }

    fn check_conflicts(&self, pack: &VerifiedPack) -> Result<(), PackError> {
        for installed in self.packs()? {
            for new in &pack.manifest.entries {
                let Some(old) = installed.manifest.entry(&new.reference) else {
                    continue;
                };
                let what = if old.contract_digest != new.contract_digest {
                    format!(
                        "contract digest {}; this pack has {}",
                        old.contract_digest, new.contract_digest
                    )
                } else if old.sha256 != new.sha256 {
                    format!(
                        "the same contract but different file content ({}; this pack has {})",
                        old.sha256, new.sha256
                    )
                } else {
                    continue;
                };
                return Err(PackError::Conflict(format!(
                    "`{}` is already installed from pack {} ({}) with {what}; refusing to install a second, different `{}`",
                    new.reference,
                    installed.manifest.reference(),
                    installed.digest,
                    new.reference
                )));
            }
        }
        Ok(())
    }

    /// Every installed tool and flow, one per ref, each file's SHA-256 checked.
    pub fn tools(&self) -> Result<Vec<InstalledTool>, PackError> {
        let mut by_ref: BTreeMap<ToolRef, InstalledTool> = BTreeMap::new();
        for pack in self.packs()? {
            for entry in &pack.manifest.entries {
                if by_ref.contains_key(&entry.reference) {
                    continue;
                }
                let path = pack.dir.join(&entry.file);
                let bytes = crate::read_bounded(&path, crate::MAX_ENTRY_BYTES)?;
                let actual = Digest::of_bytes(&bytes);
                if actual != entry.sha256 {
                    return Err(PackError::Store {
                        path,
                        message: format!(
                            "the file was changed after import: the manifest records {}, it hashes to {actual}",
                            entry.sha256
                        ),
                    });
                }
                by_ref.insert(
                    entry.reference.clone(),
                    InstalledTool {
                        reference: entry.reference.clone(),
                        form: entry.form,
                        contract: entry.contract.clone(),
                        contract_digest: entry.contract_digest.clone(),
                        path,
                        pack_digest: pack.digest.clone(),
                        pack: pack.manifest.reference(),
                    },
                );
            }
        }
        Ok(by_ref.into_values().collect())
    }

    /// The installed tool or flow `reference`, if any (its file's SHA-256 checked).
    pub fn resolve(&self, reference: &ToolRef) -> Result<Option<InstalledTool>, PackError> {
        Ok(self
            .tools()?
            .into_iter()
            .find(|t| &t.reference == reference))
    }

    /// The files of every installed tool and flow, one per ref: what a
    /// [`Registry::load_files`] (or a runner) reads.
    pub fn files(&self) -> Result<Vec<PathBuf>, PackError> {
        Ok(self.tools()?.into_iter().map(|t| t.path).collect())
    }

    /// Registers every installed tool and flow in `registry`; returns how many.
    pub fn load_into(&self, registry: &mut Registry) -> Result<usize, PackError> {
        let files = self.files()?;
        registry.load_files(&files).map_err(|d| PackError::Store {
            path: self.root.clone(),
            message: d.to_string(),
        })
    }

    /// Uninstalls the pack `which`: its `name@version`, its digest (`sha256:<hex>`, the folder
    /// name `sha256-<hex>`, or at least 8 leading hex digits). The folder is first renamed out
    /// of the store's view, then deleted, so the store never shows half a pack. Refused when
    /// nothing or more than one pack matches, naming them.
    pub fn remove(&self, which: &str) -> Result<InstalledPack, PackError> {
        let which = which.trim();
        let hex = which
            .strip_prefix("sha256:")
            .or_else(|| which.strip_prefix("sha256-"))
            .unwrap_or(which);
        let by_digest = hex.len() >= 8 && hex.bytes().all(|b| b.is_ascii_hexdigit());
        let mut matches: Vec<InstalledPack> = self
            .packs()?
            .into_iter()
            .filter(|p| {
                p.manifest.reference() == which
                    || (by_digest
                        && p.digest
                            .as_str()
                            .trim_start_matches("sha256:")
                            .starts_with(&hex.to_ascii_lowercase()))
            })
            .collect();
        let pack = match matches.len() {
            1 => matches.remove(0),
            0 => return Err(PackError::NotInstalled(which.to_owned())),
            _ => {
                let each: Vec<String> = matches
                    .iter()
                    .map(|p| format!("{} ({})", p.manifest.reference(), p.digest))
                    .collect();
                return Err(PackError::NotInstalled(format!(
                    "{which} names more than one pack: {}; give its digest",
                    each.join(", ")
                )));
            }
        };
        let hex = pack.digest.as_str().trim_start_matches("sha256:");
        let leaving = self
            .root
            .join(format!(".removing-{hex}-{}", std::process::id()));
        std::fs::rename(&pack.dir, &leaving).map_err(PackError::io(&pack.dir))?;
        std::fs::remove_dir_all(&leaving).map_err(PackError::io(&leaving))?;
        Ok(pack)
    }

    /// The archive of an installed pack, as imported.
    pub fn pack_bytes(&self, digest: &Digest) -> Result<Vec<u8>, PackError> {
        let path = self.root.join(folder_name(digest)).join("pack.bfpack");
        crate::read_bounded(&path, crate::MAX_PACK_BYTES)
    }
}

/// `sha256-<hex>`.
fn folder_name(digest: &Digest) -> String {
    digest.as_str().replacen("sha256:", "sha256-", 1)
}

fn read_installed(dir: &Path) -> Result<InstalledPack, PackError> {
    let path = dir.join("manifest.json");
    let bytes = crate::read_bounded(&path, crate::MAX_ENTRY_BYTES)?;
    let digest = Digest::of_bytes(&bytes);
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if name != folder_name(&digest) {
        return Err(PackError::Store {
            path,
            message: format!(
                "the manifest hashes to {digest}, which does not match its folder name"
            ),
        });
    }
    let manifest = Manifest::from_bytes(&bytes).map_err(|e| PackError::Store {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(InstalledPack {
        digest,
        dir: dir.to_owned(),
        manifest,
    })
}

fn write_folder(dir: &Path, pack: &VerifiedPack, bytes: &[u8]) -> Result<(), PackError> {
    std::fs::create_dir_all(dir).map_err(PackError::io(dir))?;
    for (file, data) in pack.files() {
        // `file` passed `archive::check_path`: relative, no `.`/`..`, a safe alphabet.
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(PackError::io(parent))?;
        }
        std::fs::write(&path, data).map_err(PackError::io(&path))?;
    }
    let archive = dir.join("pack.bfpack");
    std::fs::write(&archive, bytes).map_err(PackError::io(&archive))?;
    let manifest = dir.join("manifest.json");
    std::fs::write(&manifest, &pack.manifest_bytes).map_err(PackError::io(&manifest))
}
