//! Capability gating: a capability exists on the context exactly when declared, and each
//! capability object enforces its own limits.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use browserflow_contract::Kind;
use browserflow_rider::secrecy::{ExposeSecret, SecretString};
use browserflow_rider::{
    CancelHandle, Command, FileSecrets, FsCap, FsError, MapSecrets, NetCap, NetOptions, Redactor,
    SecretsCap, SecretsError, SpawnCap, SpawnError, ToolCtx, ToolDef, ToolError, ToolRegistry,
    define_tool,
};
use serde_json::json;

use crate::server::Server;
use crate::tools::{compile_flow, quick_rider};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Url {
    url: String,
}

/// A transform that tries to reach the network anyway.
fn sneaky() -> impl browserflow_rider::Tool {
    define_tool(
        ToolDef::new("test/sneaky", "1.0.0", Kind::Transform),
        |input: Url, ctx: ToolCtx| async move {
            assert!(ctx.fs().is_none() && ctx.spawn().is_none() && ctx.secrets().is_none());
            assert!(ctx.browser().is_none() && ctx.model().is_none());
            let net = ctx.require_net()?;
            net.get(&input.url)?.send().await?;
            Ok(true)
        },
    )
    .expect("valid tool")
}

#[tokio::test]
async fn a_transform_has_no_network_to_call() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(sneaky).unwrap();
    let plan = compile_flow(
        &registry,
        json!({"name": "sneak", "version": "1.0.0",
               "steps": [{"id": "s", "uses": "test/sneaky@1.0.0", "with": {"url": {"value": format!("{}/effect", server.url)}}}],
               "output": {"from": "steps.s.output"}}),
    );
    let rider = quick_rider(registry, &dir.path().join("j.sqlite"));
    let failure = rider.run(&plan, BTreeMap::new()).await.unwrap_err();
    assert_eq!(failure.code(), "tool_failed");
    assert!(
        failure.message.contains("no `net` capability"),
        "{}",
        failure.message
    );
    assert!(server.requests().is_empty(), "nothing reached the server");
}

#[tokio::test]
async fn net_can_be_limited_to_allowed_hosts() {
    let server = Server::start();
    let options = NetOptions {
        allowed_hosts: Some(["localhost".to_owned()].into()),
        ..NetOptions::default()
    };
    let net = NetCap::new(&options).unwrap();
    let err = net.get(&format!("{}/effect", server.url)).unwrap_err();
    assert!(
        err.to_string().contains("host `127.0.0.1` is not allowed"),
        "{err}"
    );
    let open = NetCap::new(&NetOptions::default()).unwrap();
    let response = open
        .get(&format!("{}/effect", server.url))
        .unwrap()
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert!(open.get("not a url").is_err());
}

#[tokio::test]
async fn fs_refuses_parent_paths_absolute_paths_and_escaping_symlinks() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "outside").unwrap();
    let root = tempfile::tempdir().unwrap();
    let fs = FsCap::new(root.path()).unwrap();

    fs.write("notes/a.txt", "hello").await.unwrap();
    assert_eq!(fs.read_to_string("notes/a.txt").await.unwrap(), "hello");
    assert_eq!(fs.list("notes").await.unwrap(), ["a.txt"]);
    assert!(fs.exists("./notes/a.txt").await.unwrap());

    let escape = |e: FsError| matches!(e, FsError::Escape { .. });
    assert!(escape(fs.read("../secret.txt").await.unwrap_err()));
    assert!(escape(fs.read("notes/../../secret.txt").await.unwrap_err()));
    assert!(
        escape(fs.write("notes/../x.txt", "x").await.unwrap_err()),
        "even a `..` that stays inside is refused"
    );
    let absolute = outside.path().join("secret.txt");
    assert!(escape(
        fs.read(absolute.to_str().unwrap()).await.unwrap_err()
    ));

    // A symlink to a file outside, and a symlinked directory leading outside.
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        root.path().join("link.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), root.path().join("out")).unwrap();
    let err = fs.read_to_string("link.txt").await.unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert!(escape(fs.read("out/secret.txt").await.unwrap_err()));
    assert!(escape(fs.write("out/new.txt", "x").await.unwrap_err()));
    assert!(
        !outside.path().join("new.txt").exists(),
        "nothing was written outside"
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "outside"
    );

    // A symlink that stays inside is fine.
    std::os::unix::fs::symlink(root.path().join("notes"), root.path().join("alias")).unwrap();
    assert_eq!(fs.read_to_string("alias/a.txt").await.unwrap(), "hello");
}

