// Every text the screens show is readable: a contrast ratio of at least 4.5:1 against what is
// behind it (WCAG 2.x AA for normal text), computed from the stylesheet's real colours in real
// Chromium, on every screen at 1,000 and 1,600 px. Disabled controls are exempt (as in WCAG).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openApp, useWidth } from '../harness.mjs';
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

/** Every text below 4.5:1 on the page, described. */
async function lowContrast(page) {
  return page.evaluate(() => {
    const parse = (c) => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m) return null;
      const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return { r, g, b, a };
    };
    const lum = ({ r, g, b }) => {
      const ch = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
    };
    const over = (top, under) => ({
      r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1,
    });
    const background = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const bg = parse(getComputedStyle(e).backgroundColor);
        if (bg && bg.a > 0) { layers.push(bg); if (bg.a >= 1) break; }
      }
      return layers.reverse().reduce((under, top) => over(top, under), { r: 255, g: 255, b: 255, a: 1 });
    };
    const found = [];
    for (const el of document.querySelectorAll('body *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || !el.getClientRects().length) continue;
      if (el.closest(':disabled, [aria-disabled="true"], [hidden]')) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden') continue;
      let opacity = 1;
      for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
      const bg = background(el);
      const fg = over({ ...parse(style.color), a: parse(style.color).a * opacity }, bg);
      const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
      const ratio = (hi + 0.05) / (lo + 0.05);
      if (ratio < 4.5) found.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}:1 (${style.color} on rgb(${Math.round(bg.r)}, ${Math.round(bg.g)}, ${Math.round(bg.b)}))`);
    }
    return [...new Set(found)];
  });
}

function answer(cmd, args, F) {
  switch (cmd) {
    case 'library_list': return F.library;
    case 'preview_plan': return F.plan;
    case 'record_status': return { phase: 'idle' };
    case 'flow_check': return {
      path: args.path, reference: 'daily-price-watch@1.0.0', description: '', inputs: [], ok: false, flow_digest: null, capabilities: [], output: null,
      steps: [{ id: 'search', uses: 'search-price@1.2.0', with: [{ slot: 'query', binding: '{"from":"input.query"}' }], when: null }],
      diagnostics: [{ code: 'type_mismatch', file: null, step: 'search', slot: 'query', pointer: '/steps/0/with/query', message: 'a number is not a string' }],
      warnings: ['skipped /w/recordings/broken.flow.json: it does not load (1 problem)'],
    };
    default: return Promise.reject({ code: 'unexpected', message: `no mock for ${cmd}` });
  }
}

for (const width of [1000, 1600]) {
  test(`contrast at ${width} px: every text on every screen is at least 4.5:1`, async () => {
    useWidth(width);
    try {
      const library = [...fx.library, { ...fx.searchPrice, reference: 'mine@1.0.0', path: '/w/recordings/mine@1.0.0.json', also_in_pack: { pack: 'p@1.0.0', digest: 'sha256:ab', same: true }, contract_only: true }];
      const page = await openApp(browser, server.origin, answer, { library, plan: fx.plan });
      const found = [];
      await page.getByTestId('library-table').locator('tr[data-ref="search-price@1.2.0"]').waitFor();
      await page.getByTestId('library-table').locator('tr[data-ref="search-price@1.2.0"]').click();
      found.push(...(await lowContrast(page)).map((f) => `library: ${f}`));
      for (const [screen, ready] of [['record', 'record-url'], ['preview', 'timeline'], ['export', 'export-choices'], ['flows', 'flow-verdict']]) {
        await page.locator(`[data-nav="${screen}"]`).click();
        await page.getByTestId(ready).waitFor();
        found.push(...(await lowContrast(page)).map((f) => `${screen}: ${f}`));
      }
      assert.deepEqual(found, [], `texts below 4.5:1:\n${found.join('\n')}`);
      await page.close();
    } finally {
      useWidth(null);
    }
  });
}
