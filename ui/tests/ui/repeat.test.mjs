// Repeating data on the Record screen: a step on a grid's cell shows its place, what its row
// showed and what the tool relies on, and switches between content and position. Real Chromium
// against the built UI, Tauri's IPC mocked.
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

const step = (i, kind, description, extra = {}) => ({ index: i, kind, description, target: null, best_selector: null, page: 'main', url: 'http://127.0.0.1:4780/grid.html', secret: false, thumbnail: fx.png, checks: [], no_effect: false, repeat: null, ...extra });

for (const width of [1000, 1600]) {
  test(`record at ${width} px: a cell of a grid shows what the tool relies on, and the person switches it`, async () => {
    const steps = [
      step(0, 'navigate', 'Open http://127.0.0.1:4780/grid.html'),
      step(1, 'fill', 'Fill searchbox "Search people" with "Rome"'),
      step(2, 'click', 'Click gridcell "Carla Rossi"', {
        repeat: { place: 'row 1, column "Name" of the grid', content: 'Carla Rossi Rome 41 and a rather long row of text that must wrap inside its step and never widen the list', relies_on: 'content' },
      }),
    ];
    const page = await openApp(browser, server.origin, (cmd, args, F) => {
      const draft = (steps) => ({ start_url: 'http://127.0.0.1:4780/grid.html', steps, inputs: [], outputs: [], picks: [], can_undo: true });
      switch (cmd) {
        case 'library_list': return [];
        case 'record_status': return { phase: 'editing', draft: draft(F.steps) };
        case 'draft_rely_on': return draft(F.steps.map((s, i) => (i === args.index ? { ...s, repeat: { ...s.repeat, relies_on: args.reliesOn } } : s)));
        default: return Promise.reject({ code: 'unexpected', message: cmd });
      }
    }, { steps });
    await page.setViewportSize({ width, height: 820 });
    await page.locator('[data-nav="record"]').click();
    const repeat = page.locator('[data-repeat="2"]');
    await repeat.waitFor();
    assert.match(await repeat.innerText(), /by content[\s\S]*row 1, column "Name" of the grid[\s\S]*Carla Rossi/);
    assert.equal(await page.locator('[data-repeat="1"]').count(), 0);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `the page is ${wide} px wider than the window`);
    await screenshot(page, `ui-record-repeat-${width}`);

    await page.locator('[data-rely-on="2"]').click();
    await page.waitForFunction(() => document.querySelector('[data-repeat="2"]').innerText.includes('by position'));
    assert.deepEqual((await calls(page, 'draft_rely_on')).map((c) => c.args), [{ index: 2, reliesOn: 'position' }]);
    assert.match(await page.locator('[data-rely-on="2"]').innerText(), /rely on content/);
    await page.close();
  });
}
