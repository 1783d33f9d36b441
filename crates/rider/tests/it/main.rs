//! Integration tests of the Rider: real SQLite files, a real PostgreSQL server, real HTTP on 127.0.0.1, real processes.
//! The journal's own suite (`journal_suite`) runs once per journal backend.

// Helpers shared by the tests panic on failure like the tests themselves.
#![allow(clippy::unwrap_used)]

mod artifacts;
mod canary;
mod caps;
mod child;
mod composite;
mod define;
mod divergence;
mod for_each;
mod journal_suite;
mod model_client;
mod pg_cluster;
mod pg_journal;
mod read_only;
mod redact;
mod run;
mod server;
mod tools;
mod warnings;
