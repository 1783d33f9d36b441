// A list demonstrated by selectors (`bflow record --extract-list`): the items a CSS selector
// finds (through open shadow roots) and, in each item, each field's element; then the
// candidates a replay finds them by, each checked here on every item. For the items: the
// `items` pick of the nearest landmark or named region whose repeating structure is exactly
// these items (classes and ids may change, the repetition does not), the items' shared stable
// classes, and the selector as given. For each field, relative to the item: the selector as
// given, its element's stable classes, and a path of tags (`span:nth-of-type(1)`) — kept only
// where it finds, in every item, exactly the element the given selector finds there.

import { queryInItem } from '../list';
import * as TABLE from '../table';
import { accessibleName, norm, roleOf, textOf } from '../roles';
import { query } from '../resolve';
import { composedContains, composedParent, deepElements, hostsOf } from '../shadow';
import type { Candidate } from '../protocol/resolve';
import type {
  DescribedColumn, DescribedField, ListAnswer, ListCandidate, ListLookup, TableAnswer, TableLookup,
} from '../protocol/generated';

/// What the recorder lends: its rules for stable classes and for naming a shadow host.
export interface Tools {
  stableClasses: (el: Element) => string[];
  hostSelector: (host: Element) => string;
}

// Anchors an `items` pick may start from: landmarks, named regions and groups, and the
// repeating structures themselves.
const ANCHORS = new Set(['main', 'region', 'navigation', 'complementary', 'form', 'dialog', 'search', 'group',
  'contentinfo', 'banner', 'list', 'feed', 'table', 'grid', 'treegrid']);
const NEEDS_NAME = new Set(['region', 'group', 'form']);

const sameList = (a: Element[], b: Element[]): boolean => a.length === b.length && a.every((e, i) => e === b[i]);
const outermost = (els: Element[]): Element[] => els.filter((e) => !els.some((o) => o !== e && o.contains(e)));
const toCandidate = (c: ListCandidate): Candidate => ({ kind: c.kind, value: c.value, shadow: c.shadow,
  ...(c.structure ? { structure: c.structure } : {}) });
const same = (a: ListCandidate, b: ListCandidate): boolean => JSON.stringify(a) === JSON.stringify(b);

/// The item candidates that find exactly `items`, best first.
const itemCandidates = (items: Element[], css: string, tools: Tools): ListCandidate[] => {
  const first = items[0] as Element;
  const out: ListCandidate[] = [];
  const keep = (c: ListCandidate) => {
    if (out.some((o) => same(o, c))) return;
    const r = query(toCandidate(c));
    if (!('error' in r) && sameList(outermost(r.els), items)) out.push(c);
  };
  // The `items` pick of the nearest anchor around every item whose items are exactly these.
  for (let n = composedParent(first); n; n = composedParent(n)) {
    const role = roleOf(n);
    const anchor = n;
    if (!role || !ANCHORS.has(role) || !items.every((i) => composedContains(anchor, i))) continue;
    const name = accessibleName(n);
    if (NEEDS_NAME.has(role) && !name) continue;
    const region = name && name.length <= 80 ? { role, name } : { role };
    const before = out.length;
    keep({ kind: 'structure', value: '*', structure: { within: { region }, pick: 'items' }, shadow: [] });
    if (out.length > before) break;
  }
  const shadow = hostsOf(first).map(tools.hostSelector);
  // The classes every item shares, under its parent's when those alone find more.
  const shared = tools.stableClasses(first).filter((c) => items.every((i) => i.classList.contains(c))).slice(0, 3);
  if (shared.length) {
    const own = first.localName + shared.map((c) => '.' + CSS.escape(c)).join('');
    keep({ kind: 'css', value: own, shadow });
    const parent = first.parentElement;
    const parentClasses = parent ? tools.stableClasses(parent).slice(0, 2) : [];
    if (parent && parentClasses.length) {
      keep({ kind: 'css', value: parent.localName + parentClasses.map((c) => '.' + CSS.escape(c)).join('') + ' > ' + own, shadow });
    }
  }
  if (css) {
    keep({ kind: 'css', value: css, shadow: [] });
    if (shadow.length) keep({ kind: 'css', value: css, shadow });
  }
  return out;
};

