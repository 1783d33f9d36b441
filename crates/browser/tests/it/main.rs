//! Integration tests: real headless Chromium against the fixture shop served on 127.0.0.1.

mod actions;
mod devtools_conformance;
mod export_import;
mod failures;
mod frames;
mod journey;
mod launch;
mod pages;
mod robustness;
mod selectors;
mod steps_json;
mod support;
mod tool_file;
mod tool_runs;
