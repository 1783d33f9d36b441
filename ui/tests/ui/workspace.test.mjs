// A pack never breaks a workspace, and one broken file never hides the others: the Library
// names where each tool comes from and uninstalls a pack; importing a pack with other versions
// of workspace tools asks which to keep; the Flows screen names a sibling file that does not
// load as a warning. Real Chromium against the built UI, Tauri's IPC mocked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openApp, calls, screenshot, useWidth } from '../harness.mjs';
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

function both(name, body) {
  for (const width of [1000, 1600]) {
    test(`${name} — ${width} px`, async () => {
      useWidth(width);
      try {
        await body(width);
      } finally {
        useWidth(null);
      }
    });
  }
}

both('library: each tool names its source, and a pack is uninstalled after a confirmation', async (width) => {
  const mine = { ...fx.searchPrice, also_in_pack: { pack: 'prices@1.0.0', digest: 'sha256:abab', same: true } };
  const edited = { ...fx.login, also_in_pack: { pack: 'prices@1.0.0', digest: 'sha256:abab', same: false } };
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    window.__removed ??= false;
    switch (cmd) {
      case 'library_list': return window.__removed ? F.after : F.before;
      case 'pack_remove': window.__removed = true; return 'prices@1.0.0';
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { before: [mine, edited, fx.packed], after: [{ ...fx.searchPrice, also_in_pack: null }, { ...fx.login, also_in_pack: null }] });
  const table = page.getByTestId('library-table');
  const row = (ref) => table.locator(`tr[data-ref="${ref}"]`);
  await row('search-price@1.2.0').waitFor();
  assert.match(await row('search-price@1.2.0').getByTestId('item-source').innerText(), /recordings[\s\S]*also in pack prices@1\.0\.0/);
  assert.match(await row('shop-login@1.0.0').getByTestId('item-source').innerText(), /pack prices@1\.0\.0 has another version; this file is used/);
  assert.match(await row('price-alert@1.0.0').getByTestId('item-source').innerText(), /^pack prices@1\.0\.0$/);

  await row('price-alert@1.0.0').click();
  await page.getByTestId('uninstall').click();
  assert.match(await page.getByTestId('uninstall-confirm').innerText(), /Uninstall prices@1\.0\.0 and every tool and flow it carries\?/);
  await screenshot(page, `ui-library-uninstall-${width}`);
  assert.equal((await calls(page, 'pack_remove')).length, 0, 'nothing is removed before the confirmation');
  await page.getByTestId('uninstall-yes').click();
  await page.getByTestId('pack-removed').waitFor();
  assert.deepEqual((await calls(page, 'pack_remove')).map((c) => c.args.pack), ['sha256:abab']);
  await row('price-alert@1.0.0').waitFor({ state: 'detached' });
  assert.equal(await table.getByTestId('also-in-pack').count(), 0);
  await page.close();
});

