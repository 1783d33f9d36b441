// Lists read as rows: an `extract_list` step's items (the highest-ranked candidate that matches
// any element finds them all) and, in each item, each field (the first of its candidates that
// matches exactly one element inside the item; none: the item itself; an empty value is a
// missing one). One call waits — on
// animation frames and mutations, never on fixed sleeps — until the rows are consistent with
// what the recording saw (items found, every required field present, figures where figures
// are expected, no `aria-busy` around an item) and have stayed the same for `quietMs` across
// painted frames: a list still filling in is not taken half-read.

import type { Found } from './reads';
import { norm, textOf } from './roles';
import { query, queryIn } from './resolve';
import { composedContains, deepElements } from './shadow';
import { cellUnder } from './table';
import { isVisible } from './visibility';
import type { Tables } from './table';
import type { Candidate, ControlState, ListAnswer, ListField, ListProblem, ListSpec } from './protocol/resolve';

const nextChange = (): Promise<void> => new Promise((resolve) => {
  let done = false;
  const observer = new MutationObserver(() => finish());
  const finish = () => { if (done) return; done = true; observer.disconnect(); resolve(); };
  requestAnimationFrame(() => finish());
  setTimeout(finish, 50);
  observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
});

/// The outermost of `els` (an item candidate matching nested elements finds the items, not
/// their parts), in the order found.
const outermost = (els: Element[]): Element[] => {
  const unique = Array.from(new Set(els));
  return unique.filter((e) => !unique.some((o) => o !== e && composedContains(o, e)));
};

/// The elements field candidate `c` matches inside `item`: its light tree and, for a web
/// component, its open shadow root; a shadow chain is followed from the item.
export const queryInItem = (c: Candidate, item: Element): Found => {
  let roots: ParentNode[] = item.shadowRoot ? [item, item.shadowRoot] : [item];
  for (const hostSel of c.shadow || []) {
    const next: ParentNode[] = [];
    for (const root of roots) {
      let hosts: Element[];
      try { hosts = Array.from(root.querySelectorAll(hostSel)); } catch (_) { return { error: 'invalid shadow host selector `' + hostSel + '`', permanent: true }; }
      for (const host of hosts) if (host.shadowRoot) next.push(host.shadowRoot);
    }
    roots = next;
  }
  const els: Element[] = [];
  for (const root of roots) {
    const r = queryIn(c, root);
    if ('error' in r) return r;
    els.push(...r.els);
  }
  return { els: Array.from(new Set(els)) };
};

/// The element of `field` in `item`: the cell under its column (a table's row), else the first
/// of its candidates that matches exactly one element there; null when none does.
const fieldElement = (field: ListField, item: Element, tables: Tables): Element | null => {
  if (field.column != null) {
    const cell = cellUnder(item, field.column, tables);
    if (cell !== undefined || !field.candidates.length) return cell || null;
  }
  if (!field.candidates.length) return item;
  for (const c of field.candidates) {
    const r = queryInItem(c, item);
    if ('error' in r) continue;
    if (r.els.length === 1) return r.els[0] as Element;
  }
  return null;
};

const rawOf = (field: ListField, el: Element): string | null => {
  if (field.from === 'value') return 'value' in el ? String((el as HTMLInputElement).value) : null;
  if (field.from === 'attribute') return el.getAttribute(field.attribute || '');
  return textOf(el);
};

const busy = (el: Element): boolean => !!el.closest('[aria-busy="true"]')
  || deepElements(el).some((e) => e.getAttribute('aria-busy') === 'true');

/// Reads `field` of `item` (at `index`, 0-based): the value, null for a missing optional field,
/// or why the item is not ready.
const readField = (field: ListField, item: Element, index: number, tables: Tables): { value: string | null } | { problem: ListProblem } => {
  const problem = (kind: ListProblem['kind'], value?: string | null): { problem: ListProblem } => ({
    problem: { kind, item: index + 1, field: field.name, itemText: norm(textOf(item)).slice(0, 80), value: value ?? null },
  });
  const el = fieldElement(field, item, tables);
  const raw = el ? rawOf(field, el) : null;
  // An empty value (a table's empty cell) is a missing one.
  if (raw === null || raw.trim() === '') return field.optional ? { value: null } : problem('missing');
  if (field.digits && !/\d/.test(raw)) return problem('unready', raw);
  if (field.url) {
    try { return { value: new URL(raw, el ? el.baseURI : document.baseURI).href }; } catch (_) { return problem('unready', raw); }
  }
  return { value: raw };
};

