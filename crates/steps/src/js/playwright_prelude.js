'use strict';
const { chromium } = require('playwright-core');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const DEFAULT_TIMEOUT = 5000;

function input(inputs, name) {
  if (!(name in inputs)) throw new Error(`the input \`${name}\` is referenced but was not provided`);
  const v = inputs[name];
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function normalize(text) {
  return String(text).replace(/\s+/g, ' ').trim();
}

function globToRegExp(glob) {
  return new RegExp('^' + glob.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
}

function scopeOf(page, selector) {
  if (!selector.frame) return page;
  const { url, name, indexPath } = selector.frame;
  let byPath = null;
  if (indexPath != null) {
    byPath = page.mainFrame();
    for (const i of indexPath) byPath = byPath && byPath.childFrames()[i];
  }
  const frame = page.frames().find((f) => (url == null || globToRegExp(url).test(f.url())) && (name == null || f.name() === name)
    && (indexPath == null || f === byPath));
  if (!frame) throw new Error(`no frame ${JSON.stringify(selector.frame)} on the page`);
  return frame;
}

function locatorOf(scope, c) {
  let root = scope;
  for (const host of c.shadow || []) root = root.locator(host); // Playwright pierces open shadow roots.
  switch (c.kind) {
    case 'test_id': return root.locator(['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'].map((a) => `[${a}=${JSON.stringify(c.value)}]`).join(', '));
    case 'role': return root.getByRole(c.value, c.name == null ? {} : { name: c.name, exact: true });
    case 'label': return root.getByLabel(c.value, { exact: true });
    case 'placeholder': return root.getByPlaceholder(c.value, { exact: true });
    case 'text': return root.getByText(c.value, { exact: true });
    case 'id': return root.locator(`[id=${JSON.stringify(c.value)}]`);
    case 'css': return root.locator(c.value);
    case 'xpath': return root.locator('xpath=' + c.value);
    case 'accessible_name': return root.getByLabel(c.value, { exact: true })
      .or(root.getByRole('button', { name: c.value, exact: true }))
      .or(root.getByRole('link', { name: c.value, exact: true }));
    default: throw new Error(`unknown selector kind ${c.kind}`);
  }
}

function describe(c) {
  return `${c.kind} ${JSON.stringify(c.value)}${c.name ? ` name ${JSON.stringify(c.name)}` : ''}`;
}

// The highest-ranked candidate that matches exactly one visible (or, with `attached`, any) element,
// polled until the budget ends.
async function find(page, selector, timeout = DEFAULT_TIMEOUT, { attached = false } = {}) {
  const deadline = Date.now() + timeout;
  const states = [];
  for (;;) {
    const scope = scopeOf(page, selector);
    for (const [i, c] of selector.candidates.entries()) {
      const locator = locatorOf(scope, c);
      const count = await locator.count().catch(() => 0);
      states[i] = count === 1 ? 'hidden' : `${count} matches`;
      if (count === 1 && (attached || (await locator.isVisible().catch(() => false)))) return locator;
    }
    if (Date.now() > deadline) {
      throw new Error('no selector candidate was actionable; tried:\n' + selector.candidates.map((c, i) => `  ${i + 1}. ${describe(c)}: ${states[i]}`).join('\n'));
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function clickWith(page, el, { button, clickCount, position, delay }) {
  if (button === 'back' || button === 'forward') {
    const box = await el.boundingBox();
    const x = box.x + (position ? position.x : box.width / 2);
    const y = box.y + (position ? position.y : box.height / 2);
    const cdp = await page.context().newCDPSession(page);
    for (const type of ['mousePressed', 'mouseReleased']) {
      await cdp.send('Input.dispatchMouseEvent', { type, x, y, button, clickCount: 1 });
    }
    return;
  }
  await el.click({ button, clickCount, position, delay });
}

// A file input gets the files directly; any other element is clicked and its file chooser answered.
async function uploadTo(page, selector, files, timeout = DEFAULT_TIMEOUT) {
  for (const file of files) {
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new Error(`the file to upload ${JSON.stringify(file)} does not exist`);
  }
  const el = await find(page, selector, timeout, { attached: true });
  if (await el.evaluate((e) => e instanceof HTMLInputElement && e.type === 'file')) return el.setInputFiles(files);
  const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout }), el.click()]);
  await chooser.setFiles(files);
}

let downloadDir = null;

// Clicks `el`, waits for the download it starts and saves it under its suggested name in
// DOWNLOAD_DIR (or a fresh temporary folder); describes the file like browserflow does.
async function download(page, el, { position, filename, timeout }) {
  const [started] = await Promise.all([page.waitForEvent('download', { timeout }), el.click({ position })]);
  const name = path.basename(started.suggestedFilename()) || 'download';
  if (filename != null && !globToRegExp(filename).test(name)) {
    throw new Error(`expected a download named ${JSON.stringify(filename)}, but got ${JSON.stringify(name)}`);
  }
  downloadDir = downloadDir || process.env.DOWNLOAD_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'browserflow-downloads-'));
  fs.mkdirSync(downloadDir, { recursive: true });
  const target = path.resolve(downloadDir, name);
  await started.saveAs(target);
  const bytes = fs.readFileSync(target);
  return { name, path: target, size: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex'), url: started.url() };
}

