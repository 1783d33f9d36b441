//! The replayer's isolated world in each frame's document: made on demand, or as soon as a
//! main-frame document commits (prewarmed, with the resolver installed and the title the
//! document had once parsed), and reused while the frame shows that document.

use std::sync::Arc;

use serde_json::json;

use super::{EvalError, ExecContext, Page, PageState, Shared, WORLD_NAME};
use crate::session::CdpSession;

/// The replayer's isolated world of one frame's document: being made, or made.
#[derive(Debug, Clone)]
pub(super) struct CachedWorld {
    /// The document (loader) the world is for.
    pub(super) loader_id: String,
    pub(super) context: Arc<tokio::sync::OnceCell<ExecContext>>,
}

impl Page {
    /// The replayer's isolated world in `frame_id`'s current document: the one made earlier
    /// for this document when there is one (saves a round trip per step), else a fresh one.
    pub async fn isolated_world(&self, frame_id: &str) -> Result<ExecContext, EvalError> {
        Ok(self.utility_world(frame_id).await?.0)
    }

    /// Like [`Self::isolated_world`]; the flag says whether the world was just created by
    /// this call (so nothing has been installed in it yet).
    pub async fn utility_world(&self, frame_id: &str) -> Result<(ExecContext, bool), EvalError> {
        let slot = {
            let mut state = self.shared.state();
            let loader_id = state
                .frames
                .get(frame_id)
                .map(|f| f.loader_id.clone())
                .unwrap_or_default();
            match state.worlds.get(frame_id) {
                Some(world) if world.loader_id == loader_id => world.context.clone(),
                _ => {
                    let world = CachedWorld {
                        loader_id,
                        context: Arc::default(),
                    };
                    let slot = world.context.clone();
                    state.worlds.insert(frame_id.to_string(), world);
                    slot
                }
            }
        };
        let mut created = false;
        let made = slot
            .get_or_try_init(|| {
                created = true;
                create_isolated_world(self.session_for_frame(frame_id), frame_id.to_string())
            })
            .await;
        match made {
            Ok(context) => Ok((context.clone(), created)),
            Err(error) => {
                let mut state = self.shared.state();
                if state
                    .worlds
                    .get(frame_id)
                    .is_some_and(|w| Arc::ptr_eq(&w.context, &slot))
                {
                    state.worlds.remove(frame_id);
                }
                Err(error)
            }
        }
    }

    /// From now on, every new document of the main frame gets the replayer's isolated world
    /// made, with `install` evaluated in it, as soon as it commits: while the document loads,
    /// instead of on the next step's critical path (a round trip and a script compile per
    /// page).
    pub fn prewarm_worlds(&self, install: &str) {
        if let Ok(mut prewarm) = self.shared.prewarm.lock() {
            *prewarm = Some(Arc::from(install));
        }
    }

    /// Forgets the cached world of `frame_id` (its document went away under an evaluation).
    pub fn forget_world(&self, frame_id: &str) {
        self.shared.state().worlds.remove(frame_id);
    }

    /// Forgets every cached world (a frame on the way to an element went away).
    pub fn forget_all_worlds(&self) {
        self.shared.state().worlds.clear();
    }

    /// The main frame's title as its current document was parsed (`DOMContentLoaded`), when
    /// it was read then; [`Self::title`] reads it now.
    pub fn parsed_title(&self) -> Option<String> {
        let state = self.shared.state();
        let loader = &state.frames.get(self.target_id())?.loader_id;
        state.parsed_titles.get(loader).cloned()
    }
}

async fn create_isolated_world(
    session: CdpSession,
    frame_id: String,
) -> Result<ExecContext, EvalError> {
    let created = session
        .call(
            "Page.createIsolatedWorld",
            json!({ "frameId": frame_id, "worldName": WORLD_NAME }),
        )
        .await?;
    let context_id = created["executionContextId"]
        .as_i64()
        .ok_or(EvalError::Navigated)?;
    Ok(ExecContext {
        session,
        context_id: Some(context_id),
    })
}

/// Starts making (and installing) the world of a main-frame document that just committed.
pub(super) fn prewarm_world(
    session: &CdpSession,
    shared: &Arc<Shared>,
    frame_id: &str,
    loader_id: &str,
) {
    let Some(install) = shared.prewarm.lock().ok().and_then(|p| p.clone()) else {
        return;
    };
    let slot: Arc<tokio::sync::OnceCell<ExecContext>> = Arc::default();
    shared.state().worlds.insert(
        frame_id.to_string(),
        CachedWorld {
            loader_id: loader_id.to_string(),
            context: slot.clone(),
        },
    );
    let session = session.clone();
    let frame_id = frame_id.to_string();
    let shared = shared.clone();
    let loader_id = loader_id.to_string();
    tokio::spawn(async move {
        // A failure (the document went away already) leaves the slot empty: the next step
        // makes the world itself.
        let made = slot
            .get_or_try_init(|| async move {
                let world = create_isolated_world(session.clone(), frame_id).await?;
                let answer = session
                    .call(
                        "Runtime.evaluate",
                        json!({ "expression": &*install, "contextId": world.context_id }),
                    )
                    .await?;
                if answer.get("exceptionDetails").is_some() {
                    return Err(EvalError::Navigated);
                }
                Ok::<_, EvalError>(world)
            })
            .await;
        // The title once the document is parsed, asked now so that the answer comes as soon
        // as it is (a question asked after would wait behind the page's `load` handlers).
        if let Ok(world) = made {
            let answer = world
                .session
                .call(
                    "Runtime.evaluate",
                    json!({
                        "expression": PARSED_TITLE_JS,
                        "contextId": world.context_id,
                        "awaitPromise": true,
                        "returnByValue": true,
                    }),
                )
                .await;
            if let Some(title) = answer
                .ok()
                .and_then(|a| a["result"]["value"].as_str().map(str::to_string))
            {
                remember_title(&mut shared.state(), &loader_id, title);
                shared.bump();
            }
        }
    });
}

/// The document's title once it is parsed.
const PARSED_TITLE_JS: &str = "new Promise(r => { const title = () => r(document.title); \
    if (document.readyState !== 'loading') title(); \
    else document.addEventListener('DOMContentLoaded', title, { once: true }); })";

fn remember_title(state: &mut PageState, loader: &str, title: String) {
    // Only the current documents matter; a long session must not grow this forever.
    if state.parsed_titles.len() >= 16 {
        state.parsed_titles.clear();
    }
    state.parsed_titles.insert(loader.to_string(), title);
}
