//! Integration tests of the CDP engine: finding and launching Chromium, and the injected
//! roles-and-names module against the standard in real Chromium (`names_conformance`).
//! Everything else that drives a page is tested through the replayer (`browserflow-replay`)
//! and the recorder (`browserflow-record`). `boundary`: only the engine names CDP methods.

mod boundary;
mod launch;
mod names_conformance;
