// The real end-to-end test: the built app (src-tauri, release of ui/dist embedded) under Xvfb,
// driven through tauri-driver + WebKitWebDriver. It records the fixture shop's search journey
// in a real Chromium window (driven here through CDP), marks the query as an input and the
// price as an output, saves the tool, replays it from the preview with another query, checks
// the output, exports a pack and verifies it. Screenshots of each screen go to the artifacts
// folder (and to docs/screenshots with BROWSERFLOW_UPDATE_SCREENSHOTS=1).
//
// Needs: BROWSERFLOW_APP (the app binary), Xvfb, tauri-driver and WebKitWebDriver. The test
// starts its own X display; screenshots are read from that display's framebuffer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, writeFile, cp, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WebDriver } from './webdriver.mjs';
import { Cdp, launchChromium } from './cdp.mjs';
import { startXvfb } from './xvfb.mjs';
import { artifacts, repoRoot, chromiumPath } from '../harness.mjs';

const app = process.env.BROWSERFLOW_APP ?? path.join(repoRoot, 'target/debug/browserflow-app');
const bflow = process.env.BROWSERFLOW_BFLOW ?? path.join(repoRoot, 'target/debug/bflow');
const port = Number(process.env.TAURI_DRIVER_PORT ?? 4444);
const updateDocs = !!process.env.BROWSERFLOW_UPDATE_SCREENSHOTS;

let driver;
let wd;
let chrome;
let cdp;
let workspace;
let xvfb;

/** Saves the app window (or, with `wholeScreen`, the app and the recorded browser). */
async function shot(name, { wholeScreen = false } = {}) {
  const png = xvfb.screenshot(wholeScreen ? { x: 0, y: 0, width: 2400, height: 840 } : await wd.windowRect());
  await mkdir(artifacts, { recursive: true });
  await writeFile(path.join(artifacts, `e2e-${name}.png`), png);
  if (updateDocs) {
    const docs = path.join(repoRoot, 'docs/screenshots');
    await mkdir(docs, { recursive: true });
    await writeFile(path.join(docs, `${name}.png`), png);
  }
}

/** Kills the app with SIGKILL, as a crash or a power cut would: nothing gets to save. */
async function killApp() {
  const pids = execFileSync('pgrep', ['-x', path.basename(app).slice(0, 15)]).toString().trim().split('\n').map(Number);
  assert.ok(pids.length > 0, 'the app is running');
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  await wd.quit();
}

async function waitForDriver() {
  const deadline = Date.now() + 20000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/status`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('tauri-driver did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
}

before(async () => {
  assert.ok(existsSync(app), `the app binary ${app} is missing: build it first`);
  assert.ok(existsSync(bflow), `the bflow binary ${bflow} is missing: build it first`);
  workspace = await mkdtemp(path.join(os.tmpdir(), 'bflow-e2e-'));
  // Wide enough for the app (1280 px) and, beside it, the Chromium window being recorded.
  xvfb = await startXvfb({ width: 2400, height: 900 });
  // A workspace with the shipped recordings, an empty store and data folder.
  await cp(path.join(repoRoot, 'recordings'), path.join(workspace, 'recordings'), { recursive: true });
  const env = {
    ...process.env,
    DISPLAY: xvfb.display,
    BROWSERFLOW_WORKSPACE: workspace,
    BROWSERFLOW_STORE: path.join(workspace, 'store'),
    BROWSERFLOW_APP_DATA: path.join(workspace, 'data'),
    // Set here so the app does not re-execute itself to set it under the driver.
    WEBKIT_DISABLE_DMABUF_RENDERER: '1',
  };
  driver = spawn('tauri-driver', ['--port', String(port), '--native-driver', '/usr/bin/WebKitWebDriver'], {
    env, stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitForDriver();
  chrome = await launchChromium(chromiumPath(), { DISPLAY: xvfb.display });
  cdp = await Cdp.connect(chrome.ws);
  wd = await new WebDriver(`http://127.0.0.1:${port}`).start(app);
});

after(async () => {
  await wd?.quit();
  cdp?.close();
  chrome?.process.kill();
  driver?.kill();
  xvfb?.stop();
});

test('record the shop search, replay it with another query, export and verify a pack', { timeout: 240000 }, async () => {
  try {
    await journey();
  } catch (error) {
    // What the window showed when it failed, beside the other screenshots.
    await mkdir(artifacts, { recursive: true });
    await writeFile(path.join(artifacts, 'e2e-failure.png'), xvfb.screenshot(await wd.windowRect().catch(() => undefined)));
    throw error;
  }
});