both('packs: a pack with other versions of workspace tools installs nothing until the person chooses', async (width) => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    const manifest = { reference: 'prices@1.0.0', digest: 'sha256:feed', size: 10, entries: [], externals: [], signatures: [] };
    const conflicts = [{ reference: 'price-alert@1.0.0', file: '/w/recordings/price-alert@1.0.0.json', pack: 'prices@1.0.0', difference: 'the same interface with different steps' }];
    switch (cmd) {
      case 'library_list': return F.library;
      case 'pack_import':
        if (args.onConflict === 'refuse') return { path: args.path, ok: false, manifest: null, error: 'refused', installed_in: null, newly_installed: null, conflicts, replaced: [] };
        return { path: args.path, ok: true, manifest, error: null, installed_in: '/store/sha256-feed', newly_installed: true, conflicts,
          replaced: args.onConflict === 'replace' ? [conflicts[0].file] : [] };
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { library: fx.library });
  await page.locator('[data-nav="export"]').click();
  await page.getByTestId('import-path').fill('/home/ada/prices-1.0.0.bfpack');
  await page.getByTestId('import').click();
  const asked = page.getByTestId('import-conflicts');
  await asked.waitFor();
  assert.match(await asked.innerText(), /Nothing was installed[\s\S]*price-alert@1\.0\.0[\s\S]*\/w\/recordings\/price-alert@1\.0\.0\.json \(the same interface with different steps\)/);
  await screenshot(page, `ui-import-conflicts-${width}`);
  await page.getByTestId('import-keep').click();
  await page.getByTestId('conflict-outcome').waitFor();
  assert.match(await page.getByTestId('conflict-outcome').innerText(), /Kept \/w\/recordings\/price-alert@1\.0\.0\.json: it is used instead of the pack's price-alert@1\.0\.0\./);
  await page.getByTestId('import').click();
  await asked.waitFor();
  await page.getByTestId('import-replace').click();
  await page.getByTestId('conflict-outcome').waitFor();
  assert.match(await page.getByTestId('conflict-outcome').innerText(), /Replaced \/w\/recordings\/price-alert@1\.0\.0\.json with the pack's price-alert@1\.0\.0\./);
  assert.deepEqual((await calls(page, 'pack_import')).map((c) => c.args.onConflict), ['refuse', 'keep', 'refuse', 'replace']);
  await page.close();
});

both('flows: a sibling file that does not load is a warning naming it, never the flow\'s error', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    switch (cmd) {
      case 'library_list': return F.library;
      case 'flow_check': return {
        path: args.path, reference: 'daily-price-watch@1.0.0', description: '', inputs: [], steps: [], output: null, ok: true,
        flow_digest: 'sha256:9988776655443322', capabilities: ['browser'], diagnostics: [],
        warnings: ['skipped /w/recordings/broken.flow.json: it does not load (1 problem)\n  [invalid_json] (root): not valid JSON: EOF while parsing a list at line 1 column 31'],
      };
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { library: fx.library });
  await page.locator('[data-nav="flows"]').click();
  await page.getByTestId('flow-verdict').waitFor();
  assert.match(await page.getByTestId('flow-verdict').innerText(), /daily-price-watch@1\.0\.0 compiles/);
  assert.match(await page.getByTestId('flow-warning').innerText(), /skipped \/w\/recordings\/broken\.flow\.json: it does not load/);
  await page.close();
});

both('library: the demo shop, once served, is still said to be served after another screen', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    switch (cmd) {
      case 'library_list': return F.library;
      case 'shop_serve': return { origin: 'http://127.0.0.1:4780', warning: null };
      case 'record_status': return { phase: 'idle' };
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { library: fx.library });
  await page.getByRole('button', { name: 'Serve demo shop' }).click();
  await page.getByRole('button', { name: 'Shop at http://127.0.0.1:4780' }).waitFor();
  await page.locator('[data-nav="record"]').click();
  await page.getByTestId('record-url').waitFor();
  await page.locator('[data-nav="library"]').click();
  await page.getByRole('button', { name: 'Shop at http://127.0.0.1:4780' }).waitFor();
  assert.equal((await calls(page, 'shop_serve')).length, 1);
  await page.close();
});

both('fit: flow slot names keep their line beside long bindings; the pack path field keeps its width', async (width) => {
  const long = JSON.stringify({ template: 'https://hooks.example.test/services/T000/B000/a-very-long-webhook-path-{input.query}-and-more-words-to-wrap' });
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    switch (cmd) {
      case 'library_list': return F.library;
      case 'flow_check': return {
        path: args.path, reference: 'daily-price-watch@1.0.0', description: '', inputs: [], output: null, ok: false, flow_digest: null, capabilities: [], warnings: [],
        steps: [{ id: 'notify', uses: 'std/http.post@1.0.0', when: null, with: [{ slot: 'url', binding: F.long }, { slot: 'body', binding: F.long }] }],
        diagnostics: [{ code: 'type_mismatch', file: null, step: 'notify', slot: 'body', pointer: '/steps/0/with/body', message: 'a number is not assignable to the slot body, which takes a string; bind a string or convert it first' },
          { code: 'missing_input', file: null, step: 'notify', slot: 'headers_for_the_webhook', pointer: '/steps/0/with', message: 'the slot is required' }],
      };
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { library: fx.library, long });
  await page.locator('[data-nav="flows"]').click();
  await page.locator('tr[data-slot="body"]').waitFor();
  for (const slot of ['url', 'body', 'headers_for_the_webhook']) {
    const lines = await page.locator(`tr[data-slot="${slot}"] td.slot-name`).evaluate((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return new Set([...range.getClientRects()].filter((r) => r.width).map((r) => Math.round(r.top))).size;
    });
    assert.equal(lines, 1, `slot ${slot} on one line at ${width} px`);
  }
  await page.locator('[data-nav="export"]').click();
  const field = page.getByTestId('import-path');
  await field.waitFor();
  const box = await field.boundingBox();
  assert.ok(box.width >= 300, `the pack path field is ${box.width} px wide`);
  await page.close();
});
