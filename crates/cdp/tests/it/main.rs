//! Integration tests of the CDP engine that need no page: finding and launching Chromium.
//! Everything that drives a page is tested through the replayer (`browserflow-replay`) and
//! the recorder (`browserflow-record`).

mod launch;
