// Masks, for a screenshot, every element of this document that shows one of `texts`, and takes
// the masks away again. Evaluated in the replayer's isolated world of one frame as
// `(MASK_JS)(texts, action, opaque)`:
//
// - `action === "mask"` draws a solid black box over each element whose value, text or an
//   attribute holds a text (compared case-insensitively, whitespace collapsed; attribute values
//   also percent- and form-decoded), in a closed shadow root on a manual popover, so the boxes
//   are in the top layer above the page's own overlays and dialogs and catch no pointer
//   events. Returns the boxes.
// - `action === "unmask"` finds the elements again, removes the boxes and returns what it
//   found: when that differs from what `mask` returned, the page changed while it was
//   captured, and the capture cannot be trusted.
//
// A box covers the element's border box and its text (a Range over its contents, which may
// overflow); an element with no box (an `<option>` of a closed `<select>`, `display:
// contents`) is covered through its nearest ancestor that has one. Text split over several
// children is covered by the smallest element holding all of it.
//
// With `opaque` (a secret was typed into the page), every element whose pixels the masker
// cannot read is masked too: canvases, videos, plugins, and images made in the page (`data:`
// and `blob:` sources), which a script may have drawn the secret into.

import { composedParent, deepElements } from './shadow';

const HOST = 'data-browserflow-mask';
type Box = [number, number, number, number];

const decodings = (v: string): string[] => {
  const out = [v];
  try { out.push(decodeURIComponent(v)); } catch (_) { /* not percent-encoded */ }
  try { out.push(decodeURIComponent(v.replace(/\+/g, ' '))); } catch (_) { /* idem */ }
  return out;
};
const isHost = (el: Element): boolean => el.hasAttribute(HOST);

/// Elements whose pixels no text comparison can read.
const OPAQUE = new Set(['CANVAS', 'VIDEO', 'EMBED', 'OBJECT']);
const madeInPage = (src: unknown): boolean => /^\s*(data|blob):/i.test(String(src || ''));
const unreadable = (el: Element): boolean => {
  if (OPAQUE.has(el.tagName)) return true;
  if (el.tagName === 'IMG') {
    const img = el as HTMLImageElement;
    return madeInPage(img.currentSrc) || madeInPage(img.src);
  }
  // SVG `<image>` (lower-case tag name in the SVG namespace).
  return el.tagName.toLowerCase() === 'image' && madeInPage(el.getAttribute('href'));
};

const box = (el: Element): Box | null => {
  let target: Element | null = el;
  while (target) {
    const r = target.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) break;
    target = composedParent(target);
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

/// The boxes of the elements showing one of `texts`, as one comparable key.
const key = (boxes: Box[]): string => boxes.map((b) => b.join(',')).sort().join(';');

/// Masks (`"mask"`) or unmasks (`"unmask"`) the elements showing one of `texts` (and, with
/// `opaque`, every unreadable element); answers what it found (see above).
export const mask = (texts: string[], action: 'mask' | 'unmask', opaque = false): string => {
  const norm = (s: unknown) => String(s).toLowerCase().replace(/\s+/g, ' ');
  const wanted = texts.map(norm).filter((t) => t.length > 0);
  const holds = (s: string | null | undefined): boolean => {
    if (s == null || s === '') return false;
    const n = norm(s);
    return wanted.some((t) => n.includes(t));
  };
  const ownHit = (el: Element): boolean => {
    const value = (el as HTMLInputElement).value;
    if (typeof value === 'string' && holds(value)) return true;
    for (const attr of Array.from(el.attributes)) {
      if (decodings(attr.value).some(holds)) return true;
    }
    return false;
  };
  const textHit = (el: Element): boolean => {
    if (!holds(el.textContent)) return false;
    // The smallest element holding the text: not when one child holds it alone.
    return !Array.from(el.children).some((c) => !isHost(c) && holds(c.textContent));
  };
  const found: Box[] = [];
  for (const el of deepElements(document)) {
    if (isHost(el)) continue;
    if (el.tagName === 'SCRIPT' || el.tagName === 'STYLE' || el.tagName === 'TITLE') continue;
    if ((opaque && unreadable(el)) || ownHit(el) || textHit(el)) {
      const b = box(el);
      if (b) found.push(b);
    }
  }
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
    const m = document.createElement('div');
    m.style.cssText = `position: fixed; left: ${l}px; top: ${t}px; width: ${r - l}px; `
      + `height: ${b - t}px; background: #000; pointer-events: none;`;
    shadow.appendChild(m);
  }
  root.appendChild(host);
  // The top layer puts the masks above modal dialogs and the page's own popovers.
  if (typeof host.showPopover === 'function') host.showPopover();
  return key(found);
};
