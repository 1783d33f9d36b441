//! The redactor: the one filter every writer goes through.
//!
//! When a tool resolves a secret, its value is registered here, and with it every form the
//! secret is likely to be written in (see `redact_forms`: raw and case variants, JSON, URL,
//! Rust escapes, two layers deep, Base64, hex, identifying fragments). Journal rows, log
//! lines, error messages, run folders and reports pass through [`Redactor::redact`] (or
//! [`Redactor::redact_json`], before serialising) before they are written, so none of those
//! forms survives.
//!
//! Matching is one Aho-Corasick automaton over every form of every secret, ASCII
//! case-insensitive (hex digits and percent escapes come in both cases); every stretch of
//! text covered by any match, overlapping ones included, becomes one [`REDACTED`]. Text
//! without a secret costs one scan and no allocation.

use std::borrow::Cow;
use std::sync::{Arc, RwLock};

use aho_corasick::AhoCorasick;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use crate::redact_forms::encoded_forms;

/// Adds `forms` to each redactor of `start` and, transitively, to their followers; a
/// redactor that learns nothing new tells no one, so a cycle of followers ends.
fn spread(start: Vec<Redactor>, forms: &std::collections::BTreeSet<String>) {
    let mut pending = start;
    while let Some(redactor) = pending.pop() {
        pending.extend(redactor.add_forms(forms.iter().cloned()));
    }
}

/// What a redacted secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Shared, cheap to clone; every clone sees every registered secret.
#[derive(Clone, Default)]
pub struct Redactor {
    needles: Arc<RwLock<Needles>>,
}

/// Every registered form, and the automaton that finds them (none before the first secret).
#[derive(Default)]
struct Needles {
    forms: std::collections::BTreeSet<String>,
    matcher: Option<Arc<AhoCorasick>>,
    /// Redactors that learn every secret this one learns (a process's log writer).
    followers: Vec<Redactor>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field(
                "patterns",
                &self.needles.read().map(|n| n.forms.len()).unwrap_or(0),
            )
            .finish()
    }
}

impl Redactor {
    /// A redactor that knows no secret yet.
    pub fn new() -> Redactor {
        Redactor::default()
    }

    /// From now on `follower` learns every secret this redactor learns (and those it knows
    /// already): a writer made before a run's Rider existed (the process's log output) redacts
    /// that run's secrets too.
    pub fn forward_to(&self, follower: &Redactor) {
        if Arc::ptr_eq(&self.needles, &follower.needles) {
            return;
        }
        // Follow first, then copy what is known: a secret registered in between reaches the
        // follower either way, and no two locks are ever held at once.
        let known = match self.needles.write() {
            Ok(mut needles) => {
                needles.followers.push(follower.clone());
                needles.forms.clone()
            }
            Err(_) => return,
        };
        spread(vec![follower.clone()], &known);
    }

    /// Registers a resolved secret: from now on every encoded form of it is redacted.
    pub fn register(&self, secret: &SecretString) {
        let value = secret.expose_secret();
        if value.is_empty() {
            return;
        }
        spread(vec![self.clone()], &encoded_forms(value));
    }

