//! The unsaved recording, kept on disk as it changes: closing the app, a crash or a killed
//! process loses nothing the person recorded. One file (`<data>/drafts/unsaved.json`), written
//! whole to a temporary file and renamed over the old one, so a crash mid-write leaves the
//! previous version, never half of one.
//!
//! What is kept is what the tool file would hold: password fields' values were never captured,
//! and a value typed into a field later marked secret is left out of the file at that edit.

use std::io::Write;
use std::path::{Path, PathBuf};

use browserflow_record::{Draft, PickedElement, RecordedPage};
use serde::{Deserialize, Serialize};

/// The file's format: a kept file of another format is set aside, not misread.
const FORMAT: u32 = 1;

/// The largest kept file read back: steps and marks, no screenshots.
const MAX_KEPT_FILE: u64 = 64 * 1024 * 1024;

/// Where the unsaved recording is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftKeeper {
    dir: PathBuf,
}

/// An unsaved recording read back.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptDraft {
    /// The recording (its steps, marks and start page).
    pub draft: Draft,
    /// The elements picked for extraction, not yet outputs.
    pub picks: Vec<PickedElement>,
    /// When it was last written, in seconds since the Unix epoch.
    pub kept_at: u64,
    /// Its window was still open when it was last written: the recording did not stop, it
    /// was cut short (the app closed or crashed).
    pub live: bool,
    /// The pages the recording ended on, when the recorder kept them (`bflow record`): a
    /// selector given later is checked there.
    pub pages: Vec<RecordedPage>,
}

/// Why the kept recording could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum KeptDraftError {
    /// The file exists but is not a kept recording this version reads (damaged, or written
    /// by another version); it was moved to `set_aside` so that nothing overwrites it.
    #[error("the unsaved recording in {} cannot be read ({reason}); it was moved to {}", .path.display(), .set_aside.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Where it is now.
        set_aside: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file named as a kept recording is not one this version reads.
    #[error("{} is not a kept recording ({reason})", .path.display())]
    NotKept {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Reading, writing or moving the file failed.
    #[error("the unsaved recording in {}: {}", .path.display(), browserflow_contract::io_in_words(.source))]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeptFile {
    format: u32,
    kept_at: u64,
    live: bool,
    draft: Draft,
    #[serde(default)]
    picks: Vec<PickedElement>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pages: Vec<RecordedPage>,
}

impl DraftKeeper {
    /// Keeps the unsaved recording in `dir` (created on the first write).
    pub fn in_dir(dir: impl Into<PathBuf>) -> DraftKeeper {
        DraftKeeper { dir: dir.into() }
    }

    /// The kept file.
    pub fn path(&self) -> PathBuf {
        self.dir.join("unsaved.json")
    }

    /// Writes `draft` and `picks` as the unsaved recording, replacing the previous version
    /// whole.
    pub fn keep(
        &self,
        draft: &Draft,
        picks: &[PickedElement],
        live: bool,
    ) -> Result<(), KeptDraftError> {
        self.write(&self.path(), draft, picks, live, &[])
    }

    /// Keeps a recording cut short outside the app (`bflow record` on Ctrl-C) with the pages
    /// it ended on: as the unsaved recording when there is none, so that the app offers it
    /// at start, else in a file of its own beside it, never over the app's. Returns the file.
    pub fn keep_cut_short(
        &self,
        draft: &Draft,
        pages: &[RecordedPage],
    ) -> Result<PathBuf, KeptDraftError> {
        let mut path = self.path();
        if path.exists() {
            let now = crate::library::now_epoch_seconds();
            path = (0..)
                .map(|n| match n {
                    0 => self.dir.join(format!("recording-{now}.json")),
                    n => self.dir.join(format!("recording-{now}-{n}.json")),
                })
                .find(|p| !p.exists())
                .unwrap_or_else(|| self.dir.join(format!("recording-{now}.json")));
        }
        self.write(&path, draft, &[], true, pages)?;
        Ok(path)
    }

