// Roles and accessible names (roles.ts) in Chromium: the cases the standard decides and the
// classes the issues named (labels before values, generated content, aria-labeledby, aside,
// presentational images, header scoping, table headers, wrapped selects).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { start } from './harness.mjs';

let chromium;
before(async () => { chromium = await start(); });
after(async () => { await chromium.close(); });

const PAGE = `
<style>.req::after { content: " *" } .icon::before { content: "\\2605" / "Star" }</style>
<button id="b1">Save</button>
<label for="s1">Send it</label><input id="s1" type="submit" value="Go">
<input id="s2" type="submit">
<input id="s3" type="reset" value="">
<span id="lbl">Email address</span><input id="t1" aria-labeledby="lbl">
<input id="t2" aria-labelledby="t2 lbl" aria-label="Work">
<label class="req" for="t3">Name</label><input id="t3">
<button id="b2"><span class="icon"></span></button>
<img id="i1" alt="" title="decoration"><img id="i2" src="x" alt="Logo"><div id="i3" role="image" aria-label="Chart"></div>
<header id="h1">Top</header><article><header id="h2">In article</header><aside id="a1">Note</aside></article>
<aside id="a2">Side</aside>
<table><thead><tr><th id="th1">Price</th></tr></thead><tbody><tr><th id="th2">Row</th><td id="td1">3</td></tr></tbody></table>
<label>Size <select id="sel"><option>Small</option><option selected>Medium</option></select></label>
<input id="p1" placeholder="Search" title="Find things">
<input id="p2" placeholder="Query">
<div id="hidden" aria-hidden="true">x</div><button id="b3"><span hidden>secret</span>Shown</button>
<div role="presentation" tabindex="0" id="pres">Focusable</div>
<ul><li id="li1">One</li></ul><li id="li2">Loose</li>
<address id="ad">Street</address><dfn id="dfn">term</dfn><s id="s">old</s>
`;

test('roles follow HTML-AAM and ARIA (implicit, explicit, synonyms, scoping)', async () => {
  const page = await chromium.page(PAGE);
  const roles = await page.evaluate(() => Object.fromEntries(
    ['b1', 's1', 't1', 'i1', 'i2', 'i3', 'h1', 'h2', 'a1', 'a2', 'th1', 'th2', 'td1', 'sel', 'p1', 'pres', 'li1', 'li2', 'ad', 'dfn', 's']
      .map((id) => [id, BF.roles.roleOf(document.getElementById(id))])));
  assert.deepEqual(roles, {
    b1: 'button', s1: 'button', t1: 'textbox', i1: 'presentation', i2: 'img', i3: 'img',
    h1: 'banner', h2: 'sectionheader', a1: null, a2: 'complementary', th1: 'columnheader', th2: 'rowheader', td1: 'cell',
    sel: 'combobox', p1: 'textbox', pres: null, li1: 'listitem', li2: null, ad: 'group', dfn: 'term', s: 'deletion',
  });
  // `image` and `img`, `presentation` and `none` are one role each.
  assert.equal(await page.evaluate(() => BF.roles.sameRole('img', 'image') && BF.roles.sameRole('presentation', 'none')), true);
  assert.equal(await page.evaluate(() => BF.roles.sameRole('img', 'button')), false);
});

