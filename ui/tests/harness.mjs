// Shared by the UI tests: serve ui/dist, open it in real Chromium (playwright-core with the
// system's /usr/bin/chromium, never a downloaded browser), with Tauri's IPC replaced by
// @tauri-apps/api's own mocks (mockIPC with event mocking), driven by a per-test handler.
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const uiRoot = path.resolve(here, '..');
export const repoRoot = path.resolve(uiRoot, '..');
const dist = path.join(uiRoot, 'dist');
export const artifacts = process.env.BROWSERFLOW_TEST_ARTIFACTS ?? path.join(repoRoot, 'target', 'app-test-artifacts');

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml' };

export async function serveDist() {
  if (!existsSync(path.join(dist, 'index.html'))) throw new Error('ui/dist is missing: run `npm run build` first');
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const file = path.join(dist, url.pathname === '/' ? 'index.html' : path.normalize(url.pathname));
    if (!file.startsWith(dist)) { res.writeHead(403).end(); return; }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

export function chromiumPath() {
  return process.env.BROWSERFLOW_CHROME ?? '/usr/bin/chromium';
}

export async function launch() {
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu'] });
}

const mocksSource = (await readFile(path.join(uiRoot, 'node_modules/@tauri-apps/api/mocks.js'), 'utf8'))
  .replace(/^export \{([^}]*)\};?\s*$/m, 'window.__tauriMocks = {$1};');

const DEFAULT_WIDTH = 1280;
let width = DEFAULT_WIDTH;

/** The window width of the pages opened next (`null`: the default). */
export function useWidth(w) {
  width = w ?? DEFAULT_WIDTH;
}

/**
 * Opens the app with `handler(cmd, args, fixtures)` answering every command (it runs in the
 * page: it must not close over test variables; pass data through `fixtures`). Returns the page;
 * `window.__calls` records every command and its arguments.
 */
export async function openApp(browser, origin, handler, fixtures = {}) {
  const page = await browser.newPage({ viewport: { width, height: 820 } });
  const install = `
    (() => {
      ${mocksSource}
      const FIXTURES = ${JSON.stringify(fixtures)};
      const handler = (${handler.toString()});
      window.__calls = [];
      window.__tauriMocks.mockIPC((cmd, args) => {
        window.__calls.push({ cmd, args });
        return handler(cmd, args, FIXTURES);
      }, { shouldMockEvents: true });
    })();`;
  await page.addInitScript({ content: install });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${origin}/index.html`);
  // What the test leaves on screen must fit the window too.
  const close = page.close.bind(page);
  page.close = async (options) => {
    const found = page.isClosed() ? [] : await overflows(page);
    await close(options);
    if (found.length) throw new Error(`at ${page.viewportSize()?.width} px the screen does not fit: ${found.join('; ')}`);
  };
  return page;
}

/** What does not fit the window: sideways scrolling, elements past their panel or the screen, labels broken over lines. */
export async function overflows(page) {
  return page.evaluate(() => {
    const found = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1) found.push(`page scrolls sideways: ${doc.scrollWidth} > ${doc.clientWidth}`);
    const main = document.querySelector('main');
    if (main.scrollWidth > main.clientWidth + 1) found.push(`the screen scrolls sideways: ${main.scrollWidth} > ${main.clientWidth}`);
    const what = (el) => `${el.tagName}.${el.className} "${(el.textContent || '').trim().slice(0, 40)}"`;
    const visible = main.getBoundingClientRect();
    for (const el of main.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width && r.right > visible.right + 1) found.push(`${what(el)} ends at ${Math.round(r.right)}, beyond the screen's ${Math.round(visible.right)}`);
    }
    for (const panel of main.querySelectorAll('.panel, table')) {
      const box = panel.getBoundingClientRect();
      if (panel.scrollWidth > panel.clientWidth + 1) found.push(`${what(panel)} scrolls: ${panel.scrollWidth} > ${panel.clientWidth}`);
      for (const el of panel.querySelectorAll('*')) {
        const r = el.getBoundingClientRect();
        if (r.width && r.right > box.right + 1) found.push(`${what(el)} ends at ${Math.round(r.right)} > its panel's ${Math.round(box.right)}`);
      }
    }
    // Badges and buttons keep their words on one line: a label broken over lines (or letter
    // by letter) is not "fitting".
    for (const el of main.querySelectorAll('.badge, button')) {
      // Only labels: a button laid out as a row of parts (a timeline step) is not a label.
      if (el.children.length) continue;
      const range = document.createRange();
      range.selectNodeContents(el);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width).map((r) => Math.round(r.top)));
      if (lines.size > 1) found.push(`${what(el)} wraps over ${lines.size} lines`);
    }
    return [...new Set(found)].slice(0, 8);
  });
}


/** Sends a Tauri event to the page, as the Rust side would. */
export async function emit(page, event, payload) {
  await page.evaluate(([event, payload]) => window.__TAURI_INTERNALS__.invoke('plugin:event|emit', { event, payload }), [event, payload]);
}

export async function calls(page, cmd) {
  return (await page.evaluate(() => window.__calls)).filter((c) => c.cmd === cmd);
}

export async function screenshot(page, name) {
  await mkdir(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`) });
}
