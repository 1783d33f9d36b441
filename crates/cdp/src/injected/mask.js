// Masks, for a screenshot, every element of this document that shows one of `texts`, and
// takes the masks away again. Evaluated in the replayer's isolated world of one frame as
// `(MASK_JS)(texts, action)`:
//
// - `action === "mask"` draws a solid black box over each element whose value, text or an
//   attribute holds a text (compared case-insensitively, whitespace collapsed; attribute
//   values also percent- and form-decoded), in a closed shadow root on a manual popover, so
//   the boxes are in the top layer above the page's own overlays and dialogs and catch no
//   pointer events. Returns the boxes.
// - `action === "unmask"` finds the elements again, removes the boxes and returns what it
//   found: when that differs from what `mask` returned, the page changed while it was
//   captured, and the capture cannot be trusted.
//
// With `opaque` (a secret was typed into the page), every element whose pixels the masker
// cannot read is masked too: canvases, videos, plugins, and images made in the page (`data:`
// and `blob:` sources), which a script may have drawn the secret into.
//
// A box covers the element's border box and its text (a Range over its contents, which may
// overflow); an element with no box (an `<option>` of a closed `<select>`, `display:
// contents`) is covered through its nearest ancestor that has one. Text split over several
// children is covered by the smallest element holding all of it.
(texts, action, opaque) => {
  const HOST = 'data-browserflow-mask';
  const OPAQUE = new Set(['CANVAS', 'VIDEO', 'EMBED', 'OBJECT']);
  const madeInPage = (src) => /^\s*(data|blob):/i.test(String(src || ''));
  const unreadable = (el) => OPAQUE.has(el.tagName)
    || (el.tagName === 'IMG' && (madeInPage(el.currentSrc) || madeInPage(el.src)))
    || (el.tagName.toLowerCase() === 'image' && madeInPage(el.getAttribute('href')));
  const norm = (s) => String(s).toLowerCase().replace(/\s+/g, ' ');
  const wanted = texts.map(norm).filter((t) => t.length > 0);
  const holds = (s) => {
    if (s == null || s === '') return false;
    const n = norm(s);
    return wanted.some((t) => n.includes(t));
  };
  const decodings = (v) => {
    const out = [v];
    try { out.push(decodeURIComponent(v)); } catch (_) { /* not percent-encoded */ }
    try { out.push(decodeURIComponent(v.replace(/\+/g, ' '))); } catch (_) { /* idem */ }
    return out;
  };
  const isHost = (el) => el.hasAttribute && el.hasAttribute(HOST);
  const ownHit = (el) => {
    if (typeof el.value === 'string' && holds(el.value)) return true;
    for (const attr of Array.from(el.attributes || [])) {
      if (decodings(attr.value).some(holds)) return true;
    }
    return false;
  };
  const textHit = (el) => {
    if (!holds(el.textContent)) return false;
    // The smallest element holding the text: not when one child holds it alone.
    return !Array.from(el.children).some((c) => !isHost(c) && holds(c.textContent));
  };
  const box = (el) => {
    let target = el;
    while (target) {
      const r = target.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) break;
      target = target.parentElement || (target.getRootNode && target.getRootNode().host) || null;
    }
    if (!target) return null;
    const rects = [target.getBoundingClientRect()];
    try {
      const range = document.createRange();
      range.selectNodeContents(target);
      rects.push(range.getBoundingClientRect());
    } catch (_) { /* no contents */ }
    const real = rects.filter((r) => r.width > 0 && r.height > 0);
    const left = Math.min(...real.map((r) => r.left));
    const top = Math.min(...real.map((r) => r.top));
    const right = Math.max(...real.map((r) => r.right));
    const bottom = Math.max(...real.map((r) => r.bottom));
    // Whole pixels, one more on each side: anti-aliased edges of glyphs stay inside.
    return [Math.floor(left) - 1, Math.floor(top) - 1, Math.ceil(right) + 1, Math.ceil(bottom) + 1];
  };
  const found = [];
  const visit = (root) => {
    for (const el of Array.from(root.querySelectorAll('*'))) {
      if (isHost(el)) continue;
      if (el.shadowRoot) visit(el.shadowRoot);
      if (el.tagName === 'SCRIPT' || el.tagName === 'STYLE' || el.tagName === 'TITLE') continue;
      if ((opaque && unreadable(el)) || ownHit(el) || textHit(el)) {
        const b = box(el);
        if (b) found.push(b);
      }
    }
  };
  visit(document);
  const key = (boxes) => boxes.map((b) => b.join(',')).sort().join(';');
  if (action === 'unmask') {
    for (const host of Array.from(document.querySelectorAll('[' + HOST + ']'))) host.remove();
    return key(found);
  }
  if (found.length === 0) return key(found);
  const root = document.documentElement;
  if (!root) throw new Error('the document has no element to draw masks on');
  const host = document.createElement('div');
  host.setAttribute(HOST, '');
  host.setAttribute('popover', 'manual');
  host.style.cssText = 'all: initial; position: fixed; inset: 0; width: 100vw; height: 100vh; '
    + 'margin: 0; padding: 0; border: 0; background: transparent; overflow: visible; '
    + 'pointer-events: none; z-index: 2147483647; display: block;';
  const shadow = host.attachShadow({ mode: 'closed' });
  for (const [l, t, r, b] of found) {
    const mask = document.createElement('div');
    mask.style.cssText = `position: fixed; left: ${l}px; top: ${t}px; width: ${r - l}px; `
      + `height: ${b - t}px; background: #000; pointer-events: none;`;
    shadow.appendChild(mask);
  }
  root.appendChild(host);
  // The top layer puts the masks above modal dialogs and the page's own popovers.
  if (typeof host.showPopover === 'function') host.showPopover();
  return key(found);
}
