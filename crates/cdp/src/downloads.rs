//! The download folder shared by replay (`download` steps) and the recorder: turning downloads
//! on for a browser context, and naming saved files safely inside the folder.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::session::CdpConnection;

/// What `Browser.downloadWillBegin` announces of a download.
pub struct DownloadBegin {
    /// The file's name in the download folder until it is renamed ([`finish`]).
    pub guid: String,
    /// Where it is downloaded from.
    pub url: String,
    /// The name the page or server suggested.
    pub suggested: String,
}

/// Lets the context (`None`: the default one) download into `dir` (files named by their download GUID until they are
/// renamed with [`free_path`]) and turns on download events.
pub async fn allow_downloads(
    conn: &CdpConnection,
    context_id: Option<&str>,
    dir: &Path,
) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the download folder {}: {e}", dir.display()))?;
    let mut params = json!({
        "behavior": "allowAndName",
        "downloadPath": dir.to_string_lossy(),
        "eventsEnabled": true,
    });
    // Without an id, the behavior is the default context's.
    if let Some(id) = context_id {
        params["browserContextId"] = json!(id);
    }
    conn.session(None)
        .call("Browser.setDownloadBehavior", params)
        .await
        .map(|_| ())
        .map_err(|e| format!("cannot enable downloads: {e}"))
}

/// Moves a finished download, `dir/guid`, to `dir/<suggested name>` (numbered when taken) and
/// describes it. Blocking: it reads the file to hash it.
pub fn finish(
    dir: &Path,
    guid: &str,
    suggested: &str,
    url: &str,
) -> Result<DownloadRecord, String> {
    let name = safe_file_name(suggested);
    let target = free_path(dir, &name);
    let temporary = dir.join(guid);
    std::fs::rename(&temporary, &target).map_err(|e| {
        format!(
            "cannot move the downloaded file {} to {}: {e}",
            temporary.display(),
            target.display()
        )
    })?;
    let bytes = std::fs::read(&target)
        .map_err(|e| format!("cannot read the downloaded file {}: {e}", target.display()))?;
    let path = std::path::absolute(&target).unwrap_or(target);
    Ok(DownloadRecord {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or(name),
        size: bytes.len() as u64,
        sha256: hex::encode(Sha256::digest(&bytes)),
        path,
        url: url.to_string(),
    })
}

/// The suggested name without any directory part (a server cannot write outside the folder).
pub fn safe_file_name(suggested: &str) -> String {
    let base = suggested
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or_default()
        .trim();
    if base.is_empty() || base == "." || base == ".." {
        "download".to_string()
    } else {
        base.to_string()
    }
}

/// `dir/name`, or `dir/stem (n).ext` for the first `n` not taken yet.
pub fn free_path(dir: &Path, name: &str) -> PathBuf {
    let first = dir.join(name);
    if !first.exists() {
        return first;
    }
    let (stem, ext) = match name.rfind('.') {
        Some(dot) if dot > 0 => (&name[..dot], &name[dot..]),
        _ => (name, ""),
    };
    (1..)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_download_is_saved_under_the_suggested_name_inside_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("g1"), "a,b\n").unwrap();
        let file = finish(dir.path(), "g1", "../r.csv", "http://x/r.csv").unwrap();
        assert_eq!(file.name, "r.csv");
        assert_eq!(file.size, 4);
        assert!(
            file.path.is_absolute()
                && file
                    .path
                    .starts_with(std::path::absolute(dir.path()).unwrap())
        );
        std::fs::write(dir.path().join("g2"), "a,b\n").unwrap();
        let again = finish(dir.path(), "g2", "r.csv", "http://x/r.csv").unwrap();
        assert_eq!(again.name, "r (1).csv");
        assert_eq!(again.sha256, file.sha256);
    }

    #[test]
    fn suggested_names_stay_inside_the_folder() {
        assert_eq!(safe_file_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_file_name("a\\b.txt"), "b.txt");
        assert_eq!(safe_file_name(".."), "download");
        assert_eq!(safe_file_name(""), "download");
    }

    #[test]
    fn taken_names_get_a_number() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(free_path(dir.path(), "r.csv"), dir.path().join("r.csv"));
        std::fs::write(dir.path().join("r.csv"), "x").unwrap();
        std::fs::write(dir.path().join("r (1).csv"), "x").unwrap();
        assert_eq!(free_path(dir.path(), "r.csv"), dir.path().join("r (2).csv"));
    }
}

/// A file saved by a `download` step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DownloadRecord {
    /// The file name the server suggested (the saved file's name, unless a file of that name
    /// already existed in the folder: then ` (1)`, ` (2)`, … is inserted before the extension).
    pub name: String,
    /// Absolute path of the saved file.
    pub path: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the content, lowercase hex.
    pub sha256: String,
    /// The URL the file came from (`blob:` and `data:` URLs included).
    pub url: String,
}
