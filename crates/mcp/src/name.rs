//! MCP tool names derived from browserflow refs.
//!
//! An MCP tool name is 1 to 128 characters of `A-Z a-z 0-9 _ - .`; clients that hand tools to
//! a model are stricter still (no `.` or `-` for several), so the name keeps letters, digits
//! and `_` only: every other character of the tool's name becomes `_`, and the version follows
//! `_v` with its dots (and any pre-release or build characters) as `_`:
//! `search-price@1.2.0` → `search_price_v1_2_0`. Two refs can meet on one name
//! (`a-b@1.0.0` and `a_b@1.0.0`): the server refuses to start then ([`crate::ServeError`]),
//! it never picks one.

/// The longest MCP tool name.
pub const MAX_MCP_NAME: usize = 128;

/// The MCP tool name of `name@version`.
pub fn mcp_name(name: &str, version: &str) -> String {
    let keep = |c: char| {
        if c.is_ascii_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        }
    };
    let mut out: String = name.chars().map(keep).collect();
    out.push_str("_v");
    out.extend(version.chars().map(keep));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_become_valid_names() {
        assert_eq!(mcp_name("search-price", "1.2.0"), "search_price_v1_2_0");
        assert_eq!(mcp_name("std-http.post", "1.0.0"), "std_http_post_v1_0_0");
        assert_eq!(
            mcp_name("price-alert", "1.0.0-beta.2+b7"),
            "price_alert_v1_0_0_beta_2_b7"
        );
        assert_eq!(mcp_name("a-b", "1.0.0"), mcp_name("a_b", "1.0.0"));
    }
}
