//! What the recorder asks of the live page while a person records: an element to pick or
//! look up, an output marked on it, a file chooser answered, a better selector suggested and
//! checked in the page.

use super::*;
use crate::protocol::{self, DescribeAnswer, DescribedElement, ProtocolError};
use browserflow_cdp::commands::{dom, runtime};

impl Recorder {
    /// Puts every frame in picking mode: the next click is not performed but picks its element
    /// (outlined under the pointer), returned with ranked, live-checked candidates.
    /// Escape in the page, or [`Recorder::cancel_pick`], ends it with
    /// [`RecordError::PickCancelled`]; nothing the person pressed while picking is recorded.
    pub async fn pick_element(&self) -> Result<PickedElement, RecordError> {
        // No thumbnail is captured until every outline is gone.
        let _no_thumbnails = self.shared.capture_gate.write().await;
        let (tx, rx) = oneshot::channel();
        *lock(&self.shared.pick) = Some(tx);
        self.in_every_world("window.__bflowRecorder && window.__bflowRecorder.pick(true)")
            .await;
        self.shared.emit(vec![RecordEvent::PickArmed]);
        let picked = rx.await;
        // Every frame leaves pick mode (its outline gone) however the pick ended.
        self.in_every_world("window.__bflowRecorder && window.__bflowRecorder.pick(false)")
            .await;
        match picked {
            Ok(Some(picked)) => Ok(picked),
            Ok(None) => Err(RecordError::PickCancelled),
            Err(_) => Err(RecordError::Closed),
        }
    }

    /// Ends a pick in progress with nothing picked (the app's second click on its button).
    pub fn cancel_pick(&self) {
        if let Some(tx) = lock(&self.shared.pick).take() {
            let _ = tx.send(None);
        }
    }

    /// Evaluates `expression` in the recorder's world of the top frame of `page` (`main` or
    /// a popup): its value, or why there is none.
    pub(crate) async fn evaluate_top(&self, page: &str, expression: &str) -> Result<Value, String> {
        let world = lock(&self.shared.worlds)
            .iter()
            .rev()
            .find(|w| w.page == page && w.top)
            .cloned();
        let conn = self.page.session().connection().clone();
        match world {
            None => Err("the page has no recorder yet (is it open?)".to_string()),
            Some(world) => evaluate_in(&conn, &world, expression).await,
        }
    }

    /// Describes the element `css` finds in the top frame of `page` (`main` or a popup), with
    /// ranked, live-checked candidates: how outputs given by selector become robust.
    pub async fn element(&self, page: &str, css: &str) -> Result<PickedElement, RecordError> {
        let no_element = |message: String| RecordError::NoElement {
            selector: css.to_string(),
            page: page.to_string(),
            message,
        };
        let expression = format!(
            "window.__bflowRecorder.describeCss({})",
            serde_json::to_string(css).unwrap_or_default()
        );
        // The element may still be arriving (a page loading, a popup opening): wait for it,
        // within a bound.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        let mut changes = self.shared.changed.subscribe();
        let conn = self.page.session().connection().clone();
        loop {
            let world = lock(&self.shared.worlds)
                .iter()
                .rev()
                .find(|w| w.page == page && w.top)
                .cloned();
            let attempt = match world {
                None => Err("the page has no recorder yet (is it open?)".to_string()),
                Some(world) => match evaluate_in(&conn, &world, &expression).await {
                    Err(message) => Err(message),
                    Ok(value) => {
                        // A malformed answer stays malformed: said at once, never waited past.
                        let described = protocol::read_described(&value).map_err(|problem| {
                            RecordError::Protocol(Box::new(ProtocolError {
                                page: page.to_string(),
                                frame_url: value["frame"]["url"].as_str().map(str::to_string),
                                message_type: Some("describeCss".to_string()),
                                problem,
                            }))
                        })?;
                        match described {
                            DescribeAnswer::Element(element) => {
                                let DescribedElement {
                                    target,
                                    read,
                                    frame,
                                } = *element;
                                let frames = self.shared.frames_of(page);
                                Builder::picked(page, target, read, &frame, &frames).ok_or_else(
                                    || "no candidate identifies the element alone".to_string(),
                                )
                            }
                            // The element may still be arriving, or the others leaving.
                            DescribeAnswer::NotOne(not_one) => {
                                Err(format!("the selector matches {} elements", not_one.count))
                            }
                            // Waiting cannot make a selector valid.
                            DescribeAnswer::Invalid(invalid) => {
                                return Err(no_element(invalid.invalid));
                            }
                        }
                    }
                },
            };
            match attempt {
                Ok(picked) => return Ok(picked),
                Err(message) => {
                    let wait = tokio::time::timeout_at(deadline, changes.changed());
                    // Re-check on every recorder change, and at least every animation-ish tick
                    // while a document settles.
                    let tick = tokio::time::sleep(Duration::from_millis(50));
                    tokio::select! {
                        r = wait => if !matches!(r, Ok(Ok(()))) { return Err(no_element(message)); },
                        _ = tick => if tokio::time::Instant::now() >= deadline { return Err(no_element(message)); },
                    }
                }
            }
        }
    }

