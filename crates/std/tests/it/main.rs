//! Integration tests of the standard pack: real servers on 127.0.0.1, real processes, the
//! real QuickJS sandbox.

// Helpers outside `#[test]` functions unwrap too: a panic is how a test fails.
#![allow(clippy::unwrap_used)]

mod code;
mod http;
mod model;
mod registry;
mod shell;
mod support;
mod transform;
