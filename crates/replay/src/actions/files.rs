//! Files in and out: `download` (a click whose download is saved under its name in the
//! replay's download folder and described by path, size and SHA-256) and `upload` (files set
//! on a file input, or given to the file chooser a click opens), with the checks on the files
//! an upload sends.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant;

use browserflow_cdp::BrowserContext;
use browserflow_cdp::commands::dom;
use browserflow_cdp::downloads::{DownloadBegin, allow_downloads, finish};
use browserflow_cdp::page::{BrowserEvent, DownloadState, FileChooser, Page};
use browserflow_steps::{DownloadOutput, DownloadStep, Selector, UploadStep, glob_match};

use super::Click;
use crate::DownloadRecord;
use crate::failure::{Failure, FailureKind, Unactionable};
use crate::navigation::Follow;
use crate::resolve::{Act, InPage, Requirements, ResolveRequest, Resolved, wait_change};
use crate::run::{Outcome, Run};

/// Where the resolver leaves the file input it found (see `resolve.ts`).
const UPLOAD_TARGET_JS: &str = "globalThis.__browserflowUploadTarget";

impl Run<'_> {
    pub(crate) async fn download(
        &mut self,
        page: &Page,
        s: &DownloadStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let dir = self.download_dir(page).await?;
        let found = self
            .find_pointer_target(page, &s.selector, shown, s.offset, s.timeout_ms)
            .await?;
        let watch = DownloadWatch::start(self.context);
        self.click_found(page, &found, Click::LEFT, Follow::NOTHING)
            .await?;
        let wait = s
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.options.navigation_timeout);
        let record = watch
            .finish(page, &dir, Instant::now() + wait)
            .await
            .map_err(|f| {
                Failure::new(
                    f.kind,
                    format!("{} within {} ms of the click", f.message, wait.as_millis()),
                )
                .with_winner(found.winner)
            })?;
        if let Some(pattern) = &s.filename
            && !glob_match(pattern, &record.name)
            && !glob_match(
                pattern,
                &record
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            )
        {
            return Err(Failure::new(
                FailureKind::Assertion,
                format!(
                    "expected a download named {pattern:?}, but got {:?} (saved as {})",
                    record.name,
                    record.path.display()
                ),
            )
            .with_winner(found.winner));
        }
        if let Some(field) = &s.field {
            let value = match s.output {
                DownloadOutput::File => json!({
                    "name": record.name,
                    "path": record.path.to_string_lossy(),
                    "size": record.size,
                    "sha256": record.sha256,
                    "url": record.url,
                }),
                DownloadOutput::Path => json!(record.path.to_string_lossy()),
                DownloadOutput::Name => json!(record.name),
                DownloadOutput::Size => json!(record.size),
                DownloadOutput::Sha256 => json!(record.sha256),
            };
            self.outputs.insert(field.clone(), value);
        }
        Ok(Outcome {
            download: Some(record),
            ..Outcome::found(found.winner)
        })
    }

    /// The replay's download folder; the first download makes it and lets the context
    /// download into it.
    async fn download_dir(&mut self, page: &Page) -> Result<PathBuf, Failure> {
        if let Some(dir) = &self.download_dir {
            return Ok(dir.clone());
        }
        let dir = match &self.options.download_dir {
            Some(dir) => dir.clone(),
            None => fresh_download_dir().map_err(|e| {
                Failure::new(
                    FailureKind::LocalFile,
                    format!("cannot create a download folder: {e}"),
                )
            })?,
        };
        // Made here so that what fails below is the browser's part.
        std::fs::create_dir_all(&dir).map_err(|e| {
            Failure::new(
                FailureKind::LocalFile,
                format!("cannot create the download folder {}: {e}", dir.display()),
            )
        })?;
        allow_downloads(page.session().connection(), Some(self.context.id()), &dir)
            .await
            .map_err(|message| Failure::new(FailureKind::Browser, message))?;
        self.download_dir = Some(dir.clone());
        Ok(dir)
    }

    pub(crate) async fn upload(
        &mut self,
        page: &Page,
        s: &UploadStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        // A file input needs no actionability (they are often hidden behind a styled label);
        // anything else must be clickable, since its click opens the chooser.
        let count = s.files.len();
        let probe = ResolveRequest::act(Requirements::default(), Act::Upload { count });
        let found = self
            .find(page, &s.selector, shown, &probe, s.timeout_ms)
            .await?;
        let winner = found.winner;
        if found.in_page == Some(InPage::FileInput { file_input: true }) {
            let object_id = page
                .evaluate_handle(&found.world, UPLOAD_TARGET_JS)
                .await
                .map_err(|e| {
                    Failure::eval(
                        FailureKind::Browser,
                        &e,
                        format!("lost the file input: {e}"),
                    )
                    .with_winner(winner)
                })?;
            found
                .world
                .session
                .run(&dom::SetFileInputFiles {
                    files: s.files.clone(),
                    node: dom::NodeRef::ObjectId(object_id),
                })
                .await
                .map_err(|e| {
                    Failure::cdp(&e, format!("setting the files failed: {e}")).with_winner(winner)
                })?;
            return Ok(Outcome::found(winner));
        }
        let found = self
            .find_pointer_target(page, &s.selector, shown, None, s.timeout_ms)
            .await?;
        let chooser = self
            .click_for_file_chooser(page, &found, s.timeout_ms)
            .await
            .map_err(|f| f.with_winner(found.winner))?;
        if chooser.mode == "selectSingle" && s.files.len() > 1 {
            return Err(Failure::new(
                FailureKind::NotActionable(Unactionable::Refused),
                format!("the file chooser accepts one file, not {}", s.files.len()),
            )
            .with_winner(found.winner));
        }
        page.session_by_id(chooser.session.as_deref())
            .run(&dom::SetFileInputFiles {
                files: s.files.clone(),
                node: dom::NodeRef::BackendNodeId(chooser.backend_node_id),
            })
            .await
            .map_err(|e| {
                Failure::cdp(&e, format!("answering the file chooser failed: {e}"))
                    .with_winner(found.winner)
            })?;
        Ok(Outcome::found(found.winner))
    }

    /// Clicks the element found with file choosers intercepted, and returns the chooser the
    /// click opened.
    async fn click_for_file_chooser(
        &mut self,
        page: &Page,
        found: &Resolved,
        timeout_ms: Option<u64>,
    ) -> Result<FileChooser, Failure> {
        let choosers_before = page.file_choosers().len();
        page.intercept_file_choosers(true)
            .await
            .map_err(|e| Failure::cdp(&e, format!("cannot intercept the file chooser: {e}")))?;
        let clicked = self
            .click_found(page, found, Click::LEFT, Follow::NOTHING)
            .await;
        let chooser = match clicked {
            Ok(_) => {
                let deadline = Instant::now() + self.budget(timeout_ms);
                let mut changes = page.changes();
                loop {
                    if let Some(chooser) = page.file_choosers().get(choosers_before) {
                        break Ok(chooser.clone());
                    }
                    if !wait_change(&mut changes, deadline).await {
                        break Err(Failure::new(
                            FailureKind::Timeout,
                            "the click opened no file chooser (and the element is not a file input)",
                        ));
                    }
                }
            }
            Err(f) => Err(f),
        };
        let _ = page.intercept_file_choosers(false).await;
        chooser
    }
}

