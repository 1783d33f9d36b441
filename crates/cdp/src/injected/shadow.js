// The one walk through open shadow roots, for the resolver, roles.js and the recorder: every
// semantic candidate (test id, role and name, label, placeholder, text, structure) searches the
// composed tree, as a person sees the page and as Playwright's locators do, so a form that moved
// into a web component is still found by what it says. Closed shadow roots stay closed.
// An expression: evaluates to {deepElements, composedParent, composedContains, hostsOf}.
(() => {
  // Every element under `root` (a document, a shadow root or an element: the element itself
  // left out), in shadow-including tree order — a host, then its shadow tree, then its
  // children — through open shadow roots at any depth.
  const deepElements = (root) => {
    const out = [];
    const walk = (scope) => {
      for (const e of scope.querySelectorAll('*')) {
        out.push(e);
        if (e.shadowRoot) walk(e.shadowRoot);
      }
    };
    if (root.shadowRoot) walk(root.shadowRoot);
    walk(root);
    return out;
  };
  // The parent in the flat tree, as the page renders and events travel: a node slotted into
  // a web component is inside its slot (the text of a button's slot is the button's), a
  // shadow root's children are inside its host.
  const composedParent = (n) => n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const composedContains = (outer, inner) => {
    for (let n = inner; n; n = composedParent(n)) if (n === outer) return true;
    return false;
  };
  // The shadow hosts around `el`, outermost first (empty in the document's own tree).
  const hostsOf = (el) => {
    const hosts = [];
    for (let root = el.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) hosts.unshift(root.host);
    return hosts;
  };
  return { deepElements, composedParent, composedContains, hostsOf };
})()
