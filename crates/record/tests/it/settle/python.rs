//! The journeys on Python web frameworks that push their answers over a WebSocket: a fixture
//! app run from the venv `scripts/install-deps` makes, on a free port of 127.0.0.1, and the
//! price finder journey each fixture serves, recorded and replayed the same way.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use browserflow_record::{InputMark, OutputMark, Recorder};
use browserflow_replay::{FailureKind, ReplayError, Replayer};
use browserflow_steps::{OutputKind, SocketPattern, Step, ToolFile};
use serde_json::{Value, json};

use super::server::lookup;
use crate::record::driver::*;
use crate::support::Harness;

/// A fixture app, ended when dropped.
pub(crate) struct PythonApp {
    child: Child,
    port: u16,
}

impl PythonApp {
    /// Runs `python` with `args` (`{port}` replaced by the port) in
    /// `tests/fixtures/settle/<fixture>`; with `hang`, the app's searches never finish
    /// (`SETTLE_HANG=1`). Up once it accepts connections (bounded: a broken install fails
    /// here, not later).
    pub(crate) async fn start(python: &str, fixture: &str, args: &[&str], hang: bool) -> Self {
        assert!(
            Path::new(python).exists(),
            "{python} is missing: run scripts/install-deps"
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/settle")
            .join(fixture);
        let child = Command::new(python)
            .args(args.iter().map(|a| a.replace("{port}", &port.to_string())))
            .current_dir(&dir)
            .env("SETTLE_HANG", if hang { "1" } else { "0" })
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{fixture} starts: {e}"));
        let app = Self { child, port };
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return app;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{fixture} never listened on {port}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// `steps`, navigating to this app instead of the recorded one.
    pub(crate) fn steps(&self, steps: &[Step]) -> Vec<Step> {
        steps
            .iter()
            .cloned()
            .map(|step| match step {
                Step::Navigate(mut n) => {
                    n.url = self.url();
                    Step::Navigate(n)
                }
                other => other,
            })
            .collect()
    }
}

impl Drop for PythonApp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The steps with their settles taken away: what a replay that does not wait does.
pub(crate) fn without_settle(steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .cloned()
        .map(|mut step| {
            if let Some(settle) = step.settle_mut() {
                *settle = None;
            }
            step
        })
        .collect()
}

/// The price finder of a WebSocket framework's fixture: type a product into the field
/// `query` (a JS expression of the element), click `go`; the outputs `#name` (a string) and
/// `#price` (a number) are empty until the server's answer lands.
pub(crate) struct PriceFinder {
    /// The tool's name.
    pub(crate) tool: &'static str,
    /// A JS condition true once the framework connected its socket and showed its first state
    /// (a person types after that).
    pub(crate) connected: &'static str,
    pub(crate) query: &'static str,
}

impl PriceFinder {
    /// Records the journey with trusted input, searching `query`; the fill is the input
    /// `query`, the outputs `name` and `price`.
    pub(crate) async fn record(&self, h: &Harness, app: &PythonApp, query: &str) -> ToolFile {
        let recorder = Recorder::start_on(&h.browser, &options(app.url()))
            .await
            .unwrap();
        let d = Driver::new(recorder.page());
        d.wait_js(self.connected).await;
        d.click(self.query).await;
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
            &draft.into_tool_file(self.tool, "1.0.0", None).unwrap(),
            dir.path(),
        )
    }

    /// Records once, searching a lamp; checks the click on Search keeps a WebSocket
    /// exchange (returned for the framework's own checks); replays with three inputs, each
    /// to the app's values; then against `silent` (the same app, whose searches never
    /// finish): the click fails as `NotSettled` naming the reply it waited for, and with the
    /// settles taken away the same replay fails later, at the read.
    pub(crate) async fn replays_and_fails_loudly(
        &self,
        h: &Harness,
        app: &PythonApp,
        silent: &PythonApp,
    ) -> SocketPattern {
        let file = self.record(h, app, "lamp").await;
        let click = file
            .steps
            .iter()
            .rev()
            .find_map(|s| match s {
                Step::Click(c) => Some(c),
                _ => None,
            })
            .unwrap_or_else(|| panic!("the click on Search: {:#?}", file.steps));
        let settle = click
            .settle
            .as_ref()
            .unwrap_or_else(|| panic!("the click keeps what it set off: {:#?}", file.steps));
        let [socket] = settle.sockets.as_slice() else {
            panic!("one WebSocket exchange: {settle:?}");
        };
        for query in ["kettle", "chair", "lamp"] {
            let outputs = replay(h, &file.steps, query)
                .await
                .unwrap_or_else(|e| panic!("{query}: {e}"));
            let (name, cents) = lookup(query).unwrap();
            assert_eq!(
                outputs,
                json!({ "name": name, "price": cents as f64 / 100.0 }),
                "{query}"
            );
        }

        match replay(h, &silent.steps(&file.steps), "kettle").await {
            Err(ReplayError::StepFailed {
                index,
                kind,
                failure,
                message,
                ..
            }) => {
                assert_eq!(kind, "click", "{message}");
                assert!(
                    matches!(&file.steps[index], Step::Click(c) if c.settle.is_some()),
                    "{message}"
                );
                assert_eq!(failure, FailureKind::NotSettled, "{message}");
                assert!(
                    message.contains(&format!(
                        "expected {}; seen: a frame sent",
                        socket.describe()
                    )),
                    "{message}"
                );
            }
            other => panic!("a replay against a silent server must fail at the click: {other:?}"),
        }
        // Without the settle nothing waits for the server: the click passes at once and the
        // read after it finds no name, or (acted before the framework wired its page) the
        // click changes nothing and fails by its own check — never `NotSettled`, never the
        // right name.
        match replay(h, &silent.steps(&without_settle(&file.steps)), "kettle").await {
            Err(ReplayError::StepFailed {
                kind,
                failure,
                message,
                ..
            }) => match kind.as_str() {
                "extract" => assert_eq!(failure, FailureKind::ReadMismatch, "{message}"),
                "click" => assert_ne!(failure, FailureKind::NotSettled, "{message}"),
                other => panic!("failed at {other}: {message}"),
            },
            Ok(outputs) => assert_ne!(outputs["name"], json!("Electric kettle")),
            other => panic!("{other:?}"),
        }
        socket.clone()
    }
}

pub(crate) async fn replay(h: &Harness, steps: &[Step], query: &str) -> Result<Value, ReplayError> {
    let context = h.browser.new_context().await.unwrap();
    let inputs = json!({ "query": query }).as_object().cloned().unwrap();
    let report = Replayer::default().run(&context, steps, &inputs).await;
    context.close().await.unwrap();
    report.map(|r| Value::Object(r.outputs))
}
