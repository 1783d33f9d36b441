// The states post-state checks read (states.ts), and the replayer's check over them
// (replay/checks.ts, as shipped in crates/replay/src/js/check_state.js).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { shipped, start } from './harness.mjs';

let chromium;
before(async () => { chromium = await start(); });
after(async () => { await chromium.close(); });

const PAGE = `<label>Name <input id="name" value="Ada"></label>
<input id="pw" type="password" value="secret"><input id="cb" type="checkbox" checked>
<div id="combo" role="combobox" aria-expanded="true" aria-activedescendant="o2">Pick<ul role="listbox">
  <li role="option" id="o1">Red</li><li role="option" id="o2">Green</li></ul></div>
<div><input id="chips" value=""><span>Chosen: Blue</span></div>`;

test('statesOf reads values, checks, ARIA states and the active option; never a password', async () => {
  const page = await chromium.page(PAGE);
  const states = await page.evaluate(() => Object.fromEntries(['name', 'pw', 'cb', 'combo', 'chips']
    .map((id) => [id, BF.states.statesOf(document.getElementById(id))])));
  assert.deepEqual(states, {
    name: { value: 'Ada', shown: 'Name' },
    pw: {},
    cb: { checked: 'true' },
    combo: { text: 'Pick Red Green', 'aria-expanded': 'true', 'active-option': 'option "Green"' },
    chips: { value: '', shown: 'Chosen: Blue' },
  });
});

test('the shipped check waits for what the step changed, and names what it found otherwise', async () => {
  const page = await chromium.page(PAGE, { modules: false });
  await page.evaluate(`globalThis.__browserflowResolve = (${shipped('crates/cdp/src/injected/resolve.js')})`);
  // The resolver watches the field before its action, as a fill step with checks does.
  const acted = await page.evaluate(() => globalThis.__browserflowResolve({ mode: 'action', watch: true,
    candidates: [{ kind: 'label', value: 'Name' }], timeoutMs: 1000,
    require: { visible: true, enabled: true, editable: true, stable: false, hitTest: false, scroll: false },
    act: { kind: 'focus' } }));
  assert.equal(acted.ok, true);
  const checkState = shipped('crates/replay/src/js/check_state.js');
  const run = (checks, budget) => page.evaluate(`(${checkState})(${JSON.stringify(checks)}, ${budget})`);
  setTimeout(() => page.evaluate(() => { document.getElementById('name').value = 'Grace'; }), 100);
  assert.deepEqual(await run([{ state: 'value', equals: 'Grace' }, { state: 'page', changes: true }].slice(0, 1), 2000), { ok: true });
  assert.deepEqual(await run([{ state: 'value', equals: 'Alan' }], 100), { ok: false, actual: ['"Grace"'] });
  assert.deepEqual(await run([{ state: 'page', changes: true }], 100), { ok: false, actual: ['the page did not change'] });
  await page.evaluate(() => document.body.append('x'));
  assert.deepEqual(await run([{ state: 'page', changes: true }], 500), { ok: true });
  assert.deepEqual(await run([{ state: 'focus', equals: 'button' }], 50), { ok: false, actual: ['the focus is on textbox "Name"'] });
});
