// The screens in real Chromium against the built UI, with Tauri's IPC mocked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openApp, emit, calls, screenshot, overflows, useWidth } from '../harness.mjs';
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

// Every case at the narrowest window the app supports and at a wide one: what each message,
// empty state and confirmation shows must fit both (openApp's pages check it when closed).
function both(name, body) {
  for (const width of [1000, 1600]) {
    test(`${name} — ${width} px`, async () => {
      useWidth(width);
      try {
        await body();
      } finally {
        useWidth(null);
      }
    });
  }
}

// Answers every command from the fixtures; `FIXTURES.overrides[cmd]` wins.
function answer(cmd, args, F) {
  if (F.overrides && cmd in F.overrides) {
    const o = F.overrides[cmd];
    return o && o.__reject ? Promise.reject(o.__reject) : o;
  }
  switch (cmd) {
    case 'library_list': return F.library;
    case 'preview_plan': return F.plan;
    case 'shop_serve': return { origin: 'http://127.0.0.1:4780', warning: null };
      case 'record_status': return { phase: 'idle' };
    default: return Promise.reject({ code: 'unexpected', message: `no mock for ${cmd}` });
  }
}

both('library: lists tools, flows and packs with kind, capabilities, digest and last run', async () => {
  const page = await openApp(browser, server.origin, answer, { library: fx.library, plan: fx.plan });
  const table = page.getByTestId('library-table');
  await table.locator('tr[data-ref="search-price@1.2.0"]').waitFor();
  const row = table.locator('tr[data-ref="search-price@1.2.0"]');
  assert.match(await row.innerText(), /search-price\s+1\.2\.0/);
  assert.match(await row.innerText(), /browser/);
  assert.match(await row.innerText(), /sha256:6ada91fe84b5…/);
  assert.match(await row.locator('.last-run').innerText(), /passed · 2 min ago/);
  assert.match(await table.locator('tr[data-ref="shop-login@1.0.0"] .last-run').innerText(), /failed/);
  assert.match(await table.locator('tr[data-ref="daily-price-watch@1.0.0"]').innerText(), /flow[\s\S]*never run/);
  assert.match(await table.locator('tr[data-ref="price-alert@1.0.0"]').innerText(), /pack prices@1\.0\.0/);
  assert.match(await table.locator('tr[data-ref="broken@1.0.0"]').innerText(), /does not load/);
  await screenshot(page, 'ui-library');

  // Selecting shows the interface; filtering narrows the list.
  await row.click();
  const detail = page.getByTestId('library-detail');
  assert.match(await detail.innerText(), /query[\s\S]*string/);
  // From the keyboard too: the name is a button that opens the details.
  const login = table.locator('tr[data-ref="shop-login@1.0.0"] [data-testid="item-details"]');
  await login.focus();
  await page.keyboard.press('Enter');
  await page.locator('[data-testid="library-detail"] h2', { hasText: 'shop-login@1.0.0' }).waitFor();
  assert.equal(await login.getAttribute('aria-expanded'), 'true');
  await page.getByLabel('Filter').fill('login');
  assert.equal(await table.locator('tbody tr').count(), 1);

  // Replay opens the preview with that tool.
  await page.getByLabel('Filter').fill('');
  await row.getByRole('button', { name: 'Replay' }).click();
  await page.locator('main[data-screen="preview"]').waitFor();
  await page.close();
});

both('library: a last run that passed with a drift warning says so in the row and the details', async () => {
  const said = 'step 4 (Open the first result) matched only on its selector #2 (xpath "(//main//ul/li)[1]/a"); 1 ranked above it found nothing: css "#gone". The page has changed since recording: check the step or record it again.';
  const drifted = { ...fx.searchPrice, last_run: { ...fx.searchPrice.last_run, warnings: [said] } };
  const page = await openApp(browser, server.origin, answer, { library: [drifted, fx.login], plan: fx.plan });
  const row = page.getByTestId('library-table').locator('tr[data-ref="search-price@1.2.0"]');
  await row.waitFor();
  assert.match(await row.locator('.last-run').innerText(), /passed · 2 min ago\s+⚠ 1 warning: the page has changed/);
  assert.equal(await row.getByTestId('last-run-warnings').getAttribute('title'), said);
  assert.equal(await page.getByTestId('library-table').locator('tr[data-ref="shop-login@1.0.0"] [data-testid="last-run-warnings"]').count(), 0);
  await row.getByTestId('item-details').click();
  assert.equal(await page.getByTestId('last-run-warning').innerText(), said);
  await page.close();
});

both('library: a command error is shown as its code and message', async () => {
  const page = await openApp(browser, server.origin, answer, {
    overrides: { library_list: { __reject: { code: 'io', message: 'cannot read /w/recordings' } } },
  });
  const banner = page.getByTestId('library-error');
  await banner.waitFor();
  assert.equal(await banner.innerText(), 'cannot read /w/recordings', 'the message, in words, without its internal code');
  await page.close();
});

both('preview: the timeline fills in from step events; output shown as validated', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    if (cmd === 'library_list') return F.library;
    if (cmd === 'preview_plan') return F.plan;
    if (cmd === 'preview_run') return new Promise((resolve) => { window.__finishRun = resolve; });
    return Promise.reject({ code: 'unexpected', message: cmd });
  }, { library: fx.library, plan: fx.plan });
  await page.locator('[data-nav="preview"]').click();
  const timeline = page.getByTestId('timeline');
  await timeline.locator('li[data-step="5"]').waitFor();
  assert.equal(await timeline.locator('li[data-state="pending"]').count(), 6);
  await page.locator('input[data-input="query"]').fill('keyboard');
  await page.getByTestId('run').click();
  await page.getByRole('button', { name: 'Running…' }).waitFor();
  assert.equal(await timeline.locator('li[data-step="0"]').getAttribute('data-state'), 'running');

  // Steps arrive one by one as events.
  const done = fx.plan.map((s, i) => ({ ...s, state: 'passed', duration_ms: 100 + i * 10, winner: s.candidates[0] ?? null, screenshot: fx.png }));
  await emit(page, 'preview://step', done[0]);
  await emit(page, 'preview://step', done[1]);
  assert.equal(await timeline.locator('li[data-state="passed"]').count(), 2);
  assert.match(await timeline.locator('li[data-step="1"]').innerText(), /test_id "search-input"[\s\S]*110 ms/);
  for (const s of done.slice(2)) await emit(page, 'preview://step', s);
  await page.evaluate((steps) => window.__finishRun({
    reference: 'search-price@1.2.0', ok: true, output: { name: 'Mechanical Keyboard', price: 79.99, currency: 'EUR' },
    output_schema: {}, contract_digest: 'sha256:6ada91fe84b56d50ab47', steps, failed_step: null, error: null, error_code: null,
    run_id: 'r9', run_dir: '/tmp/r9', duration_ms: 2100 }), done);
  const ok = page.getByTestId('result-ok');
  await ok.waitFor();
  assert.match(await ok.innerText(), /Output valid against the contract/);
  assert.deepEqual(JSON.parse(await page.getByTestId('output').innerText()), { name: 'Mechanical Keyboard', price: 79.99, currency: 'EUR' });
  const [run] = await calls(page, 'preview_run');
  assert.deepEqual(run.args.request, { tool: fx.searchPrice.path, headed: false, inputs: [{ name: 'query', value: 'keyboard', secret: false }] });
  await screenshot(page, 'ui-preview');
  await page.close();
});

