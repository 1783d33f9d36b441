//! File-system failures in words. The OS's own text ("Is a directory (os error 21)") is for
//! programmers; every layer that names a file a person gave says what is wrong with it this way.

use std::io::{Error, ErrorKind};

/// What went wrong with a path, in words: `is a folder, not a file`, `does not exist`, …; for
/// a kind without words of its own, the OS's text less its error number.
///
/// ```
/// use std::io::{Error, ErrorKind};
/// use browserflow_contract::io_in_words;
///
/// assert_eq!(io_in_words(&Error::from(ErrorKind::IsADirectory)), "is a folder, not a file");
/// assert_eq!(io_in_words(&Error::from_raw_os_error(28)), "cannot be written: the disk is full");
/// ```
pub fn io_in_words(error: &Error) -> String {
    let words = match error.kind() {
        ErrorKind::NotFound => "does not exist",
        ErrorKind::PermissionDenied => "cannot be opened: permission denied",
        ErrorKind::IsADirectory => "is a folder, not a file",
        ErrorKind::NotADirectory => "is under a file, not a folder",
        ErrorKind::AlreadyExists => "already exists",
        ErrorKind::StorageFull => "cannot be written: the disk is full",
        ErrorKind::ReadOnlyFilesystem => "is on a read-only disk",
        ErrorKind::InvalidData => "holds text that is not UTF-8",
        ErrorKind::UnexpectedEof => "ended early (truncated)",
        ErrorKind::DirectoryNotEmpty => "is a folder that is not empty",
        _ => return without_os_number(&error.to_string()),
    };
    words.to_string()
}

/// `Broken pipe (os error 32)` → `broken pipe`.
fn without_os_number(text: &str) -> String {
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_os_text_loses_its_number_and_capital() {
        assert_eq!(io_in_words(&Error::from_raw_os_error(32)), "broken pipe");
        assert_eq!(
            io_in_words(&Error::from_raw_os_error(21)),
            "is a folder, not a file"
        );
        assert_eq!(io_in_words(&Error::from_raw_os_error(2)), "does not exist");
        assert_eq!(
            io_in_words(&Error::other("custom words")),
            "custom words",
            "a message of our own is kept"
        );
    }
}
