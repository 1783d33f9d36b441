// Tables and ARIA grids read by column: the layout of a table's rows with every cell at each
// column it covers (`colspan`/`rowspan`, `aria-colindex`, `aria-colspan`), header rows told from
// data rows, and each column's name — the text of the lowest header cell over it, or the path of
// the header cells over it (`Price / EUR`) where header rows span columns. What an
// `extract_list` field with a `column` reads in each row, and what `--extract-table` names
// columns by.

import { norm, roleOf, textOf } from './roles';

const TABLES = new Set(['grid', 'treegrid', 'table']);
const CELLS = new Set(['cell', 'gridcell', 'rowheader', 'columnheader']);

/// A table's rows in order, each with its element at every column (null: no cell there).
export interface Layout {
  rows: Element[];
  grid: (Element | null)[][];
  /// Which rows are header rows.
  header: boolean[];
}

const nearestTable = (el: Element): Element | null => {
  for (let n = el.parentElement; n; n = n.parentElement) if (TABLES.has(roleOf(n) || '')) return n;
  return null;
};
const span = (cell: Element, attr: string, aria: string): number => {
  const n = Number(cell.getAttribute(attr) || cell.getAttribute(aria) || 1);
  return Number.isFinite(n) && n >= 1 ? Math.min(Math.floor(n), 1000) : 1;
};
const rowsIn = (table: Element): Element[] => Array.from(table.querySelectorAll('*'))
  .filter((e) => roleOf(e) === 'row' && nearestTable(e) === table);
const cellsIn = (row: Element): Element[] => Array.from(row.querySelectorAll('*')).filter((c) => {
  if (!CELLS.has(roleOf(c) || '')) return false;
  for (let n = c.parentElement; n; n = n.parentElement) if (roleOf(n) === 'row') return n === row;
  return false;
});
const isHeaderCell = (c: Element): boolean => roleOf(c) === 'columnheader' || c.localName === 'th' && c.closest('thead') !== null;

/// The layout of `table` (a `<table>` or an element of role table, grid or treegrid).
export const layoutOf = (table: Element): Layout => {
  const rows = rowsIn(table);
  const grid: (Element | null)[][] = rows.map(() => []);
  rows.forEach((row, r) => {
    let c = 0;
    for (const cell of cellsIn(row)) {
      const at = Number(cell.getAttribute('aria-colindex'));
      if (Number.isFinite(at) && at >= 1) c = at - 1;
      const line = grid[r] as (Element | null)[];
      while (line[c]) c++;
      const cols = span(cell, 'colspan', 'aria-colspan');
      const down = span(cell, 'rowspan', 'aria-rowspan');
      for (let dr = 0; dr < down && r + dr < rows.length; dr++) {
        for (let dc = 0; dc < cols; dc++) (grid[r + dr] as (Element | null)[])[c + dc] = cell;
      }
      c += cols;
    }
  });
  const width = Math.max(0, ...grid.map((line) => line.length));
  for (const line of grid) for (let c = 0; c < width; c++) if (!line[c]) line[c] = null;
  const header = rows.map((row) => {
    const cells = cellsIn(row);
    return cells.length > 0 && cells.every(isHeaderCell);
  });
  return { rows, grid, header };
};

/// The names of each column: the lowest header cell's text, and the path of the distinct header
/// cells over it, top first (`['Price / EUR', 'EUR']` under a spanning `Price`).
export const columnNames = (layout: Layout): string[][] => {
  const width = Math.max(0, ...layout.grid.map((line) => line.length));
  const out: string[][] = [];
  for (let c = 0; c < width; c++) {
    const over: Element[] = [];
    layout.grid.forEach((line, r) => {
      const cell = line[c];
      if (layout.header[r] && cell && !over.includes(cell)) over.push(cell);
    });
    const texts = over.map((h) => norm(textOf(h))).filter(Boolean);
    const names = texts.length ? [texts.join(' / '), texts[texts.length - 1] as string] : [];
    out.push(Array.from(new Set(names)));
  }
  return out;
};

/// A table's layout and column names, read once per pass of the list reader.
export type Tables = Map<Element, { layout: Layout; names: string[][] }>;

/// The cell of data row `row` under the column named `column` (either of its names, ignoring
/// case), null when the row has no cell there; undefined when `row` is not a table's row or no
/// column has that name.
export const cellUnder = (row: Element, column: string, tables: Tables): Element | null | undefined => {
  const table = nearestTable(row);
  if (!table) return undefined;
  let read = tables.get(table);
  if (!read) {
    const layout = layoutOf(table);
    read = { layout, names: columnNames(layout) };
    tables.set(table, read);
  }
  const r = read.layout.rows.indexOf(row);
  if (r < 0) return undefined;
  const want = norm(column).toLowerCase();
  const c = read.names.findIndex((names) => names.some((n) => n.toLowerCase() === want));
  if (c < 0) return undefined;
  return (read.layout.grid[r] as (Element | null)[])[c] || null;
};