    /// Waits until the recorder runs in a frame of `page` whose URL contains `url_part` (the
    /// top frame or an iframe, out-of-process ones included). Returns whether it does.
    pub async fn wait_frame_ready(&self, page: &str, url_part: &str, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut changes = self.shared.changed.subscribe();
        loop {
            let ready = match self.shared.page(page) {
                None => false,
                Some(handle) => lock(&self.shared.worlds).iter().any(|w| {
                    w.page == page
                        && handle
                            .frame_state(&w.frame_id)
                            .is_some_and(|f| f.url.contains(url_part))
                }),
            };
            if ready {
                return true;
            }
            let tick = tokio::time::sleep(Duration::from_millis(50));
            tokio::select! {
                r = tokio::time::timeout_at(deadline, changes.changed()) => if !matches!(r, Ok(Ok(()))) { return false; },
                _ = tick => if tokio::time::Instant::now() >= deadline { return false; },
            }
        }
    }

    /// Adds an output now: an extract step at the current end of the recording, on the page
    /// the element is on. Returns its index.
    pub fn mark_output(&self, mark: OutputMark) -> Result<usize, RecordError> {
        let mut builder = lock(&self.shared.builder);
        let mut draft = Draft::new(self.draft.start_url.clone(), None);
        draft.steps = builder.steps.clone();
        if draft.output_fields().contains(&mark.name) {
            return Err(RecordError::Name(format!(
                "there is already an output named `{}`",
                mark.name
            )));
        }
        let page = mark
            .page
            .clone()
            .unwrap_or_else(|| builder.current_page().to_string());
        let step = mark.extract_step();
        let index = builder.steps.len();
        step.validate()
            .map_err(|message| RecordError::Mark { index, message })?;
        if page != builder.current_page() {
            return Err(RecordError::Mark {
                index,
                message: format!(
                    "the element is on the {page} page, but the recording is on the {} page",
                    builder.current_page()
                ),
            });
        }
        let best = mark.selector.candidates.first().map(|c| c.describe());
        let url = self.shared.page(&page).map(|p| p.url()).unwrap_or_default();
        let event = builder.append(RecordedStep {
            step,
            description: format!("Read {} into `{}`", mark.from.as_str(), mark.name),
            target: best.clone(),
            best_selector: best,
            page,
            url,
            recorded_value: None,
            secret: false,
            thumbnail_png: None,
            download: None,
            no_effect: false,
            content_follows: Vec::new(),
            position_follows_input: false,
        });
        drop(builder);
        self.shared.emit(vec![event]);
        Ok(index)
    }

    /// Answers the oldest open file chooser with `paths` (each must be an existing file): the
    /// files are set on its input and the click that opened it becomes an `upload` step.
    /// Returns the index of that step, or `None` when the chooser was not opened by a
    /// recorded click.
    pub async fn answer_file_chooser(
        &self,
        paths: &[PathBuf],
    ) -> Result<Option<usize>, RecordError> {
        let files = paths
            .iter()
            .map(|p| {
                let meta = std::fs::metadata(p)
                    .map_err(|e| RecordError::FileChooser(format!("{}: {e}", p.display())))?;
                if !meta.is_file() {
                    return Err(RecordError::FileChooser(format!(
                        "{} is not a file",
                        p.display()
                    )));
                }
                std::path::absolute(p)
                    .map(|a| a.to_string_lossy().into_owned())
                    .map_err(|e| RecordError::FileChooser(format!("{}: {e}", p.display())))
            })
            .collect::<Result<Vec<String>, RecordError>>()?;
        let chooser = lock(&self.shared.builder)
            .take_chooser(None)
            .ok_or(RecordError::NoFileChooser)?;
        if !chooser.request.multiple && files.len() > 1 {
            lock(&self.shared.builder).put_back_chooser(chooser);
            return Err(RecordError::FileChooser(format!(
                "the chooser takes one file, not {}",
                files.len()
            )));
        }
        // The input's `change` may be reported before the call returns: it is not a step.
        lock(&self.shared.builder).expect_files(&files);
        let conn = self.page.session().connection();
        conn.session(chooser.request.session.clone())
            .run(&dom::SetFileInputFiles {
                files: files.clone(),
                node: dom::NodeRef::BackendNodeId(chooser.request.backend_node_id),
            })
            .await
            .map_err(|e| {
                lock(&self.shared.builder).expect_files(&[]);
                RecordError::FileChooser(e.to_string())
            })?;
        let event = lock(&self.shared.builder).chooser_answered(&chooser, files);
        let index = match &event {
            Some(RecordEvent::StepUpdated { index, .. }) => Some(*index),
            _ => None,
        };
        self.shared.emit(event.into_iter().collect());
        Ok(index)
    }

