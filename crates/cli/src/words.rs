//! Counts in words: `1 step`, `2 steps`.

/// `n` and `noun`, the noun agreeing with the count (`1 step`, `0 steps`, `3 post-state checks`).
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Writes `contents` to `path`; a failure names the file and says why in words ("is a folder,
/// not a file"), never the OS's code.
pub(crate) fn write_file(path: &std::path::Path, contents: impl AsRef<[u8]>) -> anyhow::Result<()> {
    std::fs::write(path, contents).map_err(|e| {
        anyhow::anyhow!(
            "cannot write {}: {}",
            path.display(),
            browserflow_contract::io_in_words(&e)
        )
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_count_agrees_with_its_noun() {
        assert_eq!(super::count(1, "step"), "1 step");
        assert_eq!(super::count(0, "step"), "0 steps");
        assert_eq!(super::count(3, "post-state check"), "3 post-state checks");
    }
}
