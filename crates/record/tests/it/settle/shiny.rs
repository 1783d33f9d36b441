//! Shiny for Python (`tests/fixtures/settle/shiny/app.py`, run from the venv
//! `scripts/install-deps` makes): type a product, click Search; the click goes to the server
//! over Shiny's WebSocket, the server answers "busy" at once and the values 50–300 ms later;
//! both outputs are empty until then. Replayed with two other inputs, and against the same app
//! whose searches never finish: the click fails naming the reply it waited for.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use browserflow_record::{InputMark, OutputMark, Recorder};
use browserflow_replay::{FailureKind, ReplayError, Replayer};
use browserflow_steps::{OutputKind, Step, ToolFile};
use serde_json::{Value, json};

use super::server::lookup;
use crate::record::driver::*;
use crate::support::Harness;

/// Where `scripts/install-deps` puts Shiny.
const PYTHON: &str = "/opt/browserflow/shiny-venv/bin/python";

/// The app, served on 127.0.0.1 by uvicorn; ended when dropped.
struct ShinyApp {
    child: Child,
    port: u16,
}

impl ShinyApp {
    async fn start(hang: bool) -> Self {
        assert!(
            std::path::Path::new(PYTHON).exists(),
            "{PYTHON} is missing: run scripts/install-deps"
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let dir =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/settle/shiny");
        let child = Command::new(PYTHON)
            .args(["-m", "shiny", "run", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .arg("app.py")
            .current_dir(&dir)
            .env("SETTLE_HANG", if hang { "1" } else { "0" })
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("shiny starts");
        let app = Self { child, port };
        // Up once it answers its page (bounded: a broken install fails here, not later).
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return app;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "shiny never listened on {port}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }
}

impl Drop for ShinyApp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const CONNECTED: &str = "window.Shiny && Shiny.shinyapp && Shiny.shinyapp.isConnected()";

async fn record(h: &Harness, app: &ShinyApp, query: &str) -> ToolFile {
    let recorder = Recorder::start_on(&h.browser, &options(app.url()))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js(CONNECTED).await;
    d.click("document.getElementById('query')").await;
    d.type_keys(query).await;
    d.click("document.getElementById('go')").await;
    let (name, _) = lookup(query).unwrap();
    d.wait_js(&format!(
        "document.getElementById('price').textContent !== '' && document.getElementById('name').textContent === '{name}'"
    ))
    .await;
    wait_for_steps(&recorder, "click", 1).await;
    let mut draft = recorder.stop().await.unwrap();
    let fill = draft
        .steps
        .iter()
        .position(|s| matches!(s.step, Step::Fill(_)))
        .unwrap_or_else(|| panic!("a fill: {:#?}", draft.steps));
    draft.mark_input(fill, InputMark::string("query")).unwrap();
    draft
        .mark_output(OutputMark::css("name", "#name", OutputKind::String))
        .unwrap();
    draft
        .mark_output(OutputMark::css("price", "#price", OutputKind::Number))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    save_and_load(
        &draft.into_tool_file("shiny-price", "1.0.0", None).unwrap(),
        dir.path(),
    )
}

async fn replay(h: &Harness, steps: &[Step], query: &str) -> Result<Value, ReplayError> {
    let context = h.browser.new_context().await.unwrap();
    let inputs = json!({ "query": query }).as_object().cloned().unwrap();
    let report = Replayer::default().run(&context, steps, &inputs).await;
    context.close().await.unwrap();
    report.map(|r| Value::Object(r.outputs))
}

#[tokio::test]
#[ignore = "not yet reliable: Shiny sometimes sends a values message of the same shape before \
            the search's (which one depends on how its flushes fall), so the click settles on \
            the first and the name reads \"\"; see the settle report"]
async fn shiny_replays_wait_for_the_values_pushed_over_the_websocket() {
    let h = Harness::start().await;
    let app = ShinyApp::start(false).await;
    let file = record(&h, &app, "lamp").await;
    let click = file
        .steps
        .iter()
        .find_map(|s| match s {
            Step::Click(c) => Some(c),
            _ => None,
        })
        .unwrap();
    let settle = click
        .settle
        .as_ref()
        .unwrap_or_else(|| panic!("the click keeps what it set off: {:#?}", file.steps));
    assert!(
        settle
            .sockets
            .iter()
            .any(|s| s.replies.iter().any(|r| r == "values.name")),
        "{settle:?}"
    );
    for query in ["kettle", "chair"] {
        let outputs = replay(&h, &file.steps, query)
            .await
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        let (name, cents) = lookup(query).unwrap();
        assert_eq!(
            outputs,
            json!({ "name": name, "price": cents as f64 / 100.0 }),
            "{query}"
        );
    }

    // The same app, whose searches never finish: the click fails, naming the reply.
    let silent = ShinyApp::start(true).await;
    let steps: Vec<Step> = file
        .steps
        .iter()
        .cloned()
        .map(|step| match step {
            Step::Navigate(mut n) => {
                n.url = silent.url();
                Step::Navigate(n)
            }
            other => other,
        })
        .collect();
    match replay(&h, &steps, "kettle").await {
        Err(ReplayError::StepFailed {
            kind,
            failure,
            message,
            ..
        }) => {
            assert_eq!(kind, "click", "{message}");
            assert_eq!(failure, FailureKind::NotSettled, "{message}");
            assert!(message.contains("a reply on the WebSocket"), "{message}");
            assert!(
                message
                    .split("missing:")
                    .nth(1)
                    .is_some_and(|missing| missing.contains("values.name")),
                "{message}"
            );
        }
        other => panic!("a replay against a silent server must fail at the click: {other:?}"),
    }
    h.close().await;
}
