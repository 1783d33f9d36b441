//! File choosers: intercepting them in the page and its out-of-process frames, and the ones
//! the page opened meanwhile.

use serde_json::{Value, json};

use super::Page;
use crate::session::{CdpError, CdpSession};

/// A file chooser the page opened while interception was on (`Page.fileChooserOpened`).
#[derive(Debug, Clone)]
pub struct FileChooser {
    /// The `<input type=file>` behind the chooser.
    pub backend_node_id: i64,
    /// `selectSingle` or `selectMultiple`.
    pub mode: String,
    /// The flattened session the event came from (`None` = the page's own session).
    pub session: Option<String>,
}

impl Page {
    /// File choosers opened so far (only while interception is on).
    pub fn file_choosers(&self) -> Vec<FileChooser> {
        self.shared.state().file_choosers.clone()
    }

    /// Turns interception of file choosers on or off, in the page and every out-of-process
    /// frame: while on, a chooser raises `Page.fileChooserOpened` instead of opening.
    pub async fn intercept_file_choosers(&self, enabled: bool) -> Result<(), CdpError> {
        let mut sessions: Vec<CdpSession> = vec![self.session.clone()];
        let children: Vec<String> = {
            let state = self.shared.state();
            let mut ids: Vec<String> = state
                .frames
                .values()
                .filter_map(|f| f.session.clone())
                .collect();
            ids.sort();
            ids.dedup();
            ids
        };
        sessions.extend(
            children
                .into_iter()
                .map(|id| self.shared.conn.session(Some(id))),
        );
        let calls = sessions.iter().map(|s| {
            s.call(
                "Page.setInterceptFileChooserDialog",
                json!({ "enabled": enabled }),
            )
        });
        let results = futures::future::join_all(calls).await;
        // The page's own session must accept it; a frame that went away meanwhile may not.
        results
            .into_iter()
            .next()
            .unwrap_or(Ok(Value::Null))
            .map(|_| ())
    }
}
