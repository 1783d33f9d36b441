//! Publishing and fetching packs through an OCI registry, as OCI artifacts.
//!
//! A pack is pushed as an image manifest with `artifactType`
//! [`ARTIFACT_TYPE`], the empty config (`application/vnd.oci.empty.v1+json`, `{}`) and one
//! layer of media type [`LAYER_MEDIA_TYPE`] holding the archive bytes unchanged. The layer and
//! the manifest carry the annotations `org.opencontainers.image.title` (`NAME-VERSION.bfpack`)
//! and [`PACK_DIGEST_ANNOTATION`] (the pack digest). On pull, the layer's bytes must hash to
//! the layer descriptor's digest, the archive must [verify](crate::verify), and its pack digest
//! must equal the annotation.
//!
//! Locations are written `oci://HOST[:PORT]/REPOSITORY:TAG`. Loopback registries
//! (`127.0.0.1`, `localhost`, `[::1]`) are spoken to over plain HTTP, every other host over
//! HTTPS unless [`OciOptions::plain_http`] says otherwise.

use std::collections::BTreeMap;

use browserflow_contract::Digest;
use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
use oci_client::manifest::OciImageManifest;
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference};

use crate::error::PackError;
use crate::verify::{VerifiedPack, VerifyOptions, verify};

/// The `artifactType` of a pack.
pub const ARTIFACT_TYPE: &str = "application/vnd.browserflow.pack.v1";
/// The media type of the layer holding the archive.
pub const LAYER_MEDIA_TYPE: &str = "application/vnd.browserflow.pack.v1.tar";
/// The annotation holding the pack digest.
pub const PACK_DIGEST_ANNOTATION: &str = "dev.browserflow.pack.digest";
const EMPTY_CONFIG_MEDIA_TYPE: &str = "application/vnd.oci.empty.v1+json";
const TITLE_ANNOTATION: &str = "org.opencontainers.image.title";

/// How to reach a registry.
#[derive(Debug, Clone, Default)]
pub struct OciOptions {
    /// Speak plain HTTP to every host (loopback hosts always get plain HTTP).
    pub plain_http: bool,
    /// Basic credentials (user, password); anonymous without.
    pub basic_auth: Option<(String, String)>,
}

/// What a push did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    /// The pack digest.
    pub pack_digest: Digest,
    /// The URL of the pushed manifest.
    pub manifest_url: String,
}

/// A pulled, verified pack.
#[derive(Debug, Clone)]
pub struct Pulled {
    /// The archive bytes, exactly as pushed.
    pub bytes: Vec<u8>,
    /// The verification result.
    pub pack: VerifiedPack,
}

/// Parses `oci://HOST/REPOSITORY:TAG`.
pub fn parse_location(location: &str) -> Result<Reference, PackError> {
    let rest = location.strip_prefix("oci://").ok_or_else(|| {
        PackError::Oci(format!(
            "`{location}` is not an `oci://HOST/REPOSITORY:TAG` location"
        ))
    })?;
    let reference: Reference = rest
        .parse()
        .map_err(|e| PackError::Oci(format!("`{location}`: {e}")))?;
    if !rest.contains('/') || reference.tag().is_none() && reference.digest().is_none() {
        return Err(PackError::Oci(format!(
            "`{location}`: write the registry host, the repository and a tag, as in oci://127.0.0.1:5000/shop/tools:1.0.0"
        )));
    }
    Ok(reference)
}

fn client(reference: &Reference, options: &OciOptions) -> Client {
    let host = reference.registry().to_owned();
    let loopback = ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|h| host == *h || host.starts_with(&format!("{h}:")));
    let protocol = if options.plain_http || loopback {
        ClientProtocol::Http
    } else {
        ClientProtocol::Https
    };
    // HTTPS needs a TLS provider; ring is the workspace's (a second install is a no-op).
    let _ = rustls::crypto::ring::default_provider().install_default();
    Client::new(ClientConfig {
        protocol,
        ..Default::default()
    })
}

fn auth(options: &OciOptions) -> RegistryAuth {
    match &options.basic_auth {
        Some((user, password)) => RegistryAuth::Basic(user.clone(), password.clone()),
        None => RegistryAuth::Anonymous,
    }
}

