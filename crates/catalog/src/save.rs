//! A draft becomes a tool file one way, for the app and the command line alike: the tool is
//! built from the draft ([`Draft::into_tool_file`]) and written whole, never over an existing
//! file unless the caller says to replace it (`bflow record --force`). The file is written
//! beside its destination first and moved into place, so a reader never sees half a tool, and
//! "refuse" holds even against another writer racing for the same name.

use std::io::Write;
use std::path::{Path, PathBuf};

use browserflow_record::{Draft, RecordError};
use browserflow_steps::ToolFile;

/// What to do when the tool file exists already.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overwrite {
    /// Refuse (the default: a new recording of a tool gets a new version).
    #[default]
    Refuse,
    /// Replace it (`--force`).
    Replace,
}

/// Why a draft was not saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The draft does not make a valid tool (a bad name or version, an unresolved mark).
    #[error(transparent)]
    InvalidTool(#[from] RecordError),
    /// The file exists and was kept.
    #[error("{} exists; it was kept (record a new version, or replace it with --force)", .0.display())]
    Exists(PathBuf),
    /// The file could not be written.
    #[error("cannot write {}: {}", .path.display(), browserflow_contract::io_in_words(.error))]
    Io {
        /// The file.
        path: PathBuf,
        /// Why (said in words by the message, not chained again).
        error: std::io::Error,
    },
}

/// Builds the tool `name@version` from `draft` and writes it to `path` (its folder created
/// if missing), by `overwrite`'s rule. Returns the tool written.
pub fn save_draft(
    draft: Draft,
    name: &str,
    version: &str,
    description: Option<&str>,
    path: &Path,
    overwrite: Overwrite,
) -> Result<ToolFile, SaveError> {
    let tool = draft.into_tool_file(name, version, description)?;
    write_tool_file(&tool, path, overwrite)?;
    Ok(tool)
}

/// Writes `tool` to `path` by `overwrite`'s rule.
pub fn write_tool_file(
    tool: &ToolFile,
    path: &Path,
    overwrite: Overwrite,
) -> Result<(), SaveError> {
    let io = |error| SaveError::Io {
        path: path.to_path_buf(),
        error,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    if overwrite == Overwrite::Refuse && path.exists() {
        return Err(SaveError::Exists(path.to_path_buf()));
    }
    let mut staged = tempfile::NamedTempFile::new_in(&dir).map_err(io)?;
    staged
        .write_all(tool.to_json_pretty().as_bytes())
        .and_then(|()| staged.flush())
        .map_err(io)?;
    match overwrite {
        Overwrite::Replace => staged.persist(path).map(|_| ()),
        // Checked again as it lands: another writer may have made the file meanwhile.
        Overwrite::Refuse => staged.persist_noclobber(path).map(|_| ()),
    }
    .map_err(|e| match e.error.kind() {
        std::io::ErrorKind::AlreadyExists => SaveError::Exists(path.to_path_buf()),
        _ => io(e.error),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool() -> ToolFile {
        crate::run_tool::search_price().expect("the shipped tool parses")
    }

    #[test]
    fn an_existing_tool_file_is_kept_unless_replacing_is_asked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nested/search-price@1.2.0.json");
        write_tool_file(&tool(), &path, Overwrite::Refuse).expect("a new file is written");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            tool().to_json_pretty()
        );
        std::fs::write(&path, "kept").expect("write");
        let refused = write_tool_file(&tool(), &path, Overwrite::Refuse);
        assert!(
            matches!(refused, Err(SaveError::Exists(ref p)) if p == &path),
            "{refused:?}"
        );
        assert!(
            refused
                .err()
                .is_some_and(|e| e.to_string().contains("--force"))
        );
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "kept");
        write_tool_file(&tool(), &path, Overwrite::Replace).expect("replaced");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            tool().to_json_pretty()
        );
        // Nothing staged is left beside it.
        let names: Vec<_> = std::fs::read_dir(path.parent().expect("a folder"))
            .expect("list")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