both('preview: a list output reads as a table of its items, the first hundred shown', async () => {
  const items = Array.from({ length: 130 }, (_, i) => ({ name: `Item ${i + 1}`, price: 10 + i, url: `http://127.0.0.1:4780/item/${i + 1}`, ...(i === 2 ? { note: null } : {}) }));
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    if (cmd === 'library_list') return F.library;
    if (cmd === 'preview_plan') return F.plan;
    if (cmd === 'preview_run') {
      const steps = F.plan.map((s) => ({ ...s, state: 'passed', duration_ms: 100, winner: s.candidates[0] ?? null, screenshot: null }));
      return { reference: 'search-price@1.2.0', ok: true, output: { results: F.items, count: 130 }, output_schema: {},
        contract_digest: 'sha256:6ada91fe84b56d50ab47', steps, failed_step: null, error: null, error_code: null,
        run_id: 'r10', run_dir: '/tmp/r10', duration_ms: 2100 };
    }
    return Promise.reject({ code: 'unexpected', message: cmd });
  }, { library: fx.library, plan: fx.plan, items });
  await page.locator('[data-nav="preview"]').click();
  await page.getByTestId('timeline').locator('li[data-step="5"]').waitFor();
  await page.locator('input[data-input="query"]').fill('lamp');
  await page.getByTestId('run').click();
  const table = page.getByTestId('output-table');
  await table.waitFor();
  assert.equal(await table.count(), 1, 'one table: the scalar output is not a list');
  assert.equal(await table.getAttribute('data-field'), 'results');
  assert.match(await table.locator('h3').innerText(), /results\s+130 items/i);
  assert.deepEqual(await table.locator('thead th').allInnerTexts(), ['#', 'NAME', 'PRICE', 'URL', 'NOTE']);
  assert.equal(await table.locator('tbody tr').count(), 100);
  assert.deepEqual(await table.locator('tbody tr').nth(2).locator('td').allInnerTexts(),
    ['3', 'Item 3', '12', 'http://127.0.0.1:4780/item/3', '—']);
  assert.match(await page.getByTestId('output-table-more').innerText(), /and 30 more/);
  // The whole output is still there, as JSON.
  assert.equal(JSON.parse(await page.getByTestId('output').innerText()).results.length, 130);
  await page.close();
});

both('preview: secret inputs go as references; a failure shows the step, screenshot and candidates', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    if (cmd === 'library_list') return F.library;
    if (cmd === 'preview_plan') return F.plan;
    if (cmd === 'preview_run') {
      const steps = F.plan.map((s, i) => ({ ...s, state: i < 3 ? 'passed' : i === 3 ? 'failed' : 'skipped', screenshot: i === 3 ? F.png : null,
        error: i === 3 ? 'no candidate matched: css "[data-testid=results] > li:first-child a" (0 elements), xpath (0 elements)' : null }));
      return { reference: 'shop-login@1.0.0', ok: false, output: null, output_schema: {}, contract_digest: '', steps, failed_step: 3,
        error: 'step 4 (click "Open the first result") failed', error_code: 'run', run_id: 'r3', run_dir: null, duration_ms: 5000 };
    }
    return Promise.reject({ code: 'unexpected', message: cmd });
  }, { library: fx.library, plan: fx.plan, png: fx.png });
  await page.locator('[data-nav="preview"]').click();
  await page.getByTestId('preview-tool').selectOption(fx.login.path);
  const secret = page.locator('input[data-input="password"]');
  await secret.waitFor();
  assert.equal(await secret.inputValue(), 'PASSWORD', 'a secret input holds a reference name, not a value');
  await page.locator('input[data-input="user"]').fill('ada');
  await page.getByTestId('run').click();
  const failed = page.getByTestId('result-failed');
  await failed.waitFor();
  const text = await failed.innerText();
  assert.match(text, /Failing step 4: Open the first result/i);
  assert.doesNotMatch(await page.getByTestId('run-error').innerText(), /^run\b|—/, 'the failure in words, without an internal code');
  assert.equal((text.match(/no candidate matched/g) ?? []).length, 1, 'the step\'s error is said once');
  assert.match(text, /xpath "\(\/\/main\/\/ul\/li\)\[1\]\/a"/);
  assert.equal(await failed.locator('img.screenshot').count(), 1);
  assert.equal(await page.locator('li[data-step="4"]').getAttribute('data-state'), 'skipped');
  const [run] = await calls(page, 'preview_run');
  assert.deepEqual(run.args.request.inputs[1], { name: 'password', value: 'PASSWORD', secret: true });
  await page.close();
});

