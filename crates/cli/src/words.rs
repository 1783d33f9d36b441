//! Counts in words: `1 step`, `2 steps`.

/// `n` and `noun`, the noun agreeing with the count (`1 step`, `0 steps`, `3 post-state checks`).
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
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
