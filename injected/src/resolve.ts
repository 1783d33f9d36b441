// Element resolution and actionability, evaluated in an isolated world of the target frame.
// One call waits (on animation frames, never on fixed sleeps) until the highest-ranked
// candidate that matches exactly one element is actionable, then optionally acts on it in the
// same task. Answers {ok: true, winner, point, result} or {ok: false, states: [reason per
// candidate]}.

import { markup as describe } from './describe';
import * as READS from './reads';
import type { Found } from './reads';
import * as REPEAT from './repeat';
import { labelMatches, nameMatches, norm, roleOf, sameRole, textOf } from './roles';
import { composedContains, deepElementFromPoint, deepElements, hostsOf } from './shadow';
import * as STATES from './states';
import { isVisible } from './visibility';
import type { ActionSpec, Answer, Candidate, Offset, Region, Spec, Structure, Within } from './protocol/resolve';

const UNPAINTED_STILL_MS = 250;
/// Waits for the next frame; `painted` counts the frames painted while one call waits:
/// stability is judged across frames, never across two timer wake-ups between which the page
/// painted nothing (on a busy machine an animation then looks still).
const nextFrame = (onMutation: boolean, painted: { frames: number }): Promise<void> => new Promise((resolve) => {
  // A frame callback, with a timer fallback so a page that is not painting still progresses.
  // Unless the element is being checked for stability (judged across frames), a DOM change
  // also wakes the loop: an element that appears, or text that arrives, is seen at once
  // instead of at the next frame.
  let done = false;
  let observer: MutationObserver | null = null;
  const finish = () => {
    if (done) return;
    done = true;
    if (observer) observer.disconnect();
    resolve();
  };
  requestAnimationFrame(() => { painted.frames += 1; finish(); });
  setTimeout(finish, 50);
  if (onMutation) {
    observer = new MutationObserver(finish);
    observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  }
});

