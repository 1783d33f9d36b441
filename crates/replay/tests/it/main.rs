//! Integration tests: real headless Chromium against the fixture shop served on 127.0.0.1.

// Helpers outside `#[test]` functions unwrap too: a panic is how a test fails.
#![allow(clippy::unwrap_used)]

mod actions;
mod contexts;
mod devtools_conformance;
mod drag_and_drop;
mod failures;
mod files;
mod frames;
mod guard;
mod hostile;
mod journey;
mod late_subresources;
mod lists;
mod masking;
mod pages;
mod paging;
mod place;
mod profile;
mod reads;
mod selectors;
mod support;
