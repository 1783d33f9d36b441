// The resolver as the Rust crates ship it (crates/cdp/src/injected/resolve.js): ranking (the
// highest-ranked candidate matching exactly one element wins), ambiguity, waiting, reads
// checked like gestures, reliance on content or position, and actionability.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { shipped, start } from './harness.mjs';

let chromium;
before(async () => { chromium = await start(); });
after(async () => { await chromium.close(); });

const REQUIRE_CLICK = { visible: true, enabled: true, editable: false, stable: true, hitTest: true, scroll: true };
const NONE = { visible: false, enabled: false, editable: false, stable: false, hitTest: false, scroll: false };

async function page(html) {
  const p = await chromium.page(html, { modules: false });
  await p.evaluate(`globalThis.R = (${shipped('crates/cdp/src/injected/resolve.js')})`);
  return p;
}
const resolve = (p, spec) => p.evaluate((s) => globalThis.R(s), spec);

test('the highest-ranked candidate that matches exactly one element wins; the others say why not', async () => {
  const p = await page(`<form aria-label="Search"><button>Go</button><button>Go</button>
    <input name="q" aria-label="Query"><button type="submit" data-testid="send">Send</button></form>`);
  const answer = await resolve(p, { mode: 'action', timeoutMs: 200, require: REQUIRE_CLICK, candidates: [
    { kind: 'text', value: 'Go' },
    { kind: 'test_id', value: 'missing' },
    { kind: 'role', value: 'button', name: 'Send' },
    { kind: 'css', value: 'button[type=submit]' },
  ] });
  assert.equal(answer.ok, true);
  assert.equal(answer.winner, 2);
  const failed = await resolve(p, { mode: 'action', timeoutMs: 100, require: REQUIRE_CLICK, candidates: [
    { kind: 'text', value: 'Go' }, { kind: 'test_id', value: 'missing' },
  ] });
  assert.equal(failed.ok, false);
  assert.deepEqual(failed.states, ['matched 2 elements (needs exactly one): <button>, <button>', 'matched no element']);
  // A structure candidate: the default button of the form holding the field labelled "Query".
  const structure = await resolve(p, { mode: 'action', timeoutMs: 200, require: REQUIRE_CLICK, candidates: [
    { kind: 'structure', value: 'button', structure: { within: { form_with_field: { label: 'Query' } }, pick: 'default_button' } },
  ] });
  assert.deepEqual([structure.ok, structure.winner], [true, 0]);
});

test('a candidate is waited for until it appears and is actionable, and the point is its centre or the recorded offset', async () => {
  const p = await page('<div id="box"></div>');
  setTimeout(() => p.evaluate(() => {
    document.getElementById('box').innerHTML = '<button style="position:absolute;left:100px;top:50px;width:200px;height:40px">Later</button>';
  }), 150);
  const answer = await resolve(p, { mode: 'action', timeoutMs: 3000, require: REQUIRE_CLICK, candidates: [{ kind: 'role', value: 'button', name: 'Later' }] });
  assert.equal(answer.ok, true);
  assert.deepEqual(answer.point, { x: 200, y: 70 });
  // An offset recorded in a box twice as wide keeps its place: the same fraction of the box.
  const offset = await resolve(p, { mode: 'action', timeoutMs: 1000, require: REQUIRE_CLICK,
    offset: { x: 100, y: 10, box: { width: 400, height: 40 } }, candidates: [{ kind: 'text', value: 'Later' }] });
  assert.deepEqual(offset.point, { x: 150, y: 60 });
});

test('a covered or disabled element is not acted on, and the reason names what is in the way', async () => {
  const p = await page(`<button id="b" style="position:absolute;left:0;top:0;width:100px;height:30px">Under</button>
    <div id="cover" style="position:absolute;left:0;top:0;width:200px;height:100px;background:#fff"></div>
    <button disabled>Off</button>`);
  const covered = await resolve(p, { mode: 'action', timeoutMs: 150, require: REQUIRE_CLICK, candidates: [{ kind: 'text', value: 'Under' }] });
  assert.equal(covered.ok, false);
  assert.equal(covered.states[0], '<button#b> is covered by <div#cover>');
  const disabled = await resolve(p, { mode: 'action', timeoutMs: 100, require: REQUIRE_CLICK, candidates: [{ kind: 'text', value: 'Off' }] });
  assert.equal(disabled.states[0], '<button> is disabled');
});