const escapeAttr = (v: string): string => String(v).replace(/["\\]/g, '\\$&');

// Semantic candidates search the composed tree: every open shadow root under `root`, at any
// depth (shadow.ts), so "exactly one" counts the matches of every shadow root.
const deepMatching = (root: ParentNode, css: string): Element[] => deepElements(root).filter((e) => e.matches(css));
const innermost = (els: Element[]): Element[] => {
  const set = new Set(els);
  return els.filter((e) => !els.some((o) => o !== e && set.has(o) && composedContains(e, o)));
};

// A `structure` candidate: the element of role `c.value` by its place in something that changes
// less than it does — the form holding a field (by label or name), a landmark or labelled
// region (role, name), or what a combobox or button controls — then the pick: the form's
// default button, the n-th of the role there, or the only one.
const SUBMIT_INPUTS = new Set(['submit', 'image']);
const isSubmitButton = (e: Element): boolean => (e instanceof HTMLButtonElement && e.type === 'submit')
  || (e instanceof HTMLInputElement && SUBMIT_INPUTS.has(e.type));
// A form's fields, as the recorder counts them: no hidden inputs and no buttons.
const NOT_FIELD_TYPES = new Set(['hidden', 'submit', 'image', 'button', 'reset']);
const isField = (e: Element): e is HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement =>
  (e instanceof HTMLInputElement && !NOT_FIELD_TYPES.has(e.type))
  || e instanceof HTMLSelectElement || e instanceof HTMLTextAreaElement;
const byRole = (root: ParentNode, role: Region): Element[] => {
  const want = norm(role.role);
  const name = role.name == null ? null : norm(role.name);
  return deepElements(root).filter((e) => sameRole(roleOf(e), want) && (name === null || nameMatches(e, name)));
};
const byIdIn = (root: Node, id: string): Element | null =>
  ('getElementById' in root ? (root as Document | ShadowRoot).getElementById(id) : document.getElementById(id));
const anchorsOf = (within: Within, root: ParentNode): Element[] | null => {
  if ('form_with_field' in within) {
    const f = within.form_with_field;
    const fields = deepElements(root).filter(isField).filter((e) => ('label' in f
      ? labelMatches(e, norm(f.label)) : e.getAttribute('name') === f.name));
    return Array.from(new Set(fields.map((e) => e.form).filter((f): f is HTMLFormElement => f !== null)));
  }
  if ('region' in within) return byRole(root, within.region);
  if ('controlled_by' in within) {
    const out = new Set<Element>();
    for (const owner of byRole(root, within.controlled_by)) {
      const ids = ((owner.getAttribute('aria-controls') || '') + ' ' + (owner.getAttribute('aria-owns') || '')).trim().split(/\s+/);
      // An id reference names an element of the owner's own tree (document or shadow root).
      for (const id of ids.filter(Boolean)) { const e = byIdIn(owner.getRootNode(), id); if (e) out.add(e); }
    }
    return Array.from(out);
  }
  return null;
};
// An `nth` pick names an element by position only among as many elements of its role as the
// recording saw there (`s.of`): an anchor holding more (a second copy of a web component, an
// item added to a list) or fewer is an ambiguity the recording did not see, and the candidate
// finds nothing, naming what the anchor now holds.
const queryStructure = (c: Candidate, root: ParentNode): Found => {
  const s: Structure | undefined = c.structure;
  if (!s || !s.within) return { error: 'a structure candidate needs `structure.within`', permanent: true };
  const read = READS.structureMembers(c, s, root);
  if (read && 'error' in read) return read;
  const role = norm(c.value);
  const pick = s.pick || 'only';
  // The elements of the role at each anchor: the label and heading anchors give theirs at
  // once (as one anchor), the others are found here.
  let groups: Element[][];
  const found = new Set<Element>();
  if (read) groups = [read.members];
  else {
    const anchors = anchorsOf(s.within, root);
    if (!anchors) return { error: 'unknown structure anchor ' + JSON.stringify(Object.keys(s.within)), permanent: true };
    if (pick === 'items') {
      // Every item of the repeating structure there, whatever the role (an `extract_list`).
      for (const anchor of anchors) REPEAT.everyItemOf(anchor).forEach((e) => found.add(e));
      return { els: Array.from(found) };
    }
    if (pick === 'default_button') {
      for (const anchor of anchors) {
        // The form's default button: its first submit button in tree order (HTML §4.10.21.2).
        const form = anchor instanceof HTMLFormElement ? anchor : null;
        const button = form && Array.from(form.elements).find(isSubmitButton);
        if (button && roleOf(button) === role) found.add(button);
      }
      return { els: Array.from(found) };
    }
    if (typeof pick === 'object' && ('cell' in pick || 'item' in pick)) {
      for (const anchor of anchors) REPEAT.pick(anchor, role, pick).forEach((e) => found.add(e));
      return { els: Array.from(found) };
    }
    groups = anchors.map((anchor) => deepElements(anchor).filter((e) => roleOf(e) === role));
  }
  let moved: Element[] | null = null;
  for (const members of groups) {
    if (pick === 'only') members.forEach((e) => found.add(e));
    else if (typeof pick === 'object' && 'nth' in pick) {
      if (s.of && members.length !== s.of) { moved = moved || members; continue; }
      const m = members[pick.nth - 1];
      if (m) found.add(m);
    }
  }
  if (moved) {
    return { error: 'holds ' + moved.length + ' elements of role ' + role + ' where the recording saw ' + s.of
      + ': position does not tell which is meant: ' + matchesOf(moved) };
  }
  return { els: Array.from(found) };
};

// The elements an ambiguous candidate matched, each with the shadow hosts around it, so a
// failure says where the duplicates are (`<input#name> in <checkout-card#a>`).
const matchesOf = (els: Element[]): string => els.slice(0, 3).map((e) => describe(e)
  + hostsOf(e).reverse().map((h) => ' in ' + describe(h)).join('')).join(', ')
  + (els.length > 3 ? ', …' : '');

const TEST_ID_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];
const message = (e: unknown): string => (e instanceof Error && e.message ? e.message : String(e));

/// The elements candidate `c` matches in `root`, or why it cannot match.
export const queryIn = (c: Candidate, root: ParentNode): Found => {
  const v = c.value;
  try {
    switch (c.kind) {
      case 'css': return { els: Array.from(root.querySelectorAll(v)) };
      case 'id': return { els: Array.from(root.querySelectorAll('[id="' + escapeAttr(v) + '"]')) };
      case 'test_id': {
        const a = escapeAttr(v);
        return { els: deepMatching(root, TEST_ID_ATTRS.map((n) => '[' + n + '="' + a + '"]').join(',')) };
      }
      case 'placeholder': return { els: deepMatching(root, '[placeholder="' + escapeAttr(v) + '"]') };
      case 'xpath': {
        const out: Element[] = [];
        const snap = document.evaluate(v, root as Node, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        for (let i = 0; i < snap.snapshotLength; i++) {
          const n = snap.snapshotItem(i);
          if (n && n.nodeType === 1) out.push(n as Element);
        }
        return { els: out };
      }
      case 'role': return { els: byRole(root, { role: v, ...(c.name == null ? {} : { name: c.name }) }) };
      case 'accessible_name': {
        const want = norm(v);
        return { els: innermost(deepElements(root).filter((e) => nameMatches(e, want))) };
      }
      case 'label': {
        const want = norm(v);
        return { els: deepElements(root).filter((e) => labelMatches(e, want)) };
      }
      case 'text': {
        const want = norm(v);
        const hits = deepElements(root).filter((e) => {
          const tag = e.tagName;
          if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || tag === 'HEAD' || tag === 'SLOT') return false;
          // textContent leaves out a host's shadow tree, which its rendered text shows.
          if (!norm(e.textContent).includes(want) && !(e instanceof HTMLInputElement) && !e.shadowRoot) return false;
          return textOf(e) === want;
        });
        return { els: innermost(hits) };
      }
      case 'structure': return queryStructure(c, root);
      default: return { error: 'unknown selector kind `' + c.kind + '`', permanent: true };
    }
  } catch (e) {
    return { error: 'invalid selector: ' + message(e), permanent: true };
  }
};

/// The elements candidate `c` matches in the document: every match of every host of its
/// shadow chain is searched (a chain matches across hosts).
export const query = (c: Candidate): Found => {
  let roots: ParentNode[] = [document];
  for (const hostSel of c.shadow || []) {
    const next: ShadowRoot[] = [];
    let hosts = 0;
    for (const root of roots) {
      let found: NodeListOf<Element>;
      try { found = root.querySelectorAll(hostSel); } catch (_) { return { error: 'invalid shadow host selector `' + hostSel + '`', permanent: true }; }
      for (const host of found) {
        hosts++;
        if (host.shadowRoot) next.push(host.shadowRoot);
      }
    }
    if (!hosts) return { error: 'shadow host `' + hostSel + '` not found' };
    if (!next.length) return { error: 'shadow host `' + hostSel + '` has no open shadow root' };
    roots = next;
  }
  if (roots.length === 1) return queryIn(c, roots[0] as ParentNode);
  const els: Element[] = [];
  for (const root of roots) {
    const r = queryIn(c, root);
    if ('error' in r) return r;
    els.push(...r.els);
  }
  return { els };
};

const isDisabled = (el: Element): boolean => {
  try { if (el.matches(':disabled')) return true; } catch (_) { /* not a form control */ }
  return !!el.closest('[aria-disabled="true"]');
};
const TEXT_INPUTS = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number']);
const DIRECT_INPUTS = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);
const editability = (el: Element): string | null => {
  if (el instanceof HTMLInputElement) {
    // The type the browser gives it: an unknown `type` attribute is a text field (selectize's
    // search field says `type="select-one"`).
    const type = el.type;
    if (!TEXT_INPUTS.has(type) && !DIRECT_INPUTS.has(type)) return 'input of type `' + type + '` cannot be filled';
    if (el.readOnly) return 'element is read-only';
    return null;
  }
  if (el instanceof HTMLTextAreaElement) return el.readOnly ? 'element is read-only' : null;
  if (el instanceof HTMLSelectElement) return null;
  if ((el as HTMLElement).isContentEditable) return el.getAttribute('aria-readonly') === 'true' ? 'element is read-only' : null;
  return 'element is not an input, textarea, select or contenteditable';
};
// Whether a finite animation or transition (CSS or Web Animations) runs, or is about to, on
// `el` or an element around it: what moves or scales it has not finished. Endless ones (a
// spinner beside it) never finish, so they do not count.
const animating = (el: Element): boolean => {
  for (let n: Node | null = el; n && n.nodeType === 1;
    n = (n as Element).parentElement || (n.parentNode instanceof ShadowRoot ? n.parentNode.host : null)) {
    const e = n as Element;
    if (!e.getAnimations) continue;
    for (const a of e.getAnimations()) {
      if (a.playState !== 'running' && !a.pending) continue;
      const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
      if (timing && Number.isFinite(timing.endTime)) return true;
    }
  }
  return false;
};
const inViewport = (r: DOMRect): boolean => r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
// A recorded offset keeps its place in a box of another size (`Offset::place` in
// browserflow-steps): inside the recorded box at the same fraction of it, outside at the same
// distance from its nearest edge; without a recorded box, the same pixels. A point recorded
// inside stays inside by at least a pixel: one on the very edge (a drop released as its target
// slid away) would hit whatever borders the box once positions are rounded.
const EDGE_PX = 1;
const inside = (at: number, size: number): number => {
  const edge = Math.min(EDGE_PX, size / 2);
  return Math.min(Math.max(at, edge), size - edge);
};
const along = (at: number, recorded: number | undefined, now: number): number => (!(recorded !== undefined && recorded > 0) || at < 0 ? at
  : at > recorded ? now + (at - recorded) : inside(at / recorded * now, now));
