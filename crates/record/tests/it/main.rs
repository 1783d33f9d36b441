//! Integration tests of the recorder: trusted CDP input into a real headless Chromium on the
//! fixture shop, the recording replayed by the replayer.

// Helpers outside `#[test]` functions unwrap too: a panic is how a test fails.
#![allow(clippy::unwrap_used)]

mod login_shop;
mod names;
mod post_state;
mod record;
mod settle;
mod support;
mod widgets;