both('record: steps stream in live, picks become outputs, edits go to the draft, save', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    const view = (i, kind, description, extra = {}) => ({ index: i, kind, description, target: null, best_selector: null, page: 'main', url: 'http://127.0.0.1:4780/index.html', secret: false, thumbnail: F.png, ...extra });
    const steps = [
      view(0, 'navigate', 'Open http://127.0.0.1:4780/index.html'),
      view(1, 'fill', 'Fill searchbox "Search products"', { target: 'searchbox "Search products"', best_selector: 'test_id "search-input"' }),
      view(2, 'key_press', 'Press Enter'),
      view(3, 'fill', 'Fill password "Password"', { secret: true, best_selector: 'label "Password"' }),
    ];
    const pick = { index: 0, description: 'text "€79.99"', text: '€79.99', best_selector: 'test_id "product-price"', page: 'main' };
    window.__draft ??= { start_url: 'http://127.0.0.1:4780/index.html', steps, inputs: [{ name: 'password', kind: 'string', secret: true, step: 3 }], outputs: [], picks: [pick] };
    const d = window.__draft;
    switch (cmd) {
      case 'shop_serve': return { origin: 'http://127.0.0.1:4780', warning: null };
      case 'record_status': return { phase: 'idle' };
      case 'record_start': return null;
      case 'record_pick': return new Promise((resolve) => { window.__pick = () => resolve(pick); });
      case 'record_stop': return d;
      case 'draft_mark_input': d.inputs.push({ name: args.name, kind: args.kind, secret: false, step: args.index }); return d;
      case 'draft_mark_output': d.outputs.push(args.name); return d;
      case 'draft_remove_step': d.steps.splice(args.index, 1); return d;
      case 'draft_move_step': { const [s] = d.steps.splice(args.from, 1); d.steps.splice(args.to, 0, s); return d; }
      case 'draft_save': return { ...F.tool, reference: `${args.name}@${args.version}`, path: `/w/recordings/${args.name}@${args.version}.json` };
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { png: fx.png, tool: fx.searchPrice });
  await page.locator('[data-nav="record"]').click();
  await page.getByRole('button', { name: 'Use demo shop' }).click();
  assert.equal(await page.getByTestId('record-url').inputValue(), 'http://127.0.0.1:4780/index.html');
  await page.getByTestId('record-start').click();
  const list = page.getByTestId('record-steps');
  await list.waitFor();

  // The recorder's events arrive while the person works in Chromium.
  const draft = await page.evaluate(() => null);
  void draft;
  const ev = (type, index, step) => emit(page, 'record://event', { type, index, step });
  const step = (i, kind, description, extra = {}) => ({ index: i, kind, description, target: null, best_selector: null, page: 'main', url: 'http://x/', secret: false, thumbnail: fx.png, ...extra });
  await ev('step_added', 0, step(0, 'navigate', 'Open http://127.0.0.1:4780/index.html'));
  await ev('step_added', 1, step(1, 'fill', 'Fill searchbox "Search products"', { target: 'searchbox "Search products"', best_selector: 'test_id "search-input"' }));
  await ev('step_added', 2, step(2, 'key_press', 'Press Enter'));
  await ev('step_added', 3, step(3, 'fill', 'Fill password "Password"', { secret: true }));
  assert.equal(await list.locator('li[data-rec-step]').count(), 4);
  const fill = list.locator('li[data-rec-step="1"]');
  assert.match(await fill.innerText(), /Fill searchbox "Search products"[\s\S]*on searchbox "Search products"[\s\S]*test_id "search-input"/);
  assert.equal(await fill.locator('img.thumb').count(), 1);
  assert.match(await list.locator('li[data-rec-step="3"]').innerText(), /password — a secret input/);
  await ev('step_updated', 0, step(0, 'navigate', 'Open the shop (updated)'));
  assert.match(await list.locator('li[data-rec-step="0"]').innerText(), /updated/);
  // What the recorder could not read is said while recording, never dropped.
  const unreadable = 'an unreadable `click` message from the recorder script in http://x/ (page `main`): /target: missing field';
  await emit(page, 'record://event', { type: 'not_recorded', page: 'main', message: unreadable });
  const notRecorded = page.getByTestId('not-recorded');
  await notRecorded.waitFor();
  assert.match(await notRecorded.innerText(), /Something you did was not recorded[\s\S]*\/target: missing field/);
  await emit(page, 'record://event', { type: 'not_recorded', page: 'main', message: unreadable });
  await page.waitForFunction(() => /2 things you did were not recorded/.test(document.querySelector('[data-testid="not-recorded"]')?.textContent ?? ''));
  await notRecorded.getByRole('button', { name: 'dismiss' }).click();
  assert.equal(await notRecorded.count(), 0);

  // Pick the price in the browser.
  await page.getByTestId('record-pick').click();
  await page.getByTestId('picking-note').waitFor();
  // Until the browser confirms pick mode, a click there is still a step: the note says so.
  assert.match(await page.getByTestId('picking-note').innerText(), /Getting the browser ready to pick/);
  await emit(page, 'record://event', { type: 'pick_armed' });
  await page.locator('[data-testid="picking-note"][data-armed="true"]').waitFor();
  assert.match(await page.getByTestId('picking-note').innerText(), /Click an element in the browser/);
  await page.evaluate(() => window.__pick());
  await page.locator('[data-pick="0"]').waitFor();
  assert.match(await page.locator('[data-pick="0"]').innerText(), /€79\.99/);
  await screenshot(page, 'ui-record-live');

  await page.getByTestId('record-stop').click();
  // Mark the query as an input.
  await page.locator('[data-mark-input="1"]').click();
  await page.getByTestId('input-name').fill('query');
  await page.getByTestId('input-ok').click();
  await list.locator('li[data-rec-step="1"] .badge').waitFor();
  assert.match(await list.locator('li[data-rec-step="1"]').innerText(), /input query: string/);
  // The password step has no "make input": it already is a secret input.
  assert.equal(await page.locator('[data-mark-input="3"]').count(), 0);
  assert.match(await list.locator('li[data-rec-step="3"]').innerText(), /input password: string · secret/);
  // The pick becomes the `price` output.
  await page.getByTestId('output-name').fill('price');
  await page.getByTestId('output-kind').selectOption('price');
  await page.getByTestId('output-ok').click();
  await page.locator('[data-pick="0"] .badge').waitFor();
  // Reorder and delete.
  await page.locator('[data-down="2"]').click();
  await page.locator('[data-delete="2"]').click();
  assert.equal(await list.locator('li[data-rec-step]').count(), 3);
  await screenshot(page, 'ui-record-draft');

  await page.getByTestId('tool-name').fill('search-price');
  await page.getByTestId('tool-version').fill('2.0.0');
  await page.getByTestId('save').click();
  await page.getByTestId('saved').waitFor();
  assert.match(await page.getByTestId('saved').innerText(), /search-price@2\.0\.0/);

  const sent = async (cmd) => (await calls(page, cmd)).map((c) => c.args);
  assert.deepEqual(await sent('record_start'), [{ start: { url: 'http://127.0.0.1:4780/index.html', browser_ws: null, headless: false, viewport: null } }]);
  assert.deepEqual(await sent('draft_mark_input'), [{ index: 1, name: 'query', kind: 'string' }]);
  assert.deepEqual(await sent('draft_mark_output'), [{ pick: 0, name: 'price', kind: 'price' }]);
  assert.deepEqual(await sent('draft_move_step'), [{ from: 2, to: 3 }]);
  assert.deepEqual(await sent('draft_remove_step'), [{ index: 2 }]);
  assert.deepEqual(await sent('draft_save'), [{ name: 'search-price', version: '2.0.0', description: null }]);
  await page.close();
});

both('record: the screen reattaches to a running recording; a closed window keeps its steps as a draft; a taken shop port is a warning', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    const step = (i, kind, description) => ({ index: i, kind, description, target: null, best_selector: null, page: 'main', url: 'http://x/', secret: false, thumbnail: F.png });
    const steps = [step(0, 'navigate', 'Open the shop'), step(1, 'click', 'Click button "Deals"')];
    const pick = { index: 0, description: 'text "€79.99"', text: '€79.99', best_selector: null, page: 'main' };
    switch (cmd) {
      case 'library_list': return [];
      case 'shop_serve': return { origin: 'http://127.0.0.1:41234', warning: '127.0.0.1:4780 is taken by another program, so the demo shop is served at http://127.0.0.1:41234 instead.' };
      // Recording until the window closes, then the draft it became.
      case 'record_status': return window.__closed
        ? { phase: 'editing', draft: { start_url: 'http://x/', steps, inputs: [], outputs: [], picks: [pick] } }
        : { phase: 'recording', steps, picks: [pick] };
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { png: fx.png });
  // The library's demo shop button says plainly that the shipped tools will not find it.
  await page.getByRole('button', { name: 'Serve demo shop' }).click();
  assert.match(await page.getByTestId('shop-warning').innerText(), /4780 is taken/);

  // Opening Record while a recording runs shows it: its steps, its pick, Stop.
  await page.locator('[data-nav="record"]').click();
  const list = page.getByTestId('record-steps');
  await list.locator('li[data-rec-step="1"]').waitFor();
  assert.match(await list.innerText(), /Click button "Deals"/);
  assert.match(await page.locator('[data-pick="0"]').innerText(), /€79\.99/);
  await page.getByTestId('record-stop').waitFor();
  assert.equal(await page.getByTestId('record-start').count(), 0, 'no start form over a running recording');

  // Away and back: still there.
  await page.locator('[data-nav="library"]').click();
  await page.locator('[data-nav="record"]').click();
  await list.locator('li[data-rec-step="1"]').waitFor();

  // The window is closed: the screen turns to the draft, keeping both steps.
  await page.evaluate(() => { window.__closed = true; });
  await emit(page, 'record://event', { type: 'closed' });
  await page.getByTestId('save').waitFor();
  assert.equal(await list.locator('li[data-rec-step]').count(), 2);
  assert.match(await page.getByTestId('record-note').innerText(), /window was closed[\s\S]*2 steps are kept/);
  assert.equal(await page.getByTestId('record-error').count(), 0);
  await page.close();
});