/// The point an action presses in the box `r`: the recorded offset's place, else the centre.
export const actionPoint = (r: DOMRect, o: Offset | null | undefined): { x: number; y: number } => {
  if (!o) return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  const b = o.box || undefined;
  return { x: r.left + along(o.x, b && b.width, r.width), y: r.top + along(o.y, b && b.height, r.height) };
};

// Where the resolver leaves what the replayer's later snippets read (replay/*.ts).
declare global {
  // eslint-disable-next-line no-var
  var __browserflowWatched: Watched | undefined;
  // eslint-disable-next-line no-var
  var __browserflowPointerTarget: { el: Element; offset: [number, number] } | undefined;
  // eslint-disable-next-line no-var
  var __browserflowUploadTarget: HTMLInputElement | undefined;
}
/// A step's element and the focus, with their states before the action, and the mutation
/// count then: what the replayer's post-state check compares against (check_state).
export interface Watched {
  el: Element | null;
  before: STATES.States;
  active: Element | null;
  activeBefore: STATES.States;
  mutations: number;
}

type Acted = { done: true } | { type: true } | { fileInput: boolean } | { error: string };
const act = (el: Element, a: ActionSpec['act']): Acted | null => {
  if (!a) return null;
  const h = el as HTMLElement;
  if (a.kind === 'focus') { h.focus(); return { done: true }; }
  if (a.kind === 'scroll') {
    el.scrollTo(a.x, a.y);
    return { done: true };
  }
  if (a.kind === 'fill') {
    if (el instanceof HTMLSelectElement) {
      const want = a.value;
      const options = Array.from(el.options);
      const opt = options.find((o) => o.value === want) || options.find((o) => norm(o.label || o.text) === norm(want));
      if (!opt) return { error: 'no option `' + want + '` (options: ' + options.map((o) => o.value).join(', ') + ')' };
      el.focus();
      el.value = opt.value;
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { done: true };
    }
    if (el instanceof HTMLInputElement && DIRECT_INPUTS.has(el.type)) {
      el.focus();
      el.value = a.value;
      if (el.value !== a.value) return { error: 'the input rejected the value `' + a.value + '`' };
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { done: true };
    }
    h.focus();
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      el.select();
    } else {
      const range = document.createRange();
      range.selectNodeContents(el);
      const sel = getSelection();
      if (sel) {
        sel.removeAllRanges();
        sel.addRange(range);
      }
    }
    if (a.value === '') { document.execCommand('delete'); return { done: true }; }
    return { type: true };
  }
  if (a.kind === 'upload') {
    // A file input gets its files set directly; anything else is clicked to open a chooser.
    if (!(el instanceof HTMLInputElement) || el.type !== 'file') return { fileInput: false };
    if (a.count > 1 && !el.multiple) return { error: describe(el) + ' accepts one file, not ' + a.count };
    globalThis.__browserflowUploadTarget = el;
    return { fileInput: true };
  }
  return { error: 'unknown action `' + (a as { kind: string }).kind + '`' };
};