/// Resolves every path of an upload step to an absolute path of a readable regular file.
pub(crate) fn upload_paths(files: &[String]) -> Result<Vec<String>, String> {
    files
        .iter()
        .map(|file| {
            let path = Path::new(file);
            let metadata = std::fs::metadata(path).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    format!("the file to upload {file:?} does not exist")
                } else {
                    format!("the file to upload {file:?} cannot be read: {e}")
                }
            })?;
            if !metadata.is_file() {
                return Err(format!("the path to upload {file:?} is not a file"));
            }
            let absolute = std::path::absolute(path)
                .map_err(|e| format!("the file to upload {file:?} has no absolute path: {e}"))?;
            Ok(absolute.to_string_lossy().into_owned())
        })
        .collect()
}

/// The download folder of a replay without a configured one: fresh, and kept after the
/// replay because the step's output points into it.
fn fresh_download_dir() -> std::io::Result<PathBuf> {
    Ok(tempfile::Builder::new()
        .prefix("browserflow-downloads-")
        .tempdir()?
        .keep())
}

/// The context's typed download events, subscribed to before the action that starts a
/// download.
struct DownloadWatch {
    events: UnboundedReceiver<BrowserEvent>,
}

impl DownloadWatch {
    fn start(context: &BrowserContext) -> Self {
        Self {
            events: context.subscribe_browser(),
        }
    }

