// The one visibility rule, Playwright's (https://playwright.dev/docs/actionability#visible):
// an element is visible when it has a non-empty bounding box and no `visibility: hidden`
// (nor `display: none`, nor a closed `<details>` or `content-visibility` hiding it). An element
// of opacity 0 IS visible — it takes pointer events and a click reaches it, as Playwright's
// `isVisible()` answers. A `display: contents` element has no box of its own: it is visible
// when one of its children is.
//
// The resolver's `visible` requirement and waits, the recorder's "hidden before a hover" and
// the accessibility tree's "hidden" (roles.ts) all read this module.

/// The style half of the rule: not `display: none` here or above, not `visibility: hidden`,
/// not skipped by `content-visibility` or a closed `<details>`.
export const styleVisible = (el: Element): boolean => {
  if (typeof el.checkVisibility === 'function') return el.checkVisibility({ visibilityProperty: true });
  const s = getComputedStyle(el);
  return s.display !== 'none' && s.visibility !== 'hidden';
};

const visibleText = (t: Text): boolean => {
  const range = document.createRange();
  range.selectNode(t);
  const r = range.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
};

/// Whether `el` is visible, by Playwright's rule (above).
export const isVisible = (el: Element): boolean => {
  if (getComputedStyle(el).display === 'contents') {
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c instanceof Element && isVisible(c)) return true;
      if (c instanceof Text && visibleText(c)) return true;
    }
    return false;
  }
  if (!styleVisible(el)) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
};
