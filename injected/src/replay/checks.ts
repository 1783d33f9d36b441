// Post-state checks after a replayed step, read with the states of the resolver installed in
// the same world (its mutation count and the element it watched before the action).

import { roleAndName } from '../describe';
import './globals';

import type { CheckedState, StateCheck } from '../protocol/generated';

/// One post-state check (`StateCheck` in browserflow-steps, as `crate::checks` sends it).
export type Check = StateCheck;
type Outcome = { ok: true } | { ok: false; actual: string } | { gone: true; actual: string };

/// `(checks, budgetMs)`: waits (polling every 16 ms) until every post-state check holds, or the
/// budget is spent. Reads the element the resolver watched before the action
/// (`globalThis.__browserflowWatched`) with the resolver's own states; `{ok: true}` or
/// `{ok: false, actual: [what each check found]}`.
export const checkState = (checks: Check[], budgetMs: number) => new Promise<
  { ok: true } | { ok: false; missing: true } | { ok: false; actual: (string | null)[] }>((resolve) => {
  const R = globalThis.__browserflowResolve;
  const S = R && R.states;
  if (!S) { resolve({ ok: false, missing: true }); return; }
  const w = globalThis.__browserflowWatched || null;
  const deadline = performance.now() + budgetMs;
  const stateBefore = (el: Element, name: CheckedState): string | undefined => {
    if (!w) return undefined;
    if (el === w.el) return w.before[name];
    if (el === w.active) return w.activeBefore[name];
    return undefined;
  };
  const test = (c: Check): Outcome => {
    if (c.state === 'page') {
      if (!w) return { ok: false, actual: 'nothing was watched before the step' };
      return S.mutations() > w.mutations ? { ok: true } : { ok: false, actual: 'the page did not change' };
    }
    if (c.state === 'focus') {
      const a = S.deepActive();
      if (a && S.focusOf(a) === c.equals) return { ok: true };
      return { ok: false, actual: 'the focus is on ' + (a ? (roleAndName(a) || S.focusOf(a) || '<' + a.localName + '>') : 'nothing') };
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
    const held = results.filter((r) => 'ok' in r && r.ok).length;
    const gone = results.filter((r) => 'gone' in r).length;
    if (held + gone === results.length && held > 0) { resolve({ ok: true }); return; }
    if (performance.now() >= deadline) {
      resolve({ ok: false, actual: results.map((r) => ('ok' in r && r.ok ? null : (r as { actual: string }).actual)) });
      return;
    }
    setTimeout(tick, 16);
  };
  tick();
});

/// Before a key press with post-state checks and no element of its own: the focused element is
/// watched (as the resolver watches a step's element), and mutations counted from now.
export const watchFocused = (): boolean => {
  const R = globalThis.__browserflowResolve;
  const S = R && R.states;
  if (!S) return false;
  const el = S.deepActive();
  globalThis.__browserflowWatched = { el, before: S.statesOf(el), active: el,
    activeBefore: S.statesOf(el), mutations: S.countMutations() };
  return true;
};
