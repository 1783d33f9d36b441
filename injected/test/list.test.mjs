// The list reader as the Rust crates ship it (the resolver bundle's `list` module): items by
// the highest-ranked candidate that matches any element — the `items` pick finds a repeating
// structure whatever its classes, through open shadow roots —, fields relative to each item,
// optional and required fields, URLs made absolute, and the wait for a list still filling in.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { shipped, start } from './harness.mjs';

let chromium;
before(async () => { chromium = await start(); });
after(async () => { await chromium.close(); });

async function page(html) {
  const p = await chromium.page(html, { modules: false });
  await p.evaluate(`globalThis.R = (${shipped('crates/cdp/src/injected/resolve.js')})`);
  return p;
}
const extract = (p, spec) => p.evaluate((s) => globalThis.R.list.extract(s), { atLeast: 1, quietMs: 60, timeoutMs: 1500, ...spec });

const ITEMS = { kind: 'structure', value: '*', structure: { within: { region: { role: 'region', name: 'Results' } }, pick: 'items' } };
const FIELDS = [
  { name: 'name', candidates: [{ kind: 'css', value: 'h3' }], from: 'text', url: false, digits: false, optional: false },
  { name: 'price', candidates: [{ kind: 'css', value: '.price' }, { kind: 'css', value: 'span' }], from: 'text', url: false, digits: true, optional: true },
  { name: 'url', candidates: [{ kind: 'css', value: 'a' }], from: 'attribute', attribute: 'href', url: true, digits: false, optional: false },
];
const CARDS = (cls) => `<base href="http://shop.test/s/"><nav><a href="/a">A</a><a href="/b">B</a><a href="/c">C</a><a href="/d">D</a></nav>
  <section aria-label="Results"><div class="${cls}-wrap">
    <div class="${cls}"><h3>Lamp</h3><span class="price">$19.50</span><a href="/p/1">more</a></div>
    <div class="${cls}"><h3>Desk</h3><a href="/p/2">more</a></div>
    <div class="${cls}"><h3>Chair</h3><span class="price">€1.299,00</span><a href="p/3">more</a></div>
  </div></section>`;

test('cards become rows by the items pick, whatever their classes; a missing optional field is null', async () => {
  for (const cls of ['card', 'x9f-tile']) {
    const p = await page(CARDS(cls));
    const answer = await extract(p, { items: [{ kind: 'css', value: '.card' }, ITEMS], fields: FIELDS });
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.equal(answer.winner, cls === 'card' ? 0 : 1);
    assert.equal(answer.total, 3);
    const base = await p.evaluate(() => document.baseURI);
    assert.deepEqual(answer.rows, [
      ['Lamp', '$19.50', new URL('/p/1', base).href],
      ['Desk', null, new URL('/p/2', base).href],
      ['Chair', '€1.299,00', new URL('p/3', base).href],
    ]);
    const limited = await extract(p, { items: [ITEMS], fields: FIELDS, limit: 2 });
    assert.deepEqual([limited.total, limited.rows.length], [3, 2]);
  }
});

test('a required field missing from an item fails naming the item; an empty list is waited for', async () => {
  const p = await page(CARDS('card'));
  const required = FIELDS.map((f) => ({ ...f, optional: false }));
  const answer = await extract(p, { items: [ITEMS], fields: required, timeoutMs: 300 });
  assert.equal(answer.ok, false);
  assert.deepEqual(answer.problem, { kind: 'missing', item: 2, field: 'price', itemText: 'Desk more', value: null });
  const none = await extract(p, { items: [{ kind: 'css', value: '.gone' }], fields: FIELDS, timeoutMs: 200 });
  assert.deepEqual([none.ok, none.states], [false, ['matched no element']]);
  const empty = await extract(p, { items: [{ kind: 'css', value: '.gone' }], fields: FIELDS, atLeast: 0, timeoutMs: 500 });
  assert.deepEqual([empty.ok, empty.winner, empty.rows], [true, null, []]);
});