both('record: a file chooser asks for paths; model suggestions when a model is configured', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    const step = (i, kind, description, extra = {}) => ({ index: i, kind, description, target: null, best_selector: null, page: 'main', url: 'http://x/', secret: false, thumbnail: null, ...extra });
    const steps = [step(0, 'navigate', 'Open files'), step(1, 'upload', 'Upload 1 file', { best_selector: 'test_id "choose-pictures"' })];
    const draft = { start_url: 'http://x/', steps, inputs: [], outputs: [], picks: [] };
    switch (cmd) {
      case 'model_status': return { configured: true, endpoint: 'http://127.0.0.1:9/v1/chat/completions' };
      case 'record_status': return { phase: 'idle' };
      case 'record_start': return null;
      case 'record_answer_file_chooser': return args.paths.some((p) => p.includes('missing'))
        ? Promise.reject({ code: 'record', message: 'no such file: /tmp/missing.png' })
        : 1;
      case 'record_suggest_selector': return { candidate: 'test_id "choose-pictures"', position: 0, rejected: null };
      case 'record_stop': return draft;
      case 'draft_suggest': return { name: 'choose-pictures', description: 'Choose profile pictures.', inputs: {}, outputs: {}, draft };
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, {});
  await page.locator('[data-nav="record"]').click();
  await page.getByTestId('record-url').fill('http://x/files.html');
  await page.getByTestId('record-start').click();
  await page.getByTestId('record-steps').waitFor();
  const ev = (payload) => emit(page, 'record://event', payload);
  await ev({ type: 'step_added', index: 0, step: { index: 0, kind: 'navigate', description: 'Open files', target: null, best_selector: null, page: 'main', url: 'http://x/', secret: false, thumbnail: null } });
  await ev({ type: 'step_added', index: 1, step: { index: 1, kind: 'click', description: 'Click button "Choose pictures…"', target: null, best_selector: 'css "main > button"', page: 'main', url: 'http://x/', secret: false, thumbnail: null } });

  // The page opened a chooser: the person gives paths; a wrong one shows the error and keeps the panel.
  await ev({ type: 'file_chooser', id: 1, page: 'main', multiple: true });
  const chooser = page.getByTestId('file-chooser');
  await chooser.waitFor();
  assert.match(await chooser.innerText(), /The page asks for files/);
  await page.getByTestId('chooser-paths').fill('/tmp/missing.png');
  await page.getByTestId('chooser-ok').click();
  await page.getByTestId('record-error').waitFor();
  assert.match(await page.getByTestId('record-error').innerText(), /no such file/);
  assert.equal(await chooser.count(), 1);
  await page.getByTestId('chooser-paths').fill('/tmp/a.png\n/tmp/b.png\n');
  await page.getByTestId('chooser-ok').click();
  await page.getByTestId('record-note').waitFor();
  assert.match(await page.getByTestId('record-note').innerText(), /step 2 uploads them/);
  assert.equal(await chooser.count(), 0);

  // A model is configured: a step's selector and the names can be suggested.
  await page.locator('[data-suggest-selector="1"]').click();
  await page.getByText(/Model selector added to step 2 at rank 1/).waitFor();
  await page.getByTestId('record-stop').click();
  await page.getByTestId('suggest-names').click();
  await page.getByText(/Model suggested: choose-pictures/).waitFor();
  assert.equal(await page.getByTestId('tool-name').inputValue(), 'choose-pictures');
  assert.equal(await page.getByTestId('tool-description').inputValue(), 'Choose profile pictures.');

  const sent = async (cmd) => (await calls(page, cmd)).map((c) => c.args);
  assert.deepEqual(await sent('record_answer_file_chooser'), [{ paths: ['/tmp/missing.png'] }, { paths: ['/tmp/a.png', '/tmp/b.png'] }]);
  assert.deepEqual(await sent('record_suggest_selector'), [{ index: 1 }]);
  await page.close();
});

both('export: choose, see the manifest before writing, write, verify; import shows verification', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    const manifest = {
      reference: `${args?.choice?.name}@${args?.choice?.version}`, digest: 'sha256:feedfacefeedfacefeedface', size: 4096,
      entries: [
        { reference: 'daily-price-watch@1.0.0', form: 'flow', kind: 'flow', contract_digest: 'sha256:9988', sha256: 'sha256:1', file: 'flows/d.json', root: true },
        { reference: 'search-price@1.2.0', form: 'tool', kind: 'browser', contract_digest: 'sha256:6ada91fe84b5', sha256: 'sha256:2', file: 'tools/s.json', root: false },
      ],
      externals: ['std/http.post@1.0.0'], signatures: [],
    };
    switch (cmd) {
      case 'library_list': return F.library;
      case 'pack_preview': return manifest;
      case 'pack_export': return [args.out ?? `/data/packs/${manifest.reference.replace("@", "-")}.bfpack`, manifest];
      case 'plugin:dialog|save': window.__saveAs = args.options; return '/home/me/prices.bfpack';
      case 'pack_verify': return { path: args.path, ok: true, manifest, error: null, installed_in: null, newly_installed: null };
      case 'pack_import': return args.path.includes('bad')
        ? { path: args.path, ok: false, manifest: null, error: 'tools/s.json: SHA-256 differs from the manifest', installed_in: null, newly_installed: null }
        : { path: args.path, ok: true, manifest, error: null, installed_in: '/store/sha256-feed', newly_installed: true };
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { library: fx.library });
  await page.locator('[data-nav="export"]').click();
  await page.locator('[data-choose="daily-price-watch@1.0.0"]').check();
  await page.getByTestId('pack-name').fill('prices');
  assert.equal(await page.getByTestId('write-pack').isDisabled(), true, 'nothing is written before the manifest is shown');
  await page.getByTestId('show-manifest').click();
  const table = page.getByTestId('manifest');
  await table.waitFor();
  const text = await table.innerText();
  assert.match(text, /daily-price-watch@1\.0\.0[\s\S]*chosen/);
  assert.match(text, /search-price@1\.2\.0[\s\S]*required/);
  assert.match(text, /std\/http\.post@1\.0\.0[\s\S]*external/);
  assert.equal(await page.getByTestId('pack-digest').innerText(), 'sha256:feedfacefeedfacefeedface');
  await page.getByTestId('write-pack').click();
  await page.getByTestId('verified').waitFor();
  assert.match(await page.getByTestId('written').innerText(), /\/data\/packs\/prices-1\.0\.0\.bfpack/);
  assert.match(await page.getByTestId('verified').innerText(), /Verified: every digest checks \(2 entries\)/);
  await screenshot(page, 'ui-export');
  const [preview] = await calls(page, 'pack_preview');
  assert.deepEqual(preview.args.choice, { name: 'prices', version: '1.0.0', roots: ['daily-price-watch@1.0.0'] });
  // Save as…: the native save dialog chooses where, starting from the pack's file name.
  await page.getByTestId('write-pack-as').click();
  await page.getByTestId('written').filter({ hasText: '/home/me/prices.bfpack' }).waitFor();
  assert.equal((await page.evaluate(() => window.__saveAs)).defaultPath, 'prices-1.0.0.bfpack');
  assert.deepEqual((await calls(page, 'pack_export')).map((c) => c.args.out), [null, '/home/me/prices.bfpack']);

  await page.getByTestId('import').click();
  await page.getByTestId('import-result').waitFor();
  assert.match(await page.getByTestId('import-result').innerText(), /verifies[\s\S]*installed in \/store\/sha256-feed/);
  await page.getByTestId('import-path').fill('/tmp/bad.bfpack');
  await page.getByTestId('import').click();
  await page.getByText('Does not verify').waitFor();
  assert.match(await page.getByTestId('import-result').innerText(), /SHA-256 differs/);
  await page.close();
});

both('flows: diagnostics sit on their step and slot', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    if (cmd === 'library_list') return F.library;
    if (cmd === 'flow_check') return {
      path: args.path, reference: 'daily-price-watch@1.0.0', description: '', inputs: [{ name: 'query', type: 'string', secret: false, required: true, default: null }],
      steps: [
        { id: 'search', uses: 'search-price@1.2.0', with: [{ slot: 'query', binding: '{"from":"input.query"}' }], when: null },
        { id: 'alert', uses: 'price-alert@1.0.0', with: [{ slot: 'threshold', binding: '{"from":"input.query"}' }], when: null },
      ],
      output: '{"from":"steps.alert.output"}', ok: false, flow_digest: null, capabilities: [],
      diagnostics: [
        { code: 'type_mismatch', file: null, step: 'alert', slot: 'threshold', pointer: '/steps/1/with/threshold', message: 'string is not assignable to number' },
        { code: 'missing_input', file: null, step: 'alert', slot: 'result', pointer: '/steps/1/with', message: 'the required slot `result` has no binding' },
      ],
    };
    return Promise.reject({ code: 'unexpected', message: cmd });
  }, { library: fx.library });
  await page.locator('[data-nav="flows"]').click();
  await page.getByTestId('flow-verdict').waitFor();
  assert.match(await page.getByTestId('flow-verdict').innerText(), /2 problems/);
  const alert = page.locator('[data-flow-step="alert"]');
  assert.match(await alert.locator('tr[data-slot="threshold"]').innerText(), /type_mismatch string is not assignable to number/);
  assert.match(await alert.locator('tr[data-slot="result"]').innerText(), /unbound[\s\S]*missing_input/);
  assert.equal(await page.locator('[data-flow-step="search"] tr.bad').count(), 0);
  await screenshot(page, 'ui-flows');
  await page.close();
});

