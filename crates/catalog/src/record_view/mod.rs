//! The Record screen: what it shows and the rules it follows. A [`RecordSession`] is the
//! recording in progress — the live [`Recorder`], then the [`Draft`] being edited and the
//! elements picked for extraction — and every operation returns the view the screen shows
//! next ([`DraftView`], [`PickedView`], [`RecordEventView`]). Saving names the file
//! `NAME@VERSION.json` and never overwrites one.
//!
//! ```no_run
//! # async fn demo() -> Result<(), browserflow_catalog::record_view::RecordViewError> {
//! use browserflow_catalog::record_view::{OutputKindName, RecordSession, RecordStart};
//!
//! let mut session = RecordSession::default();
//! let start = RecordStart { url: "http://127.0.0.1:4780".into(), ..RecordStart::default() };
//! let mut events = session.start(&start).await?;
//! tokio::spawn(async move {
//!     while let Some(view) = events.next().await {
//!         println!("{view:?}");
//!     }
//! });
//! let picked = session.live_recorder()?.pick_element().await?;
//! let pick = session.add_pick(picked);
//! let draft = session.stop().await?;
//! session.mark_output(pick.index, "price", OutputKindName::Price)?;
//! let saved = session.save(std::path::Path::new("recordings"), "my-tool", "1.0.0", None)?;
//! # let _ = (draft, saved);
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine;
use browserflow_record::{
    Draft, InputMark, InputType, OutputMark, PickedElement, RecordError, RecordEvent,
    RecordOptions, RecordedStep, Recorder,
};
use browserflow_steps::{OutputKind, Reliance, StepKind};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::library::{ItemSource, LibraryItem, describe};

mod kept;
mod views;

pub use kept::{DraftKeeper, KeptDraft, KeptDraftError};
pub use views::*;

/// The recording in progress, if any: the live recorder, then the draft being edited, and
/// the elements picked for extraction.
#[derive(Default)]
pub struct RecordSession {
    recorder: Option<Arc<Recorder>>,
    draft: Option<Draft>,
    /// The draft before each edit, newest last: what [`RecordSession::undo`] goes back to.
    undo: Vec<Draft>,
    picks: Vec<PickedElement>,
    /// Where the unsaved recording is kept on disk as it changes, if anywhere.
    keeper: Option<DraftKeeper>,
    /// The picks as the live recording's event stream keeps them (it runs outside the
    /// session's lock).
    live_picks: Arc<std::sync::Mutex<Vec<PickedElement>>>,
    /// Why the last change could not be kept on disk, until one is.
    unkept: Option<String>,
}

/// How many edits can be undone: enough for any slip, bounded so a long editing session does
/// not hold every version of a large draft (thumbnails included).
const UNDO_DEPTH: usize = 50;

/// The events of a recording as views: the steps recorded before [`RecordSession::start`]
/// returned, then the live ones.
pub struct RecordEvents {
    earlier: std::vec::IntoIter<RecordEventView>,
    live: broadcast::Receiver<RecordEvent>,
    keeping: Option<LiveKeeping>,
}

/// What the live event stream needs to keep the recording on disk after each step.
struct LiveKeeping {
    keeper: DraftKeeper,
    /// Never the recorder itself: stopping needs it alone.
    snapshots: browserflow_record::Snapshots,
    picks: Arc<std::sync::Mutex<Vec<PickedElement>>>,
}

impl LiveKeeping {
    fn keep(&self) {
        let Some(draft) = self.snapshots.take() else {
            return;
        };
        let picks = self.picks.lock().map(|p| p.clone()).unwrap_or_default();
        if let Err(e) = self.keeper.keep(&draft, &picks, true) {
            tracing::warn!("{e}");
        }
    }
}

