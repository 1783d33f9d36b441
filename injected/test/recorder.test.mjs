// The recorder as shipped (crates/record/src/js/recorder.js), driven by trusted input from
// Chromium, its messages collected from its binding: what it sends for clicks, fills and keys,
// typed by protocol/recorder.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { shipped, start } from './harness.mjs';

let chromium;
before(async () => { chromium = await start(); });
after(async () => { await chromium.close(); });

async function recorded(html) {
  const p = await chromium.page(html, { modules: false });
  await p.evaluate(() => { globalThis.sent = []; window.__bflow_record = (json) => globalThis.sent.push(JSON.parse(json)); });
  await p.evaluate(shipped('crates/record/src/js/recorder.js'));
  const messages = async (type, n = 1) => {
    await p.waitForFunction(([t, k]) => globalThis.sent.filter((m) => m.type === t).length >= k, [type, n]);
    return p.evaluate((t) => globalThis.sent.filter((m) => m.type === t), type);
  };
  return { page: p, messages };
}

test('a click is announced, then described by candidates checked in the page', async () => {
  const { page, messages } = await recorded(`<main><form aria-label="Login"><label>User <input name="user"></label>
    <button id="go" type="submit" onclick="event.preventDefault()">Sign in</button></form></main>`);
  assert.equal((await messages('ready'))[0].frame.top, true);
  await page.click('#go');
  const [click] = await messages('click');
  assert.equal(click.target.description, 'button "Sign in"');
  assert.equal(click.target.tag, 'button');
  assert.ok(click.gesture && click.seq === 1 && typeof click.at === 'number', JSON.stringify(click));
  const role = click.target.candidates.find((c) => c.kind === 'role');
  assert.deepEqual([role.value, role.name, role.count, role.target], ['button', 'Sign in', 1, true]);
  const structure = click.target.candidates.find((c) => c.kind === 'structure');
  assert.deepEqual(structure.structure, { within: { form_with_field: { label: 'User' } }, pick: 'default_button' });
  assert.ok(click.offset && click.offset.box.width > 0, JSON.stringify(click.offset));
  assert.equal((await messages('clicking')).length, 1);
  assert.equal((await messages('acting'))[0].secrets, false);
  // Its post-state follows.
  const [state] = await messages('state');
  assert.equal(state.gesture, click.gesture);
});

test('typing is recorded as inputs with the value; a password never leaves the page', async () => {
  const { page, messages } = await recorded('<input id="q" aria-label="Query"><input id="pw" type="password" aria-label="Password">');
  await page.click('#q');
  await page.keyboard.type('ab');
  const inputs = await messages('input', 2);
  assert.deepEqual(inputs.map((m) => m.value), ['a', 'ab']);
  await page.click('#pw');
  await page.keyboard.type('x');
  const all = await messages('input', 3);
  const pw = all[2];
  assert.equal(pw.target.password, true);
  assert.equal('value' in pw, false);
  // The next action (a named key) announces that a capture now must mask a secret.
  assert.equal((await messages('acting', 2)).at(-1).secrets, false);
  await page.keyboard.press('Tab');
  assert.equal((await messages('acting', 3)).at(-1).secrets, true);
});

test('Space on a custom widget is a key step; on a button it is the click', async () => {
  const { page, messages } = await recorded(`<div id="cb" role="checkbox" aria-checked="false" tabindex="0" aria-label="Agree"
    onkeydown="if (event.key === ' ') this.setAttribute('aria-checked', 'true')"></div><button id="b">Send</button>`);
  await page.focus('#cb');
  await page.keyboard.press(' ');
  const [key] = await messages('key');
  assert.deepEqual([key.key, key.target.description], [' ', 'checkbox "Agree"']);
  await page.focus('#b');
  await page.keyboard.press(' ');
  const [click] = await messages('click');
  assert.equal(click.target.description, 'button "Send"');
  assert.equal((await page.evaluate(() => globalThis.sent.filter((m) => m.type === 'key').length)), 1);
});

test('an element shown at opacity 0 under the pointer needs no recorded hover', async () => {
  const { page, messages } = await recorded(`<style>.row .del { opacity: 0 } .row:hover .del { opacity: 1 }
    .menu { display: none } .nav:hover .menu { display: block }</style>
    <div class="row">Item <button class="del">Delete</button></div>
    <div class="nav">Menu <div class="menu"><button id="open">Open</button></div></div>`);
  await page.hover('.row');
  await page.click('.del');
  const [del] = await messages('click');
  assert.equal(del.target.description, 'button "Delete"');
  assert.equal('hover' in del, false, 'visible by the one rule: no hover needed');
  await page.mouse.move(400, 400);
  await page.hover('.nav');
  await page.click('#open');
  const clicks = await messages('click', 2);
  assert.ok(clicks[1].hover, 'a display:none menu revealed by a hover keeps its hover');
});

test('a read keeps a path through its stable classes alone, and generated classes are left out of every path', async () => {
  const { page, messages } = await recorded(`<section id="s-1"><div class="card card--total Card_box__3xYz_">
    <span class="card__label">Total</span><span id="total-7f3a9c21" data-testid="total" class="card__amount css-1h2k3 md:flex">42</span></div>
    <div class="card"><span class="card__label">Tax</span><span class="card__amount">4</span></div></section>`);
  await messages('ready');
  const described = await page.evaluate(() => window.__bflowRecorder.describeCss('[data-testid="total"]'));
  const css = described.target.candidates.filter((c) => c.kind === 'css').map((c) => c.value);
  // Unique by the card's and the amount's classes: no id, test id, position or text; the
  // generated classes (CSS modules, emotion, Tailwind's variants) left out.
  const classOnly = css.filter((v) => !/[#[:]/.test(v));
  assert.deepEqual(classOnly, ['.card.card--total .card__amount'], JSON.stringify(css));
  assert.equal(await page.evaluate((sel) => document.querySelector(sel).textContent, classOnly[0]), '42');
});
