//! Push and pull through a real registry (Debian's `docker-registry`) on 127.0.0.1.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use browserflow_pack::oci::{OciOptions, pull_blocking, push_blocking};
use browserflow_pack::{PackError, VerifyOptions, generate_key, sign};

use crate::support::Fixture;

const REGISTRY: &str = "/usr/bin/docker-registry";

/// A registry process serving a temporary folder on a free loopback port; killed on drop.
struct Registry {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Registry {
    fn start() -> Registry {
        assert!(
            Path::new(REGISTRY).exists(),
            "{REGISTRY} is missing: install it with `apt-get install -y docker-registry` (scripts/install-deps does)"
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("a free port")
            .local_addr()
            .expect("addr")
            .port();
        let config = dir.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n",
                dir.path().join("data").display()
            ),
        )
        .expect("write the registry config");
        let child = Command::new(REGISTRY)
            .arg("serve")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start docker-registry");
        let registry = Registry {
            child,
            port,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "the registry did not listen on 127.0.0.1:{port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        registry
    }

    fn location(&self, repository: &str) -> String {
        format!("oci://127.0.0.1:{}/{repository}", self.port)
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn push_then_pull_through_a_real_registry_gives_the_identical_verified_pack() {
    let registry = Registry::start();
    let fixture = Fixture::new();
    let key = generate_key().expect("key");
    let pack = sign(&fixture.watch_pack().bytes, &key).expect("sign");
    let location = registry.location("shop/tools:1.0.0");
    let pushed = push_blocking(&pack, &location, &OciOptions::default()).expect("push");
    let options = VerifyOptions {
        trusted_keys: vec![key.verifying_key()],
        require_signature: true,
        ..Default::default()
    };
    let pulled = pull_blocking(&location, &OciOptions::default(), &options).expect("pull");
    assert_eq!(pulled.bytes, pack, "the pulled archive is byte-identical");
    assert_eq!(pulled.pack.digest, pushed.pack_digest);
    assert!(pulled.pack.signatures.iter().any(|s| s.trusted));

    // An unknown tag is a clear error, not a panic.
    let err = pull_blocking(
        &registry.location("shop/tools:9.9.9"),
        &OciOptions::default(),
        &VerifyOptions::default(),
    )
    .expect_err("no such tag");
    assert!(matches!(err, PackError::Oci(_)), "{err}");
    assert!(err.to_string().contains("shop/tools:9.9.9"), "{err}");
}

#[test]
fn a_bad_pack_is_not_pushed_and_bad_locations_are_refused() {
    let fixture = Fixture::new();
    let mut bytes = fixture.watch_pack().bytes;
    bytes[700] ^= 1;
    let err = push_blocking(
        &bytes,
        "oci://127.0.0.1:1/shop/tools:1.0.0",
        &OciOptions::default(),
    )
    .expect_err("a changed pack");
    assert!(
        !matches!(err, PackError::Oci(_)),
        "refused before any network: {err}"
    );
    for location in [
        "127.0.0.1:5000/shop:1",
        "oci://127.0.0.1:5000",
        "https://example.org/x:1",
    ] {
        let err = browserflow_pack::oci::parse_location(location).expect_err(location);
        assert!(err.to_string().contains(location), "{err}");
    }
}
