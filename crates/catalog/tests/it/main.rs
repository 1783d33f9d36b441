//! Integration tests of browserflow-catalog: one-tool runs through the Rider (`run_tool`), the
//! demo, and the robustness of browser tools (crashes, hangs, hostile pages) in real Chromium.

// Helpers outside `#[test]` functions unwrap too: a panic is how a test fails.
#![allow(clippy::unwrap_used)]

mod folders;
mod kept_drafts;
mod packs;
mod robustness;
mod seams;
mod tool_runs;
