//! Secrets: where `secret.NAME` values come from, and the `secrets` capability that resolves
//! them inside a tool.
//!
//! A resolved value is a [`SecretString`]: it has no `Serialize`, its `Debug` is redacted, and
//! the moment it is resolved it is registered with the run's [`Redactor`], so no writer can
//! leak it afterwards.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use secrecy::SecretString;

use crate::redact::Redactor;

/// The prefix of the environment variables [`EnvSecrets`] reads.
pub const ENV_PREFIX: &str = "BROWSERFLOW_SECRET_";

/// Why a secret could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    /// No provider knows the name.
    #[error("secret `{name}` is not set (set {ENV_PREFIX}{env} or add it to the secrets file)")]
    Missing {
        /// The secret's name.
        name: String,
        /// The environment variable suffix that would provide it.
        env: String,
    },
    /// The name is not a valid secret name.
    #[error("`{0}` is not a secret name (letters, digits, `_`, `-`, `.`)")]
    BadName(String),
    /// The step was not handed a reference to this secret.
    #[error(
        "secret `{0}` was not passed to this step; a tool may only resolve the secrets its inputs reference"
    )]
    NotPassed(String),
    /// The secrets file could not be read or is readable by others.
    #[error("secrets file {path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// A source of secret values by name.
pub trait SecretsProvider: Send + Sync {
    /// The value of `name`, or `None` when this provider does not know it.
    fn lookup(&self, name: &str) -> Result<Option<SecretString>, SecretsError>;
}

/// Secrets from environment variables `BROWSERFLOW_SECRET_<NAME>` (the name upper-cased,
/// `-` and `.` written `_`).
#[derive(Debug, Clone, Default)]
pub struct EnvSecrets;

impl SecretsProvider for EnvSecrets {
    fn lookup(&self, name: &str) -> Result<Option<SecretString>, SecretsError> {
        check_name(name)?;
        Ok(std::env::var(format!("{ENV_PREFIX}{}", env_suffix(name)))
            .ok()
            .map(SecretString::from))
    }
}

/// Secrets from a file of `NAME=value` lines (`#` starts a comment line). The file must not
/// be readable or writable by group or others (mode 0600 or stricter).
pub struct FileSecrets {
    values: BTreeMap<String, SecretString>,
}

impl std::fmt::Debug for FileSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileSecrets")
            .field("names", &self.values.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl FileSecrets {
    /// Loads `path`, refusing a file others may read.
    pub fn load(path: &Path) -> Result<FileSecrets, SecretsError> {
        let fail = |message: String| SecretsError::File {
            path: path.to_owned(),
            message,
        };
        let metadata = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = metadata.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(fail(format!(
                    "mode {mode:04o} lets others read it; run `chmod 600 {}`",
                    path.display()
                )));
            }
        }
        #[cfg(not(unix))]
        let _ = metadata;
        // Bounded like every file browserflow reads (16 MiB).
        let text =
            browserflow_contract::read_document_text(path).map_err(|e| fail(e.to_string()))?;
        let mut values = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            // Never echo the line: it holds a secret.
            let Some((name, value)) = line.split_once('=') else {
                return Err(fail(format!("line {}: expected NAME=value", i + 1)));
            };
            let name = name.trim();
            check_name(name).map_err(|_| fail(format!("line {}: bad secret name", i + 1)))?;
            values.insert(
                name.to_owned(),
                SecretString::from(value.trim_start().to_owned()),
            );
        }
        Ok(FileSecrets { values })
    }
}

impl SecretsProvider for FileSecrets {
    fn lookup(&self, name: &str) -> Result<Option<SecretString>, SecretsError> {
        Ok(self.values.get(name).cloned())
    }
}

/// Secrets held in memory (for embedding applications and tests).
#[derive(Default)]
pub struct MapSecrets {
    values: BTreeMap<String, SecretString>,
}

impl MapSecrets {
    /// An empty map.
    pub fn new() -> MapSecrets {
        MapSecrets::default()
    }

    /// Adds `name` = `value`.
    pub fn with(mut self, name: &str, value: &str) -> MapSecrets {
        self.values
            .insert(name.to_owned(), SecretString::from(value.to_owned()));
        self
    }
}

impl SecretsProvider for MapSecrets {
    fn lookup(&self, name: &str) -> Result<Option<SecretString>, SecretsError> {
        Ok(self.values.get(name).cloned())
    }
}

/// Asks each provider in turn; the first that knows the name wins.
#[derive(Default)]
pub struct ChainSecrets {
    providers: Vec<Box<dyn SecretsProvider>>,
}

impl ChainSecrets {
    /// An empty chain.
    pub fn new() -> ChainSecrets {
        ChainSecrets::default()
    }

    /// Appends a provider.
    pub fn then(mut self, provider: impl SecretsProvider + 'static) -> ChainSecrets {
        self.providers.push(Box::new(provider));
        self
    }

    /// The usual chain: environment variables, then the secrets file if one is given.
    pub fn standard(file: Option<&Path>) -> Result<ChainSecrets, SecretsError> {
        let chain = ChainSecrets::new().then(EnvSecrets);
        Ok(match file {
            Some(path) => chain.then(FileSecrets::load(path)?),
            None => chain,
        })
    }
}

impl SecretsProvider for ChainSecrets {
    fn lookup(&self, name: &str) -> Result<Option<SecretString>, SecretsError> {
        for provider in &self.providers {
            if let Some(value) = provider.lookup(name)? {
                return Ok(Some(value));
            }
        }
        Ok(None)
    }
}

/// The `secrets` capability on a tool's context: resolves the secrets its inputs reference.
#[derive(Clone)]
pub struct SecretsCap {
    provider: Arc<dyn SecretsProvider>,
    redactor: Redactor,
    allowed: Option<Arc<BTreeSet<String>>>,
}

impl std::fmt::Debug for SecretsCap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretsCap")
            .field("allowed", &self.allowed)
            .finish_non_exhaustive()
    }
}

impl SecretsCap {
    /// A capability resolving through `provider`, registering each value with `redactor`.
    /// With `allowed`, only those names may be resolved.
    pub fn new(
        provider: Arc<dyn SecretsProvider>,
        redactor: Redactor,
        allowed: Option<BTreeSet<String>>,
    ) -> SecretsCap {
        SecretsCap {
            provider,
            redactor,
            allowed: allowed.map(Arc::new),
        }
    }

    /// Registers a derived secret value (a resolved template) with the redactor.
    pub(crate) fn register(&self, value: &SecretString) {
        self.redactor.register(value);
    }

    /// Resolves a secret by name (`NAME` or `secret.NAME`).
    pub fn resolve(&self, name: &str) -> Result<SecretString, SecretsError> {
        let name = name.strip_prefix("secret.").unwrap_or(name);
        check_name(name)?;
        if let Some(allowed) = &self.allowed
            && !allowed.contains(name)
        {
            return Err(SecretsError::NotPassed(name.to_owned()));
        }
        let value = self
            .provider
            .lookup(name)?
            .ok_or_else(|| SecretsError::Missing {
                name: name.to_owned(),
                env: env_suffix(name),
            })?;
        self.redactor.register(&value);
        Ok(value)
    }
}

fn check_name(name: &str) -> Result<(), SecretsError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(SecretsError::BadName(name.to_owned()))
    }
}

fn env_suffix(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '-' | '.' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect()
}
