//! Signatures: trusted, untrusted, and over another pack.

use browserflow_pack::{
    PackError, VerifyOptions, generate_key, key_id, read_public_key, read_signing_key, sign,
    sign_file, verify, write_key_files,
};

use crate::support::{Fixture, archive, entries};

#[test]
fn a_valid_signature_by_a_trusted_key_passes_and_keeps_the_digest() {
    let fixture = Fixture::new();
    let pack = fixture.watch_pack();
    let keys = tempfile::tempdir().expect("temp");
    let (private, public) = (keys.path().join("key.pem"), keys.path().join("key.pub.pem"));
    write_key_files(&generate_key().expect("key"), &private, &public).expect("write keys");
    assert!(
        std::fs::read_to_string(&private)
            .expect("read")
            .starts_with("-----BEGIN PRIVATE KEY-----")
    );
    assert!(
        std::fs::read_to_string(&public)
            .expect("read")
            .starts_with("-----BEGIN PUBLIC KEY-----")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&private)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let trusted = read_public_key(&public).expect("public key");

    let file = fixture.path("shop@1.0.0.bfpack");
    std::fs::write(&file, &pack.bytes).expect("write");
    let id = sign_file(&file, &private).expect("sign");
    assert_eq!(id, key_id(&trusted));
    let signed = std::fs::read(&file).expect("read");
    assert_ne!(signed, pack.bytes);
    assert!(
        entries(&signed)
            .iter()
            .any(|(p, _)| p == &format!("signatures/{id}.json"))
    );

    let options = VerifyOptions {
        trusted_keys: vec![trusted],
        require_signature: true,
        ..Default::default()
    };
    let verified = verify(&signed, &options).expect("a trusted signature passes");
    assert_eq!(
        verified.digest, pack.digest,
        "signing does not change the pack digest"
    );
    assert_eq!(verified.signatures.len(), 1);
    assert!(verified.signatures[0].trusted);

    // Signing twice with the same key gives the same bytes (Ed25519 is deterministic).
    assert_eq!(
        sign(&signed, &read_signing_key(&private).expect("key")).expect("sign again"),
        signed
    );

    // Unsigned packs fail when a signature is required.
    let err = verify(&pack.bytes, &options).expect_err("unsigned");
    assert!(err.to_string().contains("not signed"), "{err}");
}

#[test]
fn a_signature_by_an_untrusted_key_fails_when_a_signature_is_required() {
    let pack = Fixture::new().watch_pack();
    let signer = generate_key().expect("key");
    let other = generate_key().expect("key");
    let signed = sign(&pack.bytes, &signer).expect("sign");
    verify(&signed, &VerifyOptions::default()).expect("a valid signature is fine without a policy");
    let options = VerifyOptions {
        trusted_keys: vec![other.verifying_key()],
        require_signature: true,
        ..Default::default()
    };
    let err = verify(&signed, &options).expect_err("untrusted");
    assert!(matches!(err, PackError::Untrusted(_)), "{err}");
    assert!(
        err.to_string().contains(&key_id(&signer.verifying_key())),
        "{err}"
    );
}

#[test]
fn a_signature_over_another_pack_fails() {
    let fixture = Fixture::new();
    let watch = fixture.watch_pack();
    let tool_only = fixture.export(&["search-price@1.2.0"]).expect("export");
    let key = generate_key().expect("key");
    let signed_other = sign(&tool_only.bytes, &key).expect("sign");
    let signature = entries(&signed_other)
        .into_iter()
        .find(|(p, _)| p.starts_with("signatures/"))
        .expect("a signature entry");
    let mut list = entries(&watch.bytes);
    list.push(signature);
    let err = verify(&archive(&list), &VerifyOptions::default()).expect_err("over another pack");
    assert!(matches!(err, PackError::Signature { .. }), "{err}");
    assert!(err.to_string().contains("another pack"), "{err}");

    // A forged signature value over the right digest fails too.
    let signed = sign(&watch.bytes, &key).expect("sign");
    let mut list = entries(&signed);
    let entry = list
        .iter_mut()
        .find(|(p, _)| p.starts_with("signatures/"))
        .expect("signature");
    let mut value: serde_json::Value = serde_json::from_slice(&entry.1).expect("json");
    let other = sign(&watch.bytes, &generate_key().expect("key")).expect("sign");
    let other_sig: serde_json::Value = serde_json::from_slice(
        &entries(&other)
            .into_iter()
            .find(|(p, _)| p.starts_with("signatures/"))
            .expect("sig")
            .1,
    )
    .expect("json");
    value["signature"] = other_sig["signature"].clone();
    let mut text = serde_json::to_string_pretty(&value).expect("json");
    text.push('\n');
    entry.1 = text.into_bytes();
    let err = verify(&archive(&list), &VerifyOptions::default()).expect_err("forged");
    assert!(err.to_string().contains("does not verify"), "{err}");
}

#[test]
fn bad_key_files_are_refused_by_name() {
    let dir = tempfile::tempdir().expect("temp");
    let path = dir.path().join("nonsense.pem");
    std::fs::write(&path, "not a key").expect("write");
    let err = read_signing_key(&path).expect_err("not a key");
    assert!(err.to_string().contains("nonsense.pem"), "{err}");
    let err = read_public_key(&path).expect_err("not a key");
    assert!(err.to_string().contains("nonsense.pem"), "{err}");
}
