//! Where the app reads and writes: the workspace's `recordings/`, the pack store, the app's
//! data folder (preview runs, last-run history, exported packs). Chosen once at start from the
//! environment, so tests and the end-to-end run point the app at temporary folders.

use std::path::PathBuf;

use browserflow_catalog::library::Library;
use browserflow_record::ModelAssist;
use serde::Serialize;

/// The folders the app uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct AppPaths {
    /// Where recorded tools are saved and flows live (`<workspace>/recordings`).
    #[ts(type = "string")]
    pub recordings: PathBuf,
    /// The pack store imports install into.
    #[ts(type = "string")]
    pub store: PathBuf,
    /// The app's own data: `runs/` (preview screenshots), `last-runs.json`, `packs/`,
    /// `drafts/` (the unsaved recording).
    #[ts(type = "string")]
    pub data: PathBuf,
}

/// `BROWSERFLOW_WORKSPACE` (default: the current folder) holds `recordings/`.
pub const WORKSPACE_ENV: &str = "BROWSERFLOW_WORKSPACE";
/// `BROWSERFLOW_APP_DATA` overrides the app's data folder, for the app and `bflow record`'s
/// kept drafts alike.
pub use browserflow_catalog::APP_DATA_ENV as DATA_ENV;
/// `BROWSERFLOW_STORE` overrides the pack store (default: the user's data folder), for the
/// app and `bflow` alike.
pub use browserflow_catalog::STORE_ENV;

impl AppPaths {
    /// The folders named by the environment, with the defaults above.
    pub fn from_env() -> AppPaths {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let workspace = var(WORKSPACE_ENV).unwrap_or_else(|| PathBuf::from("."));
        let data = browserflow_catalog::app_data_dir();
        AppPaths {
            recordings: workspace.join("recordings"),
            // No store is known only when no user folder is (no HOME, no XDG_DATA_HOME).
            store: browserflow_catalog::default_store()
                .unwrap_or_else(|_| std::env::temp_dir().join("browserflow").join("packs")),
            data,
        }
    }

    /// The same layout under one folder (tests).
    pub fn under(root: &std::path::Path) -> AppPaths {
        AppPaths {
            recordings: root.join("recordings"),
            store: root.join("store"),
            data: root.join("data"),
        }
    }

    /// The library over these folders.
    pub fn library(&self) -> Library {
        Library {
            dirs: vec![self.recordings.clone(), self.recordings.join("contracts")],
            store: Some(self.store.clone()),
            history: Some(self.history()),
        }
    }

    /// The last-run record.
    pub fn history(&self) -> PathBuf {
        self.data.join("last-runs.json")
    }

    /// Where the unsaved recording is kept as it changes.
    pub fn drafts(&self) -> PathBuf {
        self.data.join("drafts")
    }

    /// Where preview runs write screenshots.
    pub fn runs(&self) -> PathBuf {
        self.data.join("runs")
    }

    /// Where exported packs go by default.
    pub fn packs(&self) -> PathBuf {
        self.data.join("packs")
    }
}

/// Everything the commands share.
pub struct AppState {
    /// The folders.
    pub paths: AppPaths,
    /// The fixture shop, once served (for trying the app without a site of one's own).
    pub shop: std::sync::Mutex<Option<browserflow_shop::DemoShop>>,
    /// The recording in progress, if any.
    pub recording: tokio::sync::Mutex<browserflow_catalog::record_view::RecordSession>,
    /// Authoring-time model assistance, when configured (`BROWSERFLOW_MODEL_URL`, …).
    pub model: Option<std::sync::Arc<ModelAssist>>,
}

impl AppState {
    /// The state over `paths`, with no model assistance.
    pub fn new(paths: AppPaths) -> AppState {
        let keeper = browserflow_catalog::record_view::DraftKeeper::in_dir(paths.drafts());
        AppState {
            paths,
            shop: std::sync::Mutex::new(None),
            recording: tokio::sync::Mutex::new(
                browserflow_catalog::record_view::RecordSession::keeping(keeper),
            ),
            model: None,
        }
    }

    /// The same state with `model` as its model assistance.
    pub fn with_model(mut self, model: Option<ModelAssist>) -> AppState {
        self.model = model.map(std::sync::Arc::new);
        self
    }
}
