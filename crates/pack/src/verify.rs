//! Verification: every digest of a pack, its canonical encoding and its signatures.

use std::collections::{BTreeMap, BTreeSet};

use browserflow_contract::{Digest, ToolContract, ToolRef};
use browserflow_flow::{FlowSpec, Registry};
use ed25519_dalek::VerifyingKey;
use sha2::{Digest as _, Sha256};

use crate::archive::{self, MAX_PACK_BYTES};
use crate::catalog::parse_item;
use crate::error::PackError;
use crate::export::MANIFEST_DIGEST_FILE;
use crate::manifest::{Form, Manifest};
use crate::sign::{PackSignature, SIGNATURES_DIR, check_signature_entry, key_id};

/// What verification requires beyond the pack's own consistency.
#[derive(Debug, Default, Clone)]
pub struct VerifyOptions<'a> {
    /// Public keys whose signatures count as trusted.
    pub trusted_keys: Vec<VerifyingKey>,
    /// Refuse the pack unless a trusted key signed it.
    pub require_signature: bool,
    /// The program's built-in tools: when given, every external of the pack must match one.
    pub builtins: Option<&'a Registry>,
    /// Refuse the pack unless its digest is this one (a digest learned elsewhere, say).
    pub expected_digest: Option<Digest>,
}

/// A pack that passed verification.
#[derive(Debug, Clone)]
pub struct VerifiedPack {
    /// The manifest.
    pub manifest: Manifest,
    /// The pack digest.
    pub digest: Digest,
    /// The signatures (all valid), with whether each key is trusted.
    pub signatures: Vec<PackSignature>,
    pub(crate) manifest_bytes: Vec<u8>,
    pub(crate) files: Vec<(String, Vec<u8>)>,
    pub(crate) signature_entries: Vec<(String, Vec<u8>)>,
}

impl VerifiedPack {
    /// The files (path inside the pack, bytes), sorted by path.
    pub fn files(&self) -> &[(String, Vec<u8>)] {
        &self.files
    }
}

/// Verifies a pack archive. Refused, with a message naming what is wrong: bytes that are not
/// a whole archive, unsafe entry paths, a malformed manifest, a missing or extra file, a file
/// whose SHA-256 differs from the manifest, a contract that does not match its file or
/// digest, a flow that does not compile to its recorded composite contract, a bad
/// signature, and any byte that differs from the canonical encoding of the content.
pub fn verify(bytes: &[u8], options: &VerifyOptions<'_>) -> Result<VerifiedPack, PackError> {
    if bytes.len() as u64 > MAX_PACK_BYTES {
        return Err(PackError::TooLarge {
            what: "the pack".into(),
            limit: MAX_PACK_BYTES,
        });
    }
    verify_read(archive::read(bytes)?, Some(bytes), options)
}

/// [`verify`] of a pack read from a stream (a file, a pipe, a download), entry by entry:
/// never more than [`MAX_PACK_BYTES`] + 1 bytes are read, no entry over
/// [`MAX_ENTRY_BYTES`](crate::MAX_ENTRY_BYTES) is kept, and the raw archive is never held
/// whole; its SHA-256 is compared with the canonical encoding's instead.
pub fn verify_reader(
    reader: impl std::io::Read,
    options: &VerifyOptions<'_>,
) -> Result<VerifiedPack, PackError> {
    verify_read(archive::read(reader)?, None, options)
}

