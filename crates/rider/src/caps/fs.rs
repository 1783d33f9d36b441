//! The `fs` capability: one rooted directory. Paths are relative to the root; `..`, absolute
//! paths and symbolic links that lead outside the root are refused.

use std::path::{Component, Path, PathBuf};

/// Why a file operation was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// The path would leave the root.
    #[error("path `{path}` is refused: {reason}")]
    Escape {
        /// The path as given.
        path: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// The root itself is unusable.
    #[error("fs root {root}: {source}")]
    Root {
        /// The root.
        root: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The operation failed.
    #[error("`{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A directory a tool may read and write, and nothing outside it.
#[derive(Debug, Clone)]
pub struct FsCap {
    root: PathBuf,
}

impl FsCap {
    /// A capability rooted at `root`, which must exist.
    pub fn new(root: impl AsRef<Path>) -> Result<FsCap, FsError> {
        let root = root.as_ref();
        let canonical = std::fs::canonicalize(root).map_err(|source| FsError::Root {
            root: root.to_owned(),
            source,
        })?;
        Ok(FsCap { root: canonical })
    }

    /// The root directory (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The real path of `relative` inside the root, after every check. The final component
    /// need not exist; every existing ancestor is resolved and must stay inside the root.
    pub fn resolve(&self, relative: &str) -> Result<PathBuf, FsError> {
        let refuse = |reason| FsError::Escape {
            path: relative.to_owned(),
            reason,
        };
        let path = Path::new(relative);
        let mut joined = self.root.clone();
        for component in path.components() {
            match component {
                Component::Normal(part) => joined.push(part),
                Component::CurDir => {}
                Component::ParentDir => return Err(refuse("`..` is not allowed")),
                Component::RootDir | Component::Prefix(_) => {
                    return Err(refuse(
                        "absolute paths are not allowed; give a path relative to the root",
                    ));
                }
            }
        }
        // Resolve symbolic links on the longest existing prefix and check it stays inside.
        let mut existing = joined.clone();
        let mut rest = Vec::new();
        loop {
            match std::fs::symlink_metadata(&existing) {
                Ok(_) => break,
                Err(_) => match (
                    existing.file_name().map(|n| n.to_owned()),
                    existing.parent(),
                ) {
                    (Some(name), Some(parent)) => {
                        rest.push(name);
                        existing = parent.to_owned();
                    }
                    _ => return Err(refuse("no existing ancestor")),
                },
            }
        }
        let real = std::fs::canonicalize(&existing).map_err(|source| FsError::Io {
            path: relative.to_owned(),
            source,
        })?;
        if !real.starts_with(&self.root) {
            return Err(refuse("a symbolic link leads outside the root"));
        }
        let mut resolved = real;
        for name in rest.into_iter().rev() {
            resolved.push(name);
        }
        Ok(resolved)
    }

    /// The bytes of a file.
    pub async fn read(&self, relative: &str) -> Result<Vec<u8>, FsError> {
        let path = self.resolve(relative)?;
        tokio::fs::read(&path).await.map_err(|e| io(relative, e))
    }

    /// The text of a UTF-8 file.
    pub async fn read_to_string(&self, relative: &str) -> Result<String, FsError> {
        let path = self.resolve(relative)?;
        tokio::fs::read_to_string(&path)
            .await
            .map_err(|e| io(relative, e))
    }

    /// Writes a file, creating its parent directories inside the root.
    pub async fn write(&self, relative: &str, contents: impl AsRef<[u8]>) -> Result<(), FsError> {
        let path = self.resolve(relative)?;
        if let Some(parent) = path.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|e| io(relative, e))?;
            // A link created between resolve and now could still redirect the write.
            self.resolve(relative)?;
        }
        tokio::fs::write(&path, contents)
            .await
            .map_err(|e| io(relative, e))
    }

    /// Creates a directory and its parents.
    pub async fn create_dir_all(&self, relative: &str) -> Result<(), FsError> {
        let path = self.resolve(relative)?;
        tokio::fs::create_dir_all(&path)
            .await
            .map_err(|e| io(relative, e))
    }

    /// The names in a directory, sorted.
    pub async fn list(&self, relative: &str) -> Result<Vec<String>, FsError> {
        let path = self.resolve(relative)?;
        let mut entries = tokio::fs::read_dir(&path)
            .await
            .map_err(|e| io(relative, e))?;
        let mut names = Vec::new();
        while let Some(entry) = entries.next_entry().await.map_err(|e| io(relative, e))? {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    /// Whether the path exists.
    pub async fn exists(&self, relative: &str) -> Result<bool, FsError> {
        let path = self.resolve(relative)?;
        tokio::fs::try_exists(&path)
            .await
            .map_err(|e| io(relative, e))
    }

    /// Removes a file.
    pub async fn remove_file(&self, relative: &str) -> Result<(), FsError> {
        let path = self.resolve(relative)?;
        tokio::fs::remove_file(&path)
            .await
            .map_err(|e| io(relative, e))
    }
}

fn io(relative: &str, source: std::io::Error) -> FsError {
    FsError::Io {
        path: relative.to_owned(),
        source,
    }
}
