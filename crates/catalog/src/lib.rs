//! The catalog: where a user's tools, flows and packs live, and how a `name@version` resolves.
//!
//! The command line and the desktop app both need "every tool this flow could use": the
//! folders the user names, the folder of the flow itself (and its `contracts/` subfolder),
//! the installed packs and the built-in standard pack. This crate assembles them once — as
//! contracts for the compiler ([`Catalog::contracts`]) and as runnable tools for the Rider
//! ([`Catalog::tools`]) — so neither shell holds that logic.
//!
//! By job: where tools live (this file, `lookup`, `typed_path`, and [`save`], the one way a
//! draft becomes a tool file); starting runs ([`runs`]:
//! the one Rider builder, one-tool runs, typed run inputs, invocations); and the screens'
//! views (`library`, `preview`, `pack_view`, `flow_view`, `record_view`, `shop_view`).
//!
//! ```no_run
//! use browserflow_catalog::Catalog;
//!
//! let flow = std::path::Path::new("recordings/daily-price-watch.flow.json");
//! let catalog = Catalog::for_flow(flow, &[]);
//! let contracts = catalog.contracts().expect("every tool file loads");
//! let plan = browserflow_flow::check_file(flow, &contracts).expect("the flow compiles");
//! let browser = std::sync::Arc::new(browserflow_replay::SharedBrowser::new(Default::default()));
//! let tools = catalog.tools(&browser).expect("every tool file loads");
//! # let _ = (plan, tools);
//! ```

#![deny(missing_docs)]

pub mod batch_view;
pub mod flow_view;
mod holdings;
pub mod library;
mod lookup;
mod pack_runnable;
pub mod pack_view;
pub mod preview;
pub mod record_view;
pub mod runs;
pub mod save;
pub mod shop_view;
mod typed_path;

use std::path::{Path, PathBuf};

use browserflow_flow::{Diagnostic, Diagnostics, Registry, Stranger, tool_folder_files};
use browserflow_pack::Store;

pub use holdings::{BrokenFile, CatalogWarning, FlowCheck, Holdings, Shadowed};
pub use lookup::{FoundTool, LookupError};
pub use runs::batch;
pub use runs::invocation::{Invocation, InvocationError};
pub use runs::run_tool;
pub use runs::{
    CRASH_AT_ENV, InputError, JournalAt, LEASE_TTL_ENV, ReadyRider, RunInput, RunInputs, RunSetup,
    RunsFolder, SetupError, check_secrets, crash_hook_from_env, lease_ttl_from_env,
};
pub use typed_path::{typed_path, typed_path_in};

/// The places tools are found.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Folders of tool, contract and flow files (read non-recursively).
    pub dirs: Vec<PathBuf>,
    /// The store of installed packs, when there is one.
    pub store: Option<PathBuf>,
}

impl Catalog {
    /// The catalog for checking or running the flow or tool at `file`: the `extra` folders
    /// first, then the file's own folder and its `contracts/` subfolder when present, and the
    /// default pack store when it exists.
    pub fn for_flow(file: &Path, extra: &[PathBuf]) -> Catalog {
        let mut dirs: Vec<PathBuf> = extra.to_vec();
        // A flow that is not there has no folder of its own to search (`/nope.flow.json` must
        // not make the whole of `/` a tools folder); the missing file is the error said.
        if !file.is_file() {
            return Catalog::with_store(dirs, None);
        }
        let home = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let contracts = home.join("contracts");
        for dir in [home, contracts] {
            if dir.is_dir() && !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        Catalog::with_store(dirs, None)
    }

    /// The catalog of `dirs` and the pack store at `store`, or the default store
    /// ([`default_store`]) when it exists (no store at all is not an error: nothing is
    /// installed yet).
    pub fn with_store(dirs: Vec<PathBuf>, store: Option<PathBuf>) -> Catalog {
        let store = store.or_else(|| default_store().ok().filter(|root| root.is_dir()));
        Catalog { dirs, store }
    }

    /// Every contract the catalog can see: the built-ins, the folders' files and the
    /// installed packs (a folder file standing for an installed tool of the same ref). Strict:
    /// any file that does not load is an error naming the file. To check a flow, use
    /// [`Catalog::check_flow`], which compiles it against what loads and says the rest.
    pub fn contracts(&self) -> Result<Registry, Diagnostics> {
        let holdings = self.holdings(None)?;
        let problems: Vec<Diagnostic> = holdings
            .broken
            .into_iter()
            .flat_map(|b| b.problems)
            .collect();
        Diagnostics::check(problems)?;
        Ok(holdings.contracts)
    }

    /// Every runnable tool among the files that load, for the Rider; browser tools drive
    /// `browser` (give the Rider the same one: [`RunSetup`] does). A file that does not load
    /// is left out ([`Catalog::holdings`] names it): a flow that needs it does not compile.
    pub fn tools(
        &self,
        browser: &std::sync::Arc<browserflow_replay::SharedBrowser>,
    ) -> Result<browserflow_rider::ToolRegistry, Diagnostics> {
        runs::tools::runnable(&self.holdings(None)?.files, browser)
    }

    /// The JSON files of the folders that are not tools, flows or contracts (by shape: see
    /// [`browserflow_flow::shape_of`]). [`Catalog::contracts`] and [`Catalog::tools`] skip
    /// them; a shell says so once, with each one's name. An unreadable folder has none here
    /// (the loaders report it).
    pub fn strangers(&self) -> Vec<Stranger> {
        self.dirs
            .iter()
            .filter_map(|dir| tool_folder_files(dir).ok())
            .flat_map(|found| found.strangers)
            .collect()
    }
}

/// The variable that names the pack store for every shell (the app and `bflow` alike).
pub const STORE_ENV: &str = "BROWSERFLOW_STORE";

/// The pack store of this user: `BROWSERFLOW_STORE` when set, else
/// [`Store::default_root`]. The app and the command line both ask here, so they see the same
/// installed packs.
pub fn default_store() -> Result<PathBuf, browserflow_pack::PackError> {
    match std::env::var_os(STORE_ENV).filter(|v| !v.is_empty()) {
        Some(root) => Ok(PathBuf::from(root)),
        None => Store::default_root(),
    }
}

/// The variable that names the app's data folder (drafts, preview runs, last runs) for every
/// shell: a recording `bflow record` keeps on Ctrl-C is where the app looks for one.
pub const APP_DATA_ENV: &str = "BROWSERFLOW_APP_DATA";

/// The app's data folder: `BROWSERFLOW_APP_DATA` when set, else
/// `$XDG_DATA_HOME/browserflow/app` (`~/.local/share/browserflow/app`, the system's temporary
/// folder when neither is known). The app and the command line both ask here.
pub fn app_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(APP_DATA_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(std::env::temp_dir)
        .join("browserflow")
        .join("app")
}

/// Where unsaved recordings are kept ([`record_view::DraftKeeper`]): `drafts/` of
/// [`app_data_dir`].
pub fn drafts_dir() -> PathBuf {
    app_data_dir().join("drafts")
}

/// The contracts of the built-in standard pack alone (what a pack records as externals).
pub fn builtin_contracts() -> Result<Registry, Diagnostics> {
    let mut registry = Registry::new();
    for contract in browserflow_std::builtin_contracts().map_err(|e| one(e.to_string()))? {
        registry.insert(contract)?;
    }
    Ok(registry)
}

pub(crate) fn one(message: String) -> Diagnostics {
    Diagnostics(vec![Diagnostic::new(
        browserflow_flow::Code::BadFile,
        "",
        message,
    )])
}