test('a read waits for a value consistent with the recording, and never accepts an empty one', async () => {
  const p = await page('<dl><dt>Price</dt><dd id="out"></dd></dl><h2>Other</h2><span id="other">12</span>');
  const read = { from: 'text', nonEmpty: true, shape: 'amount', identity: { tag: 'dd', role: 'definition', label: 'Price' } };
  // Empty: not accepted; the failure carries what was last read.
  const empty = await resolve(p, { mode: 'action', timeoutMs: 150, require: NONE, read, candidates: [{ kind: 'css', value: '#out' }] });
  assert.equal(empty.ok, false);
  assert.equal(empty.states[0], '<dd#out> is empty');
  assert.deepEqual(empty.lastRead, { candidate: 0, value: '' });
  // A loading text: not an amount yet. The value arrives: accepted.
  await p.evaluate(() => { document.getElementById('out').textContent = 'Loading…'; });
  setTimeout(() => p.evaluate(() => { document.getElementById('out').textContent = '$ 12.50'; }), 150);
  const later = await resolve(p, { mode: 'action', timeoutMs: 3000, require: NONE, read, candidates: [{ kind: 'css', value: '#out' }] });
  assert.deepEqual([later.ok, later.result], [true, '$ 12.50']);
  // A lower-ranked candidate is taken only on the element the recording read.
  const stranger = await resolve(p, { mode: 'action', timeoutMs: 100, require: NONE, read: { ...read, shape: 'number' },
    candidates: [{ kind: 'css', value: '#gone' }, { kind: 'css', value: '#other' }] });
  assert.equal(stranger.ok, false);
  assert.match(stranger.states[1], /not the element recorded: expected <dd> \(definition\) beside "Price", found <span>/);
  // The label anchor finds the value without ids or its own text.
  const anchored = await resolve(p, { mode: 'action', timeoutMs: 500, require: NONE, read,
    candidates: [{ kind: 'structure', value: 'definition', structure: { within: { beside_label: 'Price' } } }] });
  assert.deepEqual([anchored.ok, anchored.result], [true, '$ 12.50']);
});

test('a step relying on its content stops at an ambiguous naming candidate; on position, it skips the naming ones', async () => {
  const p = await page(`<table role="grid" aria-label="Orders"><thead><tr><th>Name</th></tr></thead>
    <tbody><tr><td>Ada</td></tr><tr><td>Ada</td></tr><tr><td>Bob</td></tr></tbody></table>`);
  const place = { kind: 'structure', value: 'gridcell', structure: { within: { region: { role: 'grid', name: 'Orders' } }, pick: { cell: { row: 3, column: 'Name' } } } };
  const content = await resolve(p, { mode: 'action', timeoutMs: 100, require: NONE, reliesOn: 'content',
    candidates: [{ kind: 'text', value: 'Ada' }, place] });
  assert.equal(content.ok, false);
  assert.match(content.states[0], /^matched 2 elements .*: <td> "Ada", <td> "Ada"$/);
  assert.equal(content.states[1], 'not consulted: candidate 1 is ambiguous');
  const position = await resolve(p, { mode: 'action', timeoutMs: 500, require: NONE, reliesOn: 'position',
    read: { from: 'text', nonEmpty: true }, candidates: [{ kind: 'text', value: 'Bob' }, place] });
  assert.deepEqual([position.ok, position.winner, position.result], [true, 1, 'Bob']);
});

