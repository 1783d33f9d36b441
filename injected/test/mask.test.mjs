// The masker as shipped (crates/cdp/src/injected/mask.js): boxes over every element showing a
// secret — by text, value or (decoded) attribute, inside open shadow roots — in the top layer,
// and the same elements found again when unmasking.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { shipped, start } from './harness.mjs';

let chromium;
before(async () => { chromium = await start(); });
after(async () => { await chromium.close(); });

const mask = (p, texts, action) => p.evaluate(`(${shipped('crates/cdp/src/injected/mask.js')})(${JSON.stringify(texts)}, ${JSON.stringify(action)})`);

test('masks text, values, decoded attributes and shadow content, and finds them again', async () => {
  const p = await chromium.page(`<p style="margin:0">Hello <b id="name">Ada  Lovelace</b></p>
    <input id="f" value="s3cr3t" style="display:block">
    <a id="link" href="/x?who=ada%20lovelace">profile</a>
    <card-view id="card"></card-view>
    <dialog id="d">Ada Lovelace in a dialog</dialog>
    <script>document.getElementById('card').attachShadow({ mode: 'open' }).innerHTML = '<span>s3cr3t</span>';
      document.getElementById('d').showModal();</script>`, { modules: false });
  const masked = await mask(p, ['ada lovelace', 'S3CR3T', ''], 'mask');
  const boxes = masked.split(';');
  // The name, the field, the link, the shadow span and the dialog: five boxes.
  assert.equal(boxes.length, 5, masked);
  // The box covers the bold name (one pixel more on each side).
  const r = await p.evaluate(() => document.getElementById('name').getBoundingClientRect().toJSON());
  assert.ok(boxes.includes([Math.floor(r.left) - 1, Math.floor(r.top) - 1, Math.ceil(r.right) + 1, Math.ceil(r.bottom) + 1].join(',')), masked);
  // The masks are drawn above the modal dialog, and take no pointer events.
  const state = await p.evaluate(() => {
    const host = document.querySelector('[data-browserflow-mask]');
    return { open: host.matches(':popover-open'), events: getComputedStyle(host).pointerEvents };
  });
  assert.deepEqual(state, { open: true, events: 'none' });
  assert.equal(await mask(p, ['ada lovelace', 'S3CR3T'], 'unmask'), masked);
  assert.equal(await p.evaluate(() => document.querySelectorAll('[data-browserflow-mask]').length), 0);
  // Nothing to mask: nothing drawn.
  assert.equal(await mask(p, ['nowhere'], 'mask'), '');
});

test('with opaque, masks canvases, videos and page-made images, but not fetched images', async () => {
  const p = await chromium.page(`<canvas id="c" width="80" height="20" style="display:block"></canvas>
    <video id="v" width="40" height="20" style="display:block"></video>
    <img id="made" width="30" height="10" style="display:block"
      src="data:image/gif;base64,R0lGODlhAQABAAAAACwAAAAAAQABAAA=">
    <img id="fetched" width="30" height="10" style="display:block" src="/nothing.png">
    <p>plain</p>`, { modules: false });
  // Without a secret typed into the page: nothing to mask.
  assert.equal(await p.evaluate(`(${shipped('crates/cdp/src/injected/mask.js')})(["s3cr3t"], "mask", false)`), '');
  const masked = await p.evaluate(`(${shipped('crates/cdp/src/injected/mask.js')})(["s3cr3t"], "mask", true)`);
  // The canvas, the video and the data: image; the fetched image is read by the text checks.
  assert.equal(masked.split(';').length, 3, masked);
  const found = await p.evaluate(`(${shipped('crates/cdp/src/injected/mask.js')})(["s3cr3t"], "unmask", true)`);
  assert.equal(found, masked);
});
