//! Tools and flows the tests run, written the way tool authors write them.

use std::sync::Arc;

use browserflow_contract::{Capability, Kind};
use browserflow_flow::{FlowSpec, Plan, compile};
use browserflow_rider::secrecy::{ExposeSecret, SecretString};
use browserflow_rider::{
    JournalLocation, MapSecrets, Rider, RiderOptions, SecretInput, SecretsProvider, Tool, ToolCtx,
    ToolDef, ToolError, ToolRegistry, define_tool,
};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Text {
    pub text: String,
}

/// The specification's `slugify`, in Rust.
pub fn slugify() -> impl Tool {
    define_tool(
        ToolDef::new("test/slugify", "1.0.0", Kind::Transform)
            .description("Lowercase, hyphenate, strip punctuation."),
        |input: Text, _ctx| async move {
            let lower = input.text.to_lowercase();
            let words: Vec<&str> = lower
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            Ok(words.join("-"))
        },
    )
    .expect("slugify is a valid tool")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Pair {
    pub a: Value,
    pub b: Value,
}

/// A pure reshaping step.
pub fn shape() -> impl Tool {
    define_tool(
        ToolDef::new("test/shape", "1.0.0", Kind::Transform),
        |input: Pair, ctx: ToolCtx| async move {
            Ok(json!({"a": input.a, "b": input.b, "at": ctx.clock().rfc3339(), "dice": ctx.random().below(1000)}))
        },
    )
    .expect("shape is a valid tool")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct PostIn {
    /// Where to post; may carry a secret (a credentialed URL).
    pub url: SecretInput,
    /// The JSON body.
    pub body: Value,
    /// An Authorization header; may carry a secret.
    #[serde(default)]
    pub authorization: Option<SecretInput>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct PostOut {
    pub status: u16,
    pub response: Value,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct PostOutChanged {
    pub status: u16,
    pub response: Value,
    pub elapsed_ms: u64,
}

/// An `http` tool that posts JSON with the step's idempotency key. It is careless on
/// purpose: it logs the URL and header it uses and puts the server's answer into its
/// errors, so the tests see the redactor at work.
pub fn post() -> impl Tool {
    define_tool(
        ToolDef::new("test/post", "1.0.0", Kind::Http).capabilities([Capability::Net]),
        |input: PostIn, ctx: ToolCtx| async move { send(&input, &ctx).await },
    )
    .expect("post is a valid tool")
}

/// `post` with another output type: its contract digest differs.
pub fn post_changed() -> impl Tool {
    define_tool(
        ToolDef::new("test/post", "1.0.0", Kind::Http).capabilities([Capability::Net]),
        |input: PostIn, ctx: ToolCtx| async move {
            let out = send(&input, &ctx).await?;
            Ok(PostOutChanged {
                status: out.status,
                response: out.response,
                elapsed_ms: 0,
            })
        },
    )
    .expect("post_changed is a valid tool")
}

fn reveal(ctx: &ToolCtx, input: &SecretInput) -> Result<SecretString, ToolError> {
    match input {
        SecretInput::Plain(text) => Ok(SecretString::from(text.clone())),
        SecretInput::Template(_) => Ok(ctx.require_secrets()?.expose(input)?),
    }
}

async fn send(input: &PostIn, ctx: &ToolCtx) -> Result<PostOut, ToolError> {
    let url = reveal(ctx, &input.url)?;
    let net = ctx.require_net()?;
    let mut request = net
        .post(url.expose_secret())?
        .header("Idempotency-Key", ctx.idempotency_key())
        .json(&input.body);
    if let Some(auth) = &input.authorization {
        let auth = reveal(ctx, auth)?;
        ctx.logger().info(format!(
            "posting to {} with {}",
            url.expose_secret(),
            auth.expose_secret()
        ));
        request = request.header("Authorization", auth.expose_secret());
    }
    let response = request.send().await?;
    let status = response.status().as_u16();
    let text = response.text().await?;
    if !(200..300).contains(&status) {
        return Err(ToolError::from_http_status(
            status,
            format!("POST {} answered {text}", url.expose_secret()),
        ));
    }
    let response = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Ok(PostOut { status, response })
}

/// A flow spec with `requires` filled in from `registry` for every tool it uses.
pub fn compile_flow(registry: &ToolRegistry, mut flow: Value) -> Plan {
    let mut requires = Vec::new();
    let steps = flow["steps"].as_array().cloned().unwrap_or_default();
    for step in steps {
        let uses = step["uses"].as_str().expect("uses").to_owned();
        let contract = registry
            .contract(&uses)
            .unwrap_or_else(|| panic!("{uses} registered"));
        let pin = json!({"ref": uses, "contract_digest": contract.contract_digest().to_string()});
        if !requires.contains(&pin) {
            requires.push(pin);
        }
    }
    flow["requires"] = Value::Array(requires);
    let spec = FlowSpec::from_json(&flow).unwrap_or_else(|d| panic!("flow spec: {d}"));
    let contracts = registry.contract_registry().expect("contract registry");
    compile(&spec, &contracts).unwrap_or_else(|d| panic!("flow compiles: {d}"))
}

/// The standard test registry.
pub fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(slugify).expect("slugify");
    registry.register(shape).expect("shape");
    registry.register(post).expect("post");
    registry
}

/// A Rider over the journal file at `path`.
pub fn rider(
    registry: ToolRegistry,
    path: &std::path::Path,
    secrets: impl SecretsProvider + 'static,
    options: RiderOptions,
) -> Rider {
    rider_at(registry, &JournalLocation::from(path), secrets, options)
}

/// A Rider over the journal at `location`, whatever its backend.
pub fn rider_at(
    registry: ToolRegistry,
    location: &JournalLocation,
    secrets: impl SecretsProvider + 'static,
    options: RiderOptions,
) -> Rider {
    let journal = location.open().expect("journal opens");
    Rider::new(registry, journal, Arc::new(secrets), options).expect("rider")
}

/// A Rider with no secrets and fast retries.
pub fn quick_rider(registry: ToolRegistry, path: &std::path::Path) -> Rider {
    rider(registry, path, MapSecrets::new(), fast_options())
}

/// [`quick_rider`] over the journal at `location`.
pub fn quick_rider_at(registry: ToolRegistry, location: &JournalLocation) -> Rider {
    rider_at(registry, location, MapSecrets::new(), fast_options())
}

pub fn fast_options() -> RiderOptions {
    RiderOptions {
        backoff: browserflow_rider::RetryPolicy {
            max_attempts: 4,
            initial_delay: std::time::Duration::from_millis(5),
            max_delay: std::time::Duration::from_millis(20),
        },
        ..RiderOptions::default()
    }
}

/// The flow of the crash tests: a pure step, two effectful posts (the second fed by the
/// first), a pure reshaping step.
pub fn crash_flow() -> Value {
    json!({
        "name": "crash-test", "version": "1.0.0",
        "inputs": [
            {"name": "title", "schema": {"type": "string"}, "secret": false},
            {"name": "server", "schema": {"type": "string"}, "secret": false}
        ],
        "steps": [
            {"id": "slug", "uses": "test/slugify@1.0.0", "with": {"text": {"from": "input.title"}}},
            {"id": "first", "uses": "test/post@1.0.0", "with": {
                "url": {"template": "{input.server}/effect"},
                "body": {"from": "steps.slug.output"},
                "authorization": {"template": "Bearer {secret.API_TOKEN}"}}},
            {"id": "second", "uses": "test/post@1.0.0", "with": {
                "url": {"template": "{input.server}/effect"},
                "body": {"from": "steps.first.output.response"}}},
            {"id": "shape", "uses": "test/shape@1.0.0", "with": {
                "a": {"from": "steps.first.output.response"},
                "b": {"from": "steps.second.output.response"}}}
        ],
        "output": {"from": "steps.shape.output"}
    })
}
