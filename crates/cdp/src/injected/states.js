// The states a post-state check reads (browserflow-steps' `CheckedState`): one implementation
// for the recorder (what a step changed) and the replayer (whether the replayed step did the
// same). `ROLES` is roles.js. An expression evaluating to
// `{describe, focusOf, deepActive, statesOf, countMutations, mutations}`.
((ROLES) => {
  const { textOf, roleOf, accessibleName } = ROLES;
  // An element as role and name (`combobox "Age"`), the way checks name it; null without both.
  const describe = (el) => {
    if (!el || el.nodeType !== 1) return null;
    const role = roleOf(el);
    const name = accessibleName(el);
    return role && name ? role + ' ' + JSON.stringify(name.slice(0, 60)) : null;
  };
  // What a focus check names: the focused element's role alone. Names change with a redesign
  // (a button "Search" becoming "Find") while the step still did the same thing.
  const focusOf = (el) => (el && el.nodeType === 1 ? roleOf(el) || null : null);
  const deepActive = () => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a && a !== document.body && a !== document.documentElement ? a : null;
  };
  // Inputs whose value is not what a person typed or chose (a password is never read).
  const NO_VALUE = new Set(['password', 'file', 'checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'hidden']);
  const FIELDS = new Set(['input', 'textarea', 'select']);
  const TEXT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'number']);
  const ARIA = ['aria-valuenow', 'aria-checked', 'aria-selected', 'aria-expanded', 'aria-pressed'];
  // Every state of `el` that applies to it, by check name.
  const statesOf = (el) => {
    const s = {};
    if (!el || el.nodeType !== 1) return s;
    const tag = el.localName;
    if ((tag === 'input' && !NO_VALUE.has(el.type)) || tag === 'textarea' || tag === 'select') s.value = String(el.value);
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) s.checked = String(el.checked);
    if (!FIELDS.has(tag) && roleOf(el) === 'combobox') s.text = textOf(el).slice(0, 200);
    // What a search-and-choose field shows beside itself once an option is chosen (its item,
    // its chips): the text of the element holding the field.
    if ((tag === 'input' && TEXT_TYPES.has(el.type)) || tag === 'textarea') {
      const holder = el.parentElement;
      if (holder) s.shown = textOf(holder).slice(0, 200);
    }
    for (const a of ARIA) { const v = el.getAttribute(a); if (v != null) s[a] = v; }
    const active = el.getAttribute('aria-activedescendant');
    if (active) {
      const root = el.getRootNode();
      const option = (root.getElementById ? root.getElementById(active) : null) || document.getElementById(active);
      const d = describe(option);
      if (d) s['active-option'] = d;
    }
    return s;
  };
  // Mutations of the document since the first call: "the step changed the page".
  let mutations = 0;
  let counting = false;
  const countMutations = () => {
    if (counting) return mutations;
    counting = true;
    new MutationObserver((records) => { mutations += records.length; })
      .observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
    return mutations;
  };
  return { describe, focusOf, deepActive, statesOf, countMutations, mutations: () => mutations };
})
