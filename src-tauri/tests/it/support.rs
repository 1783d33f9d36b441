//! An app on the mock runtime over temporary folders, and a way to call its commands the way
//! the webview does.

use std::path::{Path, PathBuf};

use browserflow_app::{AppPaths, AppState};
use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow};

/// The repository's `recordings/`.
pub fn repo_recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../recordings")
}

/// A running mock app and its folders.
pub struct TestApp {
    pub app: App<MockRuntime>,
    pub webview: WebviewWindow<MockRuntime>,
    pub paths: AppPaths,
    pub _root: tempfile::TempDir,
}

impl TestApp {
    /// An app whose `recordings/` holds a copy of the repository's shipped files.
    pub fn with_recordings() -> TestApp {
        let app = TestApp::empty();
        copy_dir(&repo_recordings(), &app.paths.recordings);
        app
    }

    /// An app over empty folders.
    pub fn empty() -> TestApp {
        TestApp::with_state(AppState::new)
    }

    /// An app over empty folders whose state `state` makes from them.
    pub fn with_state(state: impl FnOnce(AppPaths) -> AppState) -> TestApp {
        let root = tempfile::tempdir().expect("a temp dir");
        let paths = AppPaths::under(root.path());
        std::fs::create_dir_all(&paths.recordings).expect("recordings folder");
        let app = browserflow_app::builder(mock_builder(), state(paths.clone()))
            .build(tauri::generate_context!(test = true))
            .expect("the app builds on the mock runtime");
        let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("a mock webview");
        TestApp {
            app,
            webview,
            paths,
            _root: root,
        }
    }

    /// Calls `cmd` with JSON `args` through the IPC layer; `Err` is the rejection payload.
    pub fn invoke(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("a URL"),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(&self.webview, request)
            .map(|body| body.deserialize::<Value>().expect("the response is JSON"))
    }

    /// [`TestApp::invoke`], expecting success.
    pub fn ok(&self, cmd: &str, args: Value) -> Value {
        self.invoke(cmd, args)
            .unwrap_or_else(|e| panic!("{cmd} failed: {e}"))
    }
}

/// Copies the `.json` files of `from` (and its subfolders) into `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("target folder");
    for entry in std::fs::read_dir(from).expect("source folder").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else if path.extension().is_some_and(|e| e == "json") {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}
