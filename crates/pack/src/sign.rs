//! Ed25519 signatures over the pack digest, and the key files.
//!
//! # Key files
//!
//! The same PEM files OpenSSL writes with `openssl genpkey -algorithm ed25519`:
//!
//! - the private key: PKCS#8 (`-----BEGIN PRIVATE KEY-----`), written with mode `0600`;
//! - the public key: SubjectPublicKeyInfo (`-----BEGIN PUBLIC KEY-----`), what importers
//!   list as trusted.
//!
//! # Signature entries
//!
//! A signature lives inside the archive as `signatures/<key id>.json`:
//!
//! ```json
//! {"format": "browserflow-pack-signature/1", "key_id": "ed25519-0123456789abcdef",
//!  "public_key": "<Base64 of the 32 key bytes>", "pack_digest": "sha256:…",
//!  "signature": "<Base64 of the 64 signature bytes>"}
//! ```
//!
//! The signed message is the UTF-8 text `browserflow-pack-signature/1\n` followed by the pack
//! digest. The manifest does not list signatures, so signing never changes the pack digest;
//! the key id is `ed25519-` and the first 16 hex digits of the SHA-256 of the public key.

use std::path::Path;

use base64::Engine as _;
use browserflow_contract::Digest;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier as _, VerifyingKey};
use serde_json::{Map, Value};
use sha2::Digest as _;

use crate::error::PackError;

/// The format tag of a signature entry.
pub const SIGNATURE_FORMAT: &str = "browserflow-pack-signature/1";

/// The folder of signature entries inside a pack.
pub(crate) const SIGNATURES_DIR: &str = "signatures/";

/// A signature found in a pack, checked against the pack digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackSignature {
    /// `ed25519-<16 hex>`.
    pub key_id: String,
    /// The signer's public key.
    pub public_key: VerifyingKey,
    /// Whether the key is among the trusted keys given to verification.
    pub trusted: bool,
}

/// The key id of a public key.
pub fn key_id(key: &VerifyingKey) -> String {
    let hash = sha2::Sha256::digest(key.as_bytes());
    format!("ed25519-{}", &hex::encode(hash)[..16])
}

fn message(digest: &Digest) -> Vec<u8> {
    format!("{SIGNATURE_FORMAT}\n{digest}").into_bytes()
}

/// A new random signing key.
pub fn generate_key() -> Result<SigningKey, PackError> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| PackError::Key {
        path: "(new key)".into(),
        message: format!("no randomness available: {e}"),
    })?;
    Ok(SigningKey::from_bytes(&seed))
}

/// Writes `key` as a PKCS#8 PEM private key file (mode 0600) and its public key as an SPKI
/// PEM file.
pub fn write_key_files(key: &SigningKey, private: &Path, public: &Path) -> Result<(), PackError> {
    let bad = |path: &Path, e: String| PackError::Key {
        path: path.to_owned(),
        message: e,
    };
    let private_pem = key
        .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
        .map_err(|e| bad(private, e.to_string()))?;
    let public_pem = key
        .verifying_key()
        .to_public_key_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
        .map_err(|e| bad(public, e.to_string()))?;
    write_private(private, private_pem.as_bytes())?;
    std::fs::write(public, public_pem.as_bytes()).map_err(PackError::io(public))
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), PackError> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(PackError::io(path))?;
    file.write_all(bytes).map_err(PackError::io(path))
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), PackError> {
    std::fs::write(path, bytes).map_err(PackError::io(path))
}

/// Reads a PKCS#8 PEM Ed25519 private key.
pub fn read_signing_key(path: impl AsRef<Path>) -> Result<SigningKey, PackError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(PackError::io(path))?;
    SigningKey::from_pkcs8_pem(&text).map_err(|e| PackError::Key {
        path: path.to_owned(),
        message: format!("not a PKCS#8 PEM Ed25519 private key: {e}"),
    })
}

/// Reads an SPKI PEM Ed25519 public key.
pub fn read_public_key(path: impl AsRef<Path>) -> Result<VerifyingKey, PackError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(PackError::io(path))?;
    VerifyingKey::from_public_key_pem(&text).map_err(|e| PackError::Key {
        path: path.to_owned(),
        message: format!("not an SPKI PEM Ed25519 public key: {e}"),
    })
}

