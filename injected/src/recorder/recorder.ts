// The recorder, injected into an isolated world of every frame (present and future). It listens
// to trusted input only, follows each press to its click (the click targets what was pressed),
// lifts clicks to the nearest interactive element, and describes each target with selector
// candidates, each checked in the live page by the replayer's own resolver (resolve.ts with
// roles.ts): how many elements it matches and whether the target is one of them. Messages go to
// the recorder through the `__bflow_record` binding as JSON (`send`, typed by
// protocol/recorder.ts).

import { describe as describeElement } from '../describe';
import * as READS from '../reads';
import * as REPEAT from '../repeat';
import { resolve } from '../resolve';
import { accessibleName, labelOf, norm, roleOf, textOf } from '../roles';
import { composedContains, composedParent, deepActive as focusedDeep, deepElementFromPoint, deepElements, hostsOf } from '../shadow';
import * as STATES from '../states';
import { isVisible } from '../visibility';
import type { Pick, Spec } from '../protocol/resolve';
import type {
  CheckedCandidate, DescribeAnswer, FieldRef, ListAnswer, ListLookup, TableAnswer, TableLookup, FrameInfo, Modifier, MouseButton, Offset, Outgoing, RecordedRead,
  RecorderMessage, Report, ReportOf, SelectorKind, StateCheck, Structure, TargetInfo, UncheckedCandidate,
} from '../protocol/recorder';
import * as PLACE from './press_owner';
import type { Press } from './press_owner';
import { describeList, describeTable } from './list_pick';
import { watchRepeats } from './repeat_watch';

const BINDING = '__bflow_record';
const TARGET_PROP = '__bflowTarget';

/// What Rust calls in the recorder's world (`live_page.rs`, `thumbnails.rs`).
export interface RecorderApi {
  flush(): Promise<boolean>;
  pick(on: boolean): boolean;
  secretValues(): string[];
  element(token: string): Element | null;
  outline(token: string): { html: string; description: string } | { error: string };
  checkFor(token: string, candidate: UncheckedCandidate): Promise<CheckedCandidate | { error: string }>;
  describeCss(css: string): Promise<DescribeAnswer>;
  describeList(spec: ListLookup): ListAnswer;
  describeTable(spec: TableLookup): TableAnswer;
}
declare global {
  interface Window {
    __bflowRecorder?: RecorderApi;
    [BINDING]?: (json: string) => void;
  }
}

const framePath = (): number[] | null => {
  const path: number[] = [];
  try {
    for (let w: Window = window; w !== w.top; w = w.parent) {
      const siblings = w.parent.frames;
      let i = 0;
      while (i < siblings.length && siblings[i] !== w) i++;
      if (i === siblings.length) return null;
      path.unshift(i);
    }
  } catch (_) { return null; }
  return path;
};
/// The frame this script runs in, as every message names it.
const frameInfo = (): FrameInfo => {
  const top = window === window.top;
  const frame: FrameInfo = { top, url: location.href, name: window.name || '' };
  // The window's viewport: the tool is replayed in the size it was recorded in.
  if (top) frame.viewport = { width: innerWidth, height: innerHeight };
  // A child frame's place among its siblings, from the top (two `about:blank` frames share
  // their URL).
  else frame.path = framePath();
  return frame;
};
const queue: string[] = [];
/// Sends one message to Rust, with the frame it comes from; queued until the binding exists.
export const send = (msg: Outgoing): void => {
  const full: RecorderMessage = { ...msg, frame: frameInfo() };
  queue.push(JSON.stringify(full));
  const binding = window[BINDING];
  if (typeof binding !== 'function') return;
  while (queue.length) {
    try { binding(queue[0] as string); } catch (_) { return; }
    queue.shift();
  }
};

// Generated ids (`ember123`, `react-x`, `:r5:`, hashes) and hashed class names change between
// builds or page loads: candidates built on them are ranked last.
const unstableId = (id: string): boolean => /\d{3,}/.test(id) || /^\d/.test(id) || /^(ember|ext-gen|yui_|react-|mui-|radix-|headlessui-|:r)/i.test(id)
  || (/[0-9a-f]{8,}/i.test(id) && /\d/.test(id));
// State classes (`Mui-focusVisible`, `is-active`, `selected`) come and go with focus, hover and
// selection: a path through them stops matching the moment the state changes.
const STATE_CLASS = /^(?:(?:Mui|Base|Joy)-(?:focused|focusVisible|selected|expanded|checked|active|disabled|error|readOnly)|(?:is|has)-[a-z-]+|[a-z]+-(?:chosen|ghost|drag|dragging)|active|focus|focused|focus-visible|hover|hovered|selected|open|opened|checked|expanded|current|pressed|dragging|dragged|drag-over|dragover)$/i;
// Generated: emotion's `css-1h2k3`, styled-components' `sc-bdVaJa`, styled-jsx, svelte; CSS
// modules' `Button_primary__3xYz_` (a hash of five after `__`, with a digit, a capital or a
// `_`/`-` — a BEM element, `card__title`, stays) and `_x1a2b` (a hash with a digit); Tailwind's
// variants (`hover:bg-sky-700`, `md:flex`) and arbitrary values (`w-[3px]`).
const unstableClass = (c: string): boolean => /^(css|sc|jsx|emotion|svelte)-[a-z0-9]+$/i.test(c)
  || /__(?=[\w-]{5}$)[\w-]*[\dA-Z_-]/.test(c) || /^_[\w-]*\d/.test(c) || /[:[\]]/.test(c)
  || /\d{3,}/.test(c) || STATE_CLASS.test(c);