test('a list still filling in is taken once its rows hold still, figures once they are figures', async () => {
  const p = await page(`<base href="http://shop.test/"><ul aria-label="Results"><li><h3>One</h3><span class="price">—</span><a href="/1">x</a></li></ul>`);
  await p.evaluate(() => {
    const ul = document.querySelector('ul');
    let n = 1;
    const add = () => {
      n += 1;
      ul.insertAdjacentHTML('beforeend', `<li><h3>Item ${n}</h3><span class="price">$${n}.00</span><a href="/${n}">x</a></li>`);
      if (n < 6) setTimeout(add, 30);
    };
    setTimeout(add, 30);
    setTimeout(() => { ul.querySelector('.price').textContent = '$1.00'; }, 100);
  });
  const items = { kind: 'structure', value: '*', structure: { within: { region: { role: 'list', name: 'Results' } }, pick: 'items' } };
  const answer = await extract(p, { items: [items], fields: FIELDS, quietMs: 120 });
  assert.equal(answer.ok, true, JSON.stringify(answer));
  assert.deepEqual(answer.rows.map((r) => [r[0], r[1]]), [['One', '$1.00'], ['Item 2', '$2.00'], ['Item 3', '$3.00'],
    ['Item 4', '$4.00'], ['Item 5', '$5.00'], ['Item 6', '$6.00']]);
});

test('items inside an open shadow root, and fields inside each item\'s own shadow root', async () => {
  const p = await page(`<base href="http://shop.test/"><main><result-list></result-list></main><script>
    customElements.define('result-card', class extends HTMLElement {
      connectedCallback() { const r = this.attachShadow({ mode: 'open' });
        r.innerHTML = '<h3>' + this.dataset.name + '</h3><b class="price">' + this.dataset.price + '</b><a href="/r/' + this.dataset.name + '">go</a>'; }
    });
    customElements.define('result-list', class extends HTMLElement {
      connectedCallback() { const r = this.attachShadow({ mode: 'open' });
        r.innerHTML = '<div class="grid"><result-card data-name="Ant" data-price="1"></result-card><result-card data-name="Bee" data-price="2"></result-card></div>'; }
    });
  </script>`);
  const items = { kind: 'structure', value: '*', structure: { within: { region: { role: 'main' } }, pick: 'items' } };
  const css = { kind: 'css', value: 'result-card', shadow: ['result-list'] };
  for (const candidate of [items, css]) {
    const answer = await extract(p, { items: [candidate], fields: FIELDS });
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.deepEqual(answer.rows.map((r) => [r[0], r[1], new URL(r[2]).pathname]), [['Ant', '1', '/r/Ant'], ['Bee', '2', '/r/Bee']]);
  }
});

test('a table\'s data rows are its items, header rows left out', async () => {
  const p = await page(`<table aria-label="Prices"><thead><tr><th>Name</th><th>Price</th></tr></thead>
    <tbody><tr><td>Lamp</td><td>3</td></tr><tr><td>Desk</td><td>4</td></tr></tbody></table>`);
  const items = { kind: 'structure', value: '*', structure: { within: { region: { role: 'table', name: 'Prices' } }, pick: 'items' } };
  const cell = (n) => ({ kind: 'css', value: `td:nth-child(${n})` });
  const answer = await extract(p, { items: [items], fields: [
    { name: 'name', candidates: [cell(1)], from: 'text', url: false, digits: false, optional: false },
    { name: 'price', candidates: [cell(2)], from: 'text', url: false, digits: true, optional: false },
  ] });
  assert.deepEqual(answer.rows, [['Lamp', '3'], ['Desk', '4']]);
});

