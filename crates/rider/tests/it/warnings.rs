//! A tool's warnings (what a person should know although the call succeeded: a page drifting
//! from its recording) are journaled with the step's outcome, redacted, so every view of the
//! run shows them: `journal show` per step, `journal list` as a count.

use std::collections::BTreeMap;

use browserflow_contract::{Capability, ContractParts, InputDecl, Kind, Schema, ToolContract};
use browserflow_flow::Bound;
use browserflow_rider::secrecy::ExposeSecret;
use browserflow_rider::{
    MapSecrets, REDACTED, SecretInput, Tool, ToolCtx, ToolError, ToolOutput, ToolRegistry,
};
use serde_json::{Value, json};

use crate::tools::{compile_flow, fast_options, rider};

const CANARY: &str = "warning-canary-5b1d";

/// A tool whose call succeeds with a warning that quotes its input (a secret, in the test)
/// unless it is `quiet`; effectful when it holds a capability.
struct Warner {
    contract: ToolContract,
    quiet: bool,
}

fn warner(name: &str, capabilities: Vec<Capability>, quiet: bool) -> Warner {
    Warner {
        quiet,
        contract: ToolContract::new(ContractParts {
            name: name.into(),
            version: "1.0.0".into(),
            kind: if capabilities.is_empty() {
                Kind::Transform
            } else {
                Kind::Http
            },
            description: String::new(),
            inputs: vec![InputDecl {
                secret: capabilities.contains(&Capability::Secrets),
                ..InputDecl::new("near", Schema::string())
            }],
            output: Schema::string(),
            capabilities,
        })
        .unwrap(),
    }
}

#[async_trait::async_trait]
impl Tool for Warner {
    fn contract(&self) -> &ToolContract {
        &self.contract
    }

    async fn run(&self, input: Value, ctx: ToolCtx) -> Result<Value, ToolError> {
        self.call(input, ctx).await.map(|output| output.value)
    }

    async fn call(&self, input: Value, ctx: ToolCtx) -> Result<ToolOutput, ToolError> {
        let near = SecretInput::from_json(&input["near"]).map_err(ToolError::terminal)?;
        let near = match &near {
            SecretInput::Plain(text) => text.clone(),
            SecretInput::Template(_) => ctx
                .require_secrets()?
                .expose(&near)?
                .expose_secret()
                .to_owned(),
        };
        let mut output = ToolOutput::value(json!("done"));
        if !self.quiet {
            output.warnings = vec![format!(
                "step 2 matched only on its selector #2, near {near}"
            )];
        }
        Ok(output)
    }
}

fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry
        .register(|| {
            warner(
                "test/drifting",
                vec![Capability::Net, Capability::Secrets],
                false,
            )
        })
        .unwrap();
    registry
        .register(|| warner("test/noting", vec![], false))
        .unwrap();
    registry
        .register(|| warner("test/silent", vec![], true))
        .unwrap();
    registry
}

#[tokio::test]
async fn warnings_are_journaled_with_the_outcome_redacted_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let rider = rider(
        registry(),
        &path,
        MapSecrets::new().with("CANARY", CANARY),
        fast_options(),
    );
    let plan = compile_flow(
        &registry(),
        json!({"name": "warned", "version": "1.0.0", "steps": [
            {"id": "drift", "uses": "test/drifting@1.0.0",
             "with": {"near": {"template": "the card {secret.CANARY}"}}},
            {"id": "note", "uses": "test/noting@1.0.0", "with": {"near": {"value": "row 1"}}},
            {"id": "quiet", "uses": "test/silent@1.0.0", "with": {"near": {"value": "x"}}}
        ], "output": {"from": "steps.drift.output"}}),
    );
    let inputs: BTreeMap<String, Bound> = BTreeMap::new();
    let outcome = rider.run(&plan, inputs).await.expect("the run succeeds");

    let shown = rider.journal().show(&outcome.run_id).unwrap();
    let warnings: BTreeMap<&str, &[String]> = shown
        .steps
        .iter()
        .map(|s| (s.step_id.as_str(), s.warnings.as_slice()))
        .collect();
    assert_eq!(
        warnings["drift"],
        [format!(
            "step 2 matched only on its selector #2, near {REDACTED}"
        )],
        "an effectful step's warning, redacted (the whole value the secret was expanded into)"
    );
    assert_eq!(
        warnings["note"],
        ["step 2 matched only on its selector #2, near row 1".to_owned()],
        "a pure step's warning"
    );
    assert!(warnings["quiet"].is_empty());
    let listed = rider.journal().runs(10).unwrap();
    assert_eq!(listed[0].warnings, 2, "counted in the run's summary");
    // In JSON, a step without warnings has no key; one with them, the list.
    let json = serde_json::to_value(&shown).unwrap();
    for step in json["steps"].as_array().unwrap() {
        let quiet = step["step_id"] == "quiet";
        assert_eq!(step.get("warnings").is_none(), quiet, "{step}");
    }

    // The canary is in no byte of the journal.
    drop(rider);
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap_or_default();
        assert!(!bytes.windows(CANARY.len()).any(|w| w == CANARY.as_bytes()));
    }
}
