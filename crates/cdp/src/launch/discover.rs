//! Finding the Chromium executable: an explicit path, `BROWSERFLOW_CHROME`, then the usual
//! install paths and names on `PATH`.

use std::path::{Path, PathBuf};

use crate::error::BrowserError;

/// The environment variable naming the Chromium executable to use.
pub const CHROME_ENV: &str = "BROWSERFLOW_CHROME";

/// Executables tried, in order, when neither an explicit path nor `BROWSERFLOW_CHROME` is given.
const CANDIDATE_PATHS: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
];

/// Names looked up on `PATH` after the fixed paths.
const CANDIDATE_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

/// Finds the Chromium executable: `explicit`, else `BROWSERFLOW_CHROME`, else the usual paths and
/// names on `PATH`.
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, BrowserError> {
    find_chromium_with(explicit, std::env::var_os(CHROME_ENV))
}

fn find_chromium_with(
    explicit: Option<&Path>,
    from_env: Option<std::ffi::OsString>,
) -> Result<PathBuf, BrowserError> {
    if let Some(path) = explicit {
        return if is_executable(path) {
            Ok(path.to_path_buf())
        } else {
            Err(BrowserError::ChromiumNotFound {
                tried: vec![path.to_path_buf()],
            })
        };
    }
    if let Some(value) = from_env.filter(|v| !v.is_empty()) {
        let path = PathBuf::from(value);
        return if is_executable(&path) {
            Ok(path)
        } else {
            Err(BrowserError::ChromiumNotFound { tried: vec![path] })
        };
    }
    let mut tried = Vec::new();
    for candidate in CANDIDATE_PATHS {
        let path = PathBuf::from(candidate);
        if is_executable(&path) {
            return Ok(path);
        }
        tried.push(path);
    }
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for name in CANDIDATE_NAMES {
        for dir in &path_dirs {
            let path = dir.join(name);
            if is_executable(&path) {
                return Ok(path);
            }
        }
        tried.push(PathBuf::from(name));
    }
    Err(BrowserError::ChromiumNotFound { tried })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_path_then_environment_then_usual_places() {
        let sh = Path::new("/bin/sh");
        assert_eq!(
            find_chromium_with(Some(sh), Some("/nope".into())).unwrap(),
            sh
        );
        assert_eq!(
            find_chromium_with(None, Some("/bin/sh".into())).unwrap(),
            sh
        );
        // A wrong BROWSERFLOW_CHROME is an error naming it, not a silent fallback.
        let err = find_chromium_with(None, Some("/nope/chrome".into())).unwrap_err();
        assert!(err.to_string().contains("/nope/chrome"), "{err}");
        // An empty variable counts as unset.
        let found = find_chromium_with(None, Some("".into()));
        if Path::new("/usr/bin/chromium").exists() {
            assert_eq!(found.unwrap(), Path::new("/usr/bin/chromium"));
        }
    }
}
