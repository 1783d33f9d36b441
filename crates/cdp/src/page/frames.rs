//! The frame tree of a page and each frame's navigation state, out-of-process iframes included:
//! which session owns a frame, seeding from `Page.getFrameTree`, and where a point of a child
//! frame is in the main frame's viewport.

use std::collections::VecDeque;

use serde_json::{Value, json};

use super::{EvalError, Page, Shared};
use crate::session::CdpSession;

/// Navigation bookkeeping of one frame, fed by `Page.*` events.
#[derive(Debug, Clone, Default)]
pub struct FrameState {
    /// The parent frame's id (`None` for a main frame).
    pub parent: Option<String>,
    /// The URL of the document it shows.
    pub url: String,
    /// Its `name` (empty when it has none).
    pub name: String,
    /// The loader of the document the frame shows (the last one committed).
    pub loader_id: String,
    /// Lifecycle events (`DOMContentLoaded`, `load`, …) seen for `loader_id`; a late event
    /// of an earlier document is not one of them.
    pub lifecycle: Vec<String>,
    /// Between `Page.frameStartedLoading` and `Page.frameStoppedLoading`.
    pub loading: bool,
    /// Navigations of this tab the page asked for (`Page.frameRequestedNavigation`).
    pub requested: u64,
    /// The loader of the last cross-document navigation that started
    /// (`Page.frameStartedNavigating`), committed or not.
    pub last_started: Option<String>,
    /// The loader of the navigation started and neither committed nor ended yet.
    pub navigating: Option<String>,
    /// The loader of the last navigation that ended without committing a document (a
    /// download, a 204): the frame stopped loading while it was the one under way.
    pub last_abandoned: Option<String>,
    /// Lifecycle events of a document that has not committed yet (its `init` comes before
    /// its `frameNavigated`; a new process's placeholder document tells of its own), by
    /// loader: they become the frame's lifecycle only if that loader commits.
    pub uncommitted_lifecycle: Option<(String, Vec<String>)>,
    /// Loaders of the documents this frame showed before the current one (the last
    /// [`REPLACED_LOADERS_KEPT`]): their late lifecycle events are not the current document's.
    pub replaced_loaders: VecDeque<String>,
    /// How many navigations within its document (fragment, `history`) the frame made.
    pub same_document: u64,
    /// The flattened session that owns this frame (`None` = the page's own session).
    pub session: Option<String>,
    /// When the frame was first seen: siblings in attach order, for index paths.
    pub seq: u64,
}

/// How many replaced documents a frame remembers: a late event comes from the document just
/// replaced, or one before; the bound keeps a long-lived page's memory flat.
pub const REPLACED_LOADERS_KEPT: usize = 8;

impl FrameState {
    /// The frame now shows the document of `loader_id` (committed, or the first heard of):
    /// its lifecycle is what was heard of it before it committed, and the document it
    /// replaces is remembered as replaced.
    pub(super) fn show_document(&mut self, loader_id: &str) {
        if self.loader_id != loader_id {
            let replaced = std::mem::replace(&mut self.loader_id, loader_id.to_string());
            if !replaced.is_empty() {
                if self.replaced_loaders.len() == REPLACED_LOADERS_KEPT {
                    self.replaced_loaders.pop_front();
                }
                self.replaced_loaders.push_back(replaced);
            }
            if self.navigating.as_deref() == Some(loader_id) {
                self.navigating = None;
            }
        }
        self.lifecycle = match self.uncommitted_lifecycle.take() {
            Some((loader, events)) if loader == loader_id => events,
            _ => Vec::new(),
        };
    }

    /// Keeps a lifecycle event of a document that has not committed (yet).
    pub(super) fn note_uncommitted_lifecycle(&mut self, loader_id: &str, name: &str) {
        match &mut self.uncommitted_lifecycle {
            Some((loader, events)) if loader == loader_id => {
                // A document has a dozen lifecycle events at most: the bound only guards
                // against a misbehaving peer.
                if events.len() < 64 {
                    events.push(name.to_string());
                }
            }
            _ => self.uncommitted_lifecycle = Some((loader_id.to_string(), vec![name.to_string()])),
        }
    }

    /// True when `loader_id` is a document this frame showed before the current one.
    pub fn was_replaced(&self, loader_id: &str) -> bool {
        self.replaced_loaders.iter().any(|l| l == loader_id)
    }

    /// The current document fired `DOMContentLoaded`.
    pub fn parsed(&self) -> bool {
        self.lifecycle.iter().any(|l| l == "DOMContentLoaded")
    }

    /// The current document fired `load`, or the frame is not loading anything (a document
    /// that loaded before we were told of its lifecycle).
    pub fn loaded(&self) -> bool {
        self.lifecycle.iter().any(|l| l == "load") || !self.loading
    }
}

/// A point of a child frame, in the main frame's viewport ([`Page::frame_point`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FramePoint {
    /// The point in the main frame's viewport.
    pub at: (f64, f64),
    /// What an ancestor document shows at that point instead of the frame (an overlay).
    pub covered_by: Option<String>,
}

impl Page {
    pub(super) fn seed_frames(&self, tree: &Value, parent: Option<&str>, session: Option<&str>) {
        let frame = &tree["frame"];
        if let Some(id) = frame["id"].as_str() {
            let mut state = self.shared.state();
            let entry = state.frame_mut(id.to_string());
            entry.parent = parent.map(str::to_string);
            // The tree may be answered after events of a navigation that began meanwhile
            // were applied: it only fills in what they have not told yet.
            let tree_loader = frame["loaderId"].as_str().unwrap_or_default();
            if entry.loader_id.is_empty() {
                entry.loader_id = tree_loader.to_string();
            }
            if entry.loader_id == tree_loader {
                if entry.url.is_empty() {
                    entry.url = frame["url"].as_str().unwrap_or_default().to_string();
                }
                if entry.name.is_empty() {
                    entry.name = frame["name"].as_str().unwrap_or_default().to_string();
                }
            }
            if session.is_some() {
                entry.session = session.map(str::to_string);
            }
            drop(state);
            if let Some(children) = tree["childFrames"].as_array() {
                for child in children {
                    self.seed_frames(child, Some(id), session);
                }
            }
        }
        self.shared.bump();
    }