    /// Reads the kept recording in `path` (the unsaved one, or one kept beside it by
    /// [`DraftKeeper::keep_cut_short`]), leaving the file where it is.
    pub fn read_file(path: &Path) -> Result<KeptDraft, KeptDraftError> {
        read_kept(path).map_err(|reason| KeptDraftError::NotKept {
            path: path.to_path_buf(),
            reason,
        })
    }

    fn write(
        &self,
        path: &Path,
        draft: &Draft,
        picks: &[PickedElement],
        live: bool,
        pages: &[RecordedPage],
    ) -> Result<(), KeptDraftError> {
        let io = |source| KeptDraftError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = KeptFile {
            format: FORMAT,
            kept_at: crate::library::now_epoch_seconds(),
            live,
            draft: without_secret_values(draft),
            picks: picks.to_vec(),
            pages: pages.to_vec(),
        };
        let json = serde_json::to_vec_pretty(&file).map_err(|e| io(e.into()))?;
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        let mut temporary = tempfile::NamedTempFile::new_in(&self.dir).map_err(io)?;
        temporary.write_all(&json).map_err(io)?;
        temporary.as_file().sync_all().map_err(io)?;
        temporary.persist(path).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// The unsaved recording, if one is kept. A file this version cannot read is moved aside
    /// (`unsaved.unreadable-<time>.json`) and reported, never deleted.
    pub fn read(&self) -> Result<Option<KeptDraft>, KeptDraftError> {
        let path = self.path();
        if !path.exists() {
            return Ok(None);
        }
        match read_kept(&path) {
            Ok(kept) => Ok(Some(kept)),
            Err(reason) => {
                let set_aside = self.dir.join(format!(
                    "unsaved.unreadable-{}.json",
                    crate::library::now_epoch_seconds()
                ));
                std::fs::rename(&path, &set_aside).map_err(|source| KeptDraftError::Io {
                    path: path.clone(),
                    source,
                })?;
                Err(KeptDraftError::Unreadable {
                    path,
                    set_aside,
                    reason,
                })
            }
        }
    }

    /// Forgets the unsaved recording (it was saved as a tool, or discarded).
    pub fn forget(&self) -> Result<(), KeptDraftError> {
        match std::fs::remove_file(self.path()) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(KeptDraftError::Io {
                path: self.path(),
                source: e,
            }),
            _ => Ok(()),
        }
    }
}

/// The kept recording in `path`, or why it is not one.
fn read_kept(path: &Path) -> Result<KeptDraft, String> {
    let limits = browserflow_contract::JsonLimits {
        max_bytes: MAX_KEPT_FILE,
        ..browserflow_contract::JsonLimits::DOCUMENT
    };
    let file = browserflow_contract::read_json_file_with(path, limits)
        .map_err(|e| e.to_string())
        .and_then(|value| serde_json::from_value::<KeptFile>(value).map_err(|e| e.to_string()))?;
    if file.format != FORMAT {
        return Err(format!(
            "format {}, this version reads {FORMAT}",
            file.format
        ));
    }
    Ok(KeptDraft {
        draft: file.draft,
        picks: file.picks,
        kept_at: file.kept_at,
        live: file.live,
        pages: file.pages,
    })
}

/// `draft` less the values typed into fields whose input is secret (a field marked secret
/// after it was typed into: its value was captured, and stays in memory only).
fn without_secret_values(draft: &Draft) -> Draft {
    let secret: Vec<String> = draft
        .inputs
        .iter()
        .filter(|i| i.secret)
        .map(|i| format!("{{{{{}}}}}", i.name))
        .collect();
    let mut kept = draft.clone();
    for recorded in &mut kept.steps {
        let given = recorded.step.typed_text();
        let types_a_secret = given.is_some_and(|value| {
            secret
                .iter()
                .any(|reference| value.contains(reference.as_str()))
        });
        if recorded.secret || types_a_secret {
            recorded.recorded_value = None;
        }
    }
    kept
}
