// The one walk through open shadow roots, for the resolver, roles and names, the masker and the
// recorder: every semantic candidate (test id, role and name, label, placeholder, text,
// structure) searches the composed tree, as a person sees the page and as Playwright's locators
// do, so a form that moved into a web component is still found by what it says. Closed shadow
// roots stay closed.

/// Every element under `root` (a document, a shadow root or an element: the element itself
/// left out), in shadow-including tree order — a host, then its shadow tree, then its
/// children — through open shadow roots at any depth.
export const deepElements = (root: ParentNode): Element[] => {
  const out: Element[] = [];
  const walk = (scope: ParentNode) => {
    for (const e of scope.querySelectorAll('*')) {
      out.push(e);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  if (root instanceof Element && root.shadowRoot) walk(root.shadowRoot);
  walk(root);
  return out;
};

/// The parent in the flat tree, as the page renders and events travel: a node slotted into a
/// web component is inside its slot (the text of a button's slot is the button's), a shadow
/// root's children are inside its host.
export const composedParent = (n: Node): Element | null => {
  const slot = (n as Element | Text).assignedSlot;
  if (slot) return slot;
  if (n.parentElement) return n.parentElement;
  const p = n.parentNode;
  return p instanceof ShadowRoot ? p.host : null;
};

/// Whether `outer` holds `inner` in the flat tree (itself included).
export const composedContains = (outer: Node, inner: Node): boolean => {
  for (let n: Node | null = inner; n; n = composedParent(n)) if (n === outer) return true;
  return false;
};

/// The shadow hosts around `el`, outermost first (empty in the document's own tree).
export const hostsOf = (el: Node): Element[] => {
  const hosts: Element[] = [];
  for (let root = el.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) hosts.unshift(root.host);
  return hosts;
};

/// The focused element through open shadow roots; null when nothing but the page has it.
export const deepActive = (): Element | null => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a && a !== document.body && a !== document.documentElement ? a : null;
};

/// The element at a point of the viewport, inside open shadow roots.
export const deepElementFromPoint = (x: number, y: number): Element | null => {
  let e = document.elementFromPoint(x, y);
  while (e && e.shadowRoot) {
    const inner = e.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === e) break;
    e = inner;
  }
  return e;
};
