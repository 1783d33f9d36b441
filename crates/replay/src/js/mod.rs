//! The JavaScript the replayer evaluates in pages, one file per snippet (the element resolver
//! itself is `browserflow_cdp::injected`). Snippets that take arguments are function
//! expressions, called through [`call`].

/// Resolves after two animation frames of the page it runs in.
pub(crate) const NEXT_FRAMES: &str = include_str!("next_frames.js");
/// Resolves after a zero-delay timer: after the tasks an action queued.
pub(crate) const SETTLE: &str = include_str!("settle.js");
/// The title after the next animation frame (so a polling loop advances with the page).
pub(crate) const NEXT_FRAME_TITLE: &str = include_str!("next_frame_title.js");
/// Resolves once a freshly attached page has loaded a real document.
pub(crate) const POPUP_LOADED: &str = include_str!("popup_loaded.js");
/// `(check, budgetMs)`: polls `check` on animation frames until it is truthy or the budget
/// is spent; `{ ok, last }` with the last error `check` threw.
pub(crate) const WAIT_FOR_EXPRESSION: &str = include_str!("wait_for_expression.js");
/// `(name, spec)`: calls the resolver installed as `globalThis[name]`, or answers
/// `{ ok: false, resolverMissing: true }` when the world has none.
pub(crate) const CALL_RESOLVER: &str = include_str!("call_resolver.js");
/// `(name, spec)`: reads a list with the resolver installed as `globalThis[name]` (its `list`
/// module), or answers `{ ok: false, resolverMissing: true }` when the world has none.
pub(crate) const CALL_LIST: &str = include_str!("call_list.js");
/// Arms a watch on the next pointer gesture at the element the resolver found last in the
/// frame, and answers its action point in the frame's viewport (null when it is gone): the
/// first press decides whether the gesture is the element's, and a gesture that is not is
/// stopped before the page sees it. How a click into a child frame is checked as delivered.
pub(crate) const ARM_POINTER_PROBE: &str = include_str!("arm_pointer_probe.js");
/// Where the armed gesture's last move and first press landed so far ([`PointerProbe`]).
///
/// [`PointerProbe`]: crate::actions::PointerProbe
pub(crate) const READ_POINTER_PROBE: &str = include_str!("read_pointer_probe.js");
/// Like [`READ_POINTER_PROBE`], and disarms the watch: for when the gesture is over.
pub(crate) const TAKE_POINTER_PROBE: &str = include_str!("take_pointer_probe.js");
/// Arms a guard in a document around the frame a click is aimed into: while armed, any
/// trusted pointer-gesture event landing there (the browser routed it wrong) is stopped.
pub(crate) const ARM_ANCESTOR_GUARD: &str = include_str!("arm_ancestor_guard.js");
/// Disarms the guard of [`ARM_ANCESTOR_GUARD`]: how many events it stopped.
pub(crate) const TAKE_ANCESTOR_GUARD: &str = include_str!("take_ancestor_guard.js");
/// `(checks, budgetMs)`: waits until every post-state check holds on the element the resolver
/// watched; `{ok}` or `{ok: false, actual: [...]}` (see [`crate::checks`]).
pub(crate) const CHECK_STATE: &str = include_str!("check_state.js");
/// Watches the focused element before a key press that has no element of its own.
pub(crate) const WATCH_FOCUSED: &str = include_str!("watch_focused.js");
/// `(quietMs, capMs)`: resolves once the document went `quietMs` without a mutation
/// (`settle.rs`).
pub(crate) const QUIET_MUTATIONS: &str = include_str!("quiet_mutations.js");
/// `(x, y)`: scrolls the window to a position.
pub(crate) const SCROLL_WINDOW: &str = include_str!("scroll_window.js");

/// The expression that calls `function` (a function expression) with `args` (JavaScript
/// source each).
pub(crate) fn call(function: &str, args: &[&str]) -> String {
    format!("({})({})", function.trim_end(), args.join(", "))
}