/// `el` by its tag and its place among the siblings of that tag (`explicit`: the place even
/// when it is the only one, as another item may hold more).
const tagOf = (el: Element, explicit = false): string => {
  const parent = el.parentElement || el.parentNode;
  const siblings = parent ? Array.from(parent.children).filter((s) => s.localName === el.localName) : [el];
  return siblings.length > 1 || explicit ? el.localName + ':nth-of-type(' + (siblings.indexOf(el) + 1) + ')' : el.localName;
};

/// The candidates of a field (its element `found[i]` in item `i`, null where missing), best
/// first: each finds exactly that element in every item.
const fieldCandidates = (items: Element[], found: (Element | null)[], css: string, tools: Tools): ListCandidate[] => {
  const out: ListCandidate[] = [];
  const keep = (c: ListCandidate) => {
    if (out.some((o) => same(o, c))) return;
    const ok = items.every((item, i) => {
      const r = queryInItem(toCandidate(c), item);
      if ('error' in r) return false;
      const want = found[i];
      return want ? r.els.length === 1 && r.els[0] === want : r.els.length === 0;
    });
    if (ok) out.push(c);
  };
  keep({ kind: 'css', value: css, shadow: [] });
  const at = found.findIndex((e) => e !== null);
  const el = found[at] as Element;
  const item = items[at] as Element;
  const unique = (sel: string) => { const r = queryInItem({ kind: 'css', value: sel }, item); return !('error' in r) && r.els.length === 1; };
  // Stable classes, with an ancestor's inside the item when the element's own find more.
  const classes = tools.stableClasses(el).slice(0, 3).map((c) => '.' + CSS.escape(c)).join('');
  if (classes) {
    const parts = [el.localName + classes];
    for (let n = el.parentElement; n && n !== item && !unique(parts.join(' ')) && parts.length < 4; n = n.parentElement) {
      const c = tools.stableClasses(n).slice(0, 2).map((k) => '.' + CSS.escape(k)).join('');
      if (c) parts.unshift(n.localName + c);
    }
    keep({ kind: 'css', value: parts.join(' '), shadow: [] });
  }
  // Tags and their places, from the element up as far as it takes to be one in its item:
  // built in each item that has the field (the first may lack a sibling another has) until
  // one path holds in every item.
  const tagOnly = (c: ListCandidate) => !/[.#[]/.test(c.value);
  for (let i = 0; i < items.length && !out.some(tagOnly); i++) {
    const mine = found[i];
    const home = items[i] as Element;
    if (!mine) continue;
    const uniqueIn = (sel: string) => { const r = queryInItem({ kind: 'css', value: sel }, home); return !('error' in r) && r.els.length === 1; };
    for (const explicit of [false, true]) {
      const tags = [tagOf(mine, explicit)];
      for (let n = mine.parentElement; n && n !== home && !uniqueIn(tags.join(' ')) && tags.length < 5; n = n.parentElement) tags.unshift(tagOf(n));
      keep({ kind: 'css', value: tags.join(' '), shadow: [] });
      if (out.some(tagOnly)) break;
    }
  }
  return out;
};

/// Describes the list `spec` names (see the top of this file).
export const describeList = (spec: ListLookup, tools: Tools): ListAnswer => {
  let items: Element[];
  try { items = outermost(deepElements(document).filter((e) => e.matches(spec.items))); } catch (e) { return { invalid: String(e) }; }
  if (!items.length) return { problem: 'the items selector `' + spec.items + '` matches nothing', empty: true };
  const itemCands = itemCandidates(items, spec.items, tools);
  const fields: DescribedField[] = [];
  for (const f of spec.fields) {
    if (!f.css) {
      const empty = items.filter((i) => (f.attribute ? i.getAttribute(f.attribute) || '' : textOf(i)).trim() === '').length;
      if (empty === items.length) return { problem: 'field `' + f.name + '` is empty in every item', empty: false };
      fields.push({ candidates: [], missing: empty });
      continue;
    }
    const found: (Element | null)[] = [];
    for (let i = 0; i < items.length; i++) {
      const r = queryInItem({ kind: 'css', value: f.css }, items[i] as Element);
      if ('error' in r) return { invalid: 'field `' + f.name + '`: ' + r.error };
      if (r.els.length > 1) {
        return { problem: 'field `' + f.name + '` (`' + f.css + '`) matches ' + r.els.length + ' elements in item ' + (i + 1), empty: false };
      }
      found.push(r.els[0] || null);
    }
    // An element with an empty value (an empty cell) lacks the field, as a replay reads it.
    const valueOf = (e: Element) => (f.attribute ? e.getAttribute(f.attribute) || '' : textOf(e));
    const missing = found.filter((e) => e === null || valueOf(e).trim() === '').length;
    if (missing === items.length) return { problem: 'field `' + f.name + '` (`' + f.css + '`) finds no value in any of the ' + items.length + ' items', empty: false };
    fields.push({ candidates: fieldCandidates(items, found, f.css, tools), missing });
  }
  return { count: items.length, items: itemCands, fields };
};

// A number or an amount as a table cell shows it (`$1,299.00`, `12 %`, `-3`).
const NUMERIC = /^[^0-9A-Za-z]{0,3}\s?[-−]?\d[\d.,'\u00a0\u202f ]*\s?[A-Za-z€$£%]{0,3}$/;

/// Describes the table `spec` names (an `--extract-table`): its data rows, found by candidates
/// checked like a list's items, and its columns (every one, or those asked for by name) with
/// how many rows lack a value and whether every value is a figure.
export const describeTable = (spec: TableLookup, tools: Tools): TableAnswer => {
  let found: Element[];
  try { found = outermost(deepElements(document).filter((e) => e.matches(spec.table))); } catch (e) { return { invalid: String(e) }; }
  if (found.length > 1) return { problem: 'the table selector `' + spec.table + '` matches ' + found.length + ' elements', empty: false };
  const picked = found[0];
  if (!picked) return { problem: 'the table selector `' + spec.table + '` matches nothing', empty: true };
  const isTable = (e: Element) => ['table', 'grid', 'treegrid'].includes(roleOf(e) || '');
  const table = isTable(picked) ? picked : deepElements(picked).find(isTable);
  if (!table) return { problem: '`' + spec.table + '` is no table or grid, nor holds one', empty: false };
  const layout = TABLE.layoutOf(table);
  const names = TABLE.columnNames(layout);
  const rows = layout.rows.filter((_, r) => !layout.header[r] && (layout.grid[r] || []).some((c) => c !== null));
  if (!rows.length) return { problem: 'the table has no data rows yet', empty: true };
  const items = itemCandidates(rows, '', tools);
  if (!items.length) return { problem: 'no candidate finds exactly the table\'s data rows', empty: false };
  const wanted = spec.columns.length ? spec.columns : names.map((n) => n[0] || '');
  const columns: DescribedColumn[] = [];
  for (const want of wanted) {
    const c = names.findIndex((n) => n.some((x) => x.toLowerCase() === norm(want).toLowerCase()));
    if (c < 0 || !want) {
      if (!spec.columns.length) continue;
      return { problem: 'the table has no column `' + want + '` (columns: ' + names.map((n) => n[0]).filter(Boolean).join(', ') + ')', empty: false };
    }
    const values = rows.map((row) => {
      const cell = (layout.grid[layout.rows.indexOf(row)] || [])[c];
      return cell ? textOf(cell) : '';
    });
    const present = values.filter((v) => v.trim() !== '');
    columns.push({ name: names[c]?.[0] || want, missing: values.length - present.length,
      numeric: present.length > 0 && present.every((v) => NUMERIC.test(v.trim())) });
  }
  return { count: rows.length, items, columns };
};
