// The one visibility rule (visibility.ts) is Playwright's: on every case here, ours answers what
// Playwright's own `locator.isVisible()` answers — in particular an element of opacity 0 is
// visible (the JavaScript recorder's "hidden before a hover" said it was not, the resolver
// said it was, the Playwright export's prelude ignored `visibility: hidden`).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { start } from './harness.mjs';

let chromium;
before(async () => { chromium = await start(); });
after(async () => { await chromium.close(); });

const CASES = {
  plain: '<button>plain</button>',
  transparent: '<button style="opacity: 0">transparent</button>',
  'transparent-parent': '<div style="opacity: 0"><button>inside</button></div>',
  'display-none': '<button style="display: none">none</button>',
  'in-display-none': '<div style="display: none"><button>inside</button></div>',
  'visibility-hidden': '<button style="visibility: hidden">hidden</button>',
  'visibility-collapse': '<button style="visibility: collapse">collapse</button>',
  'hidden-parent-visible-child': '<div style="visibility: hidden"><button style="visibility: visible">shown</button></div>',
  'zero-size': '<div style="width: 0; height: 0; overflow: hidden"></div>',
  empty: '<span></span>',
  'off-screen': '<button style="position: absolute; left: -5000px">off</button>',
  'contents-with-child': '<div style="display: contents"><button>child</button></div>',
  'contents-with-text': '<div style="display: contents">text</div>',
  'contents-empty': '<div style="display: contents"></div>',
  'closed-details': '<details><summary>s</summary><button>in details</button></details>',
  'content-visibility': '<div style="content-visibility: hidden"><button>skipped</button></div>',
  clipped: '<div style="width: 10px; height: 10px; overflow: hidden"><button style="margin-left: 50px">clipped</button></div>',
};

test('isVisible agrees with Playwright on every case, opacity 0 included', async () => {
  const html = Object.entries(CASES).map(([id, h]) => `<section id="${id}">${h}</section>`).join('\n');
  const page = await chromium.page(html);
  const disagreements = [];
  for (const id of Object.keys(CASES)) {
    // The innermost element of the case: what is asked about.
    const target = page.locator(`#${id} > *`).last();
    const inner = (await target.locator('button').count()) ? target.locator('button') : target;
    const theirs = await inner.isVisible();
    const ours = await inner.evaluate((el) => BF.visibility.isVisible(el));
    if (ours !== theirs) disagreements.push(`${id}: ours ${ours}, Playwright ${theirs}`);
  }
  assert.deepEqual(disagreements, []);
  // And the rule says what it means, independently of Playwright.
  const verdicts = await page.evaluate(() => ({
    transparent: BF.visibility.isVisible(document.querySelector('#transparent button')),
    hidden: BF.visibility.isVisible(document.querySelector('#visibility-hidden button')),
    contents: BF.visibility.isVisible(document.querySelector('#contents-with-child > div')),
    zero: BF.visibility.isVisible(document.querySelector('#zero-size > div')),
  }));
  assert.deepEqual(verdicts, { transparent: true, hidden: false, contents: true, zero: false });
});

test('the resolver waits for visibility by the same rule', async () => {
  const page = await chromium.page('<button id="t" style="opacity: 0">Go</button><button id="h" style="visibility: hidden">Hide</button>');
  const answers = await page.evaluate(async () => {
    const wait = (css, visible) => BF.resolve.resolve({ mode: 'wait', candidates: [{ kind: 'css', value: css }], timeoutMs: 0, visible });
    return [await wait('#t', true), await wait('#h', true), await wait('#h', false)];
  });
  assert.deepEqual(answers.map((a) => a.ok), [true, false, true]);
  assert.equal(answers[1].states[0], 'matched 0 element(s)');
});

test('roles hide from the accessibility tree by the style half of the rule, not by opacity', async () => {
  const page = await chromium.page('<button id="b"><span style="opacity: 0">Faded</span><span style="visibility: hidden">Gone</span> Save</button>');
  assert.equal(await page.evaluate(() => BF.roles.accessibleName(document.getElementById('b'))), 'Faded Save');
});

test("the Playwright export's prelude counts visible elements by Playwright's rule", async () => {
  // The prelude is CommonJS text appended to exported scripts: loaded here with the real
  // playwright-core, and its `waitForElements` run against a page.
  const { createRequire } = await import('node:module');
  const { shipped } = await import('./harness.mjs');
  const require = createRequire(import.meta.url);
  const text = shipped('crates/steps/src/js/playwright_prelude.js');
  const prelude = new Function('require', 'module', text + '\nreturn { waitForElements };')(require, { exports: {} });
  const page = await chromium.page('<button id="t" style="opacity: 0">Go</button><button id="h" style="visibility: hidden">Hide</button>', { modules: false });
  const sel = (css) => ({ candidates: [{ kind: 'css', value: css }] });
  await prelude.waitForElements(page, sel('#t'), { visible: true, properties: {} }, 500);
  await prelude.waitForElements(page, sel('#h'), { visible: false, properties: {} }, 500);
  await assert.rejects(prelude.waitForElements(page, sel('#h'), { visible: true, properties: {} }, 300), /did not hold/);
});
