// Waiting on the page's own clock: frames, tasks, loads.

/// Resolves after two animation frames of the page it runs in.
export const nextFrames = (): Promise<boolean> =>
  new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))));

/// Resolves on the next animation frame, or after 50 ms of a page that paints nothing.
export const frameOrTimeout = (): Promise<void> => new Promise((resolve) => {
  let done = false;
  const finish = () => { if (!done) { done = true; resolve(); } };
  requestAnimationFrame(finish);
  setTimeout(finish, 50);
});

/// The title after the next animation frame (so a polling loop advances with the page).
export const nextFrameTitle = async (): Promise<string> => {
  await frameOrTimeout();
  return document.title;
};

/// Resolves once a freshly attached page has loaded a real document: its URL.
export const popupLoaded = (): Promise<string> => new Promise((resolve) => {
  const done = () => resolve(location.href);
  if (document.readyState === 'complete' && location.href !== 'about:blank') done();
  else addEventListener('load', done, { once: true });
});

/// `(check, budgetMs)`: polls `check` on animation frames until it is truthy or the budget is
/// spent; `{ ok, last }` with the last error `check` threw.
export const waitForExpression = async (check: () => unknown, budgetMs: number): Promise<{ ok: true } | { ok: false; last: string | null }> => {
  const deadline = performance.now() + budgetMs;
  let last: string | null = null;
  for (;;) {
    try {
      if (await check()) return { ok: true };
      last = null;
    } catch (e) {
      last = String((e instanceof Error && e.message) || e);
    }
    if (performance.now() >= deadline) return { ok: false, last };
    await frameOrTimeout();
  }
};

/// `(x, y)`: scrolls the window to a position.
export const scrollWindow = (x: number, y: number): void => window.scrollTo(x, y);
