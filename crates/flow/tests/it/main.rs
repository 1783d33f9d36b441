//! Integration tests of the flow crate.

// Helpers outside `#[test]` functions unwrap too: a panic is how a test fails.
#![allow(clippy::unwrap_used)]

mod composite;
mod conditions;
mod folder;
mod for_each;
mod parse;
mod pins;
mod recordings;
mod registry;
mod runtime;
mod secrets;
mod strict;
mod support;
mod wires;
