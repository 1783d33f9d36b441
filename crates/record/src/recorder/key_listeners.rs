//! Whether the page listens to keys on a field the person typed into: a dropdown that filters
//! on `keydown`/`keyup`, a framework that delegates every listener to its root (React), to the
//! document (jQuery's `on`) or to the window. Asked once per field, at its first `input`, with
//! CDP's `DOMDebugger.getEventListeners` on the field, each of its ancestors (across shadow
//! roots), its document and its window — in the page's own world, so the recorder's own
//! listeners (in its isolated world) are not counted. A fill of such a field replays key by
//! key; where nothing listens, the one `input` event of inserted text is all the page hears.

use serde_json::{Value, json};

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
        .call(
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": GROUP }),
        )
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
        .call(
            "Runtime.evaluate",
            json!({ "expression": expression, "contextId": context_id, "objectGroup": GROUP }),
        )
        .await?;
    let Some(isolated) = found["result"]["objectId"].as_str() else {
        return Ok(None);
    };
    // The same node in the page's own world: listeners are reported for the world the
    // object belongs to.
    let described = session
        .call("DOM.describeNode", json!({ "objectId": isolated }))
        .await?;
    let Some(backend_node_id) = described["node"]["backendNodeId"].as_i64() else {
        return Ok(None);
    };
    let resolved = session
        .call(
            "DOM.resolveNode",
            json!({ "backendNodeId": backend_node_id, "objectGroup": GROUP }),
        )
        .await?;
    let Some(field) = resolved["object"]["objectId"].as_str() else {
        return Ok(None);
    };
    let chain = session
        .call(
            "Runtime.callFunctionOn",
            json!({ "objectId": field, "functionDeclaration": LISTENING_CHAIN, "objectGroup": GROUP }),
        )
        .await?;
    let Some(chain) = chain["result"]["objectId"].as_str() else {
        return Ok(None);
    };
    let members = session
        .call(
            "Runtime.getProperties",
            json!({ "objectId": chain, "ownProperties": true }),
        )
        .await?;
    let ids: Vec<String> = members["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["name"].as_str().is_some_and(|n| n.parse::<u32>().is_ok()))
        .filter_map(|p| p["value"]["objectId"].as_str().map(str::to_string))
        .collect();
    // Asked together: each is answered in order on the session.
    let pending: Vec<_> = ids
        .iter()
        .map(|id| session.start("DOMDebugger.getEventListeners", json!({ "objectId": id })))
        .collect();
    let mut listening = false;
    for answer in pending {
        listening |= has_key_listener(&answer.await?);
    }
    Ok(Some(listening))
}

/// Whether a `DOMDebugger.getEventListeners` answer holds a listener of a key event.
fn has_key_listener(answer: &Value) -> bool {
    answer["listeners"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|l| l["type"].as_str().is_some_and(|t| KEY_EVENTS.contains(&t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_events_count_and_others_do_not() {
        let listeners = |types: &[&str]| json!({ "listeners": types.iter().map(|t| json!({ "type": t, "useCapture": false })).collect::<Vec<_>>() });
        assert!(has_key_listener(&listeners(&["input", "keyup"])));
        assert!(has_key_listener(&listeners(&["keypress"])));
        assert!(!has_key_listener(&listeners(&[
            "input",
            "change",
            "beforeinput",
            "focus"
        ])));
        assert!(!has_key_listener(&json!({})));
    }
}