    /// The bookkeeping of frame `frame_id`, as it stands now.
    pub fn frame_state(&self, frame_id: &str) -> Option<FrameState> {
        self.shared.state().frames.get(frame_id).cloned()
    }

    /// Every frame of the page with its bookkeeping, by id, in no particular order.
    pub fn frames(&self) -> Vec<(String, FrameState)> {
        self.shared
            .state()
            .frames
            .iter()
            .map(|(id, f)| (id.clone(), f.clone()))
            .collect()
    }

    /// The URLs of every frame of the page (main frame first, then the others in no
    /// particular order), out-of-process iframes included.
    pub fn frame_urls(&self) -> Vec<String> {
        let main = self.target_id().to_string();
        let state = self.shared.state();
        let mut urls: Vec<String> = state
            .frames
            .get(&main)
            .map(|f| f.url.clone())
            .into_iter()
            .collect();
        urls.extend(
            state
                .frames
                .iter()
                .filter(|(id, _)| **id != main)
                .map(|(_, f)| f.url.clone()),
        );
        urls
    }

    pub(super) fn session_for_frame(&self, frame_id: &str) -> CdpSession {
        let state = self.shared.state();
        // A frame without its own session belongs to the nearest ancestor that has one.
        let mut current = Some(frame_id.to_string());
        while let Some(id) = current {
            let Some(frame) = state.frames.get(&id) else {
                break;
            };
            if let Some(session) = &frame.session {
                return self.shared.conn.session(Some(session.clone()));
            }
            current = frame.parent.clone();
        }
        self.session.clone()
    }

    /// Where `point` (CSS pixels in the viewport of `frame_id`) is in the main frame's
    /// viewport, and what covers it there: walking up the frame tree, each parent document
    /// must hit its iframe element at that point, or an overlay in the parent would take the
    /// click (the resolver's hit test only sees inside the frame). Scrolls each iframe into
    /// view when it is not.
    pub async fn frame_point(
        &self,
        frame_id: &str,
        point: (f64, f64),
    ) -> Result<FramePoint, EvalError> {
        let mut at = point;
        let mut covered_by = None;
        let mut current = frame_id.to_string();
        while let Some(frame) = self.frame_state(&current) {
            let Some(parent) = frame.parent.clone() else {
                break;
            };
            let parent_session = self.session_for_frame(&parent);
            let owner = parent_session
                .call("DOM.getFrameOwner", json!({ "frameId": current }))
                .await?;
            let backend_node_id = owner["backendNodeId"].as_i64().unwrap_or_default();
            let world = self.isolated_world(&parent).await?;
            let resolved = parent_session
                .call(
                    "DOM.resolveNode",
                    json!({ "backendNodeId": backend_node_id, "executionContextId": world.context_id }),
                )
                .await?;
            let object_id = resolved["object"]["objectId"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let answer = parent_session
                .call(
                    "Runtime.callFunctionOn",
                    json!({
                        "objectId": object_id,
                        "functionDeclaration": FRAME_POINT_JS,
                        "arguments": [{ "value": at.0 }, { "value": at.1 }],
                        "returnByValue": true,
                    }),
                )
                .await?;
            let value = &answer["result"]["value"];
            at = (
                value[0].as_f64().unwrap_or_default(),
                value[1].as_f64().unwrap_or_default(),
            );
            if covered_by.is_none() {
                covered_by = value[2].as_str().map(str::to_string);
            }
            current = parent;
        }
        Ok(FramePoint { at, covered_by })
    }
}

/// Fills in the frames of an out-of-process frame's own tree (its session's `Page.getFrameTree`),
/// which the events of that session did not tell yet.
pub(super) fn seed_child_tree(shared: &Shared, tree: &Value, session: Option<&str>) {
    let frame = &tree["frame"];
    let Some(id) = frame["id"].as_str() else {
        return;
    };
    {
        let mut state = shared.state();
        let entry = state.frame_mut(id.to_string());
        if entry.url.is_empty() {
            entry.url = frame["url"].as_str().unwrap_or_default().to_string();
        }
        if entry.name.is_empty() {
            entry.name = frame["name"].as_str().unwrap_or_default().to_string();
        }
        if let Some(parent) = frame["parentId"].as_str() {
            entry.parent = Some(parent.to_string());
        }
        entry.session = session.map(str::to_string);
    }
    if let Some(children) = tree["childFrames"].as_array() {
        for child in children {
            seed_child_tree(shared, child, session);
        }
    }
}

/// On an iframe element, with a point in its content's viewport: the point in this document's
/// viewport, and what this document shows there instead of the iframe (`null`: the iframe).
const FRAME_POINT_JS: &str = r#"function(x, y) {
  let r = this.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    r = this.getBoundingClientRect();
  }
  const cs = getComputedStyle(this);
  const px = r.left + this.clientLeft + parseFloat(cs.paddingLeft) + x;
  const py = r.top + this.clientTop + parseFloat(cs.paddingTop) + y;
  let hit = document.elementFromPoint(px, py);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(px, py);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  let covered = null;
  if (hit !== this) {
    const el = hit;
    covered = !el || !el.tagName ? String(el) : '<' + el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\s+/).join('.') : '') + '>';
  }
  return [px, py, covered];
}"#;
