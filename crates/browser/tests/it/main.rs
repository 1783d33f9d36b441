//! Integration tests: real headless Chromium against the fixture shop served on 127.0.0.1.

mod actions;
mod failures;
mod frames;
mod journey;
mod launch;
mod pages;
mod selectors;
mod steps_json;
mod support;
