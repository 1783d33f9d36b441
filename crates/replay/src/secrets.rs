//! The secrets of one replay: what its screenshots mask and its reports are redacted of.
//!
//! A browser tool resolves its secret inputs at the last moment; the values go to the page
//! (typed, in URLs) and nowhere else. Everything the replay hands out — step reports told to
//! [`crate::ReplayOptions::on_step`], the report kept for the caller, the run folder, errors —
//! passes through the run's one [`Redactor`] (the Rider's) as values, before anything is
//! serialised; screenshots are taken with every element showing a secret masked
//! (`screenshot.rs`). A replay without secrets does neither.

use std::sync::Arc;

use browserflow_rider::Redactor;
use browserflow_rider::secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use crate::{ReplayReport, StepReport};

/// The secret values of a replay and the redactor that knows them. Empty by default.
#[derive(Clone, Default)]
pub struct ReplaySecrets {
    redactor: Redactor,
    values: Arc<Vec<SecretString>>,
}

impl std::fmt::Debug for ReplaySecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplaySecrets")
            .field("values", &self.values.len())
            .finish()
    }
}

impl ReplaySecrets {
    /// `values` (empty ones dropped), redacted through `redactor`, which must know them (the
    /// Rider's `secrets` capability registered each when it resolved it).
    pub fn new(redactor: Redactor, values: Vec<SecretString>) -> ReplaySecrets {
        let values = values
            .into_iter()
            .filter(|v| !v.expose_secret().is_empty())
            .collect();
        ReplaySecrets {
            redactor,
            values: Arc::new(values),
        }
    }

    /// Whether the replay has no secret (then nothing is masked or redacted).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Whether `text` holds one of the secret values (a fill that types a secret).
    pub(crate) fn holds_secret(&self, text: &str) -> bool {
        self.values
            .iter()
            .any(|value| text.contains(value.expose_secret()))
    }

    /// The redactor.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// What a screenshot must not show: each value, and its pieces between spaces and `+` of
    /// 8 bytes or more (the redactor's fragment rule: a page may show a piece alone).
    pub(crate) fn mask_texts(&self) -> Vec<String> {
        let mut texts = Vec::new();
        for value in self.values.iter() {
            let value = value.expose_secret();
            texts.push(value.to_owned());
            let splits: [&[char]; 3] = [&[' '], &['+'], &[' ', '+']];
            for separators in splits {
                for piece in value.split(separators) {
                    if piece.len() >= 8
                        && piece.len() < value.len()
                        && !texts.iter().any(|t| t == piece)
                    {
                        texts.push(piece.to_owned());
                    }
                }
            }
        }
        texts
    }

    /// `text` redacted.
    pub fn redact(&self, text: &str) -> String {
        self.redactor.redact_string(text)
    }

    /// A copy of `report` whose every string is redacted (the screenshot is kept: it was
    /// taken masked).
    pub fn redact_step(&self, report: &StepReport) -> StepReport {
        if self.redactor.is_empty() {
            return report.clone();
        }
        let mut redacted = self.redact_value(report).unwrap_or_else(|| StepReport {
            error: report
                .error
                .as_ref()
                .map(|_| browserflow_rider::REDACTED.into()),
            navigated_to: None,
            label: None,
            ..report.clone()
        });
        redacted.screenshot.clone_from(&report.screenshot);
        redacted
    }

    /// A copy of `report` whose every string (URLs, outputs, errors, labels) is redacted.
    pub fn redact_report(&self, report: &ReplayReport) -> ReplayReport {
        if self.redactor.is_empty() {
            return report.clone();
        }
        ReplayReport {
            steps: report.steps.iter().map(|s| self.redact_step(s)).collect(),
            outputs: match self
                .redactor
                .redact_json(&Value::Object(report.outputs.clone()))
            {
                Value::Object(map) => map,
                _ => serde_json::Map::new(),
            },
            final_url: self.redact(&report.final_url),
            duration_ms: report.duration_ms,
        }
    }

    /// `value` through JSON with every string redacted; `None` only if the redacted JSON no
    /// longer fits the type (a redacted enum tag), when the caller drops the strings instead.
    fn redact_value<T: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        value: &T,
    ) -> Option<T> {
        let json = serde_json::to_value(value).ok()?;
        serde_json::from_value(self.redactor.redact_json(&json)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StepStatus;

    fn secrets(value: &str) -> ReplaySecrets {
        let redactor = Redactor::new();
        let secret = SecretString::from(value.to_owned());
        redactor.register(&secret);
        ReplaySecrets::new(redactor, vec![secret])
    }

    #[test]
    fn a_report_is_redacted_before_it_is_serialised() {
        let s = secrets("Ca Na/Ry+x&y=1é");
        let step = StepReport {
            index: 2,
            kind: "key_press".into(),
            label: None,
            status: StepStatus::Passed,
            duration_ms: 1.0,
            selector: None,
            navigated_to: Some(
                "http://127.0.0.1/search.html?q=Ca+Na%2FRy%2Bx%26y%3D1%C3%A9".into(),
            ),
            dialogs: Vec::new(),
            download: None,
            error: None,
            screenshot: Some(vec![1, 2, 3]),
            screenshot_withheld: None,
        };
        let mut outputs = serde_json::Map::new();
        outputs.insert(
            "echo".into(),
            Value::String("1é\"q\\z Ca Na/Ry+x&y=1é".into()),
        );
        let report = ReplayReport {
            steps: vec![step],
            outputs,
            final_url: "http://127.0.0.1/search.html?q=Ca+Na%2FRy%2Bx%26y%3D1%C3%A9".into(),
            duration_ms: 1.0,
        };
        let redacted = s.redact_report(&report);
        let text = serde_json::to_string(&redacted).unwrap_or_default();
        assert!(!text.contains("Ry"), "{text}");
        assert_eq!(redacted.steps[0].screenshot, Some(vec![1, 2, 3]));
        assert_eq!(
            redacted.final_url,
            "http://127.0.0.1/search.html?q=[REDACTED]"
        );
    }

    #[test]
    fn mask_texts_hold_the_value_and_its_long_pieces() {
        let s = secrets("Ca Na/Ry+x&y=1é");
        assert_eq!(
            s.mask_texts(),
            vec!["Ca Na/Ry+x&y=1é", "Na/Ry+x&y=1é", "Ca Na/Ry"]
        );
    }
}
