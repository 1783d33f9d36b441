//! `*` wildcards for expected URLs, titles and frame URLs.

/// True when `text` matches `pattern`, where `*` matches any run of characters (including
/// none) and everything else matches itself. Without `*` this is plain equality.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, rest) = (parts[0], &parts[1..]);
    let Some(mut remaining) = text.strip_prefix(first) else {
        return false;
    };
    let (last, middle) = rest.split_last().unwrap_or((&"", &[]));
    for part in middle {
        match remaining.find(part) {
            Some(pos) => remaining = &remaining[pos + part.len()..],
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn wildcards() {
        assert!(glob_match("http://x/a", "http://x/a"));
        assert!(!glob_match("http://x/a", "http://x/ab"));
        assert!(glob_match(
            "*/product.html?id=*",
            "http://127.0.0.1:5/product.html?id=kb-1"
        ));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "abc"));
        assert!(!glob_match("a*b*c", "acb"));
        assert!(!glob_match("ab*ba", "aba"));
    }
}