    /// Asks the model for a better selector for the step at `index` (whose element must still
    /// be on the page). The suggestion is checked in the live page with the replayer's
    /// resolver: only when it matches exactly one element, the recorded one, is it added to
    /// the step's candidates, where its kind ranks. The call and its outcome are kept in the
    /// recording's metadata either way.
    pub async fn suggest_selector(
        &self,
        assist: &ModelAssist,
        index: usize,
    ) -> Result<SelectorSuggestion, RecordError> {
        let mark = |message: String| RecordError::Mark { index, message };
        let (recorded, token) = {
            let builder = lock(&self.shared.builder);
            let len = builder.steps.len();
            let recorded = builder
                .steps
                .get(index)
                .cloned()
                .ok_or(RecordError::NoSuchStep { index, len })?;
            (recorded, builder.token_of(index))
        };
        let selector = recorded
            .step
            .selector()
            .cloned()
            .ok_or_else(|| mark(format!("a {} step has no element", recorded.step.kind())))?;
        let token =
            token.ok_or_else(|| mark("the recording does not know the step's element".into()))?;
        let token_json = serde_json::to_string(&token).unwrap_or_default();
        let outline = self
            .in_page_worlds(
                &recorded.page,
                &format!("window.__bflowRecorder.outline({token_json})"),
            )
            .await
            .map_err(mark)?;
        let (mut call, answer) = assist
            .ask_selector(
                &recorded.description,
                &selector.candidates,
                outline["html"].as_str().unwrap_or_default(),
            )
            .await?;
        let mut suggestion = SelectorSuggestion {
            candidate: answer.as_ref().ok().cloned(),
            position: None,
            rejected: None,
        };
        match answer {
            Err(reason) => suggestion.rejected = Some(reason),
            Ok(candidate) => {
                let candidate_json = serde_json::to_string(&candidate).unwrap_or_default();
                let checked = self
                    .in_page_worlds(
                        &recorded.page,
                        &format!("window.__bflowRecorder.checkFor({token_json}, {candidate_json})"),
                    )
                    .await;
                let count = checked
                    .as_ref()
                    .map_or(0, |v| v["count"].as_u64().unwrap_or(0));
                let hits = checked.as_ref().is_ok_and(|v| v["target"] == true);
                suggestion.rejected = match checked {
                    Err(message) => Some(message),
                    Ok(_) if count == 0 => Some("it matches no element".into()),
                    Ok(_) if count > 1 => {
                        Some(format!("it is not unique: it matches {count} elements"))
                    }
                    Ok(_) if !hits => Some("it matches another element".into()),
                    Ok(_) => None,
                };
                if suggestion.rejected.is_none() {
                    let added = lock(&self.shared.builder).add_candidate(index, candidate);
                    if let Some((at, event)) = added {
                        suggestion.position = Some(at);
                        self.shared.emit(vec![event]);
                    }
                }
            }
        }
        call.outcome = Some(match (&suggestion.position, &suggestion.rejected) {
            (Some(at), _) => format!("added to step {} as candidate {}", index + 1, at + 1),
            (None, Some(reason)) => format!("rejected for step {}: {reason}", index + 1),
            (None, None) => format!("rejected for step {}", index + 1),
        });
        lock(&self.shared.builder).model_calls.push(call);
        Ok(suggestion)
    }

    /// Evaluates `expression` in the recorder worlds of `page` until one answers without an
    /// `error`; the last error otherwise.
    pub(super) async fn in_page_worlds(
        &self,
        page: &str,
        expression: &str,
    ) -> Result<Value, String> {
        let worlds: Vec<World> = lock(&self.shared.worlds)
            .iter()
            .filter(|w| w.page == page)
            .cloned()
            .collect();
        let conn = self.page.session().connection();
        let mut last = format!("the {page} page has no recorder");
        for world in worlds {
            match evaluate_in(conn, &world, expression).await {
                Ok(value) => return Ok(value),
                Err(error) => last = error,
            }
        }
        Err(last)
    }

    /// Evaluates `expression` in every recorder world and waits for the promise it returns,
    /// at most `budget` in all.
    pub(super) async fn in_every_world_awaiting(&self, expression: &str, budget: Duration) {
        let worlds = lock(&self.shared.worlds).clone();
        let conn = self.page.session().connection();
        let all = async {
            for world in worlds {
                let _ = conn
                    .session(world.session)
                    .run(&runtime::Evaluate {
                        await_promise: Some(true),
                        ..runtime::Evaluate::new(expression).in_context(world.context_id)
                    })
                    .await;
            }
        };
        let _ = tokio::time::timeout(budget, all).await;
    }

    pub(super) async fn in_every_world(&self, expression: &str) {
        let worlds = lock(&self.shared.worlds).clone();
        let conn = self.page.session().connection();
        for world in worlds {
            let _ = conn
                .session(world.session)
                .run(&runtime::Evaluate::new(expression).in_context(world.context_id))
                .await;
        }
    }
}
