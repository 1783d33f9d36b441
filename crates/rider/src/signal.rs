//! Cancellation: a [`CancelHandle`] that stops a run, and the [`CancelSignal`] every tool sees.

use tokio::sync::watch;

/// Requests cancellation of a run. Cheap to clone.
#[derive(Debug, Clone)]
pub struct CancelHandle {
    sender: std::sync::Arc<watch::Sender<bool>>,
}

/// Observes cancellation. Cheap to clone; present on every tool's context.
#[derive(Debug, Clone)]
pub struct CancelSignal {
    receiver: watch::Receiver<bool>,
    /// A second source a session adds of its own (its lease lost): either one stops it.
    also: Option<watch::Receiver<bool>>,
}

impl CancelHandle {
    /// A fresh handle, not cancelled.
    pub fn new() -> CancelHandle {
        let (sender, _) = watch::channel(false);
        CancelHandle {
            sender: std::sync::Arc::new(sender),
        }
    }

    /// Cancels: every signal made from this handle fires.
    pub fn cancel(&self) {
        self.sender.send_replace(true);
    }

    /// Whether [`CancelHandle::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        *self.sender.borrow()
    }

    /// A signal that fires when this handle is cancelled.
    pub fn signal(&self) -> CancelSignal {
        CancelSignal {
            receiver: self.sender.subscribe(),
            also: None,
        }
    }
}

impl Default for CancelHandle {
    fn default() -> Self {
        CancelHandle::new()
    }
}

impl CancelSignal {
    /// Whether the run has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        *self.receiver.borrow() || self.also.as_ref().is_some_and(|also| *also.borrow())
    }

    /// Completes when the run is cancelled (at once if it already is).
    pub async fn cancelled(&self) {
        match &self.also {
            None => fired(self.receiver.clone()).await,
            Some(also) => {
                tokio::select! {
                    () = fired(self.receiver.clone()) => {}
                    () = fired(also.clone()) => {}
                }
            }
        }
    }

    /// This signal, firing also when `other` is cancelled.
    pub(crate) fn or(mut self, other: &CancelHandle) -> CancelSignal {
        self.also = Some(other.sender.subscribe());
        self
    }
}

/// Completes when `receiver` says cancelled. A closed channel means its handle is gone:
/// nobody can cancel any more, so it waits forever.
async fn fired(mut receiver: watch::Receiver<bool>) {
    if receiver.wait_for(|cancelled| *cancelled).await.is_err() {
        std::future::pending::<()>().await;
    }
}