    /// Waits until a download started by a frame of `page` completes, then moves the file to
    /// its suggested name in `dir` and describes it.
    async fn finish(
        mut self,
        page: &Page,
        dir: &Path,
        deadline: Instant,
    ) -> Result<DownloadRecord, Failure> {
        let mut started: Option<DownloadBegin> = None;
        loop {
            let event = match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Ok(Some(event)) => event,
                Ok(None) => {
                    return Err(Failure::new(
                        FailureKind::BrowserDisconnected,
                        "the connection to the browser closed",
                    ));
                }
                // A download that began but did not finish is a slow transfer, like a page
                // that does not finish loading.
                Err(_) => {
                    return Err(match &started {
                        None => Failure::new(FailureKind::Timeout, "no download started"),
                        Some(s) => Failure::new(
                            FailureKind::LoadFailed,
                            format!("the download of {:?} did not finish", s.suggested),
                        ),
                    });
                }
            };
            match event {
                BrowserEvent::DownloadWillBegin {
                    frame_id,
                    guid,
                    url,
                    suggested_filename,
                } if started.is_none() && page.frame_state(&frame_id).is_some() => {
                    // Only a download one of this page's frames started is the step's.
                    started = Some(DownloadBegin {
                        guid,
                        url,
                        suggested: suggested_filename,
                    });
                }
                BrowserEvent::DownloadProgress { guid, state } => {
                    let Some(s) = &started else { continue };
                    if guid != s.guid {
                        continue;
                    }
                    match state {
                        DownloadState::Completed => break,
                        DownloadState::Canceled => {
                            return Err(Failure::new(
                                FailureKind::Browser,
                                format!("the download of {:?} was canceled", s.suggested),
                            ));
                        }
                        DownloadState::InProgress => {}
                    }
                }
                _ => {}
            }
        }
        let Some(started) = started else {
            return Err(Failure::new(FailureKind::Timeout, "no download started"));
        };
        save(dir, started)
            .await
            .map_err(|message| Failure::new(FailureKind::LocalFile, message))
    }
}

async fn save(dir: &Path, started: DownloadBegin) -> Result<DownloadRecord, String> {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        finish(&dir, &started.guid, &started.suggested, &started.url)
    })
    .await
    .map_err(|e| format!("saving the download failed: {e}"))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_paths_must_be_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "hi").unwrap();
        let ok = upload_paths(&[file.to_string_lossy().into_owned()]).unwrap();
        assert_eq!(ok, vec![file.to_string_lossy().into_owned()]);
        let missing = dir.path().join("missing.txt");
        let err = upload_paths(&[missing.to_string_lossy().into_owned()]).unwrap_err();
        assert!(err.contains("does not exist"), "{err}");
        let err = upload_paths(&[dir.path().to_string_lossy().into_owned()]).unwrap_err();
        assert!(err.contains("is not a file"), "{err}");
    }
}
