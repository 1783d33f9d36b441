//! Integration tests of the Rider: real SQLite files, real HTTP on 127.0.0.1, real processes.

mod canary;
mod caps;
mod child;
mod crash;
mod define;
mod divergence;
mod run;
mod server;
mod tools;
