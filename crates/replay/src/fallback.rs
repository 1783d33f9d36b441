//! The one warning for a step whose element was found only by a lower-ranked selector
//! candidate: the earliest sign that a page drifts from its recording. `bflow run` prints it
//! as each step finishes, `report.json` lists it, and the app's preview shows it, all from
//! [`StepReport::fallback`].

use std::fmt;

use browserflow_steps::ToolFile;

use crate::StepReport;

/// A step won by its candidate at `rank` (0-based, above 0) after every candidate ranked above
/// it found nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// The step's position (0-based).
    pub step: usize,
    /// The step in words: its label, else its kind.
    pub what: String,
    /// The winning candidate's position among the step's candidates (0-based).
    pub rank: usize,
    /// The winning candidate, described.
    pub winner: String,
    /// The candidates ranked above the winner, described, best first (empty when the caller
    /// did not know them).
    pub passed_over: Vec<String>,
}

/// `step 4 (Open the first result) matched only on its selector #2 (xpath "…"); 1 ranked
/// above it found nothing: css "#gone". The page has changed since recording: …`
impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "step {} ({}) matched only on its selector #{} ({}); {} ranked above it found nothing",
            self.step + 1,
            self.what,
            self.rank + 1,
            self.winner,
            self.rank
        )?;
        if !self.passed_over.is_empty() {
            write!(f, ": {}", self.passed_over.join(", "))?;
        }
        f.write_str(". The page has changed since recording: check the step or record it again.")
    }
}

impl StepReport {
    /// The step in words: its label (the recorder's description), else its kind.
    pub fn what(&self) -> String {
        self.label
            .clone()
            .unwrap_or_else(|| self.kind.replace('_', " "))
    }

    /// The fallback warning of this step, when a lower-ranked candidate won. `candidates` are
    /// the step's candidates, described, best first (see [`described_candidates`]).
    pub fn fallback(&self, candidates: &[String]) -> Option<Fallback> {
        let winner = self.selector.as_ref().filter(|s| s.index > 0)?;
        Some(Fallback {
            step: self.index,
            what: self.what(),
            rank: winner.index,
            winner: winner.description.clone(),
            passed_over: candidates.iter().take(winner.index).cloned().collect(),
        })
    }
}

impl crate::ReplayReport {
    /// The fallback warnings of this replay of `file`, in step order: every view of a run
    /// (the run folder's `report.json`, the Rider's journal through the tool's warnings, and
    /// so `bflow flow run`, `journal show`, `journal list` and the app's Library) says them.
    pub fn fallbacks(&self, file: &ToolFile) -> Vec<Fallback> {
        self.steps
            .iter()
            .filter_map(|step| step.fallback(&described_candidates(file, step.index)))
            .collect()
    }
}

/// The selector candidates of step `index` of `file`, described, best first; empty for a
/// step without a selector.
pub fn described_candidates(file: &ToolFile, index: usize) -> Vec<String> {
    file.steps
        .get(index)
        .and_then(|s| s.selector())
        .map(|sel| sel.candidates.iter().map(|c| c.describe()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{StepStatus, WinningSelector};
    use browserflow_steps::SelectorKind;

    fn report(label: Option<&str>, winner: Option<usize>) -> StepReport {
        StepReport {
            index: 3,
            kind: "click".into(),
            label: label.map(str::to_owned),
            status: StepStatus::Passed,
            duration_ms: 1.0,
            selector: winner.map(|index| WinningSelector {
                index,
                kind: SelectorKind::Xpath,
                description: "xpath \"(//main//ul/li)[1]/a\"".into(),
            }),
            navigated_to: None,
            dialogs: Vec::new(),
            download: None,
            error: None,
            screenshot: None,
            screenshot_withheld: None,
        }
    }

    #[test]
    fn a_lower_ranked_winner_is_a_warning_naming_those_above_it() {
        let candidates = vec![
            "css \"#gone\"".to_owned(),
            "xpath \"(//main//ul/li)[1]/a\"".to_owned(),
        ];
        let warning = report(Some("Open the first result"), Some(1))
            .fallback(&candidates)
            .expect("a fallback");
        assert_eq!(
            warning.to_string(),
            "step 4 (Open the first result) matched only on its selector #2 (xpath \"(//main//ul/li)[1]/a\"); \
             1 ranked above it found nothing: css \"#gone\". \
             The page has changed since recording: check the step or record it again."
        );
        assert_eq!(warning.passed_over, ["css \"#gone\""]);
        // Unlabelled, its kind in words; without the candidates, the count alone.
        assert!(
            report(None, Some(1))
                .fallback(&[])
                .unwrap()
                .to_string()
                .starts_with("step 4 (click) matched only on its selector #2 (xpath \"(//main//ul/li)[1]/a\"); 1 ranked above it found nothing. ")
        );
    }

    #[test]
    fn the_best_candidate_or_no_selector_is_no_warning() {
        assert_eq!(report(Some("x"), Some(0)).fallback(&[]), None);
        assert_eq!(report(Some("x"), None).fallback(&[]), None);
    }
}
