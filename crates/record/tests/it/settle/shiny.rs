//! Shiny for Python (`tests/fixtures/settle/shiny/app.py`): type a product, click Search; the
//! click goes to the server over Shiny's WebSocket, the server answers "busy" at once and the
//! values 50–300 ms later; both outputs are empty until then. Shiny answers every input, and
//! its page's `init`, with messages of the same kinds as the search's values, before the
//! search: the click waits for the values that come after the search's answer began.

use super::python::{PriceFinder, PythonApp};
use crate::support::Harness;

/// Where `scripts/install-deps` puts Shiny.
const PYTHON: &str = "/opt/browserflow/shiny-venv/bin/python";

async fn start(hang: bool) -> PythonApp {
    let args = [
        "-m",
        "shiny",
        "run",
        "--host",
        "127.0.0.1",
        "--port",
        "{port}",
        "app.py",
    ];
    PythonApp::start(PYTHON, "shiny", &args, hang).await
}

const SHINY: PriceFinder = PriceFinder {
    tool: "shiny-price",
    // Connected and its first outputs shown, as a person sees the page before typing: a
    // recording made while the page's own `init` is still answered is not at rest.
    connected: "window.Shiny && Shiny.shinyapp && Shiny.shinyapp.isConnected() \
                && 'name' in Shiny.shinyapp.$values \
                && !document.documentElement.classList.contains('shiny-busy')",
    query: "document.getElementById('query')",
};

#[tokio::test]
async fn shiny_replays_wait_for_the_values_pushed_over_the_websocket() {
    let h = Harness::start().await;
    let (app, silent) = tokio::join!(start(false), start(true));
    let socket = SHINY.replays_and_fails_loudly(&h, &app, &silent).await;
    assert_eq!(socket.path, "/websocket/");
    assert_eq!(socket.sends, ["method=update"]);
    assert!(socket.replies.iter().any(|r| r == "values"), "{socket:?}");
    // Shiny says it is busy before the values: the answer begins there.
    assert!(socket.opens.iter().any(|o| o == "busy=busy"), "{socket:?}");
    h.close().await;
}
