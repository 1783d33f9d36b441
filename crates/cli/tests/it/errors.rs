//! Errors that help: each cause said once, bad arguments refused before any work starts.

use crate::{bflow, stderr};

#[test]
fn an_error_chain_says_each_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing_pack = dir.path().join("none.bfpack");
    let journal = dir.path().join("j.sqlite");
    for args in [
        vec!["pack", "verify", missing_pack.to_str().unwrap()],
        vec!["flow", "resume", "no-such-run", "--journal", journal.to_str().unwrap()],
    ] {
        let output = bflow(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let log = stderr(&output);
        assert!(log.starts_with("error: "), "{log}");
        assert_eq!(log.matches("(os error 2)").count(), 1, "{args:?}: {log}");
    }
}
