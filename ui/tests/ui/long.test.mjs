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

for (const width of [1000, 1600]) {
  test(`record at ${width} px: a 125-step recording follows its newest step; Save stays in view and says why it waits`, async () => {
    useWidth(width);
    try {
      const view = (i) => ({ index: i, kind: 'click', description: `Click button "Item ${i + 1}"`, target: null, best_selector: `test_id "item-${i + 1}"`, page: 'main', url: 'http://x/', secret: false, thumbnail: fx.png, checks: [], no_effect: false, repeat: null });
      const page = await openApp(browser, server.origin, (cmd, args, F) => {
        switch (cmd) {
          case 'library_list': return [];
          case 'record_status': return { phase: 'idle' };
          case 'record_start': return null;
          case 'record_stop': return { start_url: 'http://x/', steps: F.steps, inputs: [], outputs: [], picks: [], can_undo: false };
          default: return Promise.reject({ code: 'unexpected', message: cmd });
        }
      }, { steps: Array.from({ length: 125 }, (_, i) => view(i)) });
      await page.locator('[data-nav="record"]').click();
      await page.getByTestId('record-url').fill('http://x/');
      await page.getByTestId('record-start').click();
      await page.getByTestId('record-steps').waitFor();
      for (let i = 0; i < 125; i++) await emit(page, 'record://event', { type: 'step_added', index: i, step: view(i) });
      const inView = (selector) => page.waitForFunction((s) => {
        const r = document.querySelector(s)?.getBoundingClientRect();
        return r && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
      }, selector);
      await inView('li[data-rec-step="124"]');

      await page.getByTestId('record-stop').click();
      await page.getByTestId('save').waitFor();
      await inView('[data-testid="save"]');
      assert.equal(await page.getByTestId('save').isDisabled(), true);
      assert.equal(await page.getByTestId('save-why').innerText(), 'Name the tool to save it.');
      assert.equal(await page.getByTestId('tool-name').inputValue(), '', 'the placeholder is not a value');
      assert.match(await page.getByTestId('tool-name').getAttribute('placeholder'), /^e\.g\. /);
      // Scrolled to the first steps, Save is still in view.
      await page.locator('li[data-rec-step="0"]').scrollIntoViewIfNeeded();
      await inView('[data-testid="save"]');
      await page.getByTestId('tool-name').fill('items');
      assert.equal(await page.getByTestId('save-why').count(), 0);
      await page.close();
    } finally {
      useWidth(null);
    }
  });
}