/// The signature entry (path, bytes) of `key` over the pack `digest`.
pub(crate) fn signature_entry(key: &SigningKey, digest: &Digest) -> (String, Vec<u8>) {
    let public = key.verifying_key();
    let id = key_id(&public);
    let signature = key.sign(&message(digest));
    (
        format!("{SIGNATURES_DIR}{id}.json"),
        render(&public, digest, &signature),
    )
}

/// The exact bytes of a signature entry.
fn render(public: &VerifyingKey, digest: &Digest, signature: &Signature) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut map = Map::new();
    map.insert("format".into(), SIGNATURE_FORMAT.into());
    map.insert("key_id".into(), key_id(public).into());
    map.insert("public_key".into(), b64.encode(public.as_bytes()).into());
    map.insert("pack_digest".into(), digest.to_string().into());
    map.insert("signature".into(), b64.encode(signature.to_bytes()).into());
    let mut text = serde_json::to_string_pretty(&Value::Object(map)).unwrap_or_default();
    text.push('\n');
    text.into_bytes()
}

/// Checks one signature entry against the pack digest; returns the signer's key.
pub(crate) fn check_signature_entry(
    path: &str,
    bytes: &[u8],
    digest: &Digest,
) -> Result<VerifyingKey, PackError> {
    let bad = |message: String| PackError::Signature {
        entry: path.to_owned(),
        message,
    };
    let value: Value = browserflow_contract::parse_json_slice(bytes)
        .map_err(|e| bad(e.to_problem().to_string()))?;
    let field = |key: &str| -> Result<String, PackError> {
        value
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| bad(format!("the member `{key}` is missing or not a string")))
    };
    if field("format")? != SIGNATURE_FORMAT {
        return Err(bad(format!("the format is not `{SIGNATURE_FORMAT}`")));
    }
    let b64 = base64::engine::general_purpose::STANDARD;
    let key_bytes: [u8; 32] = b64
        .decode(field("public_key")?)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| bad("`public_key` is not 32 Base64-encoded bytes".into()))?;
    let public = VerifyingKey::from_bytes(&key_bytes)
        .map_err(|e| bad(format!("`public_key` is not an Ed25519 key: {e}")))?;
    let id = key_id(&public);
    if field("key_id")? != id || path != format!("{SIGNATURES_DIR}{id}.json") {
        return Err(bad(format!(
            "the key id and entry name do not match the public key ({id})"
        )));
    }
    let signed = field("pack_digest")?;
    if signed != digest.as_str() {
        return Err(bad(format!(
            "it signs another pack ({signed}), not this one ({digest})"
        )));
    }
    let signature_bytes: [u8; 64] = b64
        .decode(field("signature")?)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| bad("`signature` is not 64 Base64-encoded bytes".into()))?;
    let signature = Signature::from_bytes(&signature_bytes);
    public.verify(&message(digest), &signature).map_err(|_| {
        bad(format!(
            "the signature by {id} does not verify over this pack"
        ))
    })?;
    // The entry must be exactly what a signer writes, so no byte of it goes unchecked.
    if render(&public, digest, &signature) != bytes {
        return Err(bad(
            "the entry is not in canonical form (changed bytes or unknown members)".into(),
        ));
    }
    Ok(public)
}

/// Adds (or replaces) the signature of `key` to the pack `bytes`, after verifying it.
/// The pack digest does not change.
pub fn sign(bytes: &[u8], key: &SigningKey) -> Result<Vec<u8>, PackError> {
    let verified = crate::verify(bytes, &crate::VerifyOptions::default())?;
    let (path, entry) = signature_entry(key, &verified.digest);
    let mut signatures: Vec<(String, Vec<u8>)> = verified
        .signature_entries
        .into_iter()
        .filter(|(p, _)| *p != path)
        .collect();
    signatures.push((path, entry));
    crate::export::encode(&verified.manifest_bytes, verified.files, &signatures)
}

/// [`sign`] a pack file in place, with the private key in `key_file`.
pub fn sign_file(pack: impl AsRef<Path>, key_file: impl AsRef<Path>) -> Result<String, PackError> {
    let pack = pack.as_ref();
    let key = read_signing_key(key_file)?;
    let bytes = crate::read_bounded(pack, crate::MAX_PACK_BYTES)?;
    let signed = sign(&bytes, &key)?;
    crate::write_atomic(pack, &signed)?;
    Ok(key_id(&key.verifying_key()))
}
