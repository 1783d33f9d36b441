//! Log output: `tracing` events on stderr, filtered by `BROWSERFLOW_LOG` (or `RUST_LOG`;
//! default `warn`). Every line of every target passes through one process-wide redactor
//! before it is written, and each run's Rider forwards the secrets it resolves to it
//! ([`redact_run`]), so a secret never reaches the terminal or a captured log file — not in
//! `bflow run`, not in a flow, not in the WebSocket frames `tungstenite` traces (printed as
//! text, as byte-string escapes and as hex dumps, all forms the redactor knows).

use std::sync::LazyLock;

use browserflow_catalog::{Catalog, CatalogWarning};
use browserflow_rider::Redactor;
use tracing_subscriber::EnvFilter;

/// The variable that sets the log filter, in `tracing`'s `EnvFilter` syntax.
pub const LOG_ENV: &str = "BROWSERFLOW_LOG";

/// The redactor the log writer uses; runs forward their secrets to it.
static LOG_REDACTOR: LazyLock<Redactor> = LazyLock::new(Redactor::new);

fn filter() -> EnvFilter {
    let spec = std::env::var(LOG_ENV)
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| "warn".to_owned());
    EnvFilter::try_new(&spec).unwrap_or_else(|e| {
        eprintln!("warning: {LOG_ENV}={spec:?} is not a valid filter ({e}); using `warn`");
        EnvFilter::new("warn")
    })
}

/// Logs to stderr through the process's redactor (installed once, before any command runs,
/// so no target logs around it).
pub fn init() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter())
        .with_writer(LOG_REDACTOR.make_writer(std::io::stderr))
        .try_init();
}

/// From now on the log output is redacted of every secret `run` (a Rider's redactor)
/// resolves.
pub fn redact_run(run: &Redactor) {
    run.forward_to(&LOG_REDACTOR);
}

/// The process's log redactor, for runs whose Rider is made inside a library call
/// (`bflow run`, the demo): they forward their secrets to it.
pub fn redactor() -> &'static Redactor {
    &LOG_REDACTOR
}

/// One warning for each thing the catalog went on without — a JSON file in its folders that
/// is not a tool, flow or contract, a file that does not load, a folder file used instead of a
/// different installed tool — each naming its file. Call it once per command, after the
/// subscriber is installed.
pub fn warn_catalog(warnings: &[CatalogWarning]) {
    for warning in warnings {
        tracing::warn!("{warning}");
    }
}

/// [`warn_catalog`] for a catalog used without checking a flow (`bflow run TOOL`).
pub fn warn_strangers(catalog: &Catalog) {
    match catalog.holdings(None) {
        Ok(holdings) => warn_catalog(&holdings.warnings()),
        Err(_) => {
            for stranger in catalog.strangers() {
                tracing::warn!("{stranger}");
            }
        }
    }
}