both('library: a filter with no match says so and clears; a tool that does not load shows why, not "pure"', async () => {
  const page = await openApp(browser, server.origin, answer, { library: fx.library });
  const table = page.getByTestId('library-table');
  await table.locator('tr[data-ref="broken@1.0.0"]').waitFor();
  const broken = table.locator('tr[data-ref="broken@1.0.0"]');
  assert.match(await broken.innerText(), /does not load: invalid_json: not valid JSON/);
  assert.doesNotMatch(await broken.innerText(), /pure/);
  await page.getByLabel('Filter').fill('zzz-no-such-tool');
  assert.match(await table.innerText(), /No tool or flow matches “zzz-no-such-tool”/);
  assert.doesNotMatch(await table.innerText(), /Record a journey/);
  await page.getByTestId('clear-filter').click();
  await table.locator('tr[data-ref="search-price@1.2.0"]').waitFor();
  await page.close();
});

both('record: Enter in the start URL starts; deleting a step can be undone; discarding asks first', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    const step = (i, description) => ({ index: i, kind: 'click', description, target: null, best_selector: null, page: 'main', url: 'http://x/', secret: false, thumbnail: F.png });
    window.__steps ??= [step(0, 'Open the shop'), step(1, 'Click button "Deals"'), step(2, 'Click link "Orders"')];
    window.__history ??= [];
    const draft = () => ({ start_url: 'http://x/', steps: window.__steps.map((s, i) => ({ ...s, index: i })), inputs: [], outputs: [], picks: [], can_undo: window.__history.length > 0 });
    switch (cmd) {
      case 'library_list': return [];
      case 'record_status': return { phase: 'idle' };
      case 'record_start': return null;
      case 'record_stop': return draft();
      case 'draft_remove_step': window.__history.push([...window.__steps]); window.__steps.splice(args.index, 1); return draft();
      case 'draft_undo': window.__steps = window.__history.pop(); return draft();
      case 'record_discard': return null;
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { png: fx.png });
  await page.locator('[data-nav="record"]').click();
  await page.getByTestId('record-url').fill('127.0.0.1:4780/index.html');
  await page.getByTestId('record-url').press('Enter');
  await page.getByTestId('record-stop').click();
  const list = page.getByTestId('record-steps');
  await list.locator('li[data-rec-step="2"]').waitFor();

  await page.locator('[data-delete="1"]').click();
  assert.equal(await list.locator('li[data-rec-step]').count(), 2);
  assert.match(await page.getByTestId('undo-note').innerText(), /Step 2 \(Click button "Deals"\) deleted/);
  await page.getByTestId('undo').click();
  await list.locator('li[data-rec-step="2"]').waitFor();
  assert.match(await list.innerText(), /Deals/);

  // Discard asks, and "keep editing" keeps everything.
  await page.getByTestId('record-discard').click();
  assert.match(await page.getByTestId('confirm-discard').innerText(), /Discard this recording and its 3 steps\?/);
  await page.getByTestId('confirm-discard-no').click();
  assert.equal(await list.locator('li[data-rec-step]').count(), 3);
  assert.equal((await calls(page, 'record_discard')).length, 0);
  await page.getByTestId('record-discard').click();
  await page.getByTestId('confirm-discard-yes').click();
  await page.getByTestId('record-start').waitFor();
  assert.equal((await calls(page, 'record_discard')).length, 1);
  assert.deepEqual((await calls(page, 'record_start')).map((c) => c.args.start.url), ['127.0.0.1:4780/index.html']);
  await page.close();
});

// Nothing spills out of its box: no horizontal scrolling of the page, and no element wider than
// the panel that holds it.

both('native file picker: a pack to import and the files a page asks for are chosen in the system dialog; typed paths still work', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    window.__dialog ??= [];
    const step = (i, kind, description) => ({ index: i, kind, description, target: null, best_selector: null, page: 'main', url: 'http://x/', secret: false, thumbnail: F.png });
    const manifest = { reference: 'prices@1.0.0', digest: 'sha256:feed', size: 10, entries: [], externals: [], signatures: [] };
    switch (cmd) {
      case 'library_list': return F.library;
      // The system dialog: the next answer the test queued (a path, several, or null when cancelled).
      case 'plugin:dialog|open': window.__dialog.push(args.options); return window.__answers.shift();
      case 'pack_import': return { path: args.path, ok: true, manifest, error: null, installed_in: '/store/sha256-feed', newly_installed: true };
      case 'record_status': return { phase: 'idle' };
      case 'record_start': return null;
      case 'record_answer_file_chooser': return 1;
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { library: fx.library, png: fx.png });
  const answers = (list) => page.evaluate((l) => { window.__answers = l; }, list);

  // Pack import: Choose… fills the path from the dialog; a cancelled dialog keeps what was typed.
  await page.locator('[data-nav="export"]').click();
  await page.getByTestId('import-path').fill('~/packs/typed.bfpack');
  await answers([null, '/home/ada/Downloads/prices-1.0.0.bfpack']);
  await page.getByTestId('import-browse').click();
  await page.waitForFunction(() => window.__dialog.length === 1);
  assert.equal(await page.getByTestId('import-path').inputValue(), '~/packs/typed.bfpack', 'cancelling changes nothing');
  await page.getByTestId('import-browse').click();
  await page.waitForFunction(() => window.__dialog.length === 2);
  assert.equal(await page.getByTestId('import-path').inputValue(), '/home/ada/Downloads/prices-1.0.0.bfpack');
  await page.getByTestId('import').click();
  await page.getByTestId('import-result').waitFor();
  assert.match(await page.getByTestId('import-result').innerText(), /prices@1\.0\.0 verifies[\s\S]*installed in/);
  const dialogs = await page.evaluate(() => window.__dialog);
  assert.deepEqual(dialogs[0].filters, [{ name: 'browserflow pack', extensions: ['bfpack'] }]);
  assert.equal(dialogs[0].multiple, false);
  assert.deepEqual((await calls(page, 'pack_import')).map((c) => c.args.path), ['/home/ada/Downloads/prices-1.0.0.bfpack']);

  // A file chooser in the recorded page: Choose files… adds the dialog's files to the list.
  await page.locator('[data-nav="record"]').click();
  await page.getByTestId('record-url').fill('http://x/files.html');
  await page.getByTestId('record-start').click();
  await page.getByTestId('record-steps').waitFor();
  await emit(page, 'record://event', { type: 'step_added', index: 0, step: { index: 0, kind: 'navigate', description: 'Open files', target: null, best_selector: null, page: 'main', url: 'http://x/', secret: false, thumbnail: fx.png } });
  await emit(page, 'record://event', { type: 'file_chooser', id: 1, page: 'main', multiple: true });
  await page.getByTestId('file-chooser').waitFor();
  await page.getByTestId('chooser-paths').fill('~/receipt.pdf');
  await answers([['/home/ada/a.png', '/home/ada/b.png']]);
  await page.getByTestId('chooser-browse').click();
  await page.waitForFunction(() => window.__dialog.length === 3);
  assert.equal(await page.getByTestId('chooser-paths').inputValue(), '~/receipt.pdf\n/home/ada/a.png\n/home/ada/b.png');
  assert.equal((await page.evaluate(() => window.__dialog))[2].multiple, true, 'the page takes several files');
  await page.getByTestId('chooser-ok').click();
  await page.getByTestId('record-note').waitFor();
  assert.deepEqual((await calls(page, 'record_answer_file_chooser')).map((c) => c.args.paths), [['~/receipt.pdf', '/home/ada/a.png', '/home/ada/b.png']]);
  await page.close();
});

