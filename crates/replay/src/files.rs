//! Downloads and uploads: where downloaded files go and how their completion is observed, and
//! the checks on files an upload step sends.

use std::path::{Path, PathBuf};

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant;

use browserflow_cdp::downloads::{DownloadBegin, finish};
use browserflow_cdp::page::Page;
use browserflow_cdp::session::CdpEvent;

use super::DownloadRecord;

/// Resolves every path of an upload step to an absolute path of a readable regular file.
pub(super) fn upload_paths(files: &[String]) -> Result<Vec<String>, String> {
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
pub(super) fn fresh_download_dir() -> std::io::Result<PathBuf> {
    Ok(tempfile::Builder::new()
        .prefix("browserflow-downloads-")
        .tempdir()?
        .keep())
}

/// Browser-level download events, subscribed to before the action that starts a download.
pub(super) struct DownloadWatch {
    events: UnboundedReceiver<CdpEvent>,
}

impl DownloadWatch {
    pub(super) fn start(page: &Page) -> Self {
        Self {
            events: page.session().connection().subscribe(None),
        }
    }

    /// Waits until a download started by a frame of `page` completes, then moves the file to
    /// its suggested name in `dir` and describes it.
    pub(super) async fn finish(
        mut self,
        page: &Page,
        dir: &Path,
        deadline: Instant,
    ) -> Result<DownloadRecord, String> {
        let mut started: Option<DownloadBegin> = None;
        loop {
            let event = match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Ok(Some(event)) => event,
                Ok(None) => return Err("the connection to the browser closed".into()),
                Err(_) => {
                    return Err(match &started {
                        None => "no download started".to_string(),
                        Some(s) => format!("the download of {:?} did not finish", s.suggested),
                    });
                }
            };
            let p = &event.params;
            match event.method.as_str() {
                "Browser.downloadWillBegin" if started.is_none() => {
                    let frame = p["frameId"].as_str().unwrap_or_default();
                    if page.frame_state(frame).is_some() {
                        started = Some(DownloadBegin::from_params(p));
                    }
                }
                "Browser.downloadProgress" => {
                    let Some(s) = &started else { continue };
                    if p["guid"] != s.guid.as_str() {
                        continue;
                    }
                    match p["state"].as_str() {
                        Some("completed") => break,
                        Some("canceled") => {
                            return Err(format!("the download of {:?} was canceled", s.suggested));
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        let Some(started) = started else {
            return Err("no download started".into());
        };
        save(dir, started).await
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