/** Waits until every step row shows a loaded thumbnail, and fails naming the rows that do not. */
async function everyStepHasAThumbnail(timeout = 30000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const rows = await wd.execute(`return [...document.querySelectorAll('li[data-rec-step]')].map((li) => {
      const img = li.querySelector('img.thumb');
      return { step: li.dataset.recStep, loaded: !!img && img.complete && img.naturalWidth > 0 && img.naturalHeight > 0,
               wide: img ? img.naturalWidth : 0 };
    })`);
    const missing = rows.filter((r) => !r.loaded);
    if (rows.length > 0 && missing.length === 0) {
      // The recorder's thumbnails are 240 px wide.
      assert.ok(rows.every((r) => r.wide === 240), JSON.stringify(rows));
      return;
    }
    if (Date.now() > deadline) {
      assert.fail(`steps without a thumbnail: ${missing.map((r) => r.step).join(', ')} of ${rows.length}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function journey() {
  // Library.
  await wd.waitFor('tr[data-ref="search-price@1.2.0"]');
  await shot('library');

  // Record: the app serves the demo shop and records in the Chromium at our CDP endpoint.
  await wd.click('[data-nav="record"]');
  await wd.click('[data-testid="use-shop"]');
  await wd.click('[data-testid="record-advanced"]');
  await wd.type('[data-testid="record-cdp"]', chrome.ws);
  const startUrl = await wd.execute('return document.querySelector(\'[data-testid="record-url"]\').value');
  assert.match(startUrl, /^http:\/\/127\.0\.0\.1:\d+\/index\.html$/);
  await wd.click('[data-testid="record-start"]');
  await wd.waitFor('li[data-rec-step="0"]');

  const page = await cdp.page(/\/index\.html$/);
  await page.click('[data-testid="search-input"]');
  await page.type('keyboard');
  await page.press('Enter');
  await wd.waitFor('[data-testid="record-steps"]', { text: (t) => /Enter/i.test(t) });
  await page.waitFor('[data-testid="result-link"]');
  await page.click('[data-testid="results"] li:first-child [data-testid="result-link"]');
  await page.waitFor('[data-testid="product-price"]');
  // navigate, fill, Enter, click (and any wait steps the recorder adds).
  await wd.waitForCount('li[data-rec-step]', 4);

  // Pick the price.
  await wd.click('[data-testid="record-pick"]');
  // The app says when the browser is in pick mode; a click before that is a step.
  await wd.waitFor('[data-testid="picking-note"][data-armed="true"]');
  await page.click('[data-testid="product-price"]');
  await wd.waitFor('[data-pick="0"]');
  // Every recorded step shows its thumbnail: a loaded, non-empty image of the page it left.
  await everyStepHasAThumbnail();
  await shot('record');
  await shot('record-with-browser', { wholeScreen: true });

  // Leaving Record does not leave the recording behind: back on Record it is still live.
  const recorded = (await wd.findAll('li[data-rec-step]')).length;
  await wd.click('[data-nav="library"]');
  await wd.waitFor('tr[data-ref="search-price@1.2.0"]');
  await wd.click('[data-nav="record"]');
  await wd.waitForCount('li[data-rec-step]', recorded);
  await wd.waitFor('[data-pick="0"]');
  await wd.waitFor('[data-testid="record-stop"]');

  // Stop; the query becomes an input, the price an output.
  await wd.click('[data-testid="record-stop"]');
  await wd.click('[data-mark-input]');
  await wd.type('[data-testid="input-name"]', 'query');
  await wd.click('[data-testid="input-ok"]');
  await wd.waitFor('[data-testid="record-steps"]', { text: (t) => t.includes('input query: string') });
  await wd.type('[data-testid="output-name"]', 'price');
  await wd.select('[data-testid="output-kind"]', 'price');
  await wd.click('[data-testid="output-ok"]');
  await wd.waitFor('[data-pick="0"] .badge');
  // The draft keeps them, and the price's read shows the page it reads.
  await everyStepHasAThumbnail();
  await wd.type('[data-testid="tool-name"]', 'shop-search');
  await wd.type('[data-testid="tool-version"]', '1.0.0');
  await wd.type('[data-testid="tool-description"]', 'Search the shop and read the first price');
  await shot('record-draft');
  await wd.click('[data-testid="save"]');
  await wd.waitFor('[data-testid="saved"]', { text: (t) => t.includes('shop-search@1.0.0') });
  const saved = (await readdir(path.join(workspace, 'recordings'))).filter((f) => f.startsWith('shop-search'));
  assert.deepEqual(saved, ['shop-search@1.0.0.json']);

  // Replay from the preview with another query: the output is the mouse's price.
  await wd.click('[data-testid="replay-saved"]');
  await wd.waitFor('li[data-step="0"]');
  await wd.type('input[data-input="query"]', 'mouse');
  await wd.click('[data-testid="run"]');
  const out = await wd.waitFor('[data-testid="output"]', { timeout: 90000 });
  const output = JSON.parse(await wd.text(out));
  assert.equal(output.price, 24.5, JSON.stringify(output));
  assert.match(await wd.textOf('[data-testid="result-ok"]'), /Output valid against the contract/);
  await shot('preview');

  // Export a pack with the new tool; it is written and verified.
  await wd.click('[data-nav="export"]');
  await wd.click('[data-choose="shop-search@1.0.0"]');
  await wd.type('[data-testid="pack-name"]', 'e2e-pack');
  await wd.click('[data-testid="show-manifest"]');
  await wd.waitFor('[data-testid="manifest"]', { text: (t) => t.includes('shop-search@1.0.0') });
  await wd.click('[data-testid="write-pack"]');
  await wd.waitFor('[data-testid="verified"]', { text: (t) => t.includes('Verified') });
  const packFile = path.join(workspace, 'data/packs/e2e-pack-1.0.0.bfpack');
  assert.ok(existsSync(packFile), `${packFile} was written`);
  await wd.click('[data-testid="import"]');
  await wd.waitFor('[data-testid="import-result"]', { text: (t) => t.includes('installed in') });
  await shot('export');

  // A pack of the workspace's own tool breaks nothing: the tool still replays, the shipped
  // flow still checks, and the Library names both sources.
  await wd.click('[data-nav="library"]');
  await wd.waitFor('tr[data-ref="shop-search@1.0.0"]', { text: (t) => t.includes('also in pack e2e-pack@1.0.0') });
  await wd.click('tr[data-ref="shop-search@1.0.0"] [data-testid="open-item"]');
  await wd.waitFor('li[data-step="0"]');
  await wd.type('input[data-input="query"]', 'mouse');
  await wd.click('[data-testid="run"]');
  const again = JSON.parse(await wd.text(await wd.waitFor('[data-testid="output"]', { timeout: 90000 })));
  assert.equal(again.price, 24.5, 'the tool replays with its own pack installed');

  // Flows: the shipped flow checks clean.
  await wd.click('[data-nav="flows"]');
  await wd.waitFor('[data-testid="flow-verdict"]', { text: (t) => t.includes('compiles') });
  await shot('flows');
  // …and runs in the same workspace, the pack installed (the shop the app serves answers it;
  // the price is above the threshold, so no alert is posted).
  const run = spawnSync(bflow, [
    'flow', 'run', path.join(workspace, 'recordings/daily-price-watch.flow.json'),
    '--input', 'query=keyboard', '--input', 'threshold=1', '--journal', path.join(workspace, 'journal.sqlite'),
  ], {
    cwd: workspace,
    encoding: 'utf8',
    timeout: 120000,
    env: { ...process.env, BROWSERFLOW_STORE: path.join(workspace, 'store'), BROWSERFLOW_SECRET_WEBHOOK_URL: 'http://127.0.0.1:9/never-posted' },
  });
  assert.equal(run.status, 0, `bflow flow run in the workspace with the pack installed: ${run.stderr}`);
  const flowResult = JSON.parse(run.stdout);
  assert.equal(flowResult.output.dropped, false, run.stdout);
  assert.equal(flowResult.output.price, 89.99, run.stdout);

  // Uninstall the pack from the Library, after a confirmation.
  await wd.click('[data-nav="library"]');
  await wd.click('tr[data-ref="shop-search@1.0.0"] [data-testid="item-details"]');
  await wd.click('[data-testid="uninstall"]');
  await wd.click('[data-testid="uninstall-yes"]');
  await wd.waitFor('[data-testid="pack-removed"]', { text: (t) => t.includes('e2e-pack@1.0.0') });
  assert.deepEqual(await readdir(path.join(workspace, 'store')), [], 'nothing left in the store');

  // Another recording, whose browser window the person closes: its steps stay, as a draft.
  await wd.click('[data-nav="record"]');
  await wd.click('[data-testid="use-shop"]');
  await wd.click('[data-testid="record-advanced"]');
  await wd.type('[data-testid="record-cdp"]', chrome.ws);
  await wd.click('[data-testid="record-start"]');
  await wd.waitFor('li[data-rec-step="0"]');
  const second = await cdp.page(/\/index\.html$/);
  await second.click('[data-testid="open-deals"]');
  await wd.waitFor('li[data-rec-step="1"]');
  await cdp.closePage(/\/index\.html$/);
  await wd.waitFor('[data-testid="record-note"]', { text: (t) => /window was closed/.test(t) });
  await wd.waitFor('[data-testid="save"]');
  const drafted = (await wd.findAll('li[data-rec-step]')).length;
  assert.ok(drafted >= 2, 'the closed recording keeps its steps');

  // The app is killed with the draft unsaved; started again, it offers the draft back.
  await killApp();
  wd = await new WebDriver(`http://127.0.0.1:${port}`).start(app);
  await wd.click('[data-nav="record"]');
  await wd.waitFor('[data-testid="kept-draft"]', { text: (t) => t.includes(`${drafted} steps`) });
  await shot('record-kept');
  await wd.click('[data-testid="kept-open"]');
  await wd.waitFor('[data-testid="save"]');
  assert.equal((await wd.findAll('li[data-rec-step]')).length, drafted, 'the restored draft has every step');

  await wd.click('[data-testid="record-discard"]');
  await wd.click('[data-testid="confirm-discard-yes"]');
  await wd.waitFor('[data-testid="record-start"]');

  // The library shows the new tool and its passing run.
  await wd.click('[data-nav="library"]');
  await wd.waitFor('tr[data-ref="shop-search@1.0.0"]', { text: (t) => t.includes('passed') });
}
