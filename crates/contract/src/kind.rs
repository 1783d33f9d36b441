//! `Kind` (a tool's shape) and `Capability` (an effect a tool may use), with their names.

use std::fmt;
use std::str::FromStr;

/// The kind of a tool: tells the compiler and the Rider its shape (and default retry policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Deterministic browser automation, recorded once and replayed without a model.
    Browser,
    /// An HTTP request.
    Http,
    /// A command invocation.
    Shell,
    /// A pure JSON-to-JSON function.
    Transform,
    /// Sandboxed code, limited by its capabilities.
    Code,
    /// A declared, recorded model call.
    Model,
    /// A flow re-published as a tool.
    Composite,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 7] = [
        Kind::Browser,
        Kind::Http,
        Kind::Shell,
        Kind::Transform,
        Kind::Code,
        Kind::Model,
        Kind::Composite,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Browser => "browser",
            Kind::Http => "http",
            Kind::Shell => "shell",
            Kind::Transform => "transform",
            Kind::Code => "code",
            Kind::Model => "model",
            Kind::Composite => "composite",
        }
    }
}

/// An effect a tool may use. The matching object exists on the tool's context if and only if
/// the contract declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Capability {
    /// A browser.
    Browser,
    /// A rooted directory.
    Fs,
    /// Model calls.
    Model,
    /// HTTP and other network access.
    Net,
    /// Resolution of `secret.NAME` references.
    Secrets,
    /// Running programs.
    Spawn,
}

impl Capability {
    /// Every capability, sorted (the derived order is alphabetical, so "sorted" means the
    /// same thing in memory, on disk and in the digest).
    pub const ALL: [Capability; 6] = [
        Capability::Browser,
        Capability::Fs,
        Capability::Model,
        Capability::Net,
        Capability::Secrets,
        Capability::Spawn,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Net => "net",
            Capability::Fs => "fs",
            Capability::Browser => "browser",
            Capability::Secrets => "secrets",
            Capability::Spawn => "spawn",
            Capability::Model => "model",
        }
    }
}

macro_rules! string_enum {
    ($ty:ident, $what:literal) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::ALL
                    .into_iter()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| {
                        let known: Vec<&str> = $ty::ALL.iter().map(|v| v.as_str()).collect();
                        format!("`{s}` is not a {} (one of: {})", $what, known.join(", "))
                    })
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let s = String::deserialize(deserializer)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

string_enum!(Kind, "tool kind");
string_enum!(Capability, "capability");