both('record: a start URL that is not a web page is refused next to the field, and nothing starts', async () => {
  const page = await openApp(browser, server.origin, (cmd, args) => {
    switch (cmd) {
      case 'library_list': return [];
      case 'record_status': return { phase: 'idle' };
      case 'record_start': return Promise.reject({ code: 'bad_input', message: '`file:///etc/hostname` is a file: URL; a recording starts on a web page (http:// or https://)' });
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  });
  await page.locator('[data-nav="record"]').click();
  await page.getByTestId('record-url').fill('file:///etc/hostname');
  await page.getByTestId('record-start').click();
  const error = page.getByTestId('record-error');
  await error.waitFor();
  assert.match(await error.innerText(), /a recording starts on a web page \(http:\/\/ or https:\/\/\)/);
  assert.doesNotMatch(await error.innerText(), /bad_input/, 'no internal code on screen');
  assert.equal(await page.getByTestId('record-steps').count(), 0, 'no recording screen');
  assert.equal(await page.getByTestId('record-start').isVisible(), true, 'the form stays, to correct the address');
  assert.equal(await page.getByTestId('record-url').inputValue(), 'file:///etc/hostname');
  await page.close();
});

both('library: with nothing recorded yet, the empty library says how to begin', async () => {
  const page = await openApp(browser, server.origin, (cmd) => (cmd === 'library_list' ? [] : Promise.reject({ code: 'unexpected', message: cmd })));
  const table = page.getByTestId('library-table');
  await table.getByText(/Nothing here yet/).waitFor();
  assert.match(await table.innerText(), /Nothing here yet\. Record a journey to make your first tool\./);
  assert.equal(await page.getByTestId('clear-filter').count(), 0, 'no filter to clear');
  await page.close();
});

both('library: a flow with type errors shows its diagnostics (not "pure") and opens in Flows to see them on their step', async () => {
  const badFlow = { ...fx.flow, reference: 'bad-watch@1.0.0', name: 'bad-watch', path: '/w/recordings/bad-watch.flow.json', capabilities: [],
    problem: 'type_mismatch at /steps/1/with/threshold: string is not assignable to number' };
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    if (cmd === 'library_list') return F.library;
    if (cmd === 'flow_check') return { path: args.path, reference: 'bad-watch@1.0.0', description: '', inputs: [], steps: [], output: null, ok: false,
      flow_digest: null, capabilities: [], diagnostics: [{ code: 'type_mismatch', file: null, step: 'alert', slot: 'threshold', pointer: '/steps/1/with/threshold', message: 'string is not assignable to number' }] };
    return Promise.reject({ code: 'unexpected', message: cmd });
  }, { library: [...fx.library, badFlow] });
  const row = page.getByTestId('library-table').locator('tr[data-ref="bad-watch@1.0.0"]');
  await row.waitFor();
  const text = await row.innerText();
  assert.match(text, /does not load: type_mismatch at \/steps\/1\/with\/threshold: string is not assignable to number/);
  assert.doesNotMatch(text, /pure/, 'its capabilities are unknown, not none');
  await row.getByRole('button', { name: 'Check' }).click();
  await page.getByTestId('flow-verdict').waitFor();
  assert.match(await page.getByTestId('flow-verdict').innerText(), /1 problem/);
  await page.close();
});

both('preview: a failure with no selector to try says so in words, with no empty heading', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    if (cmd === 'library_list') return F.library;
    if (cmd === 'preview_plan') return F.plan;
    if (cmd === 'preview_run') {
      const steps = F.plan.map((s, i) => ({ ...s, candidates: i === 0 ? [] : s.candidates, state: i === 0 ? 'failed' : 'skipped', screenshot: null,
        error: i === 0 ? 'the page could not be opened: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:4780/index.html' : null }));
      return { reference: 'search-price@1.2.0', ok: false, output: null, output_schema: {}, contract_digest: '', steps, failed_step: 0,
        error: 'step 1 (navigate "Open the shop") failed: the page could not be opened', error_code: 'run', run_id: 'r4', run_dir: null, duration_ms: 900 };
    }
    return Promise.reject({ code: 'unexpected', message: cmd });
  }, { library: fx.library, plan: fx.plan });
  await page.locator('[data-nav="library"]').click();
  await page.getByTestId('library-table').locator('tr[data-ref="search-price@1.2.0"]').getByRole('button', { name: 'Replay' }).click();
  await page.locator('li[data-step="0"]').waitFor();
  await page.locator('input[data-input="query"]').fill('mouse');
  await page.getByTestId('run').click();
  const failed = page.getByTestId('result-failed');
  await failed.waitFor();
  const text = await failed.innerText();
  assert.match(text, /ERR_CONNECTION_REFUSED/);
  assert.doesNotMatch(text, /Every candidate tried/i, 'no heading over an empty list');
  assert.doesNotMatch(text, /attempt\(s\)|shop-search@|`run`/, 'no internals');
  await page.close();
});

for (const width of [1000, 1600]) {
  test(`layout at ${width} px: library, record (with an input being made) and preview fit`, async () => {
    const long = { ...fx.login, reference: 'a-very-long-tool-name-for-layout@10.20.30', name: 'a-very-long-tool-name-for-layout', version: '10.20.30', capabilities: ['browser', 'secrets', 'net', 'fs'], path: '/w/recordings/a-very-long-tool-name-for-layout@10.20.30.json' };
    const page = await openApp(browser, server.origin, (cmd, args, F) => {
      const step = (i, kind, description, extra = {}) => ({ index: i, kind, description, target: 'searchbox "Search products in the whole catalogue of the shop"', best_selector: 'css "#search-form > div.field-group:nth-of-type(2) > input.search-input-with-a-long-class-name"', page: 'main', url: 'http://x/', secret: false, thumbnail: F.png, ...extra });
      const steps = [step(0, 'navigate', 'Open http://127.0.0.1:4780/index.html?with=a&rather=long&query=string'), step(1, 'fill', 'Fill searchbox "Search products in the whole catalogue of the shop"')];
      const pick = { index: 0, description: 'text "€79.99"', text: '€79.99', best_selector: 'css "#product > div.details > span.price-tag-with-long-name"', page: 'main' };
      switch (cmd) {
        case 'library_list': return F.library;
        case 'record_status': return { phase: 'editing', draft: { start_url: 'http://x/', steps, inputs: [], outputs: [], picks: [pick], can_undo: false } };
        case 'preview_plan': return F.plan;
        default: return Promise.reject({ code: 'unexpected', message: cmd });
      }
    }, { library: [...fx.library, long], plan: fx.plan, png: fx.png });
    await page.setViewportSize({ width, height: 820 });
    await page.getByTestId('library-table').locator('tr[data-ref="broken@1.0.0"]').waitFor();
    assert.deepEqual(await overflows(page), [], 'library');
    await screenshot(page, `ui-layout-library-${width}`);

    await page.locator('[data-nav="record"]').click();
    await page.locator('[data-mark-input="1"]').click();
    await page.getByTestId('input-name').waitFor();
    assert.deepEqual(await overflows(page), [], 'record');
    await screenshot(page, `ui-layout-record-${width}`);

    await page.locator('[data-nav="library"]').click();
    await page.getByTestId('library-table').locator('tr[data-ref="search-price@1.2.0"]').getByRole('button', { name: 'Replay' }).click();
    await page.locator('li[data-step="5"]').waitFor();
    assert.deepEqual(await overflows(page), [], 'preview');
    await screenshot(page, `ui-layout-preview-${width}`);
    await page.close();
  });
}

