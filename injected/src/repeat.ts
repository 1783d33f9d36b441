// Repeating structures — a grid's or table's rows, a list's items, cards among siblings of one
// shape — and an element's place in them: the one reading of "row 1 under Name" and "the 2nd
// card" that the recorder records (`placeOf`) and the resolver finds again (`pick`, for the
// `cell` and `item` picks of a `structure` candidate).

import { accessibleName, nameMatches, norm, roleOf, textOf } from './roles';
import { deepElements } from './shadow';
import type { Pick, Region, Within } from './protocol/resolve';

const TABLES = new Set(['grid', 'treegrid', 'table']);
const CELLS = new Set(['cell', 'gridcell', 'rowheader']);
// Lists whose items are elements of one role.
const ITEM_ROLE: Record<string, string> = { list: 'listitem', feed: 'article' };
const LISTS = new Set(Object.keys(ITEM_ROLE));
// Anchors for cards: landmarks and named groups (a page usually has one of each unnamed one).
const CARD_ANCHORS = new Set(['main', 'region', 'navigation', 'complementary', 'form', 'dialog', 'search',
  'group', 'contentinfo', 'banner']);
const UNNAMED_OK = new Set(['main', 'navigation', 'complementary', 'dialog', 'search', 'contentinfo', 'banner']);
// Widgets and menus repeat their parts too, but those parts are controls, not data: a place
// there is not recorded (their own structure candidates stand).
const NOT_DATA = new Set(['listbox', 'menu', 'menubar', 'tablist', 'tree', 'radiogroup', 'toolbar', 'navigation',
  'combobox']);
// Card-like items: boxes of content, told apart from a form's controls by their tag and a class.
const CARD_TAGS = new Set(['div', 'article', 'li', 'section']);
const isCard = (e: Element): boolean => CARD_TAGS.has(e.localName) && (e.classList.length > 0 || e.localName !== 'div');

const has = (roles: Set<string>, role: string | null): boolean => role !== null && roles.has(role);
const all = (root: ParentNode): Element[] => Array.from(root.querySelectorAll('*'));
const nearest = (el: Element, roles: Set<string>): Element | null => {
  for (let n = el.parentElement; n; n = n.parentElement) if (has(roles, roleOf(n))) return n;
  return null;
};
const closestRole = (el: Element, roles: Set<string>, stop: Element): Element | null => {
  for (let n: Element | null = el; n && n !== stop; n = n.parentElement) if (has(roles, roleOf(n))) return n;
  return null;
};
const numberAttr = (e: Element, name: string): number | null => {
  const a = e.getAttribute(name);
  const n = a == null ? NaN : Number(a);
  return Number.isFinite(n) ? n : null;
};
const rowOf = (cell: Element): Element | null => {
  for (let n = cell.parentElement; n; n = n.parentElement) if (roleOf(n) === 'row') return n;
  return null;
};
const isHeaderRow = (row: Element): boolean => all(row).some((c) => roleOf(c) === 'columnheader');

/// The data rows of a grid or table, in order, each as its parts: a virtualised grid renders
/// only some rows, in any DOM order, and may split one row into pinned parts; all of them
/// carry `aria-rowindex`, which orders and groups them. Without it, document order.
export const rowsOf = (grid: Element): Element[][] => {
  const rows = all(grid).filter((e) => roleOf(e) === 'row' && nearest(e, TABLES) === grid && !isHeaderRow(e));
  if (!rows.every((r) => numberAttr(r, 'aria-rowindex') != null)) return rows.map((r) => [r]);
  const groups = new Map<number, Element[]>();
  for (const r of rows) {
    const k = numberAttr(r, 'aria-rowindex') as number;
    const g = groups.get(k);
    if (g) g.push(r); else groups.set(k, [r]);
  }
  return Array.from(groups.keys()).sort((a, b) => a - b).map((k) => groups.get(k) as Element[]);
};
const cellsOf = (parts: Element[]): Element[] =>
  parts.flatMap((r) => all(r).filter((c) => has(CELLS, roleOf(c)) && rowOf(c) === r));
const headersOf = (grid: Element): Element[] => all(grid).filter((e) => roleOf(e) === 'columnheader' && nearest(e, TABLES) === grid);
const columnName = (header: Element): string => norm(accessibleName(header) || textOf(header));
// A cell's column header: the one with its `aria-colindex`, else the one at its index in the
// first row of headers.
const headerOf = (cell: Element, grid: Element): Element | null => {
  const headers = headersOf(grid);
  const col = numberAttr(cell, 'aria-colindex');
  if (col != null) return headers.find((h) => numberAttr(h, 'aria-colindex') === col) || null;
  const row = rowOf(cell);
  const first = headers[0];
  if (!row || !first) return null;
  const at = cellsOf([row]).indexOf(cell);
  const firstRow = rowOf(first);
  return headers.filter((h) => rowOf(h) === firstRow)[at] || null;
};