test('accessible names follow accname 1.2 and HTML-AAM', async () => {
  const page = await chromium.page(PAGE);
  const names = await page.evaluate(() => Object.fromEntries(
    ['b1', 's1', 's2', 's3', 't1', 't2', 't3', 'b2', 'i1', 'i2', 'sel', 'p1', 'p2', 'b3', 'th1']
      .map((id) => [id, BF.roles.accessibleName(document.getElementById(id))])));
  assert.deepEqual(names, {
    b1: 'Save',
    s1: 'Send it', // the <label> before the value
    s2: 'Submit', // a submit button's default label
    s3: '', // an empty value is the label
    t1: 'Email address', // the misspelt aria-labeledby, as Chromium
    t2: 'Work Email address', // labelledby naming itself: its own aria-label
    t3: 'Name *', // CSS generated content
    b2: 'Star', // generated content's alternative text
    i1: '', // a presentational image is not named by its title
    i2: 'Logo',
    sel: 'Size', // a wrapped select is left out of its label's text
    p1: 'Find things', // the title before the placeholder
    p2: 'Query',
    b3: 'Shown', // hidden content is left out
    th1: 'Price',
  });
  assert.equal(await page.evaluate(() => BF.roles.labelOf(document.getElementById('t3'))), 'Name *');
  assert.equal(await page.evaluate(() => BF.roles.labelMatches(document.getElementById('sel'), 'Size')), true);
});

test('names are the text as it renders: counters, text-transform, visibility, aria-owns, hidden roots', async () => {
  const page = await chromium.page(`
    <style>
      ol.c { counter-reset: n 2 } ol.c li::before { counter-increment: n 3; content: counter(n) ") " }
      .alt::before { counter-set: k 7; content: "" / counter(k) }
      .up { text-transform: uppercase }
    </style>
    <ol class="c"><li id="c1">one</li><li id="c2">two</li></ol>
    <button id="alt" class="alt">new</button>
    <button id="up" class="up">ok</button>
    <h2 id="vis">a <span style="visibility:hidden">b <span style="visibility:visible">c</span></span></h2>
    <a id="own" href="#" aria-owns="tail">Docs</a><div aria-hidden="true"><span id="tail"> (PDF)</span></div>
    <div style="visibility:hidden"><button id="hid"><span>Later</span></button></div>`);
  const names = await page.evaluate(() => Object.fromEntries(['c1', 'c2', 'alt', 'up', 'vis', 'own', 'hid']
    .map((id) => [id, BF.roles.accessibleName(document.getElementById(id))])));
  assert.deepEqual(names, {
    c1: '5) one', // counter-reset 2, then each item's ::before increments by 3
    c2: '8) two',
    alt: '7 new', // a counter in the alternative text
    up: 'OK',
    vis: 'a c', // visibility: visible again under a hidden span
    own: 'Docs (PDF)', // an owned element is the owner's last child, out of its aria-hidden parent
    hid: 'Later', // a hidden element's own name is its full text (menus hidden until a hover)
  });
  // A name recorded before names followed text-transform still matches; no other casing does.
  const matches = await page.evaluate(() => ['OK', 'ok', 'Ok']
    .map((want) => BF.roles.nameMatches(document.getElementById('up'), want)));
  assert.deepEqual(matches, [true, true, false]);
});

test('names reach into open shadow roots and slots', async () => {
  const page = await chromium.page(`<my-button id="host"><span>Pay now</span></my-button>
    <script>
      const host = document.getElementById('host');
      host.attachShadow({ mode: 'open' }).innerHTML = '<button id="inner"><slot></slot> €</button>';
    </script>`);
  const name = await page.evaluate(() => BF.roles.accessibleName(document.getElementById('host').shadowRoot.getElementById('inner')));
  assert.equal(name, 'Pay now €');
});

test('one describe: markup for failures, role and name for checks and steps', async () => {
  const page = await chromium.page('<button id="b" class="primary big">Save</button><div id="d" class="x"></div><nav id="n"></nav>');
  const got = await page.evaluate(() => {
    const [b, d, n] = ['b', 'd', 'n'].map((id) => document.getElementById(id));
    return {
      markup: BF.describe.markup(b),
      roleAndName: [BF.describe.roleAndName(b), BF.describe.roleAndName(d)],
      describe: [BF.describe.describe(b), BF.describe.describe(n), BF.describe.describe(d)],
    };
  });
  assert.deepEqual(got, {
    markup: '<button#b.primary.big>',
    roleAndName: ['button "Save"', null],
    describe: ['button "Save"', 'navigation', '<div#d>'],
  });
});