both('preview: speaks the recorder’s language, ticks the running step, says skipped, asks for required inputs, warns of a fallback', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    if (cmd === 'library_list') return F.library;
    if (cmd === 'preview_plan') return F.plan;
    if (cmd === 'preview_run') return new Promise((resolve) => { window.__finishRun = resolve; });
    return Promise.reject({ code: 'unexpected', message: cmd });
  }, { library: fx.library, plan: fx.plan });
  await page.locator('[data-nav="preview"]').click();
  const timeline = page.getByTestId('timeline');
  await timeline.locator('li[data-step="5"]').waitFor();
  // Labels first, kinds in words.
  assert.match(await timeline.locator('li[data-step="2"]').innerText(), /Submit the search[\s\S]*press key/);
  assert.doesNotMatch(await timeline.innerText(), /key_press|wait_for_element/);
  // An empty required input is asked for before anything runs.
  await page.locator('input[data-input="query"]').fill('');
  assert.match(await page.getByTestId('input-missing').innerText(), /Required/);
  assert.equal(await page.getByTestId('run').isDisabled(), true);
  await page.locator('input[data-input="query"]').fill('keyboard');
  await page.getByTestId('run').click();
  // The running step's time ticks.
  const time = timeline.locator('li[data-step="0"] [data-testid="step-time"]');
  await page.waitForFunction(() => /^\d+\.\d s$/.test(document.querySelector('li[data-step="0"] [data-testid="step-time"]')?.textContent ?? ''));
  const first = await time.innerText();
  await page.waitForFunction((t) => document.querySelector('li[data-step="0"] [data-testid="step-time"]').textContent !== t, first);
  // Step 4 wins on its second selector; step 6 is skipped.
  const done = fx.plan.map((s, i) => ({ ...s, state: i === 5 ? 'skipped' : 'passed', duration_ms: i === 5 ? 0 : 100, winner: i === 3 ? s.candidates[1] : s.candidates[0] ?? null, screenshot: null }));
  for (const s of done.slice(0, 2)) await emit(page, 'preview://step', s);
  assert.equal(await timeline.locator('li[data-step="2"]').getAttribute('data-state'), 'running', 'the next step runs');
  for (const s of done.slice(2)) await emit(page, 'preview://step', s);
  assert.equal(await timeline.locator('li[data-step="5"] [data-testid="step-time"]').innerText(), 'skipped');
  await page.evaluate((steps) => window.__finishRun({
    reference: 'search-price@1.2.0', ok: true, output: { name: 'Mechanical Keyboard', price: 79.99, currency: 'EUR' },
    output_schema: {}, contract_digest: 'sha256:6ada91fe84b56d50ab47', steps, failed_step: null, error: null, error_code: null,
    run_id: 'r9', run_dir: '/tmp/r9', duration_ms: 2100,
    warnings: ['step 4 (Open the first result) matched only on its selector #2 (xpath "(//main//ul/li)[1]/a"); 1 ranked above it found nothing: css "#gone". The page has changed since recording: check the step or record it again.'] }), done);
  // The warning is the replayer's own sentence (one rule, in Rust), shown as it is.
  const warning = page.getByTestId('fallback-warning');
  await warning.waitFor();
  assert.match(await warning.innerText(), /step 4 \(Open the first result\) matched only on its selector #2 \(xpath "\(\/\/main\/\/ul\/li\)\[1\]\/a"\)/);
  assert.match(await timeline.locator('li[data-step="3"]').innerText(), /fallback/);
  // The output is in view, above the timeline.
  const [okBox, timelineBox] = [await page.getByTestId('result-ok').boundingBox(), await timeline.boundingBox()];
  assert.ok(okBox.y < timelineBox.y, 'the output sits above the steps');
  await page.close();
});

both('preview: run on a file lists each row as it finishes, says where the batch stands, and where the results are', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    switch (cmd) {
      case 'library_list': return F.library;
      case 'preview_plan': return F.plan;
      case 'plugin:dialog|open': window.__dialog = args.options; return '/home/ada/products.csv';
      case 'preview_batch': window.__batch = args.request; return new Promise((resolve) => { window.__finishBatch = resolve; });
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { library: fx.library, plan: fx.plan });
  await page.locator('[data-nav="preview"]').click();
  await page.locator('li[data-step="5"]').waitFor();
  await page.locator('input[data-input="query"]').fill('keyboard');
  assert.equal(await page.getByTestId('run').isDisabled(), false);
  await page.getByTestId('run-batch').click();
  await page.waitForFunction(() => window.__batch);
  const request = await page.evaluate(() => window.__batch);
  assert.equal(request.rows, '/home/ada/products.csv');
  assert.deepEqual((await page.evaluate(() => window.__dialog.filters))[0].extensions, ['csv', 'jsonl', 'ndjson']);
  assert.equal(await page.getByTestId('run').isDisabled(), true, 'one run at a time');
  const row = (n, ok, finished, failed) => ({ row: n, ok, output: ok ? { name: 'Mechanical Keyboard', price: 89.99, currency: 'USD' } : null,
    error: ok ? null : `row ${n}, column \`query\` is empty and the input has no default`, run_folder: null, duration_ms: 900,
    finished, failed, total: 3, rows_per_second: 1.5, seconds_left: (3 - finished) / 1.5 });
  await emit(page, 'batch://row', row(2, true, 1, 0));
  await page.locator('[data-testid="batch-table"] tr[data-row="2"]').waitFor();
  assert.match(await page.getByTestId('batch-progress').innerText(), /1\/3 rows · 1\.5 rows\/s · ~1\.3 s left/);
  await emit(page, 'batch://row', row(3, false, 2, 1));
  await emit(page, 'batch://row', row(1, true, 3, 1));
  await page.locator('[data-testid="batch-table"] tr[data-row="1"]').waitFor();
  // Listed by row, whatever order they finished in.
  assert.deepEqual(await page.locator('[data-testid="batch-table"] tbody tr').evaluateAll((trs) => trs.map((t) => t.dataset.row)), ['1', '2', '3']);
  assert.match(await page.locator('tr[data-row="3"]').innerText(), /failed[\s\S]*column `query` is empty/);
  assert.match(await page.locator('tr[data-row="1"]').innerText(), /ok[\s\S]*"price":89\.99/);
  await page.evaluate(() => window.__finishBatch({ rows: 3, ok: 2, failed: 1, seconds: 2.1, rows_per_second: 1.43, results: '/data/runs/batches/search-price@1.2.0-1.jsonl' }));
  const done = page.getByTestId('batch-done');
  await done.waitFor();
  assert.match(await done.innerText(), /3 rows: 2 ok, 1 failed in 2\.1 s[\s\S]*search-price@1\.2\.0-1\.jsonl/);
  assert.equal(await page.getByTestId('run').isDisabled(), false);
  assert.equal(await page.getByTestId('run-batch').isDisabled(), false);
  await page.close();
});