test('a column or heading recorded as written still anchors when the page styles it uppercase', async () => {
  const p = await page(`<table role="grid" aria-label="Orders"><thead><tr><th style="text-transform: uppercase">Name</th></tr></thead>
    <tbody><tr><td>Ada</td></tr><tr><td>Bob</td></tr></tbody></table>
    <section><h2 style="text-transform: uppercase">Totals</h2><span>12</span></section>`);
  const cell = { kind: 'structure', value: 'gridcell', structure: { within: { region: { role: 'grid', name: 'Orders' } }, pick: { cell: { row: 2, column: 'Name' } } } };
  const byColumn = await resolve(p, { mode: 'action', timeoutMs: 500, require: NONE, read: { from: 'text', nonEmpty: true }, candidates: [cell] });
  assert.deepEqual([byColumn.ok, byColumn.result], [true, 'Bob']);
  const under = { kind: 'structure', value: 'generic', structure: { within: { under_heading: 'Totals' } } };
  const byHeading = await resolve(p, { mode: 'action', timeoutMs: 500, require: NONE, read: { from: 'text', nonEmpty: true }, candidates: [under] });
  assert.deepEqual([byHeading.ok, byHeading.result], [true, '12']);
});

test('a fill selects the text to be typed, a select takes its option, and a wrong option is fatal', async () => {
  const p = await page('<input id="i" value="old"><select id="s"><option value="a">Apple</option><option value="b">Banana</option></select>');
  const fill = await resolve(p, { mode: 'action', timeoutMs: 500, require: { ...NONE, editable: true }, act: { kind: 'fill', value: 'new' },
    candidates: [{ kind: 'css', value: '#i' }] });
  assert.deepEqual(fill.result, { type: true });
  assert.deepEqual(await p.evaluate(() => { const i = document.activeElement; return [i.id, i.selectionStart, i.selectionEnd]; }), ['i', 0, 3]);
  const select = await resolve(p, { mode: 'action', timeoutMs: 500, require: NONE, act: { kind: 'fill', value: 'Banana' },
    candidates: [{ kind: 'css', value: '#s' }] });
  assert.deepEqual(select.result, { done: true });
  assert.equal(await p.evaluate(() => document.getElementById('s').value), 'b');
  const wrong = await resolve(p, { mode: 'action', timeoutMs: 500, require: NONE, act: { kind: 'fill', value: 'Cherry' },
    candidates: [{ kind: 'css', value: '#s' }] });
  assert.equal(wrong.fatal, 'no option `Cherry` (options: a, b)');
});

test('an nth pick finds by position only among as many elements as the recording saw there', async () => {
  const p = await page(`<input role="combobox" aria-label="City" aria-controls="cities">
    <ul role="listbox" id="cities"><li role="option">Bern</li><li role="option">Basel</li><li role="option">Zug</li></ul>
    <dl><dt>Total</dt><dd>12</dd><dd>14</dd></dl>`);
  const nth = (of) => ({ kind: 'structure', value: 'option',
    structure: { within: { controlled_by: { role: 'combobox', name: 'City' } }, pick: { nth: 2 }, ...(of ? { of } : {}) } });
  const same = await resolve(p, { mode: 'action', timeoutMs: 300, require: NONE, read: { from: 'text', nonEmpty: true }, candidates: [nth(3)] });
  assert.deepEqual([same.ok, same.result], [true, 'Basel']);
  // The list grew an item: the second of four is not the second of three.
  await p.evaluate(() => document.getElementById('cities').insertAdjacentHTML('afterbegin', '<li role="option">Aarau</li>'));
  const grown = await resolve(p, { mode: 'action', timeoutMs: 150, require: NONE, candidates: [nth(3)] });
  assert.equal(grown.ok, false);
  assert.match(grown.states[0], /^holds 4 elements of role option where the recording saw 3: position does not tell which is meant: <li>, <li>, <li>, …$/);
  // Without a recorded count (a tool file written before it was recorded), the n-th as before.
  const old = await resolve(p, { mode: 'action', timeoutMs: 300, require: NONE, read: { from: 'text', nonEmpty: true }, candidates: [nth(null)] });
  assert.deepEqual([old.ok, old.result], [true, 'Bern']);
  // The label anchor holds to the same count.
  const beside = (of) => ({ kind: 'structure', value: 'definition', structure: { within: { beside_label: 'Total' }, pick: { nth: 2 }, of } });
  const label = await resolve(p, { mode: 'action', timeoutMs: 300, require: NONE, read: { from: 'text', nonEmpty: true }, candidates: [beside(2)] });
  assert.deepEqual([label.ok, label.result], [true, '14']);
  const fewer = await resolve(p, { mode: 'action', timeoutMs: 150, require: NONE, candidates: [beside(3)] });
  assert.match(fewer.states[0], /^holds 2 elements of role definition where the recording saw 3/);
});

