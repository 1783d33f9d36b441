// What a replayed step waits for once its action ran: the tasks it queued, and the document
// going quiet (`settle.rs` in browserflow-replay).

/// Resolves after a zero-delay timer: after the tasks an action queued.
export const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/// `(quietMs, capMs)`: resolves once the document went `quietMs` without a mutation (true), or
/// after `capMs` of a page that never holds still (false). What a step's settle waits for once
/// the requests its gesture started were answered (`settle.rs`).
export const quietMutations = (quietMs: number, capMs: number): Promise<boolean> => new Promise((resolve) => {
  const started = performance.now();
  let last = started;
  const observer = new MutationObserver(() => { last = performance.now(); });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const tick = () => {
    const now = performance.now();
    const busy = document.querySelector('[aria-busy="true"]') !== null;
    const quiet = now - last >= quietMs && !busy;
    if (quiet || now - started >= capMs) {
      observer.disconnect();
      resolve(quiet);
    } else {
      // Busy: the mark's removal is a mutation, and the window starts again from it.
      setTimeout(tick, busy ? quietMs : Math.max(1, quietMs - (now - last)));
    }
  };
  setTimeout(tick, quietMs);
});