    /// Adds `forms`, rebuilding the automaton when one is new; returns the followers to tell
    /// (none when nothing was new, which also ends a cycle of followers).
    fn add_forms(&self, forms: impl Iterator<Item = String>) -> Vec<Redactor> {
        let Ok(mut needles) = self.needles.write() else {
            return Vec::new();
        };
        let before = needles.forms.len();
        needles.forms.extend(forms);
        if needles.forms.len() == before {
            return Vec::new();
        }
        match AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&needles.forms)
        {
            Ok(matcher) => needles.matcher = Some(Arc::new(matcher)),
            // Only a pattern set beyond the automaton's size limits fails; refusing to leak
            // then means redacting everything, which `redact` does for a cleared matcher
            // with forms registered.
            Err(error) => {
                tracing::error!(%error, "the redactor cannot index its secrets");
                needles.matcher = None;
            }
        }
        needles.followers.clone()
    }

    /// Whether no secret has been registered.
    pub fn is_empty(&self) -> bool {
        self.needles
            .read()
            .map(|n| n.forms.is_empty())
            .unwrap_or(true)
    }

    /// `text` with every registered form of every secret replaced by [`REDACTED`].
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let matcher = match self.needles.read() {
            Ok(needles) => match (&needles.matcher, needles.forms.is_empty()) {
                (Some(matcher), _) => matcher.clone(),
                (None, true) => return Cow::Borrowed(text),
                (None, false) => return Cow::Owned(REDACTED.to_owned()),
            },
            // A poisoned lock means a writer panicked mid-update; refuse to leak.
            Err(_) => return Cow::Owned(REDACTED.to_owned()),
        };
        let mut covered: Vec<(usize, usize)> = Vec::new();
        for found in matcher.find_overlapping_iter(text) {
            covered.push((found.start(), found.end()));
        }
        if covered.is_empty() {
            return Cow::Borrowed(text);
        }
        covered.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut written = 0;
        let mut iter = covered.into_iter().peekable();
        while let Some((start, mut end)) = iter.next() {
            // Merge every match that overlaps or touches this one into one stretch.
            while let Some(&(next_start, next_end)) = iter.peek() {
                if next_start > end {
                    break;
                }
                end = end.max(next_end);
                iter.next();
            }
            // Merged stretches are disjoint and sorted, so `start >= written`. Forms are
            // whole UTF-8 strings, so matches start and end on char boundaries; should one
            // not, nothing of the text is kept.
            let Some(before) = text.get(written..start) else {
                return Cow::Owned(REDACTED.to_owned());
            };
            out.push_str(before);
            out.push_str(REDACTED);
            written = end;
        }
        match text.get(written..) {
            Some(rest) => out.push_str(rest),
            None => return Cow::Owned(REDACTED.to_owned()),
        }
        Cow::Owned(out)
    }

    /// [`Redactor::redact`] as an owned `String`.
    pub fn redact_string(&self, text: &str) -> String {
        self.redact(text).into_owned()
    }

    /// A copy of `value` with every string (and object key) redacted.
    pub fn redact_json(&self, value: &Value) -> Value {
        if self.is_empty() {
            return value.clone();
        }
        match value {
            Value::String(s) => Value::String(self.redact_string(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.redact_string(k), self.redact_json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// A `tracing_subscriber` writer factory whose output passes through this redactor,
    /// line by line, before reaching `inner`.
    pub fn make_writer<W>(&self, inner: W) -> crate::redact_writer::RedactingMakeWriter<W> {
        crate::redact_writer::RedactingMakeWriter::new(self.clone(), inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor_for(secret: &str) -> Redactor {
        let r = Redactor::new();
        r.register(&SecretString::from(secret.to_owned()));
        r
    }

    #[test]
    fn overlapping_matches_become_one_marker() {
        let r = redactor_for("abcdefgh");
        r.register(&SecretString::from("efghijkl".to_owned()));
        assert_eq!(r.redact("x abcdefghijkl y"), "x [REDACTED] y");
    }

    #[test]
    fn a_follower_learns_known_and_later_secrets() {
        let run = redactor_for("abcdefgh");
        let logs = Redactor::new();
        run.forward_to(&logs);
        // A cycle must not loop.
        logs.forward_to(&run);
        run.register(&SecretString::from("ijklmnop".to_owned()));
        assert_eq!(logs.redact("abcdefgh ijklmnop"), "[REDACTED] [REDACTED]");
    }

    #[test]
    fn text_without_a_secret_is_borrowed() {
        let r = redactor_for("abcdefgh");
        assert!(matches!(r.redact("nothing here"), Cow::Borrowed(_)));
        assert!(matches!(
            Redactor::new().redact("abcdefgh"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn hex_and_percent_escapes_match_in_either_case() {
        let r = redactor_for("Ca Na/Ry+x&y=1é");
        let out = r.redact("q=ca+na%2fry%2bx%26y%3d1%c3%a9 and 4341204E61");
        assert_eq!(out, "q=[REDACTED] and 4341204E61");
        assert!(
            r.redact(&hex::encode_upper("Ca Na/Ry+x&y=1é"))
                .contains(REDACTED)
        );
    }
}