both('record: outputs are renamed and removed (a price’s currency too), an input may keep no default, name and version problems sit by their fields', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    const step = (i, kind, description) => ({ index: i, kind, description, target: null, best_selector: null, page: 'main', url: 'http://x/', secret: false, thumbnail: F.png });
    window.__d ??= { start_url: 'http://x/', steps: [step(0, 'navigate', 'Open'), step(1, 'fill', 'Fill searchbox "Search"')], inputs: [], outputs: ['price', 'currency'], picks: [], can_undo: false };
    const d = window.__d;
    switch (cmd) {
      case 'library_list': return [];
      case 'record_status': return { phase: 'editing', draft: d };
      case 'draft_mark_required_input': d.inputs.push({ name: args.name, kind: args.kind, secret: false, step: args.index, default: null }); return d;
      case 'draft_mark_input': d.inputs.push({ name: args.name, kind: args.kind, secret: false, step: args.index, default: '"keyboard"' }); return d;
      case 'draft_remove_output': d.outputs = d.outputs.filter((o) => o !== args.name); return d;
      case 'draft_rename_output': d.outputs = d.outputs.map((o) => (o === args.from ? args.to : o)); return d;
      case 'draft_check_names': return [
        ...(/^[a-z][a-z0-9-]*$/.test(args.name) ? [] : [{ field: 'name', message: `\`${args.name}\` is not a valid tool name. Use lower-case letters, digits and dashes, like search-price.` }]),
        ...(/^\d+\.\d+\.\d+$/.test(args.version) ? [] : [{ field: 'version', message: `"${args.version}" is not a version: write three numbers with dots, like 1.0.0 (or 2.1.0-beta.1).` }]),
      ];
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { png: fx.png });
  await page.locator('[data-nav="record"]').click();
  // The currency a price brought is an output of its own, removable; outputs rename.
  await page.locator('[data-remove-output="currency"]').click();
  await page.locator('[data-output="currency"]').waitFor({ state: 'detached' });
  await page.locator('[data-rename-output="price"]').fill('amount');
  await page.locator('[data-rename-output="price"]').press('Enter');
  await page.locator('[data-output="amount"]').waitFor();
  assert.deepEqual((await calls(page, 'draft_rename_output')).map((c) => c.args), [{ from: 'price', to: 'amount' }]);

  // An input made without the recorded default says so.
  await page.locator('[data-mark-input="1"]').click();
  await page.getByTestId('input-name').fill('query');
  await page.getByTestId('input-keep-default').uncheck();
  await page.getByTestId('input-ok').click();
  await page.locator('li[data-rec-step="1"] .badge').waitFor();
  assert.match(await page.locator('li[data-rec-step="1"] .badge').innerText(), /input query: string · no default/);
  assert.equal((await calls(page, 'draft_mark_required_input')).length, 1);

  // Problems with the name and version appear beside those fields, in words; Save waits.
  await page.getByTestId('tool-name').fill('Search Price');
  await page.getByTestId('tool-version').fill('1.2');
  await page.getByTestId('version-problem').waitFor();
  assert.match(await page.getByTestId('name-problem').innerText(), /not a valid tool name/);
  assert.match(await page.getByTestId('version-problem').innerText(), /like 1\.0\.0/);
  assert.equal(await page.getByTestId('save').isDisabled(), true);
  await page.getByTestId('tool-name').fill('search-price');
  await page.getByTestId('tool-version').fill('1.2.0');
  await page.getByTestId('version-problem').waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('name-problem').count(), 0);
  assert.equal(await page.getByTestId('save').isDisabled(), false);
  await page.close();
});

both('record: a second click on Pick (or Escape in the browser) leaves pick mode without an error', async () => {
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    switch (cmd) {
      case 'library_list': return [];
      case 'record_status': return { phase: 'recording', steps: [], picks: [] };
      case 'record_pick': return new Promise((_, reject) => { window.__cancel = () => reject({ code: 'pick_cancelled', message: 'picking was cancelled' }); });
      case 'record_cancel_pick': window.__cancel(); return null;
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, {});
  await page.locator('[data-nav="record"]').click();
  const pick = page.getByTestId('record-pick');
  await pick.click();
  await page.getByRole('button', { name: 'Cancel picking' }).waitFor();
  assert.deepEqual(await overflows(page), [], 'the picking button fits its card');
  await pick.click();
  await page.getByRole('button', { name: 'Pick an element to extract' }).waitFor();
  assert.equal((await calls(page, 'record_cancel_pick')).length, 1);
  assert.equal(await page.getByTestId('record-error').count(), 0, 'a cancel is not an error');
  assert.match(await page.getByTestId('record-note').innerText(), /Picking cancelled/);
  await page.close();
});

both('record: an unsaved recording kept from before is offered again: open it, or discard it', async () => {
  const steps = [0, 1, 2].map((i) => ({ index: i, kind: 'click', description: `Click ${i}`, target: null, best_selector: null, page: 'main', url: 'http://x/', secret: false, thumbnail: null, no_effect: false }));
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    switch (cmd) {
      case 'record_status': return { phase: 'idle', kept: { steps: 3, start_url: 'http://127.0.0.1:4780/index.html', kept_at: Math.floor(Date.now() / 1000) - 300, cut_short: true } };
      case 'record_restore_kept': return { start_url: 'http://127.0.0.1:4780/index.html', steps: F.steps, inputs: [], outputs: [], picks: [], can_undo: false, unkept: null };
      case 'record_discard_kept': return null;
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { steps });
  await page.locator('[data-nav="record"]').click();
  const banner = page.getByTestId('kept-draft');
  assert.match(await banner.innerText(), /unsaved recording \(3 steps, kept 5 min ago, cut short when the app closed\)/);
  await screenshot(page, 'ui-record-kept');
  await page.getByTestId('kept-open').click();
  await page.locator('li[data-rec-step="2"]').waitFor();
  assert.equal(await page.getByTestId('kept-draft').count(), 0);
  assert.equal((await calls(page, 'record_restore_kept')).length, 1);
  await page.close();

  // Discarded unseen: the banner goes, the start form stays.
  const again = await openApp(browser, server.origin, (cmd) => {
    switch (cmd) {
      case 'record_status': return { phase: 'idle', kept: { steps: 1, start_url: 'http://x/', kept_at: Math.floor(Date.now() / 1000), cut_short: false } };
      case 'record_discard_kept': return null;
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, {});
  await again.locator('[data-nav="record"]').click();
  await again.getByTestId('kept-discard').click();
  await again.getByTestId('kept-draft').waitFor({ state: 'detached' });
  assert.equal((await calls(again, 'record_discard_kept')).length, 1);
  await again.getByTestId('record-start').waitFor();
  await again.close();
});

both('closing the app with an unsaved recording asks: keep it, discard it, or stay', async () => {
  const page = await openApp(browser, server.origin, (cmd) => {
    switch (cmd) {
      case 'library_list': return [];
      case 'record_status': return { phase: 'idle', kept: null };
      case 'app_close': return null;
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, {});
  await emit(page, 'app://close-requested', null);
  const dialog = page.getByTestId('close-dialog');
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /not saved as a tool/);
  await screenshot(page, 'ui-close-dialog');
  // Staying shows the recording.
  await page.getByTestId('close-cancel').click();
  await dialog.waitFor({ state: 'detached' });
  await page.locator('main[data-screen="record"]').waitFor();
  assert.equal((await calls(page, 'app_close')).length, 0);
  // Keeping closes with the recording kept; discarding says so.
  await emit(page, 'app://close-requested', null);
  await page.getByTestId('close-keep').click();
  await emit(page, 'app://close-requested', null);
  await page.getByTestId('close-discard').click();
  assert.deepEqual((await calls(page, 'app_close')).map((c) => c.args.discard), [false, true]);
  await page.close();
});

both('record: a pick named while recording becomes that output when the recording stops', async () => {
  const pick = { index: 0, description: 'text "€79.99"', text: '€79.99', best_selector: 'test_id "product-price"', page: 'main' };
  const page = await openApp(browser, server.origin, (cmd, args, F) => {
    window.__outputs ??= [];
    const draft = () => ({ start_url: 'http://x/', steps: [], inputs: [], outputs: [...window.__outputs], picks: [F.pick], can_undo: window.__outputs.length > 0, unkept: null });
    switch (cmd) {
      case 'record_status': return { phase: 'recording', steps: [], picks: [F.pick] };
      case 'record_stop': return draft();
      case 'draft_mark_output': window.__outputs.push(args.name); return draft();
      default: return Promise.reject({ code: 'unexpected', message: cmd });
    }
  }, { pick });
  await page.locator('[data-nav="record"]').click();
  await page.locator('[data-pick="0"]').waitFor();
  await page.getByTestId('output-name').fill('price');
  await page.getByTestId('output-on-stop').waitFor();
  await page.getByTestId('record-stop').click();
  await page.locator('[data-pick="0"] .badge', { hasText: 'output' }).waitFor();
  assert.deepEqual((await calls(page, 'draft_mark_output')).map((c) => c.args), [{ pick: 0, name: 'price', kind: 'text' }]);
  await page.close();
});