const TEST_ID_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];
const testIdOf = (el: Element): { attr: string; value: string } | null => {
  for (const a of TEST_ID_ATTRS) { const v = el.getAttribute(a); if (v) return { attr: a, value: v }; }
  return null;
};
const q = (v: unknown): string => '"' + String(v).replace(/["\\]/g, '\\$&') + '"';

/// A CSS path to `el` inside `root`, anchored at the nearest stable id or test id.
export const cssPath = (el: Element, root: Node): { value: string; nth: number } => {
  const parts: string[] = [];
  let nth = 0;
  for (let n: Element | null = el; n && n.nodeType === 1; n = n.parentElement) {
    if (n !== el && n.id && !unstableId(n.id)) { parts.unshift('#' + CSS.escape(n.id)); break; }
    const tid = n !== el ? testIdOf(n) : null;
    if (tid) { parts.unshift('[' + tid.attr + '=' + q(tid.value) + ']'); break; }
    let part = n.localName;
    const classes = Array.from(n.classList).filter((c) => !unstableClass(c)).slice(0, 2);
    if (classes.length) part += '.' + classes.map((c) => CSS.escape(c)).join('.');
    const parent: ParentNode | null = n.parentElement || (n.parentNode === root ? root as ParentNode : null);
    if (parent) {
      const localName = n.localName;
      const same = Array.from(parent.children).filter((s) => s.localName === localName);
      if (same.length > 1) { part += ':nth-of-type(' + (same.indexOf(n) + 1) + ')'; nth++; }
    }
    parts.unshift(part);
    if (n.localName === 'body' || n.parentNode === root) break;
  }
  return { value: parts.join(' > '), nth };
};
/// A path through the stable classes of `el` and of as few ancestors as make it unique in
/// `root`, as descendants: no id, test id, position or text, so a redesign that changes ids
/// and test ids (or a build that changes hashed classes) keeps it; null when classes alone do
/// not name one element.
export const classPath = (el: Element, root: Node): string | null => {
  const partOf = (n: Element) => Array.from(n.classList).filter((c) => !unstableClass(c)).slice(0, 3)
    .map((c) => '.' + CSS.escape(c)).join('');
  const parts = [partOf(el)];
  if (!parts[0]) return null;
  const unique = () => {
    try { return (root as ParentNode).querySelectorAll(parts.join(' ')).length === 1; } catch (_) { return false; }
  };
  for (let n = el.parentElement; n && parts.length < 6 && !unique(); n = n.parentElement) {
    const part = partOf(n);
    if (part) parts.unshift(part);
  }
  return unique() ? parts.join(' ') : null;
};
const xpathOf = (el: Element): string => {
  const parts: string[] = [];
  for (let n: Node | null = el; n && n.nodeType === 1; n = n.parentNode) {
    const e = n as Element;
    if (e !== el && e.id && !unstableId(e.id)) { parts.unshift('//*[@id=' + q(e.id) + ']'); return parts.join('/'); }
    const parent = e.parentNode as ParentNode | null;
    const same = parent ? Array.from(parent.children).filter((s) => s.localName === e.localName) : [e];
    parts.unshift(e.localName + (same.length > 1 ? '[' + (same.indexOf(e) + 1) + ']' : ''));
  }
  return '/' + parts.join('/');
};

// A selector for a shadow host, unique within the root it lives in.
const hostSelector = (host: Element): string => {
  const root = host.getRootNode() as ParentNode & Node;
  const unique = (sel: string) => { try { return root.querySelectorAll(sel).length === 1; } catch (_) { return false; } };
  if (host.id && !unstableId(host.id) && unique('#' + CSS.escape(host.id))) return '#' + CSS.escape(host.id);
  const tid = testIdOf(host);
  if (tid && unique('[' + tid.attr + '=' + q(tid.value) + ']')) return '[' + tid.attr + '=' + q(tid.value) + ']';
  if (unique(host.localName)) return host.localName;
  return cssPath(host, root).value;
};

const INTERACTIVE = 'a[href],button,input,select,textarea,summary,label,option,'
  + '[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],'
  + '[role=slider],[role=spinbutton],[role=combobox],[role=treeitem],[role=menuitemcheckbox],[role=menuitemradio],'
  + '[contenteditable=""],[contenteditable=true],[onclick]';
const deepTarget = (e: Event): Element | null => {
  const path = e.composedPath();
  const first = path[0];
  if (first instanceof Node && first.nodeType === 1) return first as Element;
  return (first instanceof Node && first.parentElement) || null;
};
const isEditableContent = (el: Element): boolean => !!(el as HTMLElement).isContentEditable;
const hasStringValue = (el: Element): el is Element & { value: string } =>
  'value' in el && typeof (el as HTMLInputElement).value === 'string';

/// Installs the recorder in this world (once).
export const install = (): void => {
  if (window.__bflowRecorder) return;

  // Element identity across events of this document (a fill coalesces on it).
  const DOC = Math.random().toString(36).slice(2);
  let tokenSeq = 0;
  const tokens = new WeakMap<Element, string>();
  const byToken = new Map<string, WeakRef<Element>>();
  const tokenOf = (el: Element): string => {
    let token = tokens.get(el);
    if (!token) {
      token = DOC + '-' + (++tokenSeq);
      tokens.set(el, token);
      byToken.set(token, new WeakRef(el));
    }
    return token;
  };
  const elementOf = (token: string): Element | null => {
    const ref = byToken.get(token);
    const el = ref && ref.deref();
    return el && el.isConnected ? el : null;
  };

  // Elements inserted after the document was parsed: a step on one of them gets an explicit
  // wait for it first. `clock` orders appearances and scrolls: a scroll matters when the element
  // the next step uses appeared after the scroll began.
  const appeared = new WeakMap<Node, number>();
  let clock = 0;
  let parsed = document.readyState !== 'loading';
  document.addEventListener('DOMContentLoaded', () => { parsed = true; }, { once: true });
  new MutationObserver((records) => {
    refreshHidden();
    if (!parsed) return;
    clock++;
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) appeared.set(n, clock);
  }).observe(document, { childList: true, subtree: true, attributes: true });
  const appearedAt = (el: Element): number => {
    let at = 0;
    for (let n: Element | null = el; n; n = composedParent(n)) at = Math.max(at, appeared.get(n) || 0);
    return at;
  };

  const check = async (c: UncheckedCandidate, key: string, token: string): Promise<CheckedCandidate> => {
    const base: Spec = { candidates: [c], mode: 'wait', timeoutMs: 0, require: {} };
    let count = 0;
    let isTarget = false;
    try {
      const all = await resolve(base);
      count = all.ok ? all.count || 0 : 0;
      const mine = await resolve({ ...base, properties: { [key]: token } });
      isTarget = !!mine.ok;
    } catch (_) { /* an invalid candidate counts as no match */ }
    return { ...c, count, target: isTarget };
  };

  // Structure candidates: the element by its place in what changes least — the form holding one
  // of its other fields (the default button of the form holding the field labelled "Query"),
  // the popup a combobox controls, the nearest landmark or labelled region — so a redesign that
  // changes its id, text and test id still finds it. The resolver decides (resolve.ts
  // `queryStructure`); each is checked unique and on target like every candidate.
  const ANCHOR_ROLES = new Set(['form', 'region', 'dialog', 'alertdialog', 'navigation', 'main', 'banner',
    'contentinfo', 'complementary', 'search', 'listbox', 'menu', 'menubar', 'tablist', 'toolbar', 'radiogroup',
    'tree', 'grid', 'treegrid', 'table', 'group']);
  // Landmarks a page usually has one of: an anchor even without a name.
  const UNNAMED_ANCHOR_ROLES = new Set(['main', 'banner', 'contentinfo', 'navigation', 'search', 'dialog',
    'alertdialog', 'complementary', 'listbox', 'menu']);
  const POPUP_ROLES = new Set(['listbox', 'menu', 'tree', 'grid', 'dialog']);
  const MAX_STRUCTURE_KEPT = 2;
  // A read's own anchors (reads.ts `anchorsFor`), kept besides those two.
  const READ_ANCHORS = new Set(['beside_label', 'under_heading']);
  const isSubmitButton = (e: Element): boolean => (e instanceof HTMLButtonElement && e.type === 'submit')
    || (e instanceof HTMLInputElement && (e.type === 'submit' || e.type === 'image'));
  const NOT_FIELD_TYPES = new Set(['hidden', 'submit', 'image', 'button', 'reset']);
  const isField = (e: Element): boolean => (e instanceof HTMLInputElement && !NOT_FIELD_TYPES.has(e.type))
    || e instanceof HTMLSelectElement || e instanceof HTMLTextAreaElement;
  // Which of the elements of `role` in `anchor` is `el`: none needed when it is the only one,
  // else its place among how many (undefined: not inside).
  const pickIn = (anchor: Element, el: Element, role: string): { nth: number; of: number } | null | undefined => {
    const members = deepElements(anchor).filter((e) => roleOf(e) === role);
    const at = members.indexOf(el);
    if (at < 0) return undefined;
    return members.length === 1 ? null : { nth: at + 1, of: members.length };
  };
  // A place keeps the count it was taken among (`Structure::of`): replay refuses a position
  // among more or fewer elements than the recording saw.
  const withPick = (within: Structure['within'], pick: Pick | { nth: number; of: number } | null): Structure =>
    (!pick ? { within }
      : typeof pick === 'object' && 'of' in pick ? { within, pick: { nth: pick.nth }, of: pick.of } : { within, pick });
  const structuresFor = (el: Element, role: string): Structure[] => {
    const out: Structure[] = [];
    // A form-associated element's own form (it may sit outside it, `form=`), else the form
    // around it.
    const own = (el as HTMLInputElement).form;
    const form = own instanceof HTMLFormElement ? own : el.closest('form');
    if (form) {
      const isDefault = isSubmitButton(el) && Array.from(form.elements).find(isSubmitButton) === el;
      const pick = isDefault ? 'default_button' : pickIn(form, el, role);
      if (pick !== undefined) {
        const others = Array.from(form.elements).filter((f) => f !== el && isField(f));
        const refs: FieldRef[] = [];
        for (const f of others) { const l = labelOf(f); if (l && l.length <= 80) refs.push({ label: l }); }
        for (const f of others) { const n = f.getAttribute('name'); if (n) refs.push({ name: n }); }
        for (const ref of refs.slice(0, 2)) out.push(withPick({ form_with_field: ref }, pick));
      }
    }
    // The nearest anchor, through shadow boundaries: the resolver searches an anchor's shadow
    // trees too.
    for (let n = composedParent(el), depth = 0; n && depth < 40; n = composedParent(n), depth++) {
      const anchorRole = roleOf(n);
      if (!anchorRole || !ANCHOR_ROLES.has(anchorRole)) continue;
      const pick = pickIn(n, el, role);
      if (pick === undefined) continue;
      const id = n.id;
      if (id && POPUP_ROLES.has(anchorRole)) {
        const root = n.getRootNode() as ParentNode;
        const owner = root.querySelector('[aria-controls~=' + q(id) + '], [aria-owns~=' + q(id) + ']');
        const ownerRole = owner && roleOf(owner);
        const ownerName = owner && accessibleName(owner);
        if (ownerRole && ownerName && ownerName.length <= 80) {
          out.push(withPick({ controlled_by: { role: ownerRole, name: ownerName } }, pick));
        }
      }
      const name = accessibleName(n);
      if (name && name.length <= 80) { out.push(withPick({ region: { role: anchorRole, name } }, pick)); break; }
      if (UNNAMED_ANCHOR_ROLES.has(anchorRole)) { out.push(withPick({ region: { role: anchorRole } }, pick)); break; }
    }
    return out;
  };

  // Candidates the resolver searches for through every open shadow root: they need no chain of
  // shadow hosts (whose ids and classes a redesign changes), and are unique only when unique
  // across the whole page. CSS, XPath and ids stay inside their own tree.
  const PIERCING = new Set(['test_id', 'role', 'label', 'placeholder', 'text', 'accessible_name', 'structure']);
  const shadowChainOf = (el: Element): string[] => hostsOf(el).map(hostSelector);
  const candidatesFor = async (el: Element, opts?: { read?: boolean }): Promise<CheckedCandidate[]> => {
    const shadow = shadowChainOf(el);
    const root = el.getRootNode();
    const raw: UncheckedCandidate[] = [];
    const add = (kind: SelectorKind, value: unknown, extra?: Partial<UncheckedCandidate>) => {
      if (!value) return;
      const c: UncheckedCandidate = { kind, value: String(value), ...(extra || {}) };
      if (shadow.length && !PIERCING.has(kind)) c.shadow = shadow;
      raw.push(c);
    };
    const tid = testIdOf(el);
    if (tid) add('test_id', tid.value);
    const role = roleOf(el);
    const name = accessibleName(el);
    if (role && name && name.length <= 80) add('role', role, { name });
    const label = labelOf(el);
    if (label && label.length <= 80) add('label', label);
    add('placeholder', el.getAttribute('placeholder'));
    const tag = el.localName;
    if (!['input', 'textarea', 'select'].includes(tag) && !isEditableContent(el)) {
      const text = textOf(el);
      if (text && text.length <= 60) add('text', text);
    }
    if (el.id) add('id', el.id, { unstable: unstableId(el.id) });
    const nameAttr = el.getAttribute('name');
    if (['input', 'textarea', 'select', 'button'].includes(tag) && nameAttr) add('css', tag + '[name=' + q(nameAttr) + ']');
    if (role) for (const structure of structuresFor(el, role)) add('structure', role, { structure });
    // Its place in a grid, list or cards (repeat.ts): kept beside the other structures.
    const place = role && REPEAT.placeOf(el, role);
    if (place) add('structure', role, { structure: { within: place.within, pick: place.pick }, place: true });
    // A read also by what a person reads it by: the label beside it, its card's heading.
    if (opts && opts.read) for (const a of READS.anchorsFor(el)) add('structure', a.role, { structure: a.structure });
    const path = cssPath(el, root);
    add('css', path.value, { unstable: path.nth > 2 });
    // A read also by its classes alone, below the paths anchored on ids.
    if (opts && opts.read) add('css', classPath(el, root));
    if (!shadow.length && !(el instanceof SVGElement)) {
      const x = xpathOf(el);
      add('xpath', x, { unstable: (x.match(/\[\d+\]/g) || []).length > 3 });
    }
    const token = 'T' + tokenOf(el) + '-' + Math.random().toString(36).slice(2);
    // A property of this call's own: two descriptions of one element at once (its press and its
    // click) must not clear each other's mark.
    const key = TARGET_PROP + '-' + token;
    const marked = el as unknown as Record<string, unknown>;
    marked[key] = token;
    try {
      const checked = await Promise.all(raw.map((c) => check(c, key, token)));
      // A name the page uses in two components (each card's "Name" field) is ambiguous across
      // the page, but may be unique inside the element's own shadow tree: kept with its chain.
      if (shadow.length) {
        const ambiguous = checked.filter((c) => PIERCING.has(c.kind) && c.count > 1 && c.target);
        const chained = ambiguous.map(({ count: _count, target: _target, ...c }) => ({ ...c, shadow }));
        checked.push(...await Promise.all(chained.map((c) => check(c, key, token))));
      }
      // Of the structure candidates, the first that found exactly the target in each kind of
      // anchor (a form, a controlled popup, a region), at most two: independent anchors survive
      // more redesigns than two ways to name one form.
      const families = new Set<string>();
      return checked.filter((c) => {
        if (c.kind !== 'structure' || c.place || !c.structure) return true;
        const family = Object.keys(c.structure.within)[0] || '';
        if (!(c.count === 1 && c.target)) return false;
        if (READ_ANCHORS.has(family)) return true;
        if (families.has(family) || families.size >= MAX_STRUCTURE_KEPT) return false;
        families.add(family);
        return true;
      });
    } finally {
      delete marked[key];
    }
  };

  // Fields recorded as passwords, kept even if the page later shows them as text ("show
  // password"): thumbnails mask their values (see `secretValues`).
  const passwordFields = new Set<HTMLInputElement>();
  const secretValues = (): string[] => {
    const fields = new Set([...deepElements(document).filter((e): e is HTMLInputElement =>
      e instanceof HTMLInputElement && e.type === 'password'), ...passwordFields]);
    return Array.from(fields).map((f) => f.value).filter((v) => typeof v === 'string' && v !== '');
  };

  // What a read of a picked element sees (reads.ts): its text's shape — its value for a form
  // control, as the extract reads it — and its identity.
  const readOf = (el: Element): RecordedRead => {
    const control = hasStringValue(el) && ['input', 'textarea', 'select'].includes(el.localName);
    return { shape: READS.shapeOf(control ? el.value : textOf(el)), element: READS.identityOf(el) };
  };

  const repeatWatch = watchRepeats(tokenOf, deepTarget);
  const targetInfo = async (el: Element, opts?: { read?: boolean }): Promise<TargetInfo> => {
    const isPassword = el instanceof HTMLInputElement && el.type === 'password';
    if (isPassword) passwordFields.add(el);
    const info: TargetInfo = {
      token: tokenOf(el),
      candidates: await candidatesFor(el, opts),
      description: describeElement(el),
      tag: el.localName,
      inputType: el instanceof HTMLInputElement ? el.type : null,
      name: el.getAttribute('name') || el.id || '',
      label: labelOf(el) || norm(el.getAttribute('placeholder')),
      password: isPassword,
      appeared: appearedAt(el) > 0,
      appearedAt: appearedAt(el),
      text: textOf(el).slice(0, 200),
      repeat: repeatWatch.describe(el, roleOf(el)),
    };
    if (!isPassword && hasStringValue(el) && ['input', 'textarea', 'select'].includes(el.localName)) info.value = el.value;
    return info;
  };

  // Hover that reveals: the interactive elements hidden (by the one visibility rule,
  // visibility.ts) before each trusted pointer entry are kept; a click on one of them is
  // preceded by a hover on the element entered then.
  const hiddenNow = (): Set<Element> => {
    const hidden = new Set<Element>();
    for (const el of document.querySelectorAll(INTERACTIVE)) if (!isVisible(el)) hidden.add(el);
    return hidden;
  };
  let hiddenBefore: Set<Element> | null = null;
  let refreshTimer: ReturnType<typeof setTimeout> | null = null;
  // Page scripts change what is shown (a click opening a panel): refresh the snapshot after them.
  function refreshHidden() {
    if (refreshTimer || !document.documentElement) return;
    refreshTimer = setTimeout(() => { refreshTimer = null; hiddenBefore = hiddenNow(); }, 0);
  }
  const hoverHistory: { entered: Element[]; hidden: Set<Element> }[] = [];
  let hoverChain: Element[] = [];
  const chainOf = (el: Element): Element[] => { const c: Element[] = []; for (let n: Element | null = el; n; n = composedParent(n)) c.unshift(n); return c; };
  const revealedBy = (el: Element): Element | null => {
    for (let i = hoverHistory.length - 1; i >= 0; i--) {
      const entry = hoverHistory[i] as (typeof hoverHistory)[number];
      if (!entry.hidden.has(el)) continue;
      const candidates = entry.entered.filter((n) => n !== el && n !== document.body && n !== document.documentElement
        && !entry.hidden.has(n));
      return candidates.find((n) => n.matches(':hover')) || candidates[0] || null;
    }
    return null;
  };

  const lift = (el: Element): Element => {
    for (let n: Element | null = el, depth = 0; n && depth < 12; n = composedParent(n), depth++) {
      if (n.matches && n.matches(INTERACTIVE)) return n;
    }
    // Text slotted into a web component is hit on its `<slot>`, which has no box: the text
    // belongs to the component's host.
    const root = el.getRootNode();
    return el instanceof HTMLSlotElement && root instanceof ShadowRoot ? root.host : el;
  };

  // Events go out in order even though describing a target is asynchronous.
  let chain: Promise<unknown> = Promise.resolve();
  let actionSeq = 0;
  // Each report says which action it came from (the number of the last `acting`, below): reports
  // are made asynchronously and may arrive after the page has moved on. `at`: when the event
  // happened on the page's clock, what the network a gesture set off is attributed by
  // (`settle.rs`).
  const emit = (make: () => Promise<Report | null | undefined> | Report | null | undefined) => {
    const seq = actionSeq;
    const at = Date.now();
    chain = chain.then(make).then((p) => { if (p) send({ ...p, seq, doc: DOC, at }); }, () => {});
  };

  // Post-state: what each gesture (a press to its click or drag, a key) changed, sent as a
  // `state` message after the gesture's action, with its id: the states of its element that
  // changed (states.ts, the replayer's own), where the focus went and what the element focused
  // then shows, and whether the document changed at all. Read once the page's handlers ran: a
  // short while after the gesture, or at the start of the next trusted input, whichever is
  // first (so the next action's effects are never the last one's).
  interface Gesture extends PLACE.ClickGesture {
    id: string;
    el: Element | null;
    before: STATES.States;
    active: Element | null;
    mutations: number;
    timer?: ReturnType<typeof setTimeout>;
  }
  STATES.countMutations();
  const POST_STATE_DELAY_MS = 100;
  let gestureSeq = 0;
  let pendingGesture: Gesture | null = null;
  const beginGesture = (el: Element | null): Gesture => {
    finishGesture();
    return { id: DOC + ':' + (++gestureSeq), el, before: STATES.statesOf(el), active: STATES.deepActive(),
      mutations: STATES.mutations() };
  };
  const postState = (g: Gesture): ReportOf<'state'> => {
    const checks: StateCheck[] = [];
    if (g.el && g.el.isConnected) {
      for (const [state, value] of STATES.stateEntries(STATES.statesOf(g.el))) {
        if (g.before[state] !== value) checks.push({ state, equals: value });
      }
    }
    // Focus moved to another element than the step's own (which its click focuses anyway): its
    // role, and what it shows.
    const active = STATES.deepActive();
    const focus = active && active !== g.active && active !== g.el ? STATES.focusOf(active) : null;
    if (focus) {
      checks.push({ state: 'focus', equals: focus });
      for (const [state, value] of STATES.stateEntries(STATES.statesOf(active))) checks.push({ state, of: 'focused', equals: value });
    }
    if (STATES.mutations() > g.mutations) checks.push({ state: 'page', changes: true });
    return { type: 'state', gesture: g.id, checks };
  };
  function finishGesture() {
    const g = pendingGesture;
    if (!g) return;
    pendingGesture = null;
    clearTimeout(g.timer);
    const payload = postState(g);
    const owner = PLACE.laterOwner(g, STATES.deepActive());
    if (owner) g.clicked = owner.el;
    emit(async () => {
      const target = owner && await targetInfo(owner.el).catch(() => null);
      if (owner && target) payload.owner = { target, offset: owner.offset };
      return payload;
    });
  }
  // After the gesture's action was emitted: its post-state follows it.
  const endGesture = (g: Gesture | null | undefined) => {
    if (!g) return;
    if (pendingGesture !== g) finishGesture();
    pendingGesture = g;
    clearTimeout(g.timer);
    g.timer = setTimeout(finishGesture, POST_STATE_DELAY_MS);
  };
  for (const type of ['pointerdown', 'keydown', 'beforeinput']) {
    window.addEventListener(type, (e) => { if (e.isTrusted && !picking) { finishGesture(); lastClick = null; } }, true);
  }
  // The last press's click gesture, until the next trusted input: a framework may move the
  // focus a render or more after the click (later still on a busy machine), and the click's
  // owner follows it (an `owner` message moves the step; see press_owner.ts).
  let lastClick: Gesture | null = null;
  window.addEventListener('focusin', () => {
    const g = lastClick;
    const owner = g && PLACE.laterOwner(g, STATES.deepActive());
    if (!g || !owner) return;
    g.clicked = owner.el;
    emit(async () => {
      const target = await targetInfo(owner.el).catch(() => null);
      return target && { type: 'owner', gesture: g.id, owner: { target, offset: owner.offset } };
    });
  }, true);

  let picking = false;
  // Before each press, and each named key or shortcut, the page still shows what the steps
  // before it did: the recorder captures the previous step's thumbnail then. Numbered per
  // document (`DOC`, which also names its elements; `actionSeq` above).
  const acting = (e: Event) => {
    if (!e.isTrusted || picking) return;
    actionSeq += 1;
    // Whether this document holds a password value: a capture now must mask it.
    send({ type: 'acting', seq: actionSeq, doc: DOC, secrets: secretValues().length > 0, at: Date.now() });
  };
  window.addEventListener('pointerdown', acting, true);
  window.addEventListener('keydown', (e) => { if (e.key.length > 1 || e.ctrlKey || e.metaKey || e.altKey) acting(e); }, true);
  let labelClick: { control: Element } | null = null;
  let enterPressedAt = -Infinity;
  const TEXT_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'time',
    'datetime-local', 'month', 'week', 'color', 'range']);
  const editable = (el: Element): boolean => (el instanceof HTMLInputElement && TEXT_TYPES.has(el.type))
    || el instanceof HTMLTextAreaElement || isEditableContent(el);

  const swallow = (e: Event) => { if (picking && e.isTrusted) { e.preventDefault(); e.stopImmediatePropagation(); } };
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'dblclick', 'auxclick', 'contextmenu']) {
    window.addEventListener(type, swallow, true);
  }
  // Keys pressed while picking belong to picking, not to the page or the recording: Escape
  // leaves pick mode (nothing picked), every other key does nothing.
  for (const type of ['keydown', 'keypress', 'keyup'] as const) {
    window.addEventListener(type, (e) => {
      if (!picking || !e.isTrusted) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (type === 'keydown' && e.key === 'Escape') {
        api.pick(false);
        send({ type: 'pick_cancelled' });
      }
    }, true);
  }

  // The gesture model: a press (pointerdown) → release → click is one gesture, and the click
  // step targets the element PRESSED. A widget that opens on the press may put a backdrop under
  // the pointer; the release then lands on it, and the click's own target is the common
  // ancestor of the two (often `body`). What a hover revealed is read at the press, before the
  // press's own effects show or hide anything; later hovers start afresh.
  interface LeftPress extends Press {
    raw: Element;
    hover: Element | null;
    gesture: Gesture;
    offset: Offset;
    moved: boolean;
    dragged: boolean;
    owns: boolean;
    info: Promise<TargetInfo | null>;
  }
  let press: LeftPress | null = null;
  window.addEventListener('pointerdown', (e) => {
    if (!e.isTrusted || picking || e.button !== 0) return;
    const raw = deepTarget(e);
    if (!raw) { press = null; return; }
    const el = lift(raw);
    const r = el.getBoundingClientRect();
    // An element still hidden under the press was not revealed by a hover: the press itself
    // shows it (a date field's sections appear once focused).
    press = { raw, el, hover: isVisible(el) ? revealedBy(el) : null, x: e.clientX, y: e.clientY, gesture: beginGesture(el),
      offset: { x: e.clientX - r.left, y: e.clientY - r.top }, moved: false, dragged: false,
      owns: !!(el.matches && el.matches(INTERACTIVE)), boxes: PLACE.boxesAt(el), at: e.timeStamp,
      // Described now, while it is surely in the page: a widget may remove the element on the
      // release (a listbox's option closing its popup), and then no click follows.
      info: targetInfo(el).catch(() => null) };
    hoverHistory.length = 0;
  }, true);
  // A press whose pointer then travels further than a click's jitter is a drag.
  const DRAG_DISTANCE = 5;
  window.addEventListener('pointermove', (e) => {
    if (!e.isTrusted || !press || !(e.buttons & 1)) return;
    if (Math.hypot(e.clientX - press.x, e.clientY - press.y) > DRAG_DISTANCE) press.moved = true;
  }, true);
  // The release ends a drag (a press moved further than a click's jitter); either way, what the
  // press showed (a menu, its backdrop) was shown by the press, not by a hover: the hover
  // history starts again from what is hidden once the press's handlers ran.
  window.addEventListener('pointerup', (e) => {
    if (!e.isTrusted || picking || e.button !== 0) return;
    if (press && press.moved && !press.dragged) {
      // The release: over another element (a drop target) or wherever the move ended (a
      // slider's thumb follows the pointer, or the pointer is captured by it).
      press.dragged = true;
      const p = press;
      const by = { x: e.clientX - p.x, y: e.clientY - p.y };
      const under = deepElementFromPoint(e.clientX, e.clientY);
      const over = under && lift(under);
      const onto = over && over.matches && over.matches(INTERACTIVE) && !composedContains(p.el, over)
        && !composedContains(over, p.el) ? over : null;
      flushScrolls();
      emit(async () => {
        const payload: ReportOf<'drag'> = { type: 'drag', target: await targetInfo(p.el), offset: p.offset, by, gesture: p.gesture.id };
        if (onto) {
          const r = onto.getBoundingClientRect();
          payload.drop = await targetInfo(onto);
          payload.dropOffset = PLACE.pointIn(e.clientX, e.clientY, r);
        }
        return payload;
      });
      endGesture(p.gesture);
    }
    // A release that no click follows still ends a click gesture: the click is the pressed
    // element's, described at the press. The browser drops the click when the page removed or
    // moved the pressed element during the press or the release (a listbox's option closing its
    // popup, a list re-rendered), whether or not it is back in the page by now. A click, when
    // there is one, is dispatched in the mouse release's own task: by this timer it has been
    // seen (and has taken the press), so nothing is recorded twice. A touch's click comes from
    // a later tap gesture: there, only a pressed element gone from the page means no click.
    if (press && !press.moved && !picking) {
      const p = press;
      const clickFollowsInTask = e.pointerType === 'mouse';
      setTimeout(() => {
        if (press !== p || (!clickFollowsInTask && p.el.isConnected)) return;
        press = null;
        const owner = PLACE.ownerOf(p, STATES.deepActive());
        Object.assign(p.gesture, { press: p, clicked: owner });
        lastClick = p.gesture;
        flushScrolls();
        send({ type: 'clicking' });
        emit(async () => {
          const target = owner === p.el ? await p.info : await targetInfo(owner).catch(() => null);
          if (!target) return null;
          const payload: ReportOf<'click'> = { type: 'click', target, gesture: p.gesture.id };
          const offset = PLACE.offsetIn(p, owner);
          if (offset) payload.offset = offset;
          if (p.hover) {
            const hover = await targetInfo(p.hover).catch(() => undefined);
            if (hover) payload.hover = hover;
          }
          return payload;
        });
        endGesture(p.gesture);
        refreshHidden();
      }, 0);
    }
    hoverHistory.length = 0;
    hoverChain = [];
    hiddenBefore = hiddenNow();
  }, true);

  // HTML5 drag and drop: a trusted `dragstart` on a draggable element (the browser then sends
  // `pointercancel`, and neither a release nor a click follows) and a `drop` the page accepted
  // are one `drag` step, from where the source was pressed to the point of the drop. The source
  // is described at the dragstart and the drop target before the page's drop handler runs
  // (capture phase): the handler moves elements, and may remove the source (a re-render), so
  // the step goes out at the drop, not at the `dragend`. A drag the person cancels, or drops
  // where nothing accepts it, made no drop and is not recorded.
  let html5Drag: { source: Element; from: { x: number; y: number }; offset: Offset; info: Promise<TargetInfo | null>; gesture: Gesture } | null = null;
  const dropAnchor = (el: Element): Element => {
    for (let n: Element | null = el, depth = 0; n && depth < 12; n = composedParent(n), depth++) {
      if (n.nodeType === 1 && ((n as HTMLElement).draggable || (n.matches && n.matches(INTERACTIVE)))) return n;
    }
    return el;
  };
  window.addEventListener('dragstart', (e) => {
    if (!e.isTrusted || picking) { html5Drag = null; return; }
    const source = deepTarget(e);
    if (!source) { html5Drag = null; return; }
    const from = press ? { x: press.x, y: press.y } : { x: e.clientX, y: e.clientY };
    const r = source.getBoundingClientRect();
    html5Drag = { source, from, offset: { x: from.x - r.left, y: from.y - r.top },
      info: targetInfo(source).catch(() => null), gesture: press ? press.gesture : beginGesture(source) };
    // The press became this drag: it is neither a click nor a pointer drag.
    press = null;
  }, true);
  window.addEventListener('drop', (e) => {
    const d = html5Drag;
    html5Drag = null;
    if (!e.isTrusted || picking || !d) return;
    const under = deepTarget(e);
    const onto = under && dropAnchor(under);
    const offset = d.offset;
    const by = { x: e.clientX - d.from.x, y: e.clientY - d.from.y };
    // Dropped on the source itself (a sortable list that moves the dragged element under the
    // pointer as it goes): the target would be found where the source starts on replay, so the
    // move is what replays.
    let drop: { info: Promise<TargetInfo | null>; offset: Offset } | null = null;
    if (onto && !composedContains(d.source, onto)) {
      const r = onto.getBoundingClientRect();
      drop = { info: targetInfo(onto).catch(() => null), offset: PLACE.pointIn(e.clientX, e.clientY, r) };
    }
    flushScrolls();
    emit(async () => {
      const target = await d.info;
      if (!target) return null;
      const payload: ReportOf<'drag'> = { type: 'drag', offset, by, gesture: d.gesture.id, target };
      const dropInfo = drop && await drop.info;
      if (drop && dropInfo) { payload.drop = dropInfo; payload.dropOffset = drop.offset; }
      return payload;
    });
    endGesture(d.gesture);
  }, true);
  window.addEventListener('dragend', (e) => { if (e.isTrusted) html5Drag = null; }, true);

  window.addEventListener('click', (e) => {
    if (!e.isTrusted) return;
    const clicked = deepTarget(e);
    if (!clicked) return;
    const pressed: LeftPress | null = press;
    press = null;
    // The click that ends a drag is part of the drag.
    if (pressed && pressed.dragged) return;
    // The click ends the gesture its press began when its target holds the pressed element (the
    // same element, or the common ancestor of press and release). A click without that press (a
    // label's click on its control, a key's click: detail 0) is its own.
    const ofPress = pressed && e.detail > 0 && composedContains(clicked, pressed.raw) ? pressed : null;
    const raw = ofPress ? ofPress.raw : clicked;
    if (picking) {
      e.preventDefault();
      e.stopImmediatePropagation();
      picking = false;
      emit(async () => ({ type: 'pick', target: await targetInfo(raw, { read: true }), read: readOf(raw) }));
      return;
    }
    if (e.button !== 0 || e.detail > 1) return;
    // Enter in a form clicks its submit button (implicit submission): the key press is the step.
    if (e.detail === 0 && performance.now() - enterPressedAt < 1000) return;
    // A press's click belongs to the element that owns what the press did, at the press's place
    // in it; described as it was before the press (a page may set an id or a class on mousedown
    // that replay, which resolves before pressing, never sees).
    const el = ofPress ? PLACE.ownerOf(ofPress, STATES.deepActive()) : lift(raw);
    const offset = ofPress ? PLACE.offsetIn(ofPress, el) : undefined;
    const holdMs = ofPress ? PLACE.heldMs(ofPress, e.timeStamp) : undefined;
    const described = ofPress && el === ofPress.el ? ofPress.info : null;
    // A click on a label also clicks its control: record the label click only.
    if (labelClick && labelClick.control === el) { labelClick = null; return; }
    labelClick = el instanceof HTMLLabelElement && el.control ? { control: el.control } : null;
    if (labelClick) setTimeout(() => { labelClick = null; }, 0);
    flushScrolls();
    const hover = ofPress ? ofPress.hover : revealedBy(el);
    // Announced at once: a download or file chooser it starts may be reported before the
    // click's description is ready.
    send({ type: 'clicking' });
    const gesture = ofPress && ofPress.gesture ? ofPress.gesture : beginGesture(el);
    if (ofPress) {
      Object.assign(gesture, { press: ofPress, clicked: el });
      lastClick = gesture;
    }
    emit(async () => {
      const p: ReportOf<'click'> = { type: 'click', target: (described && await described) || await targetInfo(el), gesture: gesture.id };
      if (offset) p.offset = offset;
      if (holdMs) p.holdMs = holdMs;
      if (hover) p.hover = await targetInfo(hover);
      return p;
    });
    endGesture(gesture);
    refreshHidden();
  }, true);

  // Presses of the other buttons (middle, right, back, forward): a click of that button on the
  // element pressed, at its place, described before the page's handlers ran.
  const BUTTONS: MouseButton[] = ['left', 'middle', 'right', 'back', 'forward'];
  let auxPress: (Press & { button: number; gesture: Gesture; info: Promise<TargetInfo | null> }) | null = null;
  window.addEventListener('pointerdown', (e) => {
    if (!e.isTrusted || picking || e.button <= 0 || !BUTTONS[e.button]) return;
    const raw = deepTarget(e);
    if (!raw) return;
    const el = lift(raw);
    auxPress = { el, button: e.button, x: e.clientX, y: e.clientY, boxes: PLACE.boxesAt(el), at: e.timeStamp,
      gesture: beginGesture(el), info: targetInfo(el).catch(() => null) };
  }, true);
  window.addEventListener('pointerup', (e) => {
    const p = auxPress;
    if (!e.isTrusted || picking || !p || e.button !== p.button) return;
    auxPress = null;
    if (Math.hypot(e.clientX - p.x, e.clientY - p.y) > DRAG_DISTANCE) return;
    flushScrolls();
    send({ type: 'clicking' });
    const offset = PLACE.offsetIn(p, p.el);
    const holdMs = PLACE.heldMs(p, e.timeStamp);
    emit(async () => {
      const target = await p.info;
      if (!target) return null;
      const payload: ReportOf<'click'> = { type: 'click', button: BUTTONS[p.button] as MouseButton, target, gesture: p.gesture.id };
      if (offset) payload.offset = offset;
      if (holdMs) payload.holdMs = holdMs;
      return payload;
    });
    endGesture(p.gesture);
  }, true);

  window.addEventListener('dblclick', (e) => {
    if (!e.isTrusted || picking) return;
    const raw = deepTarget(e);
    if (!raw) return;
    const el = lift(raw);
    flushScrolls();
    emit(async () => ({ type: 'dblclick', target: await targetInfo(el) }));
  }, true);

  window.addEventListener('input', (e) => {
    if (!e.isTrusted) return;
    const el = deepTarget(e);
    if (!el || el instanceof HTMLSelectElement || !editable(el)) return;
    if (el === keyTarget) return;
    if (press && press.moved && composedContains(press.el, el) && !textEditing(el)) return;
    repeatWatch.noteInput(el);
    flushScrolls();
    // An editable element's text is read once the page's handlers ran: a widget may rewrite
    // what the browser inserted (a date field's year section shows "2026" after the key "6").
    const afterHandlers = isEditableContent(el)
      ? new Promise((resolve) => setTimeout(resolve, 0)) : null;
    emit(async () => {
      const target = await targetInfo(el);
      const p: ReportOf<'input'> = { type: 'input', target };
      if (afterHandlers) await afterHandlers;
      if (!target.password) p.value = isEditableContent(el) ? (el as HTMLElement).innerText : (el as HTMLInputElement).value;
      return p;
    });
  }, true);

  window.addEventListener('change', (e) => {
    if (!e.isTrusted) return;
    const el = deepTarget(e);
    if (!(el instanceof HTMLSelectElement)) return;
    repeatWatch.noteInput(el);
    flushScrolls();
    emit(async () => ({ type: 'select', value: el.value, target: await targetInfo(el) }));
  }, true);

  const EDITING_SHORTCUTS = new Set(['a', 'c', 'v', 'x', 'z', 'y']);
  // Keys that change state: recorded whenever focus is on a widget they drive, or (outside text
  // editing) whenever they changed the focus, a value or an ARIA state.
  const STATE_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End',
    'PageUp', 'PageDown', ' ', 'Backspace', 'Delete']);
  const WIDGET_ROLES = new Set(['combobox', 'listbox', 'option', 'menu', 'menubar', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'slider', 'spinbutton', 'tab', 'tablist', 'grid', 'gridcell',
    'tree', 'treeitem', 'treegrid', 'radio', 'radiogroup', 'checkbox', 'switch']);
  const WIDGET_KEYS_IN_TEXT = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown']);
  const NON_TEXT_TYPES = new Set(['range', 'color', 'date', 'time', 'datetime-local', 'month', 'week']);
  const textEditing = (el: Element): boolean => (el instanceof HTMLInputElement && TEXT_TYPES.has(el.type) && !NON_TEXT_TYPES.has(el.type))
    || el instanceof HTMLTextAreaElement || isEditableContent(el);
  // (A `<summary>` has no interface of its own: `HTMLSummaryElement` does not exist, and the
  // JavaScript recorder's `instanceof` on it threw, so Space was never recorded off a button.)
  const spaceClicks = (el: Element): boolean => el instanceof HTMLButtonElement || el.localName === 'summary'
    || (el instanceof HTMLInputElement && ['checkbox', 'radio', 'button', 'submit', 'reset'].includes(el.type));
  const widgetOf = (el: Element): Element | null => {
    for (let n: Element | null = el, depth = 0; n && depth < 6; n = composedParent(n), depth++) {
      const role = roleOf(n);
      if (role && WIDGET_ROLES.has(role)) return n;
    }
    return null;
  };
  const ARIA_STATES = ['aria-valuenow', 'aria-checked', 'aria-selected', 'aria-expanded', 'aria-pressed',
    'aria-activedescendant'];
  const stateOf = (el: Element): string => JSON.stringify([tokenOf(focusedDeep() || document.body),
    'value' in el ? String((el as HTMLInputElement).value) : null,
    (el as HTMLInputElement).checked === undefined ? null : (el as HTMLInputElement).checked,
    ARIA_STATES.map((a) => el.getAttribute(a))]);
  // The `input` a recorded key causes (a range input's value) is the key's, not a fill.
  let keyTarget: Element | null = null;
  const keyDriven = (el: Element) => { keyTarget = el; setTimeout(() => { if (keyTarget === el) keyTarget = null; }, 0); };
  window.addEventListener('keydown', (e) => {
    if (!e.isTrusted || e.isComposing) return;
    // Chromium delivers the key down and its character (whose default action submits the form)
    // as separate input events, so the click may come a task or more later.
    if (e.key === 'Enter') enterPressedAt = performance.now();
    const modifiers: Modifier[] = [];
    if (e.altKey) modifiers.push('alt');
    if (e.ctrlKey) modifiers.push('control');
    if (e.metaKey) modifiers.push('meta');
    if (e.shiftKey) modifiers.push('shift');
    const special = ['Enter', 'Tab', 'Escape'].includes(e.key);
    const shortcut = (e.ctrlKey || e.metaKey || e.altKey) && !['Control', 'Meta', 'Alt', 'Shift'].includes(e.key);
    const el = deepTarget(e);
    const onBody = !el || el === document.body || el === document.documentElement;
    const key = (watch: (() => Promise<boolean>) | null) => {
      flushScrolls();
      const gesture = beginGesture(onBody ? STATES.deepActive() : el);
      emit(async () => {
        // A key recorded because of what it changed: known once its handlers and default action
        // ran (the chain keeps later events behind it).
        if (watch && !(await watch())) return null;
        return { type: 'key', key: e.key, modifiers, target: onBody || !el ? null : await targetInfo(el), gesture: gesture.id };
      });
      endGesture(gesture);
    };
    if (special || shortcut) {
      if (shortcut && !special && el && editable(el) && EDITING_SHORTCUTS.has(e.key.toLowerCase())) return;
      key(null);
      return;
    }
    if (!STATE_KEYS.has(e.key) || !el) return;
    const widget = widgetOf(el);
    if (textEditing(el)) {
      // In a text field the keys edit the text (one `fill`), except those that move through the
      // options of the combobox or spinbutton it is.
      if (!widget || !WIDGET_KEYS_IN_TEXT.has(e.key)) return;
      keyDriven(el);
      key(null);
      return;
    }
    // Space on a native control clicks it: the click is the step.
    if (e.key === ' ' && spaceClicks(el)) return;
    keyDriven(el);
    if (widget) { key(null); return; }
    // Elsewhere: recorded when the key changed the focus, a value or an ARIA state.
    const before = stateOf(el);
    key(() => new Promise((resolve) => setTimeout(() => resolve(stateOf(el) !== before), 0)));
  }, true);

  window.addEventListener('mouseover', (e) => {
    if (!e.isTrusted || picking) return;
    const el = deepTarget(e);
    if (!el) return;
    const entering = chainOf(el);
    const entered = entering.filter((n) => !hoverChain.includes(n));
    hoverChain = entering;
    if (!entered.length) return;
    hoverHistory.push({ entered, hidden: hiddenBefore || new Set() });
    if (hoverHistory.length > 30) hoverHistory.shift();
    hiddenBefore = hiddenNow();
    refreshHidden();
  }, true);

  // Scrolls a person makes (wheel, touch, scrolling keys), coalesced per container: the last
  // position of each goes out before the next action, with the clock when it began.
  let userScrollUntil = 0;
  const userScrolling = (e: Event) => { if (e.isTrusted) userScrollUntil = performance.now() + 700; };
  window.addEventListener('wheel', userScrolling, { capture: true, passive: true });
  window.addEventListener('touchmove', userScrolling, { capture: true, passive: true });
  const SCROLL_KEYS = new Set(['PageDown', 'PageUp', 'ArrowDown', 'ArrowUp', 'ArrowLeft', 'ArrowRight', 'Home', 'End', ' ']);
  window.addEventListener('keydown', (e) => { if (SCROLL_KEYS.has(e.key)) userScrolling(e); }, true);
  const pendingScrolls = new Map<Element | null, { since: number; x: number; y: number }>();
  let scrollTimer: ReturnType<typeof setTimeout> | undefined;
  const flushScrolls = () => {
    clearTimeout(scrollTimer);
    scrollTimer = undefined;
    for (const [container, p] of pendingScrolls) {
      emit(async () => ({ type: 'scroll', since: p.since, x: p.x, y: p.y, target: container ? await targetInfo(container) : null }));
    }
    pendingScrolls.clear();
  };
  document.addEventListener('scroll', (e) => {
    if (!e.isTrusted || performance.now() > userScrollUntil) return;
    const t = e.target as Node;
    const isWindow = t === document || t === document.documentElement || t === document.scrollingElement;
    // A frame's own window has no selector in a scroll step: only the top window and elements.
    if ((isWindow && window !== window.top) || (!isWindow && t.nodeType !== 1)) return;
    const container = isWindow ? null : t as Element;
    let p = pendingScrolls.get(container);
    if (!p) { p = { since: clock, x: 0, y: 0 }; pendingScrolls.set(container, p); }
    p.x = container ? container.scrollLeft : window.scrollX;
    p.y = container ? container.scrollTop : window.scrollY;
    clearTimeout(scrollTimer);
    scrollTimer = setTimeout(flushScrolls, 150);
  }, true);

  // Files put into an <input type=file> directly (drag and drop); choosers are intercepted and
  // answered by the recorder, which records them itself.
  window.addEventListener('change', (e) => {
    if (!e.isTrusted) return;
    const el = deepTarget(e);
    if (!(el instanceof HTMLInputElement) || el.type !== 'file') return;
    flushScrolls();
    const names = Array.from(el.files || []).map((f) => f.name);
    emit(async () => ({ type: 'files', names, target: await targetInfo(el) }));
  }, true);

  // Pick mode: outline the element under the pointer; the next click is picked, not performed.
  let outlined: { el: HTMLElement; prev: string } | null = null;
  window.addEventListener('mouseover', (e) => {
    if (!picking || !e.isTrusted) return;
    const el = deepTarget(e);
    if (outlined) { outlined.el.style.outline = outlined.prev; outlined = null; }
    if (el && (el as HTMLElement).style) {
      const h = el as HTMLElement;
      outlined = { el: h, prev: h.style.outline };
      h.style.outline = '2px solid #e8590c';
    }
  }, true);

  // What `--extract-list` and `--extract-table` borrow: the rules of stable classes and hosts.
  const listTools = { hostSelector, stableClasses: (el: Element) => Array.from(el.classList).filter((c) => !unstableClass(c)) };
  const api: RecorderApi = {
    // The recording stops: the last gesture's post-state now, and every message sent.
    async flush() {
      flushScrolls();
      finishGesture();
      await chain;
      return true;
    },
    pick(on) {
      picking = !!on;
      if (!picking && outlined) { outlined.el.style.outline = outlined.prev; outlined = null; }
      return true;
    },
    // What a thumbnail must not show: the values of this document's password fields (and of
    // fields recorded as passwords). They stay in the page: the recorder masks them here.
    secretValues,
    // The element `token` names, while it is in the page (whether the page listens to its keys).
    element: elementOf,
    // The recorded element `token` names, for a model: its markup without values, trimmed.
    outline(token) {
      const el = elementOf(token);
      if (!el) return { error: 'the element is no longer on the page' };
      const copy = el.cloneNode(true) as Element;
      for (const n of [copy, ...copy.querySelectorAll('*')]) { n.removeAttribute('value'); if (n instanceof HTMLInputElement) n.value = ''; }
      const parent = el.parentElement;
      const context = parent ? '<' + parent.localName + Array.from(parent.attributes).map((a) => ' ' + a.name + '=' + q(a.value)).join('') + '>' : '';
      return { html: (context + copy.outerHTML).slice(0, 1500), description: describeElement(el) };
    },
    // Checks a suggested candidate against the recorded element `token`: {count, target}.
    async checkFor(token, candidate) {
      const el = elementOf(token);
      if (!el) return { error: 'the element is no longer on the page' };
      const shadow = shadowChainOf(el);
      const c: UncheckedCandidate = { ...candidate };
      if (shadow.length && !PIERCING.has(c.kind) && !(c.shadow && c.shadow.length)) c.shadow = shadow;
      const mark = 'S' + token + '-' + Math.random().toString(36).slice(2);
      const key = TARGET_PROP + '-' + mark;
      const marked = el as unknown as Record<string, unknown>;
      marked[key] = mark;
      try { return await check(c, key, mark); } finally { delete marked[key]; }
    },
    // Describes the element a CSS selector finds (for outputs given by selector).
    async describeCss(css) {
      let els: NodeListOf<Element>;
      try { els = document.querySelectorAll(css); } catch (e) { return { invalid: String(e) }; }
      const only = els[0];
      if (els.length !== 1 || !only) return { count: els.length };
      return { target: await targetInfo(only, { read: true }), read: readOf(only), frame: frameInfo() };
    },
    // Describes the list an `--extract-list` names: its items and fields, with candidates.
    describeList(spec) {
      return describeList(spec, listTools);
    },
    // Describes the table an `--extract-table` names: its data rows and columns.
    describeTable(spec) {
      return describeTable(spec, listTools);
    },
  };
  window.__bflowRecorder = api;
  send({ type: 'ready' });
};