/// What a list's pages are told apart by: the URL, how many items there are, and the first
/// and last rows (a next page replaces them, a longer list changes its count and last row).
const signatureOf = (total: number, rows: (string | null)[][]): string =>
  JSON.stringify([location.href, total, rows.slice(0, 3), rows.length ? rows[rows.length - 1] : null]);

const disabled = (el: Element): boolean => (el as HTMLButtonElement).disabled === true
  || !!el.closest('[aria-disabled="true"], fieldset[disabled]');

/// The state of a pagination control (the first of `candidates` that finds a shown element):
/// absent, disabled, or ready to click.
export const controlState = (candidates: Candidate[]): ControlState => {
  for (let i = 0; i < candidates.length; i++) {
    const r = query(candidates[i] as Candidate);
    if ('error' in r) continue;
    const shown = r.els.filter((e) => isVisible(e));
    if (!shown.length) continue;
    return { state: shown.some((e) => !disabled(e)) ? 'ready' : 'disabled', candidate: i };
  }
  return { state: 'absent', candidate: null };
};

/// Reads the list of `spec` (see the top of this file).
export const extract = async (spec: ListSpec): Promise<ListAnswer> => {
  const deadline = performance.now() + spec.timeoutMs;
  const states = spec.items.map(() => 'not checked');
  let previous: { key: string; at: number; frames: number } | null = null;
  let frames = 0;
  const countFrame = () => { frames += 1; requestAnimationFrame(countFrame); };
  requestAnimationFrame(countFrame);
  for (;;) {
    let problem: ListProblem | null = null;
    let answer: Extract<ListAnswer, { ok: true }> | null = null;
    let winner = -1;
    let items: Element[] = [];
    for (let i = 0; i < spec.items.length; i++) {
      const r = query(spec.items[i] as Candidate);
      if ('error' in r) { states[i] = r.error; continue; }
      const els = outermost(r.els);
      if (!els.length) { states[i] = 'matched no element'; continue; }
      winner = i;
      items = els;
      states[i] = 'matched ' + els.length + ' item(s)';
      for (let j = i + 1; j < states.length; j++) states[j] = 'not needed (candidate ' + (i + 1) + ' matched)';
      break;
    }
    if (items.length >= spec.atLeast) {
      const taken = spec.limit == null ? items : items.slice(0, spec.limit);
      const rows: (string | null)[][] = [];
      const tables: Tables = new Map();
      for (let n = 0; n < taken.length && !problem; n++) {
        const item = taken[n] as Element;
        if (busy(item)) { problem = { kind: 'unready', item: n + 1, field: '', itemText: norm(textOf(item)).slice(0, 80), value: null }; break; }
        const row: (string | null)[] = [];
        for (const field of spec.fields) {
          const got = readField(field, item, n, tables);
          if ('problem' in got) { problem = got.problem; break; }
          row.push(got.value);
        }
        rows.push(row);
      }
      if (!problem) answer = { ok: true, winner: winner < 0 ? null : winner, total: items.length, rows, signature: signatureOf(items.length, rows) };
    }
    // A list's next page is taken only once it differs from the page before.
    let unchanged = false;
    if (answer && spec.unlike != null && answer.signature === spec.unlike) { answer = null; unchanged = true; }
    if (answer) {
      // Taken once the same rows held for `quietMs` and across a painted frame.
      const key = JSON.stringify([answer.total, answer.rows]);
      const now = performance.now();
      if (previous && previous.key === key) {
        if (now - previous.at >= spec.quietMs && frames > previous.frames) {
          if (spec.control) answer.control = controlState(spec.control);
          // An infinite list: its last item brought into view asks for the next items.
          if (spec.scrollLast && items.length) (items[items.length - 1] as Element).scrollIntoView({ block: 'end' });
          return answer;
        }
      } else previous = { key, at: now, frames };
    } else previous = null;
    if (performance.now() >= deadline) {
      if (answer && winner >= 0) states[winner] += ', whose rows were still changing';
      // The page before's rows stayed: the control's state tells a list that ended from a
      // next page that never came.
      if (unchanged) return { ok: false, states, problem, unchanged, control: spec.control ? controlState(spec.control) : null };
      return { ok: false, states, problem };
    }
    await nextChange();
  }
};
