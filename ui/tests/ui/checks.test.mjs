// Post-state checks on the screens: the Record draft lists each step's checks, removable one by
// one, and asks "no effect — remove?" of a click that changed nothing; the preview lists the
// checks of a step. Real Chromium against the built UI, Tauri's IPC mocked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openApp, calls, screenshot } from '../harness.mjs';
import * as fx from '../fixtures.mjs';

let server;
let browser;
before(async () => {
  server = await serveDist();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const step = (i, kind, description, extra = {}) => ({ index: i, kind, description, target: null, best_selector: null, page: 'main', url: 'http://127.0.0.1:4780/index.html', secret: false, thumbnail: fx.png, checks: [], no_effect: false, ...extra });

for (const width of [1000, 1600]) {
  test(`record at ${width} px: each step's checks are listed and removable; a click with no effect asks to be removed`, async () => {
    const steps = [
      step(0, 'navigate', 'Open http://127.0.0.1:4780/index.html'),
      step(1, 'click', 'Click heading "Welcome to the Fixture Shop"', { no_effect: true }),
      step(2, 'key_press', 'Press ArrowRight in slider "Loan term (years)"', {
        checks: ['aria-valuenow is "11"', 'the page changes', 'the focused element\'s text is "a rather long option label that must wrap inside its row and never widen the list"'],
      }),
    ];
    // The handler runs in the page: everything it needs comes in the fixtures.
    const page = await openApp(browser, server.origin, (cmd, args, F) => {
      const draft = (steps) => ({ start_url: 'http://127.0.0.1:4780/index.html', steps, inputs: [], outputs: [], picks: [], can_undo: true });
      switch (cmd) {
        case 'library_list': return [];
        case 'record_status': return { phase: 'editing', draft: draft(F.steps) };
        case 'draft_remove_check': return draft(F.steps.map((s, i) => (i === args.index ? { ...s, checks: s.checks.filter((_, c) => c !== args.check) } : s)));
        case 'draft_remove_step': return draft(F.steps.filter((_, i) => i !== args.index).map((s, i) => ({ ...s, index: i })));
        default: return Promise.reject({ code: 'unexpected', message: cmd });
      }
    }, { steps });
    await page.setViewportSize({ width, height: 820 });
    await page.locator('[data-nav="record"]').click();
    const checks = page.locator('[data-checks="2"]');
    await checks.waitFor();
    assert.match(await checks.innerText(), /aria-valuenow is "11"[\s\S]*the page changes/);
    assert.match(await page.locator('[data-no-effect="1"]').innerText(), /no effect[\s\S]*remove\?/);
    assert.equal(await page.locator('[data-no-effect="2"]').count(), 0);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `the page is ${wide} px wider than the window`);
    await screenshot(page, `ui-record-checks-${width}`);

    await page.locator('[data-remove-check="2-1"]').click();
    await page.waitForFunction(() => !document.querySelector('[data-checks="2"]').innerText.includes('the page changes'));
    assert.deepEqual((await calls(page, 'draft_remove_check')).map((c) => c.args), [{ index: 2, check: 1 }]);

    await page.locator('[data-remove-no-effect="1"]').click();
    await page.waitForFunction(() => !document.querySelector('[data-no-effect]'));
    assert.deepEqual((await calls(page, 'draft_remove_step')).map((c) => c.args), [{ index: 1 }]);
    await page.close();
  });
}

test('preview: a step lists what it checks after it', async () => {
  const plan = fx.plan.map((s, i) => ({ ...s, checks: i === 1 ? ['value is "keyboard"'] : [] }));
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    if (cmd === 'library_list') return F.library;
    if (cmd === 'preview_plan') return F.plan;
    return Promise.reject({ code: 'unexpected', message: cmd });
  }, { library: fx.library, plan });
  await page.locator('[data-nav="preview"]').click();
  const row = page.getByTestId('timeline').locator('li[data-step="1"]');
  await row.waitFor();
  await row.locator('.step-head').click();
  assert.match(await page.locator('[data-step-checks="1"]').innerText(), /value is "keyboard"/);
  await page.close();
});
