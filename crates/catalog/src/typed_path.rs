//! Paths as a person types them into a form: trimmed, with a leading `~` meaning their home
//! folder (as a shell would expand it; the app has no shell in between).

use std::path::{Path, PathBuf};

/// `typed` as a path: surrounding whitespace dropped, `~` and `~/…` under the home folder
/// (`home`, normally the `HOME` of the process). `~user` is left alone (no user database
/// lookups behind a text field).
pub fn typed_path_in(typed: &str, home: Option<&Path>) -> PathBuf {
    let typed = typed.trim();
    match (typed, home) {
        ("~", Some(home)) => home.to_path_buf(),
        (t, Some(home)) if t.starts_with("~/") => home.join(&t[2..]),
        (t, _) => PathBuf::from(t),
    }
}

/// [`typed_path_in`] with the process's home folder.
pub fn typed_path(typed: &str) -> PathBuf {
    typed_path_in(
        typed,
        std::env::var_os("HOME").map(PathBuf::from).as_deref(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tilde_means_the_home_folder_and_whitespace_is_dropped() {
        let home = Path::new("/home/ada");
        let at = |t| typed_path_in(t, Some(home));
        assert_eq!(
            at(" ~/packs/a.bfpack "),
            PathBuf::from("/home/ada/packs/a.bfpack")
        );
        assert_eq!(at("~"), PathBuf::from("/home/ada"));
        assert_eq!(at("/tmp/~x"), PathBuf::from("/tmp/~x"));
        assert_eq!(at("~bob/x"), PathBuf::from("~bob/x"));
        assert_eq!(typed_path_in("~/x", None), PathBuf::from("~/x"));
    }
}
