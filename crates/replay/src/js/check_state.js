// `(checks, budgetMs)`: waits (polling every 16 ms) until every post-state check holds, or the
// budget is spent. Reads the element the resolver watched before the action
// (`globalThis.__browserflowWatched`) with the resolver's own states (states.js); `{ok: true}`
// or `{ok: false, actual: [what each check found]}`.
(checks, budgetMs) => new Promise((resolve) => {
  const R = globalThis.__browserflowResolve;
  const S = R && R.states;
  if (!S) { resolve({ ok: false, missing: true }); return; }
  const w = globalThis.__browserflowWatched || null;
  const deadline = performance.now() + budgetMs;
  const stateBefore = (el, name) => {
    if (!w) return undefined;
    if (el === w.el) return w.before[name];
    if (el === w.active) return w.activeBefore[name];
    return undefined;
  };
  const test = (c) => {
    if (c.state === 'page') {
      if (!w) return { ok: false, actual: 'nothing was watched before the step' };
      return S.mutations() > w.mutations ? { ok: true } : { ok: false, actual: 'the page did not change' };
    }
    if (c.state === 'focus') {
      const a = S.deepActive();
      if (a && S.focusOf(a) === c.equals) return { ok: true };
      return { ok: false, actual: 'the focus is on ' + (a ? (S.describe(a) || S.focusOf(a) || '<' + a.localName + '>') : 'nothing') };
    }
    const el = c.of === 'focused' ? S.deepActive() : (w && w.el);
    if (!el) return { ok: false, actual: c.of === 'focused' ? 'nothing has the focus' : 'no element was watched' };
    // Removed by the page since (a menu's option as its menu closes): its own states cannot be
    // read, so the step's other checks must show what it did.
    if (!el.isConnected) return { gone: true, actual: 'the element is no longer on the page' };
    const now = S.statesOf(el)[c.state];
    if (now == null) return { ok: false, actual: 'the element has no ' + c.state };
    if (c.contains != null) {
      return String(now).toLowerCase().includes(String(c.contains).toLowerCase())
        ? { ok: true } : { ok: false, actual: JSON.stringify(now) };
    }
    if (c.changes) {
      const before = stateBefore(el, c.state);
      return now !== before ? { ok: true } : { ok: false, actual: 'still ' + JSON.stringify(now) };
    }
    return now === c.equals ? { ok: true } : { ok: false, actual: JSON.stringify(now) };
  };
  const tick = () => {
    const results = checks.map(test);
    const held = results.filter((r) => r.ok).length;
    const gone = results.filter((r) => r.gone).length;
    if (held + gone === results.length && held > 0) { resolve({ ok: true }); return; }
    if (performance.now() >= deadline) { resolve({ ok: false, actual: results.map((r) => (r.ok ? null : r.actual)) }); return; }
    setTimeout(tick, 16);
  };
  tick();
})
