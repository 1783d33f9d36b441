//! Everything that can go wrong with a pack, each error naming what and where.

use std::path::PathBuf;

/// An error of export, verification, signing, import or the store.
///
/// Messages name the file, entry or reference at fault and never contain a secret value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PackError {
    /// A file or directory could not be read or written.
    #[error("{}: {}", .path.display(), browserflow_contract::io_in_words(.cause))]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause, said in words in the message (not exposed as `source()`, whose
        /// OS text would repeat it).
        cause: std::io::Error,
    },
    /// The bytes are not a pack archive at all (truncated, not tar, wrong entry kinds…).
    #[error("not a valid pack archive: {0}")]
    Corrupt(String),
    /// A pack, or one of its entries, is larger than its limit; reading stopped there.
    #[error("{what} is larger than the limit of {}", human_bytes(*limit))]
    TooLarge {
        /// What (`the pack`, `entry \`tools/a@1.0.0.json\``).
        what: String,
        /// The limit (bytes, or entries for the entry count).
        limit: u64,
    },
    /// An entry path that could escape the destination or is otherwise unsafe (`../x`, `/etc`).
    #[error("unsafe entry path `{path}` in the archive: {why}")]
    UnsafePath {
        /// The path as found.
        path: String,
        /// Why it is refused.
        why: String,
    },
    /// `manifest.json` is absent or malformed.
    #[error("manifest.json: {0}")]
    Manifest(String),
    /// The manifest lists a file the archive does not hold.
    #[error("missing file `{0}`: the manifest lists it but the archive does not hold it")]
    MissingFile(String),
    /// The archive holds a file the manifest does not list.
    #[error("extra file `{0}`: the archive holds it but the manifest does not list it")]
    ExtraFile(String),
    /// A file whose bytes do not hash to the manifest's SHA-256.
    #[error(
        "file `{file}` was changed: the manifest records {expected}, its content hashes to {actual}"
    )]
    FileDigest {
        /// The file inside the pack.
        file: String,
        /// What the manifest records.
        expected: String,
        /// What the bytes hash to.
        actual: String,
    },
    /// A contract that does not match its file or its recorded digest.
    #[error("`{reference}` ({file}): {message}")]
    Contract {
        /// The tool or flow.
        reference: String,
        /// The file inside the pack (or on disk, on export).
        file: String,
        /// What is wrong.
        message: String,
    },
    /// The archive's bytes differ from the canonical encoding of its own content (a changed
    /// header, padding or trailer byte, or entries out of order).
    #[error("the archive is not in canonical form: {0}")]
    NotCanonical(String),
    /// A signature that is malformed, over another pack, or does not verify.
    #[error("signature `{entry}`: {message}")]
    Signature {
        /// The signature entry.
        entry: String,
        /// What is wrong.
        message: String,
    },
    /// A signature was required and no trusted key signed the pack.
    #[error("{0}")]
    Untrusted(String),
    /// A key file that cannot be read as an Ed25519 key.
    #[error("key {path}: {message}")]
    Key {
        /// The key file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Export could not assemble the pack (a missing ref, a pin that does not match…).
    #[error("export: {0}")]
    Export(String),
    /// A secret value (or a secret's default, or a literal in a secret slot) would enter the pack.
    #[error("secret check: {0}")]
    Secret(String),
    /// Importing would install a ref that is already installed with different content.
    #[error("{0}")]
    Conflict(String),
    /// No installed pack (or more than one) answers to the name or digest given.
    #[error("no installed pack is {0}")]
    NotInstalled(String),
    /// The local store is damaged.
    #[error("store {path}: {message}")]
    Store {
        /// The store folder or file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Pushing to or pulling from an OCI registry failed.
    #[error("OCI registry: {0}")]
    Oci(String),
}

impl PackError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> PackError {
        let path = path.into();
        move |cause| PackError::Io { path, cause }
    }
}

fn human_bytes(n: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else {
        n.to_string()
    }
}