test('a list demonstrated by selectors gets candidates checked on every item: the items pick first, then classes and tags', async () => {
  const p = await chromium.page(CARDS('card'), { modules: false });
  await p.evaluate(() => { window.__bflow_record = () => {}; });
  await p.evaluate(shipped('crates/record/src/js/recorder.js'));
  const described = await p.evaluate(() => window.__bflowRecorder.describeList({ items: '.card', fields: [
    { name: 'name', css: 'h3', attribute: null }, { name: 'price', css: '.price', attribute: null }, { name: 'url', css: 'a', attribute: 'href' }, { name: 'self', css: '', attribute: null },
  ] }));
  assert.equal(described.count, 3);
  assert.deepEqual(described.items.map((c) => [c.kind, c.value]), [['structure', '*'], ['css', 'div.card'], ['css', 'div.card-wrap > div.card'], ['css', '.card']]);
  assert.deepEqual(described.items[0].structure, { within: { region: { role: 'region', name: 'Results' } }, pick: 'items' });
  assert.deepEqual(described.fields.map((f) => [f.missing, f.candidates.map((c) => c.value)]), [
    [0, ['h3']], [1, ['.price', 'span.price', 'span']], [0, ['a']], [0, []],
  ]);
  // The redesigned page's cards are still the items pick's, and each field's tag path finds them.
  const answer = await extract(await page(CARDS('x9f-tile')), { items: described.items, fields: described.fields.map((f, i) => ({
    name: String(i), candidates: f.candidates, from: 'text', url: false, digits: false, optional: f.missing > 0 })) });
  assert.deepEqual(answer.rows.map((r) => r.slice(0, 3)), [['Lamp', '$19.50', 'more'], ['Desk', null, 'more'], ['Chair', '€1.299,00', 'more']]);
  // The first item lacks a sibling the others have: the tag path is built where it holds for all.
  const q = await chromium.page(`<main><ul aria-label="R"><li><b>A</b><span class="p">1</span></li>
    <li><b>B</b><span class="p">2</span><span class="s">new</span></li></ul></main>`, { modules: false });
  await q.evaluate(() => { window.__bflow_record = () => {}; });
  await q.evaluate(shipped('crates/record/src/js/recorder.js'));
  const spans = await q.evaluate(() => window.__bflowRecorder.describeList({ items: 'li', fields: [{ name: 'p', css: '.p', attribute: null }] }));
  assert.deepEqual(spans.fields[0].candidates.map((c) => c.value), ['.p', 'span.p', 'span:nth-of-type(1)']);
  const none = await p.evaluate(() => window.__bflowRecorder.describeList({ items: '.gone', fields: [] }));
  assert.deepEqual(none, { problem: 'the items selector `.gone` matches nothing', empty: true });
  const two = await p.evaluate(() => window.__bflowRecorder.describeList({ items: '.card', fields: [{ name: 'any', css: '*', attribute: null }] }));
  assert.equal(two.empty, false);
  assert.match(two.problem, /field `any` \(`\*`\) matches \d+ elements in item 1/);
});

const col = (name, column, digits = false, optional = false) => ({ name, candidates: [], column, from: 'text', url: false, digits, optional });

test('a table\'s rows keyed by column: spanning header rows, a cell spanning rows, missing cells', async () => {
  const p = await page(`<table aria-label="Rates">
    <thead><tr><th rowspan="2">Item</th><th colspan="2">Price</th><th rowspan="2">Note</th></tr>
      <tr><th>EUR</th><th>USD</th></tr></thead>
    <tbody>
      <tr><td>Lamp</td><td>10</td><td>11</td><td rowspan="2">new</td></tr>
      <tr><td>Desk</td><td colspan="2">20</td></tr>
      <tr><td>Rug</td><td>30</td></tr>
    </tbody></table>`);
  const items = { kind: 'structure', value: '*', structure: { within: { region: { role: 'table', name: 'Rates' } }, pick: 'items' } };
  const answer = await extract(p, { items: [items], fields: [
    col('item', 'Item'), col('eur', 'Price / EUR', true), col('usd', 'usd', true, true), col('note', 'Note', false, true),
  ] });
  assert.equal(answer.ok, true, JSON.stringify(answer));
  assert.deepEqual(answer.rows, [['Lamp', '10', '11', 'new'], ['Desk', '20', '20', 'new'], ['Rug', '30', null, null]]);
  // A required column a row lacks fails naming the row.
  const strict = await extract(p, { items: [items], timeoutMs: 300, fields: [col('item', 'Item'), col('usd', 'USD', true)] });
  assert.deepEqual(strict.problem, { kind: 'missing', item: 3, field: 'usd', itemText: 'Rug 30', value: null });
});

test('an ARIA grid\'s rows keyed by column, cells placed by aria-colindex', async () => {
  const p = await page(`<div role="grid" aria-label="People">
    <div role="row"><span role="columnheader" aria-colindex="1">Name</span><span role="columnheader" aria-colindex="2">Age</span><span role="columnheader" aria-colindex="3">City</span></div>
    <div role="row"><span role="gridcell" aria-colindex="1">Ada</span><span role="gridcell" aria-colindex="3">Paris</span></div>
    <div role="row"><span role="gridcell" aria-colindex="3">Rome</span><span role="gridcell" aria-colindex="1">Bo</span><span role="gridcell" aria-colindex="2">41</span></div>
  </div>`);
  const items = { kind: 'structure', value: '*', structure: { within: { region: { role: 'grid', name: 'People' } }, pick: 'items' } };
  const answer = await extract(p, { items: [items], fields: [col('name', 'Name'), col('age', 'Age', true, true), col('city', 'City')] });
  assert.deepEqual(answer.rows, [['Ada', null, 'Paris'], ['Bo', '41', 'Rome']]);
});
