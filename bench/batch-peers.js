// The batch peers: the search-price journey over many rows on ONE browser, a fresh context per
// row (so rows share no cookies or storage, as `bflow run --inputs` does), N rows at once —
// written as a Playwright or a Puppeteer user would write it by hand: wait for what each step
// needs (the results list, the product page), no fixed sleeps.
// Usage: node batch-peers.js playwright|puppeteer ORIGIN ROWS.txt CONCURRENCY CHROMIUM
// ROWS.txt: one query per line. Prints one JSON line per row as it finishes:
//   {"row": 1, "ok": true, "name": "...", "price": "...", "ms": 123.4}
// Exits 1 if any row failed.
'use strict';
const fs = require('node:fs');

const [peer, origin, rowsPath, concurrencyText, chromium] = process.argv.slice(2);
if (!peer || !origin || !rowsPath || !concurrencyText || !chromium) {
  throw new Error('usage: node batch-peers.js playwright|puppeteer ORIGIN ROWS.txt CONCURRENCY CHROMIUM');
}
const rows = fs.readFileSync(rowsPath, 'utf8').split('\n').filter((l) => l.trim() !== '');
const concurrency = Number(concurrencyText);
const args = process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [];

async function playwright() {
  const { chromium: launcher } = require('playwright-core');
  const browser = await launcher.launch({ executablePath: chromium, headless: true, args });
  return {
    async row(query) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${origin}/index.html`);
        await page.getByTestId('search-input').fill(query);
        await Promise.all([page.waitForURL(/search\.html/), page.getByTestId('search-input').press('Enter')]);
        await Promise.all([
          page.waitForURL(/product\.html/),
          page.locator('[data-testid="results"] > li:first-child > [data-testid="result-link"]').click(),
        ]);
        // The product page fills its fields from the catalog as it loads: wait for text.
        await page.getByTestId('product-price').filter({ hasText: /\S/ }).waitFor();
        const name = await page.getByTestId('product-name').textContent();
        const price = await page.getByTestId('product-price').textContent();
        return { name: name.trim(), price: price.trim() };
      } finally {
        await context.close();
      }
    },
    close: () => browser.close(),
  };
}

async function puppeteer() {
  const launcher = require('puppeteer-core');
  const browser = await launcher.launch({ executablePath: chromium, headless: true, args });
  return {
    async row(query) {
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.goto(`${origin}/index.html`);
        await page.type('[data-testid="search-input"]', query);
        await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
        const link = await page.waitForSelector('[data-testid="results"] > li:first-child > [data-testid="result-link"]');
        await Promise.all([page.waitForNavigation(), link.click()]);
        const name = await page.waitForSelector('[data-testid="product-name"]');
        const price = await page.waitForSelector('[data-testid="product-price"]');
        // The product page fills its fields from the catalog after load: wait for text.
        await page.waitForFunction(
          () => document.querySelector('[data-testid="product-price"]').textContent.trim() !== '',
        );
        return {
          name: (await name.evaluate((e) => e.textContent)).trim(),
          price: (await price.evaluate((e) => e.textContent)).trim(),
        };
      } finally {
        await context.close();
      }
    },
    close: () => browser.close(),
  };
}

async function main() {
  const system = peer === 'playwright' ? await playwright() : peer === 'puppeteer' ? await puppeteer() : null;
  if (!system) throw new Error(`unknown peer ${peer}`);
  let next = 0;
  let failed = 0;
  async function lane() {
    while (next < rows.length) {
      const index = next++;
      const started = performance.now();
      let line;
      try {
        const got = await system.row(rows[index]);
        line = { row: index + 1, ok: true, ...got, ms: performance.now() - started };
      } catch (error) {
        failed++;
        line = { row: index + 1, ok: false, error: String(error.message || error).split('\n')[0], ms: performance.now() - started };
      }
      process.stdout.write(JSON.stringify(line) + '\n');
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  await system.close();
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
