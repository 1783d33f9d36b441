//! End-to-end tests across the browserflow crates live in `it/`.