// A shape: the tag and the classes that do not come and go with state.
const STATE_CLASS = /^(?:(?:is|has)-.+|active|selected|current|focus|focused|focus-visible|hover|hovered|open|expanded|checked)$/i;
const shapeOf = (e: Element): string => e.localName + '.' + Array.from(e.classList).filter((c) => !STATE_CLASS.test(c)).sort().join('.');
/// The items of a repeating structure in `anchor`: a list's (or feed's) own items, else the
/// largest group of siblings of one shape under it (the first such group on a tie).
export const itemsOf = (anchor: Element): Element[] => {
  const anchorRole = roleOf(anchor);
  const itemRole = anchorRole !== null ? ITEM_ROLE[anchorRole] : undefined;
  if (itemRole) return all(anchor).filter((e) => roleOf(e) === itemRole && nearest(e, LISTS) === anchor);
  let best: Element[] = [];
  for (const parent of [anchor, ...all(anchor)]) {
    const groups = new Map<string, Element[]>();
    for (const child of parent.children) {
      const key = shapeOf(child);
      const g = groups.get(key);
      if (g) g.push(child); else groups.set(key, [child]);
    }
    for (const g of groups.values()) if (g.length >= 2 && g.length > best.length) best = g;
  }
  return best;
};

// The elements of `role` in a cell or item: itself, else the `nth` (or every one) inside.
const inside = (box: Element, role: string, nth: number | null | undefined): Element[] => {
  if (roleOf(box) === role && !nth) return [box];
  const members = all(box).filter((e) => roleOf(e) === role);
  if (nth) { const m = members[nth - 1]; return m ? [m] : []; }
  return members;
};
// Which of the elements of `role` inside `box` is `el`: none needed when it is the box or the
// only one; undefined when it is not inside.
const nthInside = (box: Element, el: Element, role: string): number | null | undefined => {
  if (box === el) return null;
  const members = all(box).filter((e) => roleOf(e) === role);
  const at = members.indexOf(el);
  if (at < 0) return undefined;
  return members.length === 1 ? null : at + 1;
};
const withNth = <T extends object>(place: T, nth: number | null): T & { nth?: number } => (nth ? Object.assign(place, { nth }) : place);

/// The elements a `cell` or `item` pick finds in `anchor`.
export const pick = (anchor: Element, role: string, p: Pick): Element[] => {
  if (typeof p !== 'object') return [];
  if ('cell' in p && p.cell) {
    const cell = p.cell;
    const parts = rowsOf(anchor)[cell.row - 1];
    if (!parts) return [];
    const want = norm(cell.column);
    const cells = cellsOf(parts).filter((c) => {
      const h = headerOf(c, anchor);
      // As written too: a column recorded before names followed `text-transform`.
      return h && (columnName(h) === want || nameMatches(h, want));
    });
    return cells.flatMap((c) => inside(c, role, cell.nth));
  }
  if ('item' in p && p.item) {
    const item = itemsOf(anchor)[p.item.item - 1];
    return item ? inside(item, role, p.item.nth) : [];
  }
  return [];
};

const regionOf = (e: Element): Region => {
  const role = roleOf(e) || '';
  const name = accessibleName(e);
  if (name && name.length <= 80) return { role, name };
  return { role };
};
const short = (text: string): string => norm(text).slice(0, 200);

/// Where an element sits in a repeating structure (`placeOf`).
export interface Place {
  within: Within & { region: Region };
  pick: Pick;
  /// For people: `row 1, column "Name" of the grid`.
  place: string;
  /// The row's or item's text.
  content: string;
  /// The structure's element: what re-renders when its content changes.
  container: Element;
}