/// `original` is the input when it is in memory anyway, to name the first differing byte.
fn verify_read(
    read: archive::ReadArchive,
    original: Option<&[u8]>,
    options: &VerifyOptions<'_>,
) -> Result<VerifiedPack, PackError> {
    let archive::ReadArchive {
        entries,
        len: input_len,
        sha256: input_sha256,
    } = read;
    let mut by_path: BTreeMap<String, Vec<u8>> = entries.into_iter().collect();
    let manifest_bytes = by_path
        .remove("manifest.json")
        .ok_or_else(|| PackError::Manifest("missing: this is not a pack".into()))?;
    let digest = Digest::of_bytes(&manifest_bytes);
    let recorded = by_path
        .remove(MANIFEST_DIGEST_FILE)
        .ok_or_else(|| PackError::MissingFile(MANIFEST_DIGEST_FILE.into()))?;
    if recorded != format!("{digest}\n").as_bytes() {
        return Err(PackError::Manifest(format!(
            "changed: {MANIFEST_DIGEST_FILE} records {}, the manifest hashes to {digest}",
            String::from_utf8_lossy(&recorded).trim()
        )));
    }
    let manifest = Manifest::from_bytes(&manifest_bytes)?;
    if let Some(expected) = &options.expected_digest
        && expected != &digest
    {
        return Err(PackError::Untrusted(format!(
            "the pack digest is {digest}, not the expected {expected}"
        )));
    }

    let sorted = |refs: Vec<&ToolRef>| refs.windows(2).all(|w| w[0] < w[1]);
    if !sorted(manifest.entries.iter().map(|e| &e.reference).collect())
        || !sorted(manifest.externals.iter().map(|e| &e.reference).collect())
        || !sorted(manifest.roots.iter().collect())
    {
        return Err(PackError::Manifest(
            "`roots`, `entries` and `externals` must each be sorted by ref, without repeats".into(),
        ));
    }
    // Every listed file present and unchanged, in its canonical place.
    let mut files = Vec::new();
    let mut seen_refs = BTreeSet::new();
    for entry in &manifest.entries {
        let reference = entry.reference.to_string();
        if !seen_refs.insert(entry.reference.clone()) {
            return Err(PackError::Manifest(format!(
                "`{reference}` is listed twice"
            )));
        }
        let expected_path = entry.form.file_path(&entry.reference);
        if entry.file != expected_path {
            return Err(PackError::Manifest(format!(
                "`{reference}`: the file must be `{expected_path}`, not `{}`",
                entry.file
            )));
        }
        archive::check_path(&entry.file)?;
        let data = by_path
            .remove(&entry.file)
            .ok_or_else(|| PackError::MissingFile(entry.file.clone()))?;
        let actual = Digest::of_bytes(&data);
        if actual != entry.sha256 {
            return Err(PackError::FileDigest {
                file: entry.file.clone(),
                expected: entry.sha256.to_string(),
                actual: actual.to_string(),
            });
        }
        files.push((entry.file.clone(), data));
    }
    let signature_entries: Vec<(String, Vec<u8>)> = by_path
        .iter()
        .filter(|(p, _)| p.starts_with(SIGNATURES_DIR))
        .map(|(p, d)| (p.clone(), d.clone()))
        .collect();
    if let Some(extra) = by_path.keys().find(|p| !p.starts_with(SIGNATURES_DIR)) {
        return Err(PackError::ExtraFile(extra.clone()));
    }

    check_contracts(&manifest, &files, options.builtins)?;

    let mut signatures = Vec::new();
    for (path, data) in &signature_entries {
        let public = check_signature_entry(path, data, &digest)?;
        signatures.push(PackSignature {
            key_id: key_id(&public),
            trusted: options.trusted_keys.contains(&public),
            public_key: public,
        });
    }

    // Last, the bytes themselves: any header, padding or trailer byte, or entry order, that
    // differs from the canonical encoding of this content is a change.
    let canonical = crate::export::encode(&manifest_bytes, files.clone(), &signature_entries)?;
    if manifest.to_bytes() != manifest_bytes {
        return Err(PackError::NotCanonical(
            "manifest.json differs from the canonical rendering of its own content".into(),
        ));
    }
    let canonical_sha256: [u8; 32] = Sha256::digest(&canonical).into();
    if canonical_sha256 != input_sha256 || canonical.len() as u64 != input_len {
        let at = match original {
            Some(bytes) => {
                let at = canonical
                    .iter()
                    .zip(bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(canonical.len().min(bytes.len()));
                format!("byte {at}")
            }
            None => "a byte".to_owned(),
        };
        return Err(PackError::NotCanonical(format!(
            "{at} differs from the canonical encoding of the pack's content ({} bytes expected, {input_len} found)",
            canonical.len(),
        )));
    }

    if options.require_signature && !signatures.iter().any(|s| s.trusted) {
        let message = if signatures.is_empty() {
            format!(
                "pack {} ({digest}) is not signed, and a signature is required",
                manifest.reference()
            )
        } else {
            let ids: Vec<&str> = signatures.iter().map(|s| s.key_id.as_str()).collect();
            format!(
                "pack {} ({digest}) is signed only by untrusted keys ({}); a signature by a trusted key is required",
                manifest.reference(),
                ids.join(", ")
            )
        };
        return Err(PackError::Untrusted(message));
    }
    Ok(VerifiedPack {
        manifest,
        digest,
        signatures,
        manifest_bytes,
        files,
        signature_entries,
    })
}

/// Reads and [`verify`]s a pack file, streaming ([`verify_reader`]).
pub fn verify_file(
    path: impl AsRef<std::path::Path>,
    options: &VerifyOptions<'_>,
) -> Result<VerifiedPack, PackError> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(PackError::io(path))?;
    // A regular file over the limit is refused before a byte of it is read.
    if let Ok(meta) = file.metadata()
        && meta.is_file()
        && meta.len() > MAX_PACK_BYTES
    {
        return Err(PackError::TooLarge {
            what: format!("the pack {}", path.display()),
            limit: MAX_PACK_BYTES,
        });
    }
    verify_reader(std::io::BufReader::new(file), options)
}

