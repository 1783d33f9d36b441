//! JavaScript injected into pages. One resolver (`resolve.js`: selector candidates,
//! actionability) and one implementation of roles and accessible names (`roles.js`), shared by
//! the replayer and the recorder so both name an element the same way.

/// Roles and accessible names (HTML-AAM, accname 1.2): an expression evaluating to
/// `{norm, textOf, implicitRole, roleOf, accessibleName, labelOf, labelMatches, sameRole}`.
pub const ROLES_JS: &str = include_str!("roles.js");

/// The resolver, installed in an isolated world of every frame that is searched. A single
/// expression (it is evaluated as `(RESOLVE_JS)`): the resolver function, with roles.js bound
/// as its `ROLES` and exposed as its `roles` property, which is how the recorder (which gets
/// this source inlined) names elements.
///
/// states.js (what a post-state check reads) is bound as its `STATES` and exposed as its
/// `states` property: the resolver snapshots a watched element's states before it acts, the
/// replayer's check reads them after, and the recorder reads them around each gesture.
///
/// shadow.js (the one walk through open shadow roots) is bound as its `SHADOW` and exposed as
/// its `shadow` property, so the recorder walks the page exactly as the resolver searches it.
/// reads.js (a read's shape and identity, the `beside_label` / `under_heading` anchors) is
/// bound as its `READS` and exposed as its `reads` property: the recorder describes a marked
/// output with it, the resolver checks what it reads against that.
pub const RESOLVE_JS: &str = concat!(
    "(() => {\nconst SHADOW = ",
    include_str!("shadow.js"),
    "\n;\nconst ROLES = ",
    include_str!("roles.js"),
    "\n;\nconst STATES = (",
    include_str!("states.js"),
    ")(ROLES);\nconst REPEAT = (",
    include_str!("repeat.js"),
    ")(ROLES);\nconst READS = (",
    include_str!("reads.js"),
    ")(ROLES);\nconst resolve = ",
    include_str!("resolve.js"),
    "\n;\nresolve.roles = ROLES;\nresolve.states = STATES;\nresolve.shadow = SHADOW;\nresolve.repeat = REPEAT;\nresolve.reads = READS;\nreturn resolve;\n})()"
);

/// Repeating structures (`repeat.js`): a function of roles.js returning `{placeOf, pick,
/// rowsOf, itemsOf}` — an element's place in a grid, list or group of cards, and the elements
/// a `cell` or `item` pick finds; bound in [`RESOLVE_JS`] as its `REPEAT` and exposed as its
/// `repeat` property (the recorder records places with it).
pub const REPEAT_JS: &str = include_str!("repeat.js");

/// The states of post-state checks (`states.js`): a function of roles.js returning
/// `{describe, deepActive, statesOf, countMutations, mutations}`; carried by [`RESOLVE_JS`].
pub const STATES_JS: &str = include_str!("states.js");

/// The walk through open shadow roots (`shadow.js`): an expression evaluating to
/// `{deepElements, composedParent, composedContains, hostsOf}`; carried by [`RESOLVE_JS`].
pub const SHADOW_JS: &str = include_str!("shadow.js");
/// Reads checked like gestures (`reads.js`): a function of roles.js returning the shape of a
/// read text, an element's identity, and the anchors of what a value is beside or under;
/// carried by [`RESOLVE_JS`].
pub const READS_JS: &str = include_str!("reads.js");

/// The masker (`mask.js`): a function `(texts, action)` evaluated in the replayer's isolated
/// world of each frame, which draws solid boxes over every element showing one of `texts`
/// (`"mask"`) and removes them (`"unmask"`), each time returning what it found.
pub const MASK_JS: &str = include_str!("mask.js");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resolver_carries_the_roles_module_once() {
        assert!(RESOLVE_JS.contains(ROLES_JS));
        assert_eq!(RESOLVE_JS.matches("const implicitRole").count(), 1);
        assert!(RESOLVE_JS.trim_end().ends_with("})()"));
        assert!(RESOLVE_JS.contains(STATES_JS));
        assert!(RESOLVE_JS.contains(SHADOW_JS));
        assert_eq!(RESOLVE_JS.matches("const deepElements").count(), 1);
        assert!(RESOLVE_JS.contains(REPEAT_JS));
        assert!(RESOLVE_JS.contains(READS_JS));
    }
}