impl RecordEvents {
    /// The next view; `None` once the recording is over.
    pub async fn next(&mut self) -> Option<RecordEventView> {
        if let Some(view) = self.earlier.next() {
            return Some(view);
        }
        loop {
            match self.live.recv().await {
                Ok(event) => {
                    if let (Some(keeping), RecordEvent::StepAdded { .. })
                    | (Some(keeping), RecordEvent::StepUpdated { .. })
                    | (Some(keeping), RecordEvent::StepInserted { .. }) = (&self.keeping, &event)
                    {
                        keeping.keep();
                    }
                    if let Some(view) = event_view(event) {
                        return Some(view);
                    }
                }
                // A slow listener missed some events; later ones restate their steps.
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

impl RecordSession {
    /// A session that keeps its unsaved recording on disk with `keeper` as it changes, and
    /// offers it again ([`RecordSession::kept`], [`RecordSession::restore_kept`]).
    pub fn keeping(keeper: DraftKeeper) -> RecordSession {
        RecordSession {
            keeper: Some(keeper),
            ..RecordSession::default()
        }
    }

    /// The unsaved recording kept on disk from an earlier session (the app closed or
    /// crashed before it was saved or discarded), when nothing is being recorded or edited.
    pub fn kept(&self) -> Result<Option<KeptDraftView>, RecordViewError> {
        if self.recorder.is_some() || self.draft.is_some() {
            return Ok(None);
        }
        let Some(keeper) = &self.keeper else {
            return Ok(None);
        };
        Ok(keeper.read()?.map(|kept| KeptDraftView {
            steps: kept.draft.steps.len(),
            start_url: kept.draft.start_url.clone(),
            kept_at: kept.kept_at,
            cut_short: kept.live,
        }))
    }

    /// Makes the kept unsaved recording the draft being edited.
    pub fn restore_kept(&mut self) -> Result<DraftView, RecordViewError> {
        if self.recorder.is_some() {
            return Err(RecordViewError::AlreadyRecording);
        }
        let kept = self
            .keeper
            .as_ref()
            .map(DraftKeeper::read)
            .transpose()?
            .flatten()
            .ok_or(RecordViewError::NoDraft)?;
        self.draft = Some(kept.draft);
        self.picks = kept.picks;
        self.undo.clear();
        self.keep();
        self.draft_view()
    }

    /// Writes the recording or draft as it is now to the keeper, if any; a failure is kept to
    /// be shown with the draft ([`DraftView::unkept`]), not lost.
    fn keep(&mut self) {
        let Some(keeper) = &self.keeper else {
            return;
        };
        let kept = match (&self.recorder, &self.draft) {
            (Some(recorder), _) => keeper.keep(&recorder.snapshot(), &self.picks, true),
            (None, Some(draft)) => keeper.keep(draft, &self.picks, false),
            (None, None) => keeper.forget(),
        };
        self.unkept = kept.err().map(|e| e.to_string());
        if let Some(problem) = &self.unkept {
            tracing::warn!("{problem}");
        }
    }

    /// Starts recording at `start.url` in a new Chromium window (or in the browser at
    /// `start.cdp`), replacing any draft; the returned events stream its steps.
    pub async fn start(&mut self, start: &RecordStart) -> Result<RecordEvents, RecordViewError> {
        self.end_if_closed().await?;
        if self.recorder.is_some() {
            return Err(RecordViewError::AlreadyRecording);
        }
        // A new recording would replace the unsaved one kept from before: the person decides.
        if let Some(kept) = self.kept()? {
            return Err(RecordViewError::UnsavedKept(kept.steps));
        }
        // Checked before any browser starts.
        let options = RecordOptions {
            thumbnails: true,
            ..start.options()?
        };
        let recorder = Recorder::start(options).await?;
        let live = recorder.subscribe();
        // Steps recorded before the subscription (the start page's navigation) come first; any
        // overlap is harmless: a step sent twice at its index replaces itself.
        let earlier: Vec<RecordEventView> = recorder
            .steps()
            .iter()
            .enumerate()
            .map(|(index, step)| RecordEventView::StepAdded {
                index,
                step: step_view(index, step),
            })
            .collect();
        let recorder = Arc::new(recorder);
        *self = RecordSession {
            recorder: Some(recorder.clone()),
            keeper: self.keeper.take(),
            ..RecordSession::default()
        };
        self.keep();
        let keeping = self.keeper.clone().map(|keeper| LiveKeeping {
            keeper,
            snapshots: recorder.snapshots(),
            picks: self.live_picks.clone(),
        });
        Ok(RecordEvents {
            earlier: earlier.into_iter(),
            live,
            keeping,
        })
    }

    /// What the Record screen shows on opening: the live recording with its steps and picks,
    /// the draft, or nothing. A recording whose window was closed is ended first, so that it
    /// shows as the draft it became.
    pub async fn status(&mut self) -> Result<RecordStatusView, RecordViewError> {
        self.end_if_closed().await?;
        if let Some(recorder) = &self.recorder {
            return Ok(RecordStatusView::Recording {
                steps: recorder
                    .steps()
                    .iter()
                    .enumerate()
                    .map(|(i, s)| step_view(i, s))
                    .collect(),
                picks: self.pick_views(),
            });
        }
        if self.draft.is_some() {
            return Ok(RecordStatusView::Editing {
                draft: self.draft_view()?,
            });
        }
        Ok(RecordStatusView::Idle { kept: self.kept()? })
    }

    /// Ends a recording whose window was closed (or whose browser is gone), keeping its steps
    /// as the draft; returns whether it did. A recording still shared by a pick in progress is
    /// left for the next call (the pick ends as soon as the window is gone).
    pub async fn end_if_closed(&mut self) -> Result<bool, RecordViewError> {
        let closed = self.recorder.as_ref().is_some_and(|r| r.is_closed());
        if !closed {
            return Ok(false);
        }
        match self.stop().await {
            Ok(_) => Ok(true),
            Err(RecordViewError::StillPicking) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The running recorder, shared so that a long wait on it (a pick) need not hold the
    /// session.
    pub fn live_recorder(&self) -> Result<Arc<Recorder>, RecordViewError> {
        self.recorder.clone().ok_or(RecordViewError::NotRecording)
    }

    /// Keeps `picked` as the next pick (what [`RecordSession::mark_output`] takes).
    pub fn add_pick(&mut self, picked: PickedElement) -> PickedView {
        self.picks.push(picked);
        if let Ok(mut live) = self.live_picks.lock() {
            *live = self.picks.clone();
        }
        self.keep();
        let index = self.picks.len() - 1;
        pick_view(index, &self.picks[index])
    }

    /// Ends the recording (the window closes); the draft is then what is edited.
    pub async fn stop(&mut self) -> Result<DraftView, RecordViewError> {
        let recorder = self.recorder.take().ok_or(RecordViewError::NotRecording)?;
        let recorder = match Arc::try_unwrap(recorder) {
            Ok(recorder) => recorder,
            Err(still_shared) => {
                self.recorder = Some(still_shared);
                return Err(RecordViewError::StillPicking);
            }
        };
        self.draft = Some(recorder.stop().await?);
        self.keep();
        self.draft_view()
    }

    /// Throws the recording or draft away (closing the window of a running recording).
    pub async fn discard(&mut self) {
        if let Some(recorder) = self.recorder.take().and_then(|r| Arc::try_unwrap(r).ok()) {
            // The recording is thrown away: how its window closed does not matter.
            let _ = recorder.stop().await;
        }
        let keeper = self.keeper.take();
        *self = RecordSession {
            keeper,
            ..RecordSession::default()
        };
        // Thrown away on purpose: nothing to offer again.
        self.keep();
    }

    /// Throws away the unsaved recording kept from an earlier session, unseen.
    pub fn discard_kept(&mut self) -> Result<(), RecordViewError> {
        if self.recorder.is_some() || self.draft.is_some() {
            return Ok(());
        }
        if let Some(keeper) = &self.keeper {
            keeper.forget()?;
        }
        Ok(())
    }

    /// Whether a recording is running or a draft is open (not saved as a tool yet).
    pub fn has_unsaved(&self) -> bool {
        self.recorder.is_some() || self.draft.is_some()
    }

    /// Ends a running recording (its window closes), keeping its steps as the draft; nothing
    /// to do when none runs.
    pub async fn stop_if_recording(&mut self) -> Result<(), RecordViewError> {
        if self.recorder.is_some() {
            self.stop().await?;
        }
        Ok(())
    }

    /// Whether a stopped recording is being edited.
    pub fn has_draft(&self) -> bool {
        self.draft.is_some()
    }

    /// The draft being edited.
    pub fn draft_mut(&mut self) -> Result<&mut Draft, RecordViewError> {
        self.draft.as_mut().ok_or(RecordViewError::NoDraft)
    }

    /// Applies `change` to the draft.
    pub fn edit(
        &mut self,
        change: impl FnOnce(&mut Draft) -> Result<(), RecordError>,
    ) -> Result<DraftView, RecordViewError> {
        let before = self.draft_mut()?.clone();
        change(self.draft_mut()?)?;
        if self.undo.len() == UNDO_DEPTH {
            self.undo.remove(0);
        }
        self.undo.push(before);
        self.keep();
        self.draft_view()
    }

    /// Takes back the last edit (a deleted or moved step, a marked input or output).
    pub fn undo(&mut self) -> Result<DraftView, RecordViewError> {
        let before = self.undo.pop().ok_or(RecordViewError::NothingToUndo)?;
        *self.draft_mut()? = before;
        self.keep();
        self.draft_view()
    }

    /// Turns the value typed at step `index` into the input `name` of type `kind` (`string`,
    /// `number`, `integer` or `boolean`).
    pub fn mark_input(
        &mut self,
        index: usize,
        name: &str,
        kind: &str,
    ) -> Result<DraftView, RecordViewError> {
        let kind =
            InputType::parse(kind).ok_or_else(|| RecordViewError::NotAnInputType(kind.into()))?;
        self.edit(|draft| draft.mark_input(index, InputMark::typed(name.trim(), kind)))
    }

    /// [`RecordSession::mark_input`] without a default: every call of the tool gives the
    /// value (the one typed while recording is not kept).
    pub fn mark_required_input(
        &mut self,
        index: usize,
        name: &str,
        kind: &str,
    ) -> Result<DraftView, RecordViewError> {
        let kind =
            InputType::parse(kind).ok_or_else(|| RecordViewError::NotAnInputType(kind.into()))?;
        self.edit(|draft| draft.mark_input(index, InputMark::required(name.trim(), kind)))
    }

    /// Makes step `index` (an element of a grid, list or cards) rely on its content or its
    /// position.
    pub fn rely_on(
        &mut self,
        index: usize,
        relies_on: RelianceName,
    ) -> Result<DraftView, RecordViewError> {
        self.edit(|draft| draft.rely_on(index, relies_on.into()))
    }

    /// Removes post-state check `check` of step `index`.
    pub fn remove_check(
        &mut self,
        index: usize,
        check: usize,
    ) -> Result<DraftView, RecordViewError> {
        self.edit(|draft| draft.remove_check(index, check).map(|_| ()))
    }

    /// Removes the output field `name` (a price's currency field alone, if that is `name`).
    pub fn remove_output(&mut self, name: &str) -> Result<DraftView, RecordViewError> {
        self.edit(|draft| draft.remove_output(name))
    }

    /// Renames the output field `from` to `to`.
    pub fn rename_output(&mut self, from: &str, to: &str) -> Result<DraftView, RecordViewError> {
        self.edit(|draft| draft.rename_output(from, to.trim()))
    }

    /// Turns pick number `pick` into the output field `name` of type `kind`.
    pub fn mark_output(
        &mut self,
        pick: usize,
        name: &str,
        kind: OutputKindName,
    ) -> Result<DraftView, RecordViewError> {
        let picked = self
            .picks
            .get(pick)
            .cloned()
            .ok_or(RecordViewError::NoSuchPick(pick))?;
        let mark = kind.mark(name.trim(), &picked);
        self.edit(|draft| draft.mark_output(mark).map(|_| ()))
    }

    /// Saves the draft as `dir/NAME@VERSION.json` (never over an existing file: a new
    /// recording of a tool gets a new version), ends the session and returns the saved tool
    /// as a library item.
    pub fn save(
        &mut self,
        dir: &Path,
        name: &str,
        version: &str,
        description: Option<&str>,
    ) -> Result<LibraryItem, RecordViewError> {
        let draft = self.draft.clone().ok_or(RecordViewError::NoDraft)?;
        let (name, version) = (name.trim(), version.trim());
        let description = description.filter(|d| !d.trim().is_empty());
        let path = dir.join(format!("{name}@{version}.json"));
        let tool = crate::save::save_draft(
            draft,
            name,
            version,
            description,
            &path,
            crate::save::Overwrite::Refuse,
        )
        .map_err(|e| match e {
            crate::save::SaveError::InvalidTool(e) => RecordViewError::InvalidTool(e),
            crate::save::SaveError::Exists(path) => RecordViewError::Exists(path),
            crate::save::SaveError::Io { error, .. } => RecordViewError::Io(error),
        })?;
        self.draft = None;
        self.undo.clear();
        self.picks.clear();
        // Saved as a tool: nothing unsaved is left to offer again.
        self.keep();
        let digest = tool.contract.contract_digest().to_string();
        let source = ItemSource::Folder {
            dir: dir.display().to_string(),
        };
        Ok(describe(&tool.contract, &digest, &path, source))
    }

    /// The draft as the screen shows it.
    pub fn draft_view(&self) -> Result<DraftView, RecordViewError> {
        let draft = self.draft.as_ref().ok_or(RecordViewError::NoDraft)?;
        Ok(DraftView {
            start_url: draft.start_url.clone(),
            steps: draft
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| step_view(i, s))
                .collect(),
            inputs: draft
                .inputs
                .iter()
                .map(|i| InputView {
                    name: i.name.clone(),
                    kind: i.kind.as_str().to_string(),
                    secret: i.secret,
                    step: step_using(draft, &i.name),
                    default: i.default.as_ref().map(|d| d.to_string()),
                })
                .collect(),
            outputs: draft.output_fields(),
            picks: self.pick_views(),
            can_undo: !self.undo.is_empty(),
            unkept: self.unkept.clone(),
        })
    }

    fn pick_views(&self) -> Vec<PickedView> {
        self.picks
            .iter()
            .enumerate()
            .map(|(i, p)| pick_view(i, p))
            .collect()
    }
}

/// What is wrong with a tool name and version typed into the Save form, field by field, in
/// words (empty when both are fine): checked as the person types, before anything is saved.
pub fn check_name_and_version(name: &str, version: &str) -> Vec<FieldProblem> {
    let mut problems = Vec::new();
    let name = name.trim();
    if name.is_empty() {
        problems.push(FieldProblem {
            field: "name".into(),
            message: "Give the tool a name, like search-price.".into(),
        });
    } else if let Err(e) = browserflow_contract::ToolName::parse(name) {
        let why = e.0.first().map(|p| p.message.clone()).unwrap_or_default();
        problems.push(FieldProblem {
            field: "name".into(),
            message: format!(
                "{why}. Use lower-case letters, digits and dashes, like search-price."
            ),
        });
    }
    let version = version.trim();
    if version.is_empty() {
        problems.push(FieldProblem {
            field: "version".into(),
            message: "Give a version, like 1.0.0.".into(),
        });
    } else if semver::Version::parse(version).is_err() {
        problems.push(FieldProblem {
            field: "version".into(),
            message: format!(
                "\"{version}\" is not a version: write three numbers with dots, like 1.0.0 (or 2.1.0-beta.1)."
            ),
        });
    }
    problems
}

/// The address a recording starts at, as typed by a person: trimmed, with `http://` added when
/// no scheme is given (`127.0.0.1:4780/index.html`, `example.com`); only `http` and `https` pages
/// with a host. Checked before a browser starts, so a typo costs no window.
pub fn start_url(typed: &str) -> Result<String, RecordViewError> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err(RecordViewError::BadUrl("the start URL is empty".into()));
    }
    // `host:port/…` parses as a URL whose scheme is the host: look for `://` instead.
    let with_scheme = if typed.contains("://") {
        typed.to_string()
    } else {
        format!("http://{typed}")
    };
    let url = url::Url::parse(&with_scheme)
        .map_err(|e| RecordViewError::BadUrl(format!("\"{typed}\" is not a web address: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(RecordViewError::BadUrl(format!(
            "\"{typed}\" is a {}: URL; a recording starts on a web page (http:// or https://)",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(RecordViewError::BadUrl(format!(
            "\"{typed}\" names no host"
        )));
    }
    Ok(url.to_string())
}

/// The first step whose value holds `{{name}}`: the step an input replaces.
fn step_using(draft: &Draft, name: &str) -> Option<usize> {
    let needle = format!("{{{{{name}}}}}");
    draft.steps.iter().position(|s| {
        serde_json::to_value(&s.step)
            .ok()
            .and_then(|v| {
                v.get("value")
                    .and_then(|v| v.as_str())
                    .map(|v| v.contains(&needle))
            })
            .unwrap_or(false)
    })
}

fn data_url(png: &[u8]) -> String {
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    )
}

/// One recorded step as the screen lists it.
pub fn step_view(index: usize, step: &RecordedStep) -> RecordedStepView {
    RecordedStepView {
        index,
        kind: step.step.kind(),
        description: step.description.clone(),
        target: step.target.clone(),
        best_selector: step.best_selector.clone(),
        page: step.page.clone(),
        url: step.url.clone(),
        secret: step.secret,
        thumbnail: step.thumbnail_png.as_deref().map(data_url),
        checks: step.step.expect().iter().map(|c| c.describe()).collect(),
        no_effect: step.no_effect,
        repeat: step
            .step
            .selector()
            .and_then(|s| s.repeat.as_ref())
            .map(|r| RepeatView {
                place: r.place.clone(),
                content: r.content.clone(),
                relies_on: r.relies_on.into(),
            }),
    }
}

/// One pick as the screen lists it.
pub fn pick_view(index: usize, picked: &PickedElement) -> PickedView {
    PickedView {
        index,
        description: picked.description.clone(),
        text: picked.text.clone(),
        best_selector: picked.selector.candidates.first().map(|c| c.describe()),
        page: picked.page.clone(),
    }
}

/// A recorder event as the screen hears it; `None` for picks, which
/// [`RecordSession::add_pick`] answers with their index.
pub fn event_view(event: RecordEvent) -> Option<RecordEventView> {
    Some(match event {
        RecordEvent::StepAdded { index, step } => RecordEventView::StepAdded {
            index,
            step: step_view(index, &step),
        },
        RecordEvent::StepUpdated { index, step } => RecordEventView::StepUpdated {
            index,
            step: step_view(index, &step),
        },
        RecordEvent::StepInserted { index, step } => RecordEventView::StepInserted {
            index,
            step: step_view(index, &step),
        },
        RecordEvent::PageOpened { name, url } => RecordEventView::PageOpened { name, url },
        RecordEvent::Closed => RecordEventView::Closed,
        RecordEvent::PickArmed => RecordEventView::PickArmed,
        RecordEvent::Picked(_) => return None,
        RecordEvent::ProtocolError(error) => RecordEventView::NotRecorded {
            page: error.page.clone(),
            message: error.to_string(),
        },
        RecordEvent::FileChooser(request) => RecordEventView::FileChooser {
            id: request.id,
            page: request.page,
            multiple: request.multiple,
        },
    })
}

#[cfg(test)]
mod tests;