/// Each file parses to its entry's ref, form and contract; each recorded digest is the
/// contract's; every flow compiles to its recorded composite contract with its recorded pins.
fn check_contracts(
    manifest: &Manifest,
    files: &[(String, Vec<u8>)],
    builtins: Option<&Registry>,
) -> Result<(), PackError> {
    let mut tools: BTreeMap<ToolRef, ToolContract> = BTreeMap::new();
    let mut flows: BTreeMap<ToolRef, (FlowSpec, String)> = BTreeMap::new();
    for (entry, (file, data)) in manifest.entries.iter().zip(files) {
        let bad = |message: String| PackError::Contract {
            reference: entry.reference.to_string(),
            file: file.clone(),
            message,
        };
        let computed = entry.contract.contract_digest();
        if computed != entry.contract_digest {
            return Err(bad(format!(
                "the manifest's contract digest is {}, but its contract hashes to {computed}",
                entry.contract_digest
            )));
        }
        let (reference, item) = parse_item(data.clone(), file.clone())?;
        if reference != entry.reference || item.form != entry.form {
            return Err(bad(format!(
                "the file holds the {} `{reference}`",
                item.form.as_str()
            )));
        }
        match (item.contract, item.flow) {
            (Some(contract), _) => {
                if contract != entry.contract {
                    return Err(bad(format!(
                        "the file's contract (digest {}) differs from the manifest's ({})",
                        contract.contract_digest(),
                        entry.contract_digest
                    )));
                }
                tools.insert(reference, contract);
            }
            (None, Some(flow)) => {
                let mut pins = flow.requires.clone();
                pins.sort_by_key(|r| r.reference.to_string());
                if pins != entry.requires {
                    return Err(bad(
                        "the manifest's `requires` differ from the flow's pins".into()
                    ));
                }
                flows.insert(reference, (flow, file.clone()));
            }
            (None, None) => return Err(bad("neither a tool nor a flow".into())),
        }
    }
    let mut externals = BTreeMap::new();
    for external in &manifest.externals {
        let computed = external.contract.contract_digest();
        let bad = |message: String| PackError::Contract {
            reference: external.reference.to_string(),
            file: "manifest.json".into(),
            message,
        };
        if computed != external.contract_digest {
            return Err(bad(format!(
                "the external's recorded digest is {}, but its contract hashes to {computed}",
                external.contract_digest
            )));
        }
        if let Some(builtins) = builtins {
            match builtins.get(&external.reference) {
                Some(tool) if tool.digest == computed => {}
                Some(tool) => {
                    return Err(bad(format!(
                        "the pack needs the built-in with contract digest {computed}, this program has {}",
                        tool.digest
                    )));
                }
                None => {
                    return Err(bad(
                        "the pack needs this built-in tool, which this program lacks".into(),
                    ));
                }
            }
        }
        externals.insert(external.reference.clone(), external.contract.clone());
    }
    let composites = crate::export::compile_flows(&tools, &externals, &flows)?;
    for entry in manifest.entries.iter().filter(|e| e.form == Form::Flow) {
        let Some(contract) = composites.get(&entry.reference) else {
            continue;
        };
        if contract != &entry.contract {
            return Err(PackError::Contract {
                reference: entry.reference.to_string(),
                file: entry.file.clone(),
                message: format!(
                    "the flow compiles to the contract {}, but the manifest records {}",
                    contract.contract_digest(),
                    entry.contract_digest
                ),
            });
        }
    }
    Ok(())
}
