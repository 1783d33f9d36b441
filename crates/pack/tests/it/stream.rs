//! Packs verified streaming and bounded: endless streams, huge files and huge entries fail
//! fast; random damage never panics and is never accepted.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use browserflow_pack::{
    MAX_ENTRY_BYTES, MAX_PACK_BYTES, PackError, VerifyOptions, verify, verify_file, verify_reader,
};
use proptest::prelude::*;

use crate::support::{Fixture, archive};

/// Counts what is read from an endless stream of `byte`.
struct Endless {
    byte: u8,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(self.byte);
        self.read.set(self.read.get() + buf.len() as u64);
        Ok(buf.len())
    }
}

#[test]
fn a_pack_verifies_the_same_from_a_stream() {
    let pack = Fixture::new().watch_pack();
    let from_bytes = verify(&pack.bytes, &VerifyOptions::default()).expect("verifies");
    let from_stream =
        verify_reader(pack.bytes.as_slice(), &VerifyOptions::default()).expect("verifies");
    assert_eq!(from_stream.digest, from_bytes.digest);
    assert_eq!(from_stream.files(), from_bytes.files());
    // A trailing byte, seen only at the end of the stream, is still a change.
    let mut longer = pack.bytes.clone();
    longer.extend_from_slice(&[0; 512]);
    let err = verify_reader(longer.as_slice(), &VerifyOptions::default()).unwrap_err();
    assert!(matches!(err, PackError::NotCanonical(_)), "{err}");
}

#[test]
fn an_endless_stream_stops_at_the_limit() {
    for byte in [0u8, b' ', 0xff] {
        let read = std::rc::Rc::new(std::cell::Cell::new(0));
        let started = Instant::now();
        let err = verify_reader(
            Endless {
                byte,
                read: read.clone(),
            },
            &VerifyOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(err, PackError::TooLarge { .. }), "{byte}: {err}");
        assert_eq!(
            err.to_string(),
            "the pack is larger than the limit of 64 MiB"
        );
        // At most one buffer past the limit.
        assert!(read.get() <= MAX_PACK_BYTES + 64 * 1024, "{}", read.get());
        assert!(started.elapsed() < Duration::from_secs(60));
    }
}

#[test]
fn a_huge_entry_is_refused_before_its_bytes_are_read() {
    let mut header = tar::Header::new_ustar();
    header.set_path("manifest.json").unwrap();
    header.set_size(1 << 40);
    header.set_mode(0o644);
    header.set_entry_type(tar::EntryType::Regular);
    header.set_cksum();
    let mut bytes = header.as_bytes().to_vec();
    bytes.extend_from_slice(&[0; 1024]);
    let err = verify(&bytes, &VerifyOptions::default()).unwrap_err();
    assert!(
        matches!(err, PackError::TooLarge { limit, .. } if limit == MAX_ENTRY_BYTES),
        "{err}"
    );
    assert!(err.to_string().contains("entry `manifest.json`"), "{err}");
}

#[test]
fn a_huge_file_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.bfpack");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    let started = Instant::now();
    let err = verify_file(&path, &VerifyOptions::default()).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(matches!(err, PackError::TooLarge { .. }), "{err}");
    assert!(err.to_string().contains("huge.bfpack"), "{err}");
}

#[test]
fn a_fifo_that_never_ends_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("endless.bfpack");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new()
            .write(true)
            .open(writer_path)
            .unwrap();
        let chunk = vec![0u8; 64 * 1024];
        let mut written = 0u64;
        while pipe.write_all(&chunk).is_ok() {
            written += chunk.len() as u64;
        }
        written
    });
    let err = verify_file(&fifo, &VerifyOptions::default()).unwrap_err();
    assert!(matches!(err, PackError::TooLarge { .. }), "{err}");
    let written = writer.join().unwrap();
    assert!(written <= MAX_PACK_BYTES + 1024 * 1024, "{written}");
}

/// One kind of damage to a pack archive.
#[derive(Debug, Clone)]
enum Damage {
    Flip { at: usize, bits: u8 },
    Truncate { at: usize },
    InsertBlock { at: usize, fill: u8 },
    DuplicateEntry { index: usize },
    ReplaceEntry { index: usize, data: Vec<u8> },
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(at, bits)| Damage::Flip { at, bits }),
        any::<usize>().prop_map(|at| Damage::Truncate { at }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, fill)| Damage::InsertBlock { at, fill }),
        any::<usize>().prop_map(|index| Damage::DuplicateEntry { index }),
        (
            any::<usize>(),
            prop_oneof![
                Just(b"{}".to_vec()),
                Just(b"{\"a\": 1, \"a\": 2}".to_vec()),
                Just("[".repeat(10_000).into_bytes()),
                Just(b"1e999".to_vec()),
                prop::collection::vec(any::<u8>(), 0..64),
            ]
        )
            .prop_map(|(index, data)| Damage::ReplaceEntry { index, data }),
    ]
}

fn apply(original: &[u8], damages: &[Damage]) -> Vec<u8> {
    let mut bytes = original.to_vec();
    for d in damages {
        let len = bytes.len().max(1);
        match d {
            Damage::Flip { at, bits } => {
                if !bytes.is_empty() {
                    bytes[at % len] ^= bits;
                }
            }
            Damage::Truncate { at } => bytes.truncate(at % len),
            Damage::InsertBlock { at, fill } => {
                let at = (at % (bytes.len() / 512 + 1)) * 512;
                bytes.splice(at..at, std::iter::repeat_n(*fill, 512));
            }
            Damage::DuplicateEntry { index } | Damage::ReplaceEntry { index, .. } => {
                // Entry-level damage needs a readable archive; after byte damage it may not be.
                let Some(mut list) = try_entries(&bytes) else {
                    continue;
                };
                let i = index % list.len();
                match d {
                    Damage::ReplaceEntry { data, .. } => list[i].1 = data.clone(),
                    _ => list.push(list[i].clone()),
                }
                bytes = archive(&list);
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Damaged packs are refused with a message, from bytes and from a stream alike, and
    /// nothing panics.
    #[test]
    fn damaged_packs_are_refused(damages in prop::collection::vec(damage(), 1..4)) {
        let original = pack_bytes();
        let bytes = apply(&original, &damages);
        let from_bytes = verify(&bytes, &VerifyOptions::default());
        let from_stream = verify_reader(bytes.as_slice(), &VerifyOptions::default());
        if bytes == original {
            prop_assert!(from_bytes.is_ok() && from_stream.is_ok());
        } else {
            let err = from_bytes.expect_err("a damaged pack is refused");
            prop_assert!(!err.to_string().is_empty());
            prop_assert!(from_stream.is_err());
        }
    }

    #[test]
    fn random_bytes_are_refused(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        prop_assert!(verify(&bytes, &VerifyOptions::default()).is_err());
    }
}

/// The watch pack, exported once for all cases.
fn pack_bytes() -> Vec<u8> {
    static PACK: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    PACK.get_or_init(|| Fixture::new().watch_pack().bytes)
        .clone()
}

/// The entries of an archive, when the tar crate reads it and `archive` can write it back.
fn try_entries(bytes: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut archive = tar::Archive::new(bytes);
    let mut list = Vec::new();
    for entry in archive.entries().ok()? {
        let mut entry = entry.ok()?;
        let path = String::from_utf8(entry.path_bytes().into_owned()).ok()?;
        let mut data = Vec::new();
        entry.read_to_end(&mut data).ok()?;
        if path.len() > 100 {
            return None;
        }
        list.push((path, data));
    }
    (!list.is_empty()).then_some(list)
}