// A step in a repeating structure (`spec.reliesOn`, see the steps crate's `Repeat`) is found
// only by what it relies on. On content: only the candidates that name it (a place or a path
// finds whatever row is there now), and one that matches several ends the search — an extra
// card of the same kind is an ambiguity the recording did not see, and no place or path may
// settle it. On position: never by what it shows (the recorded row's text finds that row
// wherever the input put it), and a place that matches several (a grid still swapping its
// rows) is waited for, not stepped over. Either way, an element in a row that is still moving
// or fading (a finite CSS animation or transition on it or around it: a grid animates rows in
// and out after a filter) is waited for: a fading row is one the page is removing. Any other
// step holds to the same rule: once a candidate that names the element matches several, no
// candidate below it that finds by position (an `nth` pick, a CSS path through
// `:nth-…`/`:first-…`/`:last-…`/`:only-…`, an XPath through `[n]`) chooses among them —
// anchors that are not positions (a form's default button, the label beside a value) still may.
const NAMING = new Set(['test_id', 'role', 'label', 'placeholder', 'text', 'accessible_name', 'id']);
const relianceRule = (s: Spec) => {
  const isPlace = (c: Candidate) => {
    const p = c.structure && c.structure.pick;
    return !!(p && typeof p === 'object' && ('cell' in p || 'item' in p));
  };
  const positional = (c: Candidate) => {
    const p = c.structure && c.structure.pick;
    return isPlace(c) || !!(p && typeof p === 'object' && 'nth' in p)
      || (c.kind === 'css' && /:(?:nth-|first-|last-|only-)/.test(c.value))
      || (c.kind === 'xpath' && /\[\s*(?:\d|last\(|position\()/.test(c.value));
  };
  const decides = s.reliesOn === 'content' ? (c: Candidate) => NAMING.has(c.kind)
    : s.reliesOn === 'position' ? (c: Candidate) => !NAMING.has(c.kind) : null;
  const on = !!decides && s.candidates.some((c) => (s.reliesOn === 'content' ? NAMING.has(c.kind) : isPlace(c)));
  const rowAnimating = (el: Element) => typeof document.getAnimations === 'function' && document.getAnimations().some((a) => {
    const effect = a.effect as KeyframeEffect | null;
    const t = a.playState === 'running' && effect && effect.target;
    return !!t && t.contains(el) && effect.getComputedTiming().iterations !== Infinity;
  });
  // The first candidate that names the element and matched several in this pass (-1: none).
  let namedSeveral = -1;
  return {
    settling: (el: Element) => !!decides && rowAnimating(el),
    /// Starts a pass over the candidates.
    pass: () => { namedSeveral = -1; },
    /// Why candidate `c` is not consulted in this pass; null when it is.
    skips: (c: Candidate): string | null => {
      if (on && !!decides && !decides(c)) return 'not consulted: the step relies on its ' + s.reliesOn;
      if (namedSeveral >= 0 && positional(c)) {
        return 'not consulted: candidate ' + (namedSeveral + 1) + ' names several elements, and position does not choose among them';
      }
      return null;
    },
    /// Whether candidate `c` (at `i`), which matched several, ends the search.
    stopsAt: (c: Candidate, i: number) => {
      if (s.reliesOn !== 'position' && namedSeveral < 0 && NAMING.has(c.kind)) namedSeveral = i;
      return on && (s.reliesOn === 'content' ? NAMING.has(c.kind) : isPlace(c));
    },
    stop: (states: string[], i: number, els: Element[]) => {
      const named = els.slice(0, 5).map((e) => describe(e) + ' "' + textOf(e).slice(0, 40) + '"').join(', ');
      states[i] += ': ' + named + (els.length > 5 ? ', …' : '');
      for (let j = i + 1; j < states.length; j++) states[j] = 'not consulted: candidate ' + (i + 1) + ' is ambiguous';
    },
  };
};

/// Resolves `spec` (see the top of this file).
export const resolve = async (spec: Spec): Promise<Answer> => {
  const deadline = performance.now() + spec.timeoutMs;
  const propsMatch = (el: Element): boolean => {
    if (spec.mode !== 'wait') return true;
    for (const [k, v] of Object.entries(spec.properties || {})) {
      if (JSON.stringify((el as unknown as Record<string, unknown>)[k]) !== JSON.stringify(v)) return false;
    }
    return true;
  };
  const countOk = (n: number): boolean => {
    const want = spec.mode === 'wait' ? spec.count : null;
    if (!want) return n >= 1;
    if (want.op === '>=') return n >= want.value;
    if (want.op === '<=') return n <= want.value;
    return n === want.value;
  };

  // What to read or check on the chosen element; a reason means "not yet". The last value read
  // that was not (yet) consistent with the recording: the replayer's failure names it as the
  // actual value.
  let lastRead: { candidate: number; value: string } | null = null;
  const readRaw = (el: Element, read: NonNullable<ActionSpec['read']>): { value: string } | { reason: string } => {
    const from = read.from;
    if (from === 'text') return { value: textOf(el) };
    if (from === 'value') return 'value' in el ? { value: String((el as HTMLInputElement).value) } : { reason: describe(el) + ' has no value' };
    if (from === 'attribute') {
      const a = el.getAttribute(read.attribute || '');
      return a === null ? { reason: describe(el) + ' has no attribute `' + read.attribute + '`' } : { value: a };
    }
    return { reason: 'unknown source `' + from + '`' };
  };
  const readValue = (el: Element, index: number, read: NonNullable<ActionSpec['read']>): { value: string } | { reason: string } => {
    const got = readRaw(el, read);
    if ('reason' in got) return got;
    const why = READS.inconsistency(got.value, el, read);
    if (why) { lastRead = { candidate: index, value: got.value }; return { reason: describe(el) + ' ' + why }; }
    return got;
  };

  const painted = { frames: 0 };
  const states = spec.candidates.map(() => 'not checked');
  const reliance = relianceRule(spec);
  let previous: { el: Element; key: string; frame: number; at: number } | null = null;
  for (;;) {
    lastRead = null;
    let chosen: { index: number; el: Element } | null = null;
    let stabilizing = false;
    reliance.pass();
    for (let i = 0; i < spec.candidates.length; i++) {
      const candidate = spec.candidates[i] as Candidate;
      const skipped = reliance.skips(candidate);
      if (skipped) { states[i] = skipped; continue; }
      const r = query(candidate);
      if ('error' in r) { states[i] = r.error; continue; }
      let els = r.els;
      if (spec.mode === 'wait') {
        if (spec.properties) els = els.filter(propsMatch);
        if (spec.visible === true) els = els.filter(isVisible);
        if (spec.visible === false) {
          const visibleCount = els.filter(isVisible).length;
          const ok = spec.count ? countOk(els.length - visibleCount) : visibleCount === 0;
          if (ok) return { ok: true, winner: i, count: els.length };
          states[i] = visibleCount + ' matching element(s) still visible';
          continue;
        }
        if (countOk(els.length)) return { ok: true, winner: i, count: els.length };
        states[i] = 'matched ' + els.length + ' element(s)' + (spec.count ? ', waiting for ' + spec.count.op + ' ' + spec.count.value : '');
        continue;
      }
      const first = els[0];
      if (!first) { states[i] = 'matched no element'; continue; }
      if (els.length > 1) {
        states[i] = 'matched ' + els.length + ' elements (needs exactly one): ' + matchesOf(els);
        if (reliance.stopsAt(candidate, i)) { reliance.stop(states, i, els); break; }
        continue;
      }
      // A read takes a lower-ranked candidate only on the element the recording read.
      const stranger = i > 0 && spec.read && READS.notRecorded(first, spec.read);
      if (stranger) { states[i] = 'matched ' + describe(first) + ', ' + stranger; continue; }
      chosen = { index: i, el: first };
      for (let j = i + 1; j < spec.candidates.length; j++) states[j] = 'not needed (candidate ' + (i + 1) + ' matched)';
      break;
    }
    if (chosen && spec.mode !== 'wait') {
      const { index, el } = chosen;
      const req = spec.require;
      let reason: string | null = null;
      if (req.visible && !isVisible(el)) reason = describe(el) + ' is not visible';
      if (!reason && req.enabled && isDisabled(el)) reason = describe(el) + ' is disabled';
      if (!reason && req.editable) reason = editability(el);
      if (!reason && spec.read) {
        const got = readValue(el, index, spec.read);
        if ('reason' in got) reason = got.reason;
        else if (spec.expect) {
          const v = got.value;
          const e = spec.expect;
          if (e.equals != null && v !== norm(e.equals) && v !== e.equals) reason = 'is `' + v + '`, expected `' + e.equals + '`';
          else if (e.contains != null && !v.includes(e.contains)) reason = 'is `' + v + '`, expected it to contain `' + e.contains + '`';
          else return { ok: true, winner: index, result: v };
        } else return { ok: true, winner: index, result: got.value };
      }
      if (!reason && req.scroll) {
        const r0 = el.getBoundingClientRect();
        if (!inViewport(r0)) {
          el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
          // An element larger than the viewport: bring the action point itself into view.
          const p = actionPoint(el.getBoundingClientRect(), spec.offset);
          if (p.x < 0 || p.y < 0 || p.x >= innerWidth || p.y >= innerHeight) {
            scrollBy({ left: p.x - innerWidth / 2, top: p.y - innerHeight / 2, behavior: 'instant' });
          }
        }
      }
      if (!reason && req.stable) {
        const r = el.getBoundingClientRect();
        const key = [r.left, r.top, r.width, r.height].join(',');
        if (animating(el)) {
          // A menu growing in, a panel sliding: the point pressed would move under the pointer.
          previous = null;
          reason = describe(el) + ' is still moving (an animation runs on it or around it)';
          stabilizing = true;
        } else if (!previous || previous.el !== el || previous.key !== key) {
          previous = { el, key, frame: painted.frames, at: performance.now() };
          reason = describe(el) + ' is not stable yet';
          stabilizing = true;
        } else if (previous.frame === painted.frames && performance.now() - previous.at < UNPAINTED_STILL_MS) {
          // Same box, but no frame painted since: still unknown (a page that paints nothing at
          // all — a tab in the background — is taken as still after a while).
          reason = describe(el) + ' is not stable yet';
          stabilizing = true;
        }
      }
      if (!reason && reliance.settling(el)) { reason = describe(el) + ' is in a row still animating'; stabilizing = true; }
      if (!reason && req.hitTest) {
        const r = el.getBoundingClientRect();
        const p = actionPoint(r, spec.offset);
        if (p.x < 0 || p.y < 0 || p.x > innerWidth || p.y > innerHeight) reason = describe(el) + ' is outside the viewport';
        else {
          const hit = deepElementFromPoint(p.x, p.y);
          // An SVG shape's box includes unpainted area, where the hit is the drawing holding it.
          const svgCanvas = el instanceof SVGElement && hit instanceof SVGElement && composedContains(hit, el);
          if (!hit || (!composedContains(el, hit) && !svgCanvas)) reason = describe(el) + ' is covered by ' + describe(hit);
        }
      }
      if (!reason) {
        const r = el.getBoundingClientRect();
        // A step with post-state checks: its element's states and the focus before the action,
        // and mutations counted from now (read by the replayer's check after the action).
        if (spec.watch) {
          const active = STATES.deepActive();
          globalThis.__browserflowWatched = { el, before: STATES.statesOf(el), active,
            activeBefore: STATES.statesOf(active), mutations: STATES.countMutations() };
        }
        const done = act(el, spec.act);
        if (done && 'error' in done) return { ok: false, fatal: done.error, winner: index, states };
        const point = actionPoint(r, spec.offset);
        // The element a pointer action is about to press, and where on it: the replayer checks
        // that a press into a child frame reached this element (arm_pointer_probe).
        if (req.hitTest) globalThis.__browserflowPointerTarget = { el, offset: [point.x - r.left, point.y - r.top] };
        return { ok: true, winner: index, point, ...(done ? { result: done as Exclude<Acted, { error: string }> } : {}) };
      }
      states[index] = reason;
    }
    if (performance.now() >= deadline) return { ok: false, states, lastRead };
    await nextFrame(!stabilizing, painted);
  }
};
