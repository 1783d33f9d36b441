//! Integration tests of the Rider: real SQLite files, real HTTP on 127.0.0.1, real processes.

// Helpers shared by the tests panic on failure like the tests themselves.
#![allow(clippy::unwrap_used)]

mod artifacts;
mod canary;
mod caps;
mod child;
mod composite;
mod crash;
mod define;
mod divergence;
mod lease;
mod model_client;
mod plan_change;
mod read_only;
mod redact;
mod run;
mod server;
mod tools;