async function fillAny(el, value) {
  const tag = await el.evaluate((e) => e.tagName);
  if (tag === 'SELECT') await el.selectOption(value);
  else await el.fill(value);
}

async function expectNavigation(page, url, title) {
  if (url != null) await page.waitForURL(globToRegExp(url));
  await page.waitForLoadState();
  if (title != null && !globToRegExp(title).test(await page.title())) {
    throw new Error(`expected a page titled ${JSON.stringify(title)}, got ${JSON.stringify(await page.title())}`);
  }
}

// The elements of `locator` with `properties` that are (or, with `visible === false`, are not)
// visible, by Playwright's own rule: browserflow's replayer uses the same one (an element of
// opacity 0 is visible; `visibility: hidden` is not).
async function countMatching(locator, visible, properties) {
  let n = 0;
  for (const element of await locator.all()) {
    if (visible != null && (await element.isVisible()) !== visible) continue;
    const has = await element.evaluate((e, props) => Object.entries(props)
      .every(([k, v]) => JSON.stringify(e[k]) === JSON.stringify(v)), properties);
    if (has) n += 1;
  }
  return n;
}

async function waitForElements(page, selector, { count, operator, visible, properties }, timeout = DEFAULT_TIMEOUT) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const scope = scopeOf(page, selector);
    for (const c of selector.candidates) {
      // Without a count, `visible: false` waits until no matching element is visible; with one,
      // it counts the hidden ones (as browserflow's replayer does).
      const counted = visible === false && count == null ? true : visible;
      const found = await countMatching(locatorOf(scope, c), counted, properties).catch(() => 0);
      const want = count == null ? (visible === false ? 0 : 1) : count;
      const ok = count == null && visible !== false ? found >= 1
        : operator === '>=' ? found >= want : operator === '<=' ? found <= want : found === want;
      if (ok) return;
    }
    if (Date.now() > deadline) throw new Error('waitForElement: the condition did not hold in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function check(page, selector, want, timeout = DEFAULT_TIMEOUT) {
  const deadline = Date.now() + timeout;
  for (;;) {
    let problem = null;
    if (want.url != null && !globToRegExp(want.url).test(page.url())) problem = `url is ${page.url()}`;
    if (!problem && want.title != null && !globToRegExp(want.title).test(await page.title())) problem = 'title differs';
    if (!problem && selector) {
      const el = await find(page, selector, Math.max(0, deadline - Date.now()));
      const text = normalize(await el.innerText());
      if (want.textEquals != null && text !== want.textEquals) problem = `text is ${JSON.stringify(text)}`;
      if (want.textContains != null && !text.includes(want.textContains)) problem = `text is ${JSON.stringify(text)}`;
      if (want.valueEquals != null && (await el.inputValue()) !== want.valueEquals) problem = 'value differs';
    }
    if (!problem) return;
    if (Date.now() > deadline) throw new Error('assertion failed: ' + problem);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const CURRENCIES = { '$': 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR' };

function currencyOf(text) {
  const code = /\b([A-Z]{3})\b/.exec(text);
  if (code) return code[1];
  for (const [symbol, iso] of Object.entries(CURRENCIES)) if (text.includes(symbol)) return iso;
  return null;
}

// The first number in the text, as browserflow reads it: the last `.` or `,` is the decimal
// separator when both occur or when it is followed by other than exactly three digits
// (`$1,299.00`, `1.299,00 €`, `Rated 3.2 / 5`).
function coerce(text, kind) {
  if (kind === 'string') return text;
  if (kind === 'boolean') return /^(true|yes|on|1)$/i.test(text.trim());
  const m = String(text).match(/-?\d[\d.,]*/);
  if (!m) throw new Error(`${JSON.stringify(text)} is not a number`);
  const digits = m[0].replace(/[.,]+$/, '');
  const last = Math.max(digits.lastIndexOf(','), digits.lastIndexOf('.'));
  const decimal = last >= 0 && ((digits.includes(',') && digits.includes('.')) || digits.length - last - 1 !== 3);
  const n = decimal ? Number(digits.slice(0, last).replace(/[.,]/g, '') + '.' + digits.slice(last + 1))
    : Number(digits.replace(/[.,]/g, ''));
  if (Number.isNaN(n)) throw new Error(`${JSON.stringify(text)} is not a number`);
  return kind === 'integer' ? Math.trunc(n) : n;
}

// In the page: the cell of a table's or grid's row under the column named `column` (the lowest
// header cell's text, or the path of header cells over it: `Price / EUR`), spans followed.
function cellUnder(row, column) {
  const TABLE = 'table,[role=grid],[role=table],[role=treegrid]';
  const table = row.parentElement && row.parentElement.closest(TABLE);
  if (!table) return null;
  const rows = Array.from(table.querySelectorAll('tr,[role=row]')).filter((r) => r.parentElement.closest(TABLE) === table);
  const cellsOf = (r) => Array.from(r.querySelectorAll('td,th,[role=cell],[role=gridcell],[role=columnheader],[role=rowheader]'))
    .filter((c) => c.parentElement.closest('tr,[role=row]') === r);
  const grid = rows.map(() => []);
  rows.forEach((r, i) => {
    let c = 0;
    for (const cell of cellsOf(r)) {
      const at = Number(cell.getAttribute('aria-colindex'));
      if (at >= 1) c = at - 1;
      while (grid[i][c]) c++;
      const cols = Number(cell.getAttribute('colspan') || cell.getAttribute('aria-colspan')) || 1;
      const down = Number(cell.getAttribute('rowspan') || cell.getAttribute('aria-rowspan')) || 1;
      for (let dr = 0; dr < down && i + dr < rows.length; dr++) for (let dc = 0; dc < cols; dc++) grid[i + dr][c + dc] = cell;
      c += cols;
    }
  });
  const isHeader = (r) => { const cells = cellsOf(r); return cells.length > 0 && cells.every((c) => (c.localName === 'th' && c.closest('thead')) || c.getAttribute('role') === 'columnheader'); };
  const want = column.replace(/\s+/g, ' ').trim().toLowerCase();
  const width = Math.max(0, ...grid.map((line) => line.length));
  for (let c = 0; c < width; c++) {
    const over = [];
    rows.forEach((r, i) => { const h = grid[i][c]; if (isHeader(r) && h && !over.includes(h)) over.push(h); });
    const texts = over.map((h) => h.innerText.replace(/\s+/g, ' ').trim()).filter(Boolean);
    if (texts.length && [texts.join(' / '), texts[texts.length - 1]].some((n) => n.toLowerCase() === want)) return grid[rows.indexOf(row)][c] || null;
  }
  return null;
}

// A list: the highest-ranked item candidate that matches any element; in each item, each field
// from the first of its candidates that matches exactly one element there (none: the item itself).
async function extractList(page, items, fields, limit, timeout = DEFAULT_TIMEOUT) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const scope = scopeOf(page, items);
    for (const c of items.candidates) {
      const found = await locatorOf(scope, c).all().catch(() => []);
      if (!found.length) continue;
      const rows = [];
      for (const item of found.slice(0, limit == null ? found.length : limit)) {
        const row = {};
        for (const f of fields) {
          let el = f.candidates.length || f.column ? null : item;
          if (f.column) el = (await item.evaluateHandle(cellUnder, f.column)).asElement();
          for (const fc of el ? [] : f.candidates) {
            const l = locatorOf(item, fc);
            if ((await l.count()) === 1) { el = l; break; }
          }
          const raw = !el ? null : f.from === 'attribute' ? await el.getAttribute(f.attribute)
            : f.from === 'value' ? await el.inputValue() : normalize(await el.innerText());
          if (raw == null || String(raw).trim() === '') {
            if (f.optional) { row[f.name] = null; continue; }
            throw new Error(`item ${rows.length + 1} has no field ${JSON.stringify(f.name)}`);
          }
          if (f.kind === 'url') row[f.name] = new URL(raw, page.url()).href;
          else if (f.kind === 'date') {
            const iso = raw.match(/\d{4}-\d{2}-\d{2}/);
            row[f.name] = iso ? iso[0] : new Date(raw + ' UTC').toISOString().slice(0, 10);
          } else row[f.name] = coerce(raw, f.kind);
        }
        rows.push(row);
      }
      return rows;
    }
    if (Date.now() > deadline) throw new Error('no item candidate matched: ' + items.candidates.map(describe).join(', '));
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The first item candidate that matches, as a locator of every item (for scrolling the last one
// into view); null when none matches.
async function itemsOf(page, items) {
  const scope = scopeOf(page, items);
  for (const c of items.candidates) {
    const l = locatorOf(scope, c);
    if ((await l.count().catch(() => 0)) > 0) return l;
  }
  return null;
}

// A pagination control as the page shows it now: the first candidate matching exactly one
// visible element, and whether it is disabled; null when it is absent.
async function controlOf(page, control) {
  const scope = scopeOf(page, control);
  for (const c of control.candidates) {
    const l = locatorOf(scope, c);
    if ((await l.count().catch(() => 0)) !== 1 || !(await l.isVisible().catch(() => false))) continue;
    const disabled = (await l.isDisabled().catch(() => false)) || (await l.getAttribute('aria-disabled').catch(() => null)) === 'true';
    return { locator: l, disabled };
  }
  return null;
}

// A paginated list (`paginate` in the tool file), as `bflow run` reads it: each page read as
// `extractList` reads one, then the next brought in — the control clicked, or the last item
// scrolled into view — and read once its rows differ from the page before. Reading ends when the
// control is absent or disabled, when scrolling brings nothing new, at `paging.maxPages` pages,
// or at `limit` items; an item an earlier page gave (by `paging.key`, or the whole row) is
// dropped. A control still offered whose click brings no other page within the budget fails,
// naming the page: never a short array.
async function extractPages(page, items, fields, limit, paging, timeout = DEFAULT_TIMEOUT) {
  const rows = [];
  const seen = new Set();
  const keyOf = (row) => JSON.stringify(paging.key == null ? row : row[paging.key]);
  const signatureOf = (list) => JSON.stringify([list.length, list[0], list[list.length - 1]]);
  let current = await extractList(page, items, fields, null, timeout);
  for (let number = 1; ; number++) {
    // Duplicates within one page are kept, as the page shows them.
    const given = new Set();
    for (const row of current) {
      const key = keyOf(row);
      if (seen.has(key)) continue;
      rows.push(row);
      given.add(key);
    }
    for (const key of given) seen.add(key);
    if (limit != null && rows.length >= limit) return rows.slice(0, limit);
    if (number >= paging.maxPages) return rows;
    const before = signatureOf(current);
    if (paging.by === 'scroll') {
      const all = await itemsOf(page, items);
      if (all) await all.last().scrollIntoViewIfNeeded().catch(() => {});
    } else {
      const control = await controlOf(page, paging.control);
      if (!control || control.disabled) return rows;
      await control.locator.click({ timeout });
    }
    // The next page: rows other than the page before (a navigation may be under way).
    const deadline = Date.now() + timeout;
    let next = null;
    while (!next && Date.now() < deadline) {
      const read = await extractList(page, items, fields, null, Math.max(0, deadline - Date.now())).catch(() => null);
      if (read && signatureOf(read) !== before) next = read;
      else await new Promise((r) => setTimeout(r, 100));
    }
    if (!next) {
      if (paging.by === 'scroll') return rows;
      const control = await controlOf(page, paging.control);
      if (!control || control.disabled) return rows;
      throw new Error(`page ${number + 1} of the list never came: the ${paging.by} control was clicked and the list stayed as it was for ${timeout} ms`);
    }
    current = next;
  }
}

function main(replay) {
  const inputs = {};
  for (const arg of process.argv.slice(2)) {
    const at = arg.indexOf('=');
    if (at < 1) throw new Error(`expected name=value, got ${arg}`);
    inputs[arg.slice(0, at)] = arg.slice(at + 1);
  }
  (async () => {
    const browser = await chromium.launch({
      executablePath: process.env.BROWSERFLOW_CHROME || '/usr/bin/chromium',
      headless: !process.env.HEADED,
    });
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      const output = await replay(page, inputs);
      console.log(JSON.stringify(output, null, 2));
    } finally {
      await browser.close();
    }
  })().catch((e) => {
    console.error(e && e.message ? e.message : e);
    process.exitCode = 1;
  });
}
