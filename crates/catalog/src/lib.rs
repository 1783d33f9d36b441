//! The catalog: where a user's tools, flows and packs live, and how a `name@version` resolves.
//!
//! The command line and the desktop app both need "every contract this flow could use": the
//! folders the user names, the folder of the flow itself (and its `contracts/` subfolder),
//! the installed packs and the built-in standard pack. This crate assembles them once, so
//! neither shell holds that logic.
//!
//! ```no_run
//! use browserflow_catalog::Catalog;
//!
//! let catalog = Catalog::for_flow("recordings/daily-price-watch.flow.json".as_ref(), &[]);
//! let registry = catalog.registry().expect("every tool file loads");
//! let plan = browserflow_flow::check_file("recordings/daily-price-watch.flow.json", &registry);
//! ```

use std::path::{Path, PathBuf};

use browserflow_flow::{Diagnostics, Registry};

/// The places tools are found, in order of precedence.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Folders of tool, contract and flow files (read non-recursively).
    pub dirs: Vec<PathBuf>,
}

impl Catalog {
    /// The catalog for checking or running the flow at `flow`: the `extra` folders first, then
    /// the flow's own folder and its `contracts/` subfolder when present.
    pub fn for_flow(flow: &Path, extra: &[PathBuf]) -> Catalog {
        let mut dirs: Vec<PathBuf> = extra.to_vec();
        let home = match flow.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let contracts = home.join("contracts");
        for dir in [home, contracts] {
            if dir.is_dir() && !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        Catalog { dirs }
    }

    /// A registry of every contract the catalog can see. A file that does not load is an
    /// error naming the file, even when the flow would not need it: a broken tool file next to
    /// a flow is worth knowing about.
    pub fn registry(&self) -> Result<Registry, Diagnostics> {
        let mut registry = Registry::new();
        registry.load_dirs(&self.dirs)?;
        Ok(registry)
    }
}
