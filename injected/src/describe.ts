// How an element is named in messages, one way each: as markup (`<button#save.primary>`) in the
// resolver's and the replayer's failures, and as role and name (`combobox "Age"`) in post-state
// checks and the recorder's outlines for a model.

import { accessibleName, roleOf } from './roles';

/// `<tag#id.class.class>`: which element, as a developer finds it in the page's markup (without
/// its classes, `<tag#id>`, where a person reads it: a step's description).
export const markup = (el: unknown, { classes = true }: { classes?: boolean } = {}): string => {
  if (!(el instanceof Element)) return String(el instanceof Node ? el.nodeName : el);
  let s = '<' + (classes ? el.tagName.toLowerCase() : el.localName);
  if (el.id) s += '#' + el.id;
  const cls = (el as HTMLElement).className;
  if (classes && typeof cls === 'string' && cls.trim()) s += '.' + cls.trim().split(/\s+/).join('.');
  return s + '>';
};

/// An element as role and name (`combobox "Age"`), the way checks name it; null without both.
export const roleAndName = (el: Element | null | undefined): string | null => {
  if (!el || el.nodeType !== 1) return null;
  const role = roleOf(el);
  const name = accessibleName(el);
  return role && name ? role + ' ' + JSON.stringify(name.slice(0, 60)) : null;
};

/// An element as a person reads it: role and name, else its role, else its tag and id.
export const describe = (el: Element): string => roleAndName(el) || roleOf(el) || markup(el, { classes: false });
