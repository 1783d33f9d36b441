//! What a tool call gives back besides its value reaches the caller typed: the call's folder
//! is the Rider's (`ToolCtx::call_folder`, from `RiderOptions::runs_folder`), and the report,
//! folder and screenshots a call returns — on success or on failure — come out of the run by
//! step id, never through the run's environment.

use std::collections::BTreeMap;

use browserflow_contract::{ContractParts, InputDecl, Kind, Schema, ToolContract};
use browserflow_flow::Bound;
use browserflow_rider::{
    Artifacts, MapSecrets, RiderOptions, Screenshot, Tool, ToolCtx, ToolError, ToolOutput,
    ToolRegistry, call_folder,
};
use serde_json::{Value, json};

use crate::tools::{compile_flow, fast_options, rider, slugify};

/// A tool that leaves a report, a screenshot and its folder, and fails when asked to.
struct Reporter;

static REPORTER: std::sync::LazyLock<ToolContract> = std::sync::LazyLock::new(|| {
    ToolContract::new(ContractParts {
        name: "test/reporter".into(),
        version: "1.0.0".into(),
        kind: Kind::Transform,
        description: String::new(),
        inputs: vec![InputDecl::new("fail", Schema::boolean())],
        output: Schema::string(),
        capabilities: vec![],
    })
    .unwrap()
});

#[async_trait::async_trait]
impl Tool for Reporter {
    fn contract(&self) -> &ToolContract {
        &REPORTER
    }

    async fn run(&self, input: Value, ctx: ToolCtx) -> Result<Value, ToolError> {
        self.call(input, ctx).await.map(|output| output.value)
    }

    async fn call(&self, input: Value, ctx: ToolCtx) -> Result<ToolOutput, ToolError> {
        let artifacts = Artifacts {
            folder: ctx.call_folder().map(std::path::Path::to_path_buf),
            report: Some(json!({ "step": ctx.step_id() })),
            screenshots: vec![Screenshot {
                step: 0,
                png: b"\x89PNG".to_vec(),
            }],
        };
        if input["fail"] == json!(true) {
            return Err(ToolError::terminal("asked to fail").with_artifacts(artifacts));
        }
        Ok(ToolOutput {
            value: json!("done"),
            artifacts,
            warnings: Vec::new(),
        })
    }
}

fn flow(fail: bool) -> Value {
    json!({"name": "reports", "version": "1.0.0", "steps": [
        {"id": "slug", "uses": "test/slugify@1.0.0", "with": {"text": {"value": "A B"}}},
        {"id": "report", "uses": "test/reporter@1.0.0", "with": {"fail": {"value": fail}}}
    ], "output": {"from": "steps.report.output"}})
}

fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(slugify).unwrap();
    registry.register(|| Reporter).unwrap();
    registry
}

#[tokio::test]
async fn a_calls_artifacts_come_back_by_step_and_its_folder_is_the_riders() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let options = RiderOptions {
        runs_folder: Some(runs.clone()),
        ..fast_options()
    };
    let rider = rider(
        registry(),
        &dir.path().join("j.sqlite"),
        MapSecrets::new(),
        options,
    );
    let plan = compile_flow(&registry(), flow(false));
    let outcome = rider.run(&plan, BTreeMap::new()).await.unwrap();
    assert_eq!(outcome.output, json!("done"));
    // A tool that returns only a value (the default `call`) leaves no entry.
    assert_eq!(
        outcome.artifacts.keys().collect::<Vec<_>>(),
        ["report"],
        "{:?}",
        outcome.artifacts
    );
    let artifacts = &outcome.artifacts["report"];
    assert_eq!(
        artifacts.folder.as_deref(),
        Some(call_folder(&runs, &outcome.run_id, "report", "test/reporter@1.0.0").as_path())
    );
    assert!(
        artifacts
            .folder
            .as_ref()
            .is_some_and(|f| f.starts_with(runs.join(&outcome.run_id)))
    );
    assert_eq!(artifacts.report, Some(json!({ "step": "report" })));
    assert_eq!(artifacts.screenshots.len(), 1);
    // Nothing of them is journaled.
    for file in ["j.sqlite", "j.sqlite-wal"] {
        let journaled = std::fs::read(dir.path().join(file)).unwrap_or_default();
        assert!(
            !journaled.windows(4).any(|w| w == b"\x89PNG"),
            "no screenshot in {file}"
        );
    }

    // Without a runs folder, a call has no folder.
    let bare = rider_without_folder(dir.path());
    let outcome = bare.run(&plan, BTreeMap::new()).await.unwrap();
    assert_eq!(outcome.artifacts["report"].folder, None);
}

#[tokio::test]
async fn a_failed_calls_artifacts_come_back_with_the_failure() {
    let dir = tempfile::tempdir().unwrap();
    let rider = rider_without_folder(dir.path());
    let plan = compile_flow(&registry(), flow(true));
    let inputs: BTreeMap<String, Bound> = BTreeMap::new();
    let failure = rider.run(&plan, inputs).await.unwrap_err();
    assert_eq!(failure.code(), "tool_failed", "{}", failure.message);
    let artifacts = failure.artifacts.get("report").expect("the failing step's");
    assert_eq!(artifacts.report, Some(json!({ "step": "report" })));
    assert_eq!(artifacts.screenshots[0].png, b"\x89PNG");
}

fn rider_without_folder(dir: &std::path::Path) -> browserflow_rider::Rider {
    rider(
        registry(),
        &dir.join("bare.sqlite"),
        MapSecrets::new(),
        fast_options(),
    )
}
