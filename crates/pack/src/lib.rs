//! Packs: the deployable SDK of browserflow — a versioned, content-addressed archive of tools
//! and flows that installs anywhere and proves it is what it claims to be.
//!
//! - **Format** (`NAME-VERSION.bfpack`): a deterministic tar archive (ustar
//!   headers, mode 0644, uid/gid 0, mtime 0, fixed entry order) holding
//!   `manifest.json` ([`Manifest`]), its digest record `manifest.json.sha256`, the tool files (`tools/<ref>.json`), the flows
//!   (`flows/<ref>.flow.json`) and any signatures (`signatures/<key id>.json`). The manifest
//!   records every contract, contract digest and file SHA-256; the **pack digest** is the
//!   SHA-256 of `manifest.json`, so one digest covers every byte of content.
//! - **Export** ([`export`]): the closure of the requested tools and flows from a
//!   [`Catalog`], checked by the [secret check](secrets) and compiled.
//! - **Verify** ([`verify`]) and **import** ([`Store::import`]): every digest, the canonical
//!   encoding of every byte, and the signatures; the [`Store`] resolves refs for
//!   `bflow check` and `bflow run`.
//! - **Sign** ([`sign_file`]): Ed25519, keys as PEM files ([`sign`](mod@sign) documents them).
//! - **OCI** ([`oci`]): push and pull a pack as an OCI artifact (`oci://HOST/REPO:TAG`).
//!
//! ```no_run
//! use browserflow_pack::{Catalog, DenyList, ExportRequest, Store, VerifyOptions};
//! use browserflow_flow::Registry;
//!
//! # fn main() -> Result<(), browserflow_pack::PackError> {
//! let mut catalog = Catalog::new();
//! catalog.add_dir("recordings")?;
//! let root = catalog.root("search-price@1.2.0")?;
//! let builtins = Registry::new();
//! let deny = DenyList::from_env();
//! let request = ExportRequest {
//!     name: "shop".into(),
//!     version: semver::Version::new(1, 0, 0),
//!     roots: vec![root.clone()],
//!     builtins: &builtins,
//!     deny: &deny,
//! };
//! let pack = browserflow_pack::export_to_file(&catalog, &request, "shop-1.0.0.bfpack")?;
//!
//! let store = Store::open(Store::default_root()?);
//! store.import_file("shop-1.0.0.bfpack", &VerifyOptions::default())?;
//! let tool = store.resolve(&root)?.expect("installed");
//! assert_eq!(tool.pack_digest, pack.digest);
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

mod archive;
mod catalog;
mod error;
mod export;
mod manifest;
pub mod oci;
pub mod secrets;
pub mod sign;
mod store;
mod verify;

pub use archive::{MAX_ENTRIES, MAX_ENTRY_BYTES, MAX_PACK_BYTES};
pub use catalog::Catalog;
pub use ed25519_dalek::{SigningKey, VerifyingKey};
pub use error::PackError;
pub use export::{ExportRequest, Pack, export, export_to_file};
pub use manifest::{Entry, External, FORMAT, Form, Manifest, check_pack_name};
pub use secrets::DenyList;
pub use sign::{
    PackSignature, generate_key, key_id, read_public_key, read_signing_key, sign, sign_file,
    write_key_files,
};
pub use store::{Imported, InstalledPack, InstalledTool, Store};
pub use verify::{VerifiedPack, VerifyOptions, verify, verify_file, verify_reader};

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so a
/// reader never sees half a file.
pub(crate) fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> Result<(), PackError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("pack");
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temp, bytes).map_err(PackError::io(&temp))?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        PackError::Io {
            path: path.to_owned(),
            cause: e,
        }
    })
}

/// Reads a whole file of at most `limit` bytes (a regular file over it is refused before it is
/// read; a stream stops one byte past it).
pub(crate) fn read_bounded(path: &std::path::Path, limit: u64) -> Result<Vec<u8>, PackError> {
    use std::io::Read;
    let too_large = || PackError::TooLarge {
        what: path.display().to_string(),
        limit,
    };
    let file = std::fs::File::open(path).map_err(PackError::io(path))?;
    if file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() > limit)
    {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(PackError::io(path))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}
