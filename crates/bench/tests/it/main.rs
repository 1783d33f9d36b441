//! Integration tests of the benchmark harness: statistics, the process-tree memory sampler
//! (against real spawned processes) and whole-process runs. No npm, no browser.

mod cold;
mod proc_tree;
mod stats;
