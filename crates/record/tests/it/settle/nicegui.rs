//! NiceGUI (`tests/fixtures/settle/nicegui/app.py`; Vue and Quasar in the page, Socket.IO to
//! the server): type a product, click Search; each key goes to the server as an `event`, the
//! click as another, and the server sets the labels 50–300 ms later in one `update`; both are
//! empty until then. Its transport pings every 4 s (Engine.IO's `2`/`3`), which never count.

use super::python::{PriceFinder, PythonApp};
use crate::support::Harness;

/// Where `scripts/install-deps` puts NiceGUI.
const PYTHON: &str = "/opt/browserflow/nicegui-venv/bin/python";

async fn start(hang: bool) -> PythonApp {
    PythonApp::start(PYTHON, "nicegui", &["app.py", "{port}"], hang).await
}

const NICEGUI: PriceFinder = PriceFinder {
    tool: "nicegui-price",
    connected: "window.socket && window.socket.connected && document.getElementById('go')",
    query: "document.querySelector('input[aria-label=Product]')",
};

#[tokio::test]
async fn nicegui_replays_wait_for_the_update_pushed_over_socket_io() {
    let h = Harness::start().await;
    let (app, silent) = tokio::join!(start(false), start(true));
    let socket = NICEGUI.replays_and_fails_loudly(&h, &app, &silent).await;
    assert_eq!(socket.path, "/_nicegui_ws/socket.io/");
    assert_eq!(socket.replies, ["42:update"], "{socket:?}");
    h.close().await;
}
