//! JavaScript dialogs (alert, confirm, prompt, beforeunload): how the page answers them and
//! what it saw. The answer itself is decided by the event interpreter (`interpreter.rs`), in one
//! place, when a dialog opens.

use serde::{Deserialize, Serialize};

use super::Page;

/// What the page does with the next JavaScript dialog (alert, confirm, prompt, beforeunload).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DialogResponse {
    /// Accept (OK) or dismiss (Cancel).
    pub accept: bool,
    /// Text typed into a prompt before accepting.
    pub prompt_text: Option<String>,
}

/// A dialog that appeared and how it was answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DialogRecord {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    /// The dialog's message.
    pub message: String,
    /// Whether it was accepted.
    pub accepted: bool,
    /// The URL of the frame that opened it.
    pub url: String,
}

impl Page {
    /// Dialogs seen so far on this page, in order.
    pub fn dialogs(&self) -> Vec<DialogRecord> {
        self.shared.state().dialogs.clone()
    }

    /// Queues how to answer the next dialog (dialogs without a queued answer are dismissed,
    /// except `beforeunload`, which is accepted so navigations proceed).
    pub fn arm_dialog(&self, response: DialogResponse) {
        self.shared.state().armed_dialogs.push_back(response);
    }

    /// Leaves JavaScript dialogs open for the person at the window instead of answering them
    /// (armed answers are then ignored and no [`DialogRecord`] is kept).
    pub fn leave_dialogs_open(&self, leave: bool) {
        self.shared.state().dialogs_left_open = leave;
    }

    /// Accepts (OK) every dialog that has no armed answer, instead of dismissing it: a
    /// recording that accepts all dialogs.
    pub fn accept_dialogs(&self, accept: bool) {
        self.shared.state().accept_dialogs = accept;
    }

    /// How many JavaScript dialogs the page opened so far.
    pub fn dialog_count(&self) -> usize {
        self.shared.state().dialogs.len()
    }
}
