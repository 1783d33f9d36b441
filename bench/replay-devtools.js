// Peer 1: @puppeteer/replay replaying a Chrome DevTools Recorder recording with puppeteer-core.
// Usage: node replay-devtools.js RECORDING.json [ORIGIN]
// ORIGIN (default http://127.0.0.1:4780) replaces the origin the recording was made against.
// The Recorder has no "extract" step: the product name and price are read after the flow ends,
// as a user of @puppeteer/replay would do in an extension.
'use strict';
const fs = require('node:fs');
const puppeteer = require('puppeteer-core');
const { createRunner, PuppeteerRunnerExtension } = require('@puppeteer/replay');

const RECORDED_ORIGIN = 'http://127.0.0.1:4780';

async function main() {
  const [recordingPath, origin = RECORDED_ORIGIN] = process.argv.slice(2);
  if (!recordingPath) throw new Error('usage: node replay-devtools.js RECORDING.json [ORIGIN]');
  const flow = JSON.parse(fs.readFileSync(recordingPath, 'utf8').split(RECORDED_ORIGIN).join(origin));
  // Puppeteer creates (and removes) a fresh temporary profile for every launch.
  const browser = await puppeteer.launch({
    executablePath: process.env.BROWSERFLOW_CHROME || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox'],
  });
  try {
    const page = await browser.newPage();
    const runner = await createRunner(flow, new PuppeteerRunnerExtension(browser, page, { timeout: 5000 }));
    await runner.run();
    const output = await page.evaluate(() => {
      const text = (id) => (document.querySelector(`[data-testid="${id}"]`)?.textContent ?? '').trim();
      const raw = text('product-price');
      return { name: text('product-name'), price: Number(raw.replace(/[^0-9.]/g, '')), currency: raw.startsWith('$') ? 'USD' : null };
    });
    console.log(JSON.stringify(output));
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exitCode = 1;
});
