// The one walk through open shadow roots (shadow.ts), and what is built on it: the resolver's
// semantic candidates pierce open roots at any depth, CSS stays in its tree, closed roots stay
// closed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { start } from './harness.mjs';

let chromium;
before(async () => { chromium = await start(); });
after(async () => { await chromium.close(); });

const PAGE = `<div id="a"><span id="a1"></span></div>
<outer-card id="outer"><b id="slotted" slot="title">Title</b></outer-card>
<closed-card id="closed"></closed-card>
<script>
  const outer = document.getElementById('outer').attachShadow({ mode: 'open' });
  outer.innerHTML = '<h2 id="o1"><slot name="title"></slot></h2><inner-field id="innerHost"></inner-field>';
  const inner = outer.getElementById('innerHost').attachShadow({ mode: 'open' });
  inner.innerHTML = '<label for="f">Card number</label><input id="f" data-testid="card">';
  document.getElementById('closed').attachShadow({ mode: 'closed' }).innerHTML = '<input data-testid="card">';
</script>`;

test('deepElements walks open roots at any depth in shadow-including order, never closed ones', async () => {
  const page = await chromium.page(PAGE);
  const ids = await page.evaluate(() => BF.shadow.deepElements(document.body).map((e) => e.id || e.localName));
  assert.deepEqual(ids, ['a', 'a1', 'outer', 'o1', 'slot', 'innerHost', 'label', 'f', 'slotted', 'closed', 'script']);
});

test('composed parents go through slots and hosts; hostsOf lists the chain', async () => {
  const page = await chromium.page(PAGE);
  const got = await page.evaluate(() => {
    const outer = document.getElementById('outer');
    const field = outer.shadowRoot.getElementById('innerHost').shadowRoot.getElementById('f');
    const slotted = document.getElementById('slotted');
    return {
      slottedParent: BF.shadow.composedParent(slotted).localName,
      fieldInOuter: BF.shadow.composedContains(outer, field),
      outerInField: BF.shadow.composedContains(field, outer),
      hosts: BF.shadow.hostsOf(field).map((h) => h.id),
    };
  });
  assert.deepEqual(got, { slottedParent: 'slot', fieldInOuter: true, outerInField: false, hosts: ['outer', 'innerHost'] });
});

test('semantic candidates pierce open roots, CSS does not, and a closed root is not searched', async () => {
  const page = await chromium.page(PAGE);
  const answers = await page.evaluate(async () => {
    const one = (c) => BF.resolve.resolve({ mode: 'wait', candidates: [c], timeoutMs: 0 });
    return {
      label: await one({ kind: 'label', value: 'Card number' }),
      testId: await one({ kind: 'test_id', value: 'card' }),
      css: await one({ kind: 'css', value: '#f' }),
      chained: await one({ kind: 'css', value: '#f', shadow: ['#outer', '#innerHost'] }),
      badHost: await one({ kind: 'css', value: '#f', shadow: ['#nowhere'] }),
    };
  });
  assert.equal(answers.label.ok && answers.label.count, 1);
  assert.equal(answers.testId.ok && answers.testId.count, 1, 'the closed root holds another, unseen');
  assert.equal(answers.css.ok, false);
  assert.equal(answers.chained.ok && answers.chained.count, 1);
  assert.deepEqual(answers.badHost.states, ['shadow host `#nowhere` not found']);
});

test('the focused element and the element at a point are found inside shadow roots', async () => {
  const page = await chromium.page(PAGE);
  await page.locator('#f').focus();
  const got = await page.evaluate(() => {
    const f = BF.shadow.deepActive();
    const r = f.getBoundingClientRect();
    return { active: f.id, atPoint: BF.shadow.deepElementFromPoint(r.left + 2, r.top + 2).id };
  });
  assert.deepEqual(got, { active: 'f', atPoint: 'f' });
});
