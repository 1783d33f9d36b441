//! Integration tests of the step model: JSON shapes, tool files, DevTools import and
//! Playwright export (`node --check`).

// Helpers outside `#[test]` functions unwrap too: a panic is how a test fails.
#![allow(clippy::unwrap_used)]

mod export_import;
mod fuzz;
mod kinds;
mod origins;
mod runnable;
mod steps_json;
mod structure;
mod tool_file;
