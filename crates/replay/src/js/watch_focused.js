// Before a key press with post-state checks and no element of its own: the focused element is
// watched (as the resolver watches a step's element), and mutations counted from now.
(() => {
  const R = globalThis.__browserflowResolve;
  const S = R && R.states;
  if (!S) return false;
  const el = S.deepActive();
  globalThis.__browserflowWatched = { el, before: S.statesOf(el), active: el,
    activeBefore: S.statesOf(el), mutations: S.countMutations() };
  return true;
})()
