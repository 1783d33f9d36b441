//! The deterministic tar encoding of a pack, and its strict reader.
//!
//! Every entry is a regular file in a POSIX ustar header with mode `0644`, uid/gid `0`,
//! mtime `0` and empty user and group names, in the order the writer is given. Two encodings
//! of the same entries are byte-identical, which is what lets [`crate::verify`] compare an
//! archive with the canonical encoding of its own content and so catch a change to any byte,
//! including header fields, padding and the end-of-archive blocks.

use std::collections::BTreeSet;
use std::io::Read;

use sha2::{Digest as _, Sha256};

use crate::error::PackError;

/// The longest entry path accepted.
const MAX_PATH_LEN: usize = 240;

/// Encodes `entries` (path, bytes), in the given order, as a deterministic tar archive.
pub(crate) fn write(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, PackError> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, data) in entries {
        check_path(path)?;
        let mut header = tar::Header::new_ustar();
        header.set_path(path).map_err(|e| PackError::UnsafePath {
            path: path.clone(),
            why: e.to_string(),
        })?;
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder
            .append(&header, data.as_slice())
            .map_err(|e| PackError::Corrupt(format!("cannot encode `{path}`: {e}")))?;
    }
    builder
        .into_inner()
        .map_err(|e| PackError::Corrupt(format!("cannot finish the archive: {e}")))
}

/// The size limit of a whole pack: a flow and its tools take well under 1 MiB; 64 MiB holds
/// four documents of the largest size allowed, and bounds the memory verification can use.
pub const MAX_PACK_BYTES: u64 = 64 * 1024 * 1024;

/// The size limit of one entry: every entry is a JSON document (or its digest), so the
/// document limit.
pub const MAX_ENTRY_BYTES: u64 = browserflow_contract::MAX_DOCUMENT_BYTES;

/// The most entries a pack may hold: a pack with a thousand tools is already unusual.
pub const MAX_ENTRIES: usize = 4096;

/// What was read from an archive: its entries in archive order, and the length and SHA-256
/// of every byte of the input (trailer included), so that it can be compared with the
/// canonical encoding without keeping the input.
pub(crate) struct ReadArchive {
    pub entries: Vec<(String, Vec<u8>)>,
    pub len: u64,
    pub sha256: [u8; 32],
}

/// Reads every entry of an archive from a stream, in archive order, never more than
/// [`MAX_PACK_BYTES`] + 1 bytes of it and no entry over [`MAX_ENTRY_BYTES`]. Refuses anything
/// but regular files, unsafe or duplicate paths, and archives that end early.
pub(crate) fn read(reader: impl Read) -> Result<ReadArchive, PackError> {
    let mut tally = Tally {
        inner: reader.take(MAX_PACK_BYTES + 1),
        hasher: Sha256::new(),
        len: 0,
    };
    let entries = read_entries(&mut tally);
    // The rest of the input counts too (trailing bytes are a change); reading it also tells a
    // truncated archive from a bad one.
    let drained = std::io::copy(&mut tally, &mut std::io::sink());
    if tally.len > MAX_PACK_BYTES {
        return Err(PackError::TooLarge {
            what: "the pack".into(),
            limit: MAX_PACK_BYTES,
        });
    }
    drained.map_err(|e| {
        PackError::Corrupt(format!(
            "cannot read the archive: {}",
            browserflow_contract::io_in_words(&e)
        ))
    })?;
    if tally.len < 1024 || !tally.len.is_multiple_of(512) {
        return Err(PackError::Corrupt(format!(
            "{} bytes is not a whole tar archive (a multiple of 512 bytes, ending with two zero blocks); the file is truncated or not a pack",
            tally.len
        )));
    }
    Ok(ReadArchive {
        entries: entries?,
        len: tally.len,
        sha256: tally.hasher.finalize().into(),
    })
}

fn read_entries(reader: &mut impl Read) -> Result<Vec<(String, Vec<u8>)>, PackError> {
    let mut archive = tar::Archive::new(reader);
    let entries = archive
        .entries()
        .map_err(|e| PackError::Corrupt(e.to_string()))?;
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for (index, entry) in entries.enumerate() {
        if index >= MAX_ENTRIES {
            return Err(PackError::TooLarge {
                what: format!("the pack's entry count ({} or more)", index + 1),
                limit: MAX_ENTRIES as u64,
            });
        }
        let mut entry =
            entry.map_err(|e| PackError::Corrupt(format!("entry #{}: {e}", index + 1)))?;
        let path = String::from_utf8(entry.path_bytes().into_owned()).map_err(|_| {
            PackError::UnsafePath {
                path: String::from_utf8_lossy(&entry.path_bytes()).into_owned(),
                why: "the path is not UTF-8".into(),
            }
        })?;
        check_path(&path)?;
        let kind = entry.header().entry_type();
        if kind != tar::EntryType::Regular {
            return Err(PackError::UnsafePath {
                path,
                why: format!("only regular files may be in a pack, this is {kind:?}"),
            });
        }
        if !seen.insert(path.clone()) {
            return Err(PackError::UnsafePath {
                path,
                why: "the path appears twice".into(),
            });
        }
        let size = entry.size();
        if size > MAX_ENTRY_BYTES {
            return Err(PackError::TooLarge {
                what: format!("entry `{path}` ({size} bytes)"),
                limit: MAX_ENTRY_BYTES,
            });
        }
        let mut data = Vec::new();
        entry
            .read_to_end(&mut data)
            .map_err(|e| PackError::Corrupt(format!("entry `{path}`: {e}")))?;
        if data.len() as u64 != size {
            return Err(PackError::Corrupt(format!(
                "entry `{path}` is truncated: the header says {size} bytes, {} are present",
                data.len()
            )));
        }
        out.push((path, data));
    }
    if out.is_empty() {
        return Err(PackError::Corrupt("the archive holds no entry".into()));
    }
    Ok(out)
}

/// Counts and hashes what passes through.
struct Tally<R> {
    inner: R,
    hasher: Sha256,
    len: u64,
}

impl<R: Read> Read for Tally<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }
}

/// Whether `path` is a safe relative path: `/`-separated parts of `[A-Za-z0-9._@+-]`, none
/// empty, `.` or `..`, no leading `/`.
pub(crate) fn check_path(path: &str) -> Result<(), PackError> {
    let bad = |why: &str| PackError::UnsafePath {
        path: path.to_owned(),
        why: why.to_owned(),
    };
    if path.is_empty() {
        return Err(bad("the path is empty"));
    }
    if path.len() > MAX_PATH_LEN {
        return Err(bad("the path is too long"));
    }
    if path.starts_with('/') {
        return Err(bad("absolute paths are not allowed"));
    }
    for part in path.split('/') {
        match part {
            "" => return Err(bad("empty path component")),
            "." | ".." => {
                return Err(bad(
                    "`.` and `..` components are not allowed (path traversal)",
                ));
            }
            _ => {}
        }
        if let Some(c) = part
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '@' | '+' | '-')))
        {
            return Err(bad(&format!(
                "the character {c:?} is not allowed in a pack path"
            )));
        }
    }
    Ok(())
}