/// Verifies `bytes` and pushes them to `location` as a pack artifact.
pub async fn push(bytes: &[u8], location: &str, options: &OciOptions) -> Result<Pushed, PackError> {
    let pack = verify(bytes, &VerifyOptions::default())?;
    let reference = parse_location(location)?;
    let annotations: BTreeMap<String, String> = [
        (TITLE_ANNOTATION.to_owned(), pack.manifest.file_name()),
        (PACK_DIGEST_ANNOTATION.to_owned(), pack.digest.to_string()),
    ]
    .into_iter()
    .collect();
    let layer = ImageLayer::new(
        bytes.to_vec(),
        LAYER_MEDIA_TYPE.to_owned(),
        Some(annotations.clone()),
    );
    let config = Config::new(b"{}".to_vec(), EMPTY_CONFIG_MEDIA_TYPE.to_owned(), None);
    let layers = [layer];
    let mut manifest = OciImageManifest::build(&layers, &config, Some(annotations));
    manifest.artifact_type = Some(ARTIFACT_TYPE.to_owned());
    let response = client(&reference, options)
        .push(&reference, &layers, config, &auth(options), Some(manifest))
        .await
        .map_err(|e| PackError::Oci(format!("push to {location}: {e}")))?;
    Ok(Pushed {
        pack_digest: pack.digest,
        manifest_url: response.manifest_url,
    })
}

/// Pulls the pack at `location`, checks the layer digest, verifies the pack with `verify_options`
/// and checks its digest against the manifest's annotation.
pub async fn pull(
    location: &str,
    options: &OciOptions,
    verify_options: &VerifyOptions<'_>,
) -> Result<Pulled, PackError> {
    let reference = parse_location(location)?;
    let image = client(&reference, options)
        .pull(&reference, &auth(options), vec![LAYER_MEDIA_TYPE])
        .await
        .map_err(|e| PackError::Oci(format!("pull from {location}: {e}")))?;
    let manifest = image
        .manifest
        .ok_or_else(|| PackError::Oci(format!("{location}: the registry sent no manifest")))?;
    if manifest
        .artifact_type
        .as_deref()
        .is_some_and(|t| t != ARTIFACT_TYPE)
    {
        return Err(PackError::Oci(format!(
            "{location} is a `{}` artifact, not a browserflow pack",
            manifest.artifact_type.unwrap_or_default()
        )));
    }
    let ([layer], [descriptor]) = (image.layers.as_slice(), manifest.layers.as_slice()) else {
        return Err(PackError::Oci(format!(
            "{location}: a pack artifact has exactly one layer, this one has {}",
            manifest.layers.len()
        )));
    };
    let actual = Digest::of_bytes(&layer.data);
    if actual.as_str() != descriptor.digest {
        return Err(PackError::Oci(format!(
            "{location}: the layer hashes to {actual}, the manifest says {}",
            descriptor.digest
        )));
    }
    let pack = verify(&layer.data, verify_options)?;
    let announced = descriptor
        .annotations
        .as_ref()
        .and_then(|a| a.get(PACK_DIGEST_ANNOTATION))
        .ok_or_else(|| {
            PackError::Oci(format!(
                "{location}: the layer has no {PACK_DIGEST_ANNOTATION} annotation"
            ))
        })?;
    if announced != pack.digest.as_str() {
        return Err(PackError::Oci(format!(
            "{location}: the pack digest is {}, the registry manifest announces {announced}",
            pack.digest
        )));
    }
    Ok(Pulled {
        bytes: layer.data.to_vec(),
        pack,
    })
}

/// [`push`] from synchronous code (a private current-thread runtime).
pub fn push_blocking(
    bytes: &[u8],
    location: &str,
    options: &OciOptions,
) -> Result<Pushed, PackError> {
    runtime()?.block_on(push(bytes, location, options))
}

/// [`pull`] from synchronous code (a private current-thread runtime).
pub fn pull_blocking(
    location: &str,
    options: &OciOptions,
    verify_options: &VerifyOptions<'_>,
) -> Result<Pulled, PackError> {
    runtime()?.block_on(pull(location, options, verify_options))
}

fn runtime() -> Result<tokio::runtime::Runtime, PackError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| PackError::Oci(format!("cannot start an async runtime: {e}")))
}
