// The replayer's snippets as shipped (crates/replay/src/js): settling on a quiet document,
// polling an expression, and the pointer probe that stops a gesture the browser routed
// elsewhere.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { shipped, start } from './harness.mjs';

let chromium;
before(async () => { chromium = await start(); });
after(async () => { await chromium.close(); });

const snippet = (name) => shipped(`crates/replay/src/js/${name}.js`);
const call = (p, name, ...args) => p.evaluate(`(${snippet(name)})(${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(', ')})`);

test('quiet_mutations resolves once the document holds still, and gives up on one that never does', async () => {
  const p = await chromium.page('<div id="d"></div>', { modules: false });
  assert.equal(await call(p, 'quiet_mutations', 50, 1000), true);
  await p.evaluate(() => { globalThis.busy = setInterval(() => { document.getElementById('d').textContent = String(Math.random()); }, 10); });
  const started = Date.now();
  assert.equal(await call(p, 'quiet_mutations', 100, 300), false);
  assert.ok(Date.now() - started >= 250);
});

test('wait_for_expression polls until the check holds, and reports the last error otherwise', async () => {
  const p = await chromium.page('<div id="d"></div>', { modules: false });
  setTimeout(() => p.evaluate(() => { document.getElementById('d').textContent = 'ready'; }), 100);
  assert.deepEqual(await call(p, 'wait_for_expression', "() => document.getElementById('d').textContent === 'ready'", 2000), { ok: true });
  assert.deepEqual(await call(p, 'wait_for_expression', '() => missing.value', 100), { ok: false, last: 'missing is not defined' });
  assert.equal(await p.evaluate(snippet('next_frames')), true);
});

test('the pointer probe lets a press on its element through and stops one that landed elsewhere', async () => {
  const p = await chromium.page(`<button id="b" style="position:absolute;left:10px;top:10px;width:100px;height:40px">Target</button>
    <div id="other" style="position:absolute;left:300px;top:10px;width:100px;height:40px"></div>`, { modules: false });
  await p.evaluate(() => {
    globalThis.clicks = [];
    for (const id of ['b', 'other']) document.getElementById(id).addEventListener('click', () => globalThis.clicks.push(id));
  });
  await p.evaluate(`globalThis.R = (${shipped('crates/cdp/src/injected/resolve.js')})`);
  const found = await p.evaluate(() => globalThis.R({ mode: 'action', timeoutMs: 1000, candidates: [{ kind: 'text', value: 'Target' }],
    require: { visible: true, enabled: true, editable: false, stable: false, hitTest: true, scroll: false } }));
  assert.equal(found.ok, true);
  assert.deepEqual(await p.evaluate(snippet('arm_pointer_probe')), { at: [60, 30], inView: true });
  // pointerdown, pointerup and click: a stopped pointerdown fires no compatibility mouse events.
  await p.mouse.click(350, 30);
  assert.deepEqual(await p.evaluate(snippet('read_pointer_probe')), { moved: '<div#other>', pressed: '<div#other>', stopped: 3 });
  assert.deepEqual(await p.evaluate(snippet('take_pointer_probe')), { moved: '<div#other>', pressed: '<div#other>', stopped: 3 });
  assert.deepEqual(await p.evaluate(() => globalThis.clicks), [], 'the misrouted gesture never reached the page');
  await p.evaluate(snippet('arm_pointer_probe'));
  await p.mouse.click(60, 30);
  assert.deepEqual(await p.evaluate(snippet('take_pointer_probe')), { moved: 'target', pressed: 'target', stopped: 0 });
  assert.deepEqual(await p.evaluate(() => globalThis.clicks), ['b']);
  assert.equal(await p.evaluate(snippet('take_pointer_probe')), null);
});
