//! Integration tests: real headless Chromium against the fixture shop served on 127.0.0.1.

// Helpers outside `#[test]` functions unwrap too: a panic is how a test fails.
#![allow(clippy::unwrap_used)]

mod actions;
mod devtools_conformance;
mod export_import;
mod failures;
mod files;
mod frames;
mod journey;
mod launch;
mod pages;
mod record;
mod robustness;
mod selectors;
mod steps_json;
mod support;
mod tool_file;
mod tool_runs;
