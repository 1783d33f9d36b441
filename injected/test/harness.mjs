// The unit tests' harness: Debian's Chromium (never a downloaded browser), headless, driven by
// playwright-core; pages get the modules of injected/src as `window.BF` (bundled by esbuild
// from the sources, so a test exercises exactly the code the bundles are made of), or the
// checked-in bundles the Rust crates ship.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = join(here, '..', '..');

/// The Chromium the tests drive: $BROWSERFLOW_CHROMIUM, else Debian's.
export const CHROMIUM = process.env.BROWSERFLOW_CHROMIUM || '/usr/bin/chromium';

let modules = null;
/// Every module of injected/src, as a script defining `window.BF`.
export async function modulesScript() {
  if (modules) return modules;
  const names = ['describe', 'list', 'mask', 'reads', 'repeat', 'resolve', 'roles', 'shadow', 'states', 'table', 'visibility'];
  const contents = names.map((n) => `export * as ${n} from './${n}';`).join('\n');
  const result = await build({
    stdin: { contents, resolveDir: join(here, '..', 'src'), sourcefile: 'test-entry.ts', loader: 'ts' },
    bundle: true, write: false, format: 'iife', globalName: 'BF', target: 'es2022', logLevel: 'error',
  });
  modules = result.outputFiles[0].text;
  return modules;
}

/// A checked-in bundle (path from the repository root), as text.
export const shipped = (path) => readFileSync(join(repo, path), 'utf8');

/// Starts Chromium; `with(html)` opens a page showing `html` with `window.BF` defined.
export async function start() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
  const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
  const script = await modulesScript();
  return {
    browser,
    async page(html, { modules: withModules = true } = {}) {
      const page = await context.newPage();
      await page.setContent(html);
      if (withModules) await page.addScriptTag({ content: script });
      return page;
    },
    close: () => browser.close(),
  };
}