test('below a name that matches several, no candidate that finds by position is consulted; other anchors are', async () => {
  const p = await page(`<form aria-label="Pick"><input aria-label="City">
    <ul role="listbox" aria-label="Cities" id="l"><li role="option">Basel</li><li role="option">Basel</li></ul>
    <button type="submit" onclick="event.preventDefault()">Basel</button></form>`);
  const positional = [
    { kind: 'structure', value: 'option', structure: { within: { region: { role: 'listbox', name: 'Cities' } }, pick: { nth: 2 } } },
    { kind: 'css', value: '#l > li:nth-of-type(2)' },
    { kind: 'css', value: '#l > li:last-child' },
    { kind: 'xpath', value: '//*[@id="l"]/li[2]' },
  ];
  const ambiguous = await resolve(p, { mode: 'action', timeoutMs: 150, require: NONE,
    candidates: [{ kind: 'role', value: 'option', name: 'Basel' }, ...positional] });
  assert.equal(ambiguous.ok, false);
  assert.match(ambiguous.states[0], /^matched 2 elements/);
  for (const s of ambiguous.states.slice(1)) {
    assert.equal(s, 'not consulted: candidate 1 names several elements, and position does not choose among them');
  }
  // Each of those candidates alone finds the second option: only the rule keeps them out.
  for (const c of positional) {
    const alone = await resolve(p, { mode: 'action', timeoutMs: 300, require: NONE, read: { from: 'text', nonEmpty: true }, candidates: [c] });
    assert.deepEqual([alone.ok, alone.result], [true, 'Basel'], JSON.stringify(c));
  }
  // An anchor that is not a position still decides: the form's default button.
  const button = await resolve(p, { mode: 'action', timeoutMs: 300, require: NONE, candidates: [
    { kind: 'text', value: 'Basel' },
    { kind: 'css', value: 'form > :nth-child(3)' },
    { kind: 'structure', value: 'button', structure: { within: { form_with_field: { label: 'City' } }, pick: 'default_button' } },
  ] });
  assert.equal(button.ok, true);
  assert.equal(button.winner, 2);
  // With no ambiguous name above them, positions decide as before.
  const unnamed = await resolve(p, { mode: 'action', timeoutMs: 300, require: NONE,
    candidates: [{ kind: 'role', value: 'option', name: 'Zug' }, positional[1]] });
  assert.deepEqual([unnamed.ok, unnamed.winner], [true, 1]);
});

test('a read waits past the words a page shows while it waits, in any of the shipped locales', async () => {
  const p = await page('<dl><dt>Total</dt><dd id="out">Please wait</dd></dl>');
  setTimeout(() => p.evaluate(() => { document.getElementById('out').textContent = 'Ready to ship'; }), 150);
  const read = { from: 'text', nonEmpty: true, shape: 'text' };
  const later = await resolve(p, { mode: 'action', timeoutMs: 3000, require: NONE, read, candidates: [{ kind: 'css', value: '#out' }] });
  assert.deepEqual([later.ok, later.result], [true, 'Ready to ship']);
  for (const word of ['Loading', 'Loading results', 'Bitte warten', 'Chargement en cours', '加载中', 'Calculating.']) {
    await p.evaluate((w) => { document.getElementById('out').textContent = w; }, word);
    const still = await resolve(p, { mode: 'action', timeoutMs: 100, require: NONE, read, candidates: [{ kind: 'css', value: '#out' }] });
    assert.equal(still.ok, false, word);
    assert.deepEqual(still.lastRead, { candidate: 0, value: word });
  }
});
