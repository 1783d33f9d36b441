//! JavaScript injected into pages. One resolver (`resolve.js`: selector candidates,
//! actionability) and one implementation of roles and accessible names (`roles.js`), shared by
//! the replayer and the recorder so both name an element the same way.

/// The resolver, installed in an isolated world of every frame that is searched.
pub const RESOLVE_JS: &str = include_str!("resolve.js");
