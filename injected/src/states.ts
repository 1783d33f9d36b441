// The states a post-state check reads (browserflow-steps' `CheckedState`): one implementation
// for the recorder (what a step changed) and the replayer (whether the replayed step did the
// same).

import { roleAndName } from './describe';
import type { CheckedState } from './protocol/generated';
import { roleOf, textOf } from './roles';

export { deepActive } from './shadow';

/// What a focus check names: the focused element's role alone. Names change with a redesign
/// (a button "Search" becoming "Find") while the step still did the same thing.
export const focusOf = (el: Element | null): string | null => (el && el.nodeType === 1 ? roleOf(el) || null : null);

// Inputs whose value is not what a person typed or chose (a password is never read).
const NO_VALUE = new Set(['password', 'file', 'checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'hidden']);
const FIELDS = new Set(['input', 'textarea', 'select']);
const TEXT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'number']);
const ARIA: CheckedState[] = ['aria-valuenow', 'aria-checked', 'aria-selected', 'aria-expanded', 'aria-pressed'];

/// The states of an element, by check name.
export type States = Partial<Record<CheckedState, string>>;

/// The states in `s` with their values (`Object.entries` types its keys as any string).
export const stateEntries = (s: States): [CheckedState, string][] =>
  Object.entries(s) as [CheckedState, string][];

/// Every state of `el` that applies to it, by check name.
export const statesOf = (el: Element | null): States => {
  const s: States = {};
  if (!el || el.nodeType !== 1) return s;
  const tag = el.localName;
  if ((el instanceof HTMLInputElement && !NO_VALUE.has(el.type)) || el instanceof HTMLTextAreaElement
    || el instanceof HTMLSelectElement) s.value = String(el.value);
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) s.checked = String(el.checked);
  if (!FIELDS.has(tag) && roleOf(el) === 'combobox') s.text = textOf(el).slice(0, 200);
  // What a search-and-choose field shows beside itself once an option is chosen (its item,
  // its chips): the text of the element holding the field.
  if ((el instanceof HTMLInputElement && TEXT_TYPES.has(el.type)) || el instanceof HTMLTextAreaElement) {
    const holder = el.parentElement;
    if (holder) s.shown = textOf(holder).slice(0, 200);
  }
  for (const a of ARIA) {
    const v = el.getAttribute(a);
    if (v != null) s[a] = v;
  }
  const active = el.getAttribute('aria-activedescendant');
  if (active) {
    const root = el.getRootNode() as Document | ShadowRoot;
    const option = (root.getElementById ? root.getElementById(active) : null) || document.getElementById(active);
    const d = roleAndName(option);
    if (d) s['active-option'] = d;
  }
  return s;
};

// Mutations of the document since the first call: "the step changed the page".
let mutationCount = 0;
let counting = false;
/// Starts counting the document's mutations (once), and answers the count so far.
export const countMutations = (): number => {
  if (counting) return mutationCount;
  counting = true;
  new MutationObserver((records) => { mutationCount += records.length; })
    .observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  return mutationCount;
};
/// The mutations counted so far.
export const mutations = (): number => mutationCount;
