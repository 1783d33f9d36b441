// A long tool (125 steps) in the preview: the timeline follows the running step and says
// "Step n of N"; the clock of a step that just started never reads below 0 s. Real Chromium
// against the built UI, Tauri's IPC mocked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openApp, emit, useWidth } from '../harness.mjs';
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

const step = (index) => ({
  index, kind: 'click', label: `Click button "Item ${index + 1}"`, state: 'pending', duration_ms: null, winner: null,
  candidates: [`test_id "item-${index + 1}"`], navigated_to: null, error: null, screenshot: null, checks: [],
});

for (const width of [1000, 1600]) {
  test(`preview at ${width} px: a 125-step tool follows its running step and says where it is`, async () => {
    useWidth(width);
    try {
      const plan = Array.from({ length: 125 }, (_, i) => step(i));
      const page = await openApp(browser, server.origin, (cmd, args, F) => {
        if (cmd === 'library_list') return F.library;
        if (cmd === 'preview_plan') return F.plan;
        if (cmd === 'preview_run') return new Promise(() => {});
        return Promise.reject({ code: 'unexpected', message: cmd });
      }, { library: [fx.searchPrice], plan });
      await page.locator('[data-nav="preview"]').click();
      await page.locator('li[data-step="124"]').waitFor({ state: 'attached' });
      await page.locator('input[data-input="query"]').fill('keyboard');
      await page.getByTestId('run').click();
      assert.equal(await page.getByTestId('run-progress').innerText(), 'Step 1 of 125');
      assert.doesNotMatch(await page.locator('li[data-step="0"] [data-testid="step-time"]').innerText(), /^-/, 'never a negative time');
      for (let i = 0; i < 99; i++) {
        await emit(page, 'preview://step', { ...plan[i], state: 'passed', duration_ms: 10, winner: plan[i].candidates[0] });
      }
      await page.waitForFunction(() => document.querySelector('[data-testid="run-progress"]')?.textContent === 'Step 100 of 125');
      const running = page.locator('li[data-step="99"]');
      assert.equal(await running.getAttribute('data-state'), 'running');
      await page.waitForFunction(() => {
        const r = document.querySelector('li[data-step="99"]').getBoundingClientRect();
        return r.top >= 0 && r.bottom <= window.innerHeight;
      });
      await page.close();
    } finally {
      useWidth(null);
    }
  });
}
