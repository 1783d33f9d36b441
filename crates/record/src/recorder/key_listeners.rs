//! Whether the page listens to keys on a field the person typed into: a dropdown that filters
//! on `keydown`/`keyup`, a framework that delegates every listener to its root (React), to the
//! document (jQuery's `on`) or to the window. Asked once per field, at its first `input`, with
//! CDP's `DOMDebugger.getEventListeners` on the field, each of its ancestors (across shadow
//! roots), its document and its window — in the page's own world, so the recorder's own
//! listeners (in its isolated world) are not counted. A fill of such a field replays key by
//! key; where nothing listens, the one `input` event of inserted text is all the page hears.

use serde_json::Value;

use browserflow_cdp::commands::dom_debugger::{self, EventListener};
use browserflow_cdp::commands::{dom, runtime};
use browserflow_cdp::session::{CdpError, CdpSession};

/// The events a key press sends that inserted text does not.
const KEY_EVENTS: [&str; 3] = ["keydown", "keyup", "keypress"];

/// The objects the page's listeners may sit on for a key typed into `this`: the field, its
/// ancestors (a shadow root's host after its root), the document and its window.
const LISTENING_CHAIN: &str = "function () { \
    const chain = []; \
    for (let n = this; n; n = n.parentNode || n.host || null) chain.push(n); \
    const view = this.ownerDocument && this.ownerDocument.defaultView; \
    if (view) chain.push(view); \
    return chain; }";

const GROUP: &str = "browserflow-key-listeners";

/// Whether the page listens to key events on the field the recorder script (in world
/// `context_id` of `session`) knows as `token`. `None` when the field is gone.
pub(crate) async fn page_listens_to_keys(
    session: &CdpSession,
    context_id: i64,
    token: &str,
) -> Result<Option<bool>, CdpError> {
    let answer = listens(session, context_id, token).await;
    // Both worlds' handles are in the one group.
    let _ = session
        .run(&runtime::ReleaseObjectGroup {
            object_group: GROUP.to_string(),
        })
        .await;
    answer
}

async fn listens(
    session: &CdpSession,
    context_id: i64,
    token: &str,
) -> Result<Option<bool>, CdpError> {
    let expression = format!(
        "window.__bflowRecorder && window.__bflowRecorder.element({})",
        Value::String(token.to_string())
    );
    let found = session
        .run(&runtime::Evaluate {
            object_group: Some(GROUP.to_string()),
            ..runtime::Evaluate::new(expression).in_context(context_id)
        })
        .await?;
    let Some(isolated) = found.result.object_id else {
        return Ok(None);
    };
    // The same node in the page's own world: listeners are reported for the world the
    // object belongs to.
    let described = session
        .run(&dom::DescribeNode {
            object_id: isolated,
        })
        .await?;
    let resolved = session
        .run(&dom::ResolveNode {
            backend_node_id: described.node.backend_node_id,
            object_group: Some(GROUP.to_string()),
        })
        .await?;
    let Some(field) = resolved.object.object_id else {
        return Ok(None);
    };
    let chain = session
        .run(&runtime::CallFunctionOn {
            object_id: field,
            function_declaration: LISTENING_CHAIN.to_string(),
            object_group: Some(GROUP.to_string()),
        })
        .await?;
    let Some(chain) = chain.result.object_id else {
        return Ok(None);
    };
    let members = session
        .run(&runtime::GetProperties {
            object_id: chain,
            own_properties: true,
        })
        .await?;
    let ids: Vec<String> = members
        .result
        .into_iter()
        .filter(|p| p.name.parse::<u32>().is_ok())
        .filter_map(|p| p.value.and_then(|v| v.object_id))
        .collect();
    // Asked together: each is answered in order on the session.
    let pending: Vec<_> = ids
        .into_iter()
        .map(|object_id| session.send(&dom_debugger::GetEventListeners { object_id }))
        .collect();
    let mut listening = false;
    for answer in pending {
        listening |= has_key_listener(&answer.await?.listeners);
    }
    Ok(Some(listening))
}

/// Whether a listener of a key event is among `listeners`.
fn has_key_listener(listeners: &[EventListener]) -> bool {
    listeners
        .iter()
        .any(|l| KEY_EVENTS.contains(&l.event.as_str()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn key_events_count_and_others_do_not() {
        let listeners = |types: &[&str]| -> Vec<EventListener> {
            let answer = json!({ "listeners": types.iter().map(|t| json!({ "type": t, "useCapture": false })).collect::<Vec<_>>() });
            serde_json::from_value::<dom_debugger::Listeners>(answer)
                .unwrap()
                .listeners
        };
        assert!(has_key_listener(&listeners(&["input", "keyup"])));
        assert!(has_key_listener(&listeners(&["keypress"])));
        assert!(!has_key_listener(&listeners(&[
            "input",
            "change",
            "beforeinput",
            "focus"
        ])));
        assert!(!has_key_listener(&listeners(&[])));
    }
}