/// Where `el` (of `role`) sits in a repeating structure: {within, pick} for a `structure`
/// candidate, a description for people, the row's or item's text, and the structure's element
/// (what re-renders when its content changes). Null outside one.
export const placeOf = (el: Element, role: string): Place | null => {
  if (nearest(el, NOT_DATA) || has(NOT_DATA, roleOf(el))) return null;
  const grid = nearest(el, TABLES);
  if (grid) {
    const cell = closestRole(el, CELLS, grid);
    const row = cell && rowOf(cell);
    const rows = rowsOf(grid);
    const rowAt = row ? rows.findIndex((parts) => parts.includes(row)) : -1;
    const header = cell && headerOf(cell, grid);
    const column = header && columnName(header);
    const nth = cell ? nthInside(cell, el, role) : undefined;
    const parts = rows[rowAt];
    if (parts && column && column.length <= 80 && nth !== undefined) {
      const region = regionOf(grid);
      return {
        within: { region }, pick: { cell: withNth({ row: rowAt + 1, column }, nth) },
        place: 'row ' + (rowAt + 1) + ', column ' + JSON.stringify(column) + ' of the ' + region.role,
        content: short(parts.map((p) => textOf(p)).join(' ')), container: grid,
      };
    }
  }
  const list = nearest(el, LISTS);
  if (list) {
    const items = itemsOf(list);
    const item = items.find((i) => i === el || i.contains(el));
    const nth = item ? nthInside(item, el, role) : undefined;
    if (item && nth !== undefined) {
      const region = regionOf(list);
      const at = items.indexOf(item) + 1;
      return { within: { region }, pick: { item: withNth({ item: at }, nth) },
        place: 'item ' + at + ' of the ' + region.role, content: short(textOf(item)), container: list };
    }
  }
  // Cards: the nearest ancestor with siblings of its shape, in a landmark or named group.
  for (let item: Element | null = el, depth = 0; item && item.parentElement && depth < 12; item = item.parentElement, depth++) {
    const parent: Element = item.parentElement;
    const shape = shapeOf(item);
    if (!isCard(item)) continue;
    if (Array.from(parent.children).filter((s) => shapeOf(s) === shape).length < 2) continue;
    let anchor: Element | null = parent;
    while (anchor && !has(CARD_ANCHORS, roleOf(anchor))) anchor = anchor.parentElement;
    if (!anchor) return null;
    const region = regionOf(anchor);
    if (!region.name && !UNNAMED_OK.has(region.role)) return null;
    const items = itemsOf(anchor);
    const at = items.indexOf(item);
    const nth = nthInside(item, el, role);
    if (at < 0 || nth === undefined) return null;
    return { within: { region }, pick: { item: withNth({ item: at + 1 }, nth) },
      place: 'item ' + (at + 1) + ' of the ' + region.role + (region.name ? ' ' + JSON.stringify(region.name) : ''),
      content: short(textOf(item)), container: parent };
  }
  return null;
};

// The weight of a candidate group of items: how many items, times how much each holds (its
// elements, through open shadow roots) — the rows of a table outweigh the cells of one row, and
// cards of content outweigh a row of bare links.
const weightOf = (group: Element[]): number => group.reduce((sum, e) => sum + 1 + deepElements(e).length, 0);
/// Every item of the repeating structure in `anchor`, through open shadow roots: a list's (or
/// feed's) own items, a grid's or table's data rows (the first part of each), else the heaviest
/// group of two or more sibling elements of one shape (see `weightOf`), siblings in the light
/// tree or in a shadow root. The `items` pick, which an `extract_list` step's items rely on:
/// classes and ids may change, the repetition does not.
export const everyItemOf = (anchor: Element): Element[] => {
  const anchorRole = roleOf(anchor);
  const itemRole = anchorRole !== null ? ITEM_ROLE[anchorRole] : undefined;
  if (itemRole) return deepElements(anchor).filter((e) => roleOf(e) === itemRole && nearest(e, LISTS) === anchor);
  if (has(TABLES, anchorRole)) return rowsOf(anchor).map((parts) => parts[0] as Element);
  let best: Element[] = [];
  let bestWeight = 0;
  const parents: ParentNode[] = [anchor];
  for (const e of deepElements(anchor)) {
    parents.push(e);
    if (e.shadowRoot) parents.push(e.shadowRoot);
  }
  if (anchor.shadowRoot) parents.push(anchor.shadowRoot);
  for (const parent of parents) {
    const groups = new Map<string, Element[]>();
    for (const child of Array.from(parent.children)) {
      if (child.localName === 'script' || child.localName === 'style' || child.localName === 'template') continue;
      const key = shapeOf(child);
      const g = groups.get(key);
      if (g) g.push(child); else groups.set(key, [child]);
    }
    for (const g of groups.values()) {
      if (g.length < 2) continue;
      const w = weightOf(g);
      if (w > bestWeight) { best = g; bestWeight = w; }
    }
  }
  return best;
};