#[tokio::test]
async fn spawn_runs_only_allowed_programs_with_a_clean_environment() {
    let cancel = CancelHandle::new();
    let spawn = SpawnCap::new(["echo", "env"], cancel.signal());
    let out = spawn
        .run(Command::new("echo").arg("hi there"))
        .await
        .unwrap();
    assert!(out.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hi there\n");

    let err = spawn
        .run(Command::new("sh").args(["-c", "echo pwned"]))
        .await
        .unwrap_err();
    assert!(matches!(err, SpawnError::NotAllowed { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("`sh` is not allowed (allowed: echo, env)"),
        "{err}"
    );
    let err = spawn.run(Command::new("/bin/echo")).await.unwrap_err();
    assert!(
        matches!(err, SpawnError::NotAllowed { .. }),
        "a path is not the allowed name"
    );

    // The child does not inherit the Rider's environment (where secrets may live).
    assert!(std::env::var("HOME").is_ok());
    let out = spawn
        .run(Command::new("env").env("GIVEN", "yes"))
        .await
        .unwrap();
    let env = String::from_utf8_lossy(&out.stdout);
    assert!(env.contains("GIVEN=yes"), "{env}");
    assert!(!env.contains("HOME="), "{env}");
}

#[tokio::test]
async fn spawn_kills_the_child_when_the_run_is_cancelled() {
    let cancel = CancelHandle::new();
    let spawn = SpawnCap::new(["sleep"], cancel.signal());
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let err = spawn
        .run(Command::new("sleep").arg("30"))
        .await
        .unwrap_err();
    assert!(matches!(err, SpawnError::Cancelled(_)), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(
        ToolError::from(err).class,
        browserflow_rider::ErrorClass::Cancelled
    );
}

#[test]
fn secrets_resolve_only_names_passed_to_the_step_and_register_with_the_redactor() {
    let redactor = Redactor::new();
    let provider = Arc::new(
        MapSecrets::new()
            .with("API", "tok-123456789")
            .with("OTHER", "x"),
    );
    let caps = SecretsCap::new(provider, redactor.clone(), Some(["API".to_owned()].into()));
    assert_eq!(redactor.redact("tok-123456789"), "tok-123456789");
    let value = caps.resolve("secret.API").unwrap();
    assert_eq!(value.expose_secret(), "tok-123456789");
    assert_eq!(format!("{value:?}"), "SecretBox<str>([REDACTED])");
    assert_eq!(redactor.redact("key tok-123456789!"), "key [REDACTED]!");
    assert!(matches!(
        caps.resolve("OTHER"),
        Err(SecretsError::NotPassed(_))
    ));
    let missing = SecretsCap::new(Arc::new(MapSecrets::new()), redactor, None);
    let err = missing.resolve("WEBHOOK_URL").unwrap_err();
    assert!(
        err.to_string().contains("BROWSERFLOW_SECRET_WEBHOOK_URL"),
        "{err}"
    );
    let _ = SecretString::from("compile-time check: secrecy is re-exported".to_owned());
}

#[test]
fn a_secrets_file_must_be_private() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secrets");
    std::fs::write(
        &path,
        "# comment\nAPI=tok-abc=def\n\nWEBHOOK = https://h/x\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let err = FileSecrets::load(&path).unwrap_err();
    assert!(err.to_string().contains("chmod 600"), "{err}");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let file = FileSecrets::load(&path).unwrap();
    use browserflow_rider::SecretsProvider;
    assert_eq!(
        file.lookup("API").unwrap().unwrap().expose_secret(),
        "tok-abc=def"
    );
    assert_eq!(
        file.lookup("WEBHOOK").unwrap().unwrap().expose_secret(),
        "https://h/x"
    );
    assert!(file.lookup("NOPE").unwrap().is_none());
    std::fs::write(&path, "no equals sign here\n").unwrap();
    let err = FileSecrets::load(&path).unwrap_err();
    assert!(err.to_string().contains("line 1"), "{err}");
    assert!(
        !err.to_string().contains("no equals"),
        "the line is never echoed: {err}"
    );
}
