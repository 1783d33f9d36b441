//! How many calls run at once: at most `max_concurrency` replay, at most `queue_limit` more
//! wait for a turn, and a call past both is answered at once with [`Busy`] instead of waiting
//! without end.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The gate every call passes.
#[derive(Debug)]
pub(crate) struct Gate {
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_concurrency: usize,
    queue_limit: usize,
}

/// A call refused because the server is full.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the server is busy: {running} calls are running (--max-concurrency) and {waiting} are \
     waiting (--queue-limit); call again when one has finished"
)]
pub struct Busy {
    /// Calls running.
    pub running: usize,
    /// Calls waiting.
    pub waiting: usize,
}

/// Counts a waiting call down however its wait ends (a turn, or the call cancelled).
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Gate {
    pub(crate) fn new(max_concurrency: usize, queue_limit: usize) -> Gate {
        let max_concurrency = max_concurrency.max(1);
        Gate {
            permits: Arc::new(Semaphore::new(max_concurrency)),
            waiting: AtomicUsize::new(0),
            max_concurrency,
            queue_limit,
        }
    }

    /// A turn: at once when one is free, after waiting when the queue has room, else
    /// [`Busy`]. Dropping the future gives up the place in the queue.
    pub(crate) async fn enter(&self) -> Result<OwnedSemaphorePermit, Busy> {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            return Ok(permit);
        }
        let before = self.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&self.waiting);
        if before >= self.queue_limit {
            return Err(Busy {
                running: self.max_concurrency,
                waiting: before,
            });
        }
        // The semaphore is never closed.
        self.permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Busy {
                running: self.max_concurrency,
                waiting: before,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn past_the_queue_a_call_is_refused_and_a_freed_turn_goes_to_the_waiting() {
        let gate = Arc::new(Gate::new(1, 1));
        let first = gate.enter().await.expect("a free turn");
        let waiter = {
            let gate = gate.clone();
            tokio::spawn(async move { gate.enter().await.map(drop) })
        };
        while gate.waiting.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        let refused = gate.enter().await.expect_err("the queue is full");
        assert_eq!(
            refused,
            Busy {
                running: 1,
                waiting: 1
            }
        );
        drop(first);
        waiter
            .await
            .expect("joined")
            .expect("the waiter got its turn");
        assert_eq!(gate.waiting.load(Ordering::SeqCst), 0);
    }
}
