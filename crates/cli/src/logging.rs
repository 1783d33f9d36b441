//! Log output: `tracing` events on stderr, filtered by `BROWSERFLOW_LOG` (or `RUST_LOG`;
//! default `warn`). A run's logs pass through its Rider's redactor, so a secret resolved
//! during the run never reaches the terminal or a captured log file.

use browserflow_catalog::Catalog;
use browserflow_rider::Redactor;
use tracing_subscriber::EnvFilter;

/// The variable that sets the log filter, in `tracing`'s `EnvFilter` syntax.
pub const LOG_ENV: &str = "BROWSERFLOW_LOG";

fn filter() -> EnvFilter {
    let spec = std::env::var(LOG_ENV)
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| "warn".to_owned());
    EnvFilter::try_new(&spec).unwrap_or_else(|e| {
        eprintln!("warning: {LOG_ENV}={spec:?} is not a valid filter ({e}); using `warn`");
        EnvFilter::new("warn")
    })
}

/// Logs to stderr as they are.
pub fn init_plain() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter())
        .with_writer(std::io::stderr)
        .try_init();
}

/// Logs to stderr through `redactor`.
pub fn init_redacted(redactor: &Redactor) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter())
        .with_writer(redactor.make_writer(std::io::stderr))
        .try_init();
}

/// One warning for each JSON file in the catalog's folders that is not a tool, flow or
/// contract: the catalog skips them, and the person learns which and why. Call it once per
/// command, after the subscriber is installed.
pub fn warn_strangers(catalog: &Catalog) {
    for stranger in catalog.strangers() {
        tracing::warn!("{stranger}");
    }
}
