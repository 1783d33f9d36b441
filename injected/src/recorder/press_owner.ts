// Where a press acts, for the recorder: the element that owns what the press does, and where in
// it the press was. Replay presses the same relative point of that element (`Offset` in
// browserflow-steps; `actionPoint` in resolve.ts), so a press whose place matters — on a
// slider's track, on the value label that rides on its thumb, on a canvas — does what the
// person's did.

import { composedContains, composedParent } from '../shadow';
import type { Offset } from '../protocol/recorder';

/// A press as the recorder keeps it: what was pressed, where, when, and the boxes of the
/// pressed element and its ancestors then.
export interface Press {
  el: Element;
  x: number;
  y: number;
  at: number;
  boxes: Map<Element, DOMRect>;
  /// Whether the pressed element (lifted) is interactive itself.
  owns?: boolean;
  gesture?: { active: Element | null };
}
/// A click gesture once its click is known.
export interface ClickGesture { press?: Press; clicked?: Element }

// How far above the pressed element an owner is looked for: a widget's parts sit a few levels
// under it; further up are layout containers, which own nothing.
const MAX_DEPTH = 4;
const round = (v: number): number => Math.round(v * 100) / 100;

/// At the press, before the page's handlers run: the boxes of the pressed element and its
/// ancestors. The offset is measured in the owner's box as it was pressed (a slider's thumb
/// moves to the pointer on the press).
export const boxesAt = (el: Element): Map<Element, DOMRect> => {
  const boxes = new Map<Element, DOMRect>();
  for (let n: Element | null = el, depth = 0; n && n.nodeType === 1 && depth < MAX_DEPTH; n = composedParent(n), depth++) {
    boxes.set(n, n.getBoundingClientRect());
  }
  return boxes;
};

/// Once the press's handlers ran: at its click, and again when the gesture's post-state is read
/// (a framework may move the focus a render later). The pressed element lifted to its
/// interactive ancestor owns the press when there is one. Otherwise, when the press moved the
/// focus to an element beside the pressed one — the hidden input of a slider's thumb, beside the
/// value label riding on it — the owner is the nearest ancestor holding both (the thumb): the
/// element the behaviour belongs to, found by what the page did rather than by its markup (a
/// framework's delegated handlers are invisible on the element). Never the body. The ancestors
/// are those of the press (`boxes`, in order): the page may have replaced the pressed element
/// since (MUI re-creates the label as the value changes).
export const ownerOf = (press: Press, focused: Element | null): Element => {
  const el = press.el;
  if (press.owns || !focused || focused === (press.gesture && press.gesture.active)) return el;
  if (composedContains(el, focused) || composedContains(focused, el)) return el;
  for (const n of press.boxes.keys()) {
    if (n === el) continue;
    if (n === document.body || n === document.documentElement || !n.isConnected) return el;
    if (composedContains(n, focused)) return n;
  }
  return el;
};

/// The press's point in `el`'s box as it was pressed, with that box's size.
export const offsetIn = (press: Press, el: Element): Offset | undefined => {
  const box = press.boxes.get(el);
  if (!box) return undefined;
  return { x: round(press.x - box.left), y: round(press.y - box.top),
    box: { width: round(box.width), height: round(box.height) } };
};

/// The point (`x`, `y`) in the box `r`, with that box's size: a drop's place on its target.
/// The target may be moving as it is measured (a sortable list shifting its items under the
/// dragged one), so the replay keeps the point at the same fraction of the box it finds then.
export const pointIn = (x: number, y: number, r: DOMRect): Offset => ({ x: round(x - r.left), y: round(y - r.top),
  box: { width: round(r.width), height: round(r.height) } });

/// When the gesture's post-state is read: the owner of a click gesture if it is another element
/// than the one its step names (the focus moved since the click), with the press's place in
/// it; the recorder moves the step there (`post_state` in capture/actions.rs).
export const laterOwner = (g: ClickGesture, focused: Element | null): { el: Element; offset: Offset } | null => {
  if (!g.press || !g.clicked) return null;
  const owner = ownerOf(g.press, focused);
  if (owner === g.clicked || !owner.isConnected) return null;
  const offset = offsetIn(g.press, owner);
  return offset ? { el: owner, offset } : null;
};

/// A long press: how long the button was held, when that is longer than a click's (a page that
/// opens a menu or selects on a long press measures it); else undefined. Measured between the
/// input events' own time stamps (`press.at` is the press's), not when the page got to handle
/// them, which a busy machine delays.
const LONG_PRESS_MS = 500;
export const heldMs = (press: Press, releasedAt: number): number | undefined => {
  const held = Math.round(releasedAt - press.at);
  return held >= LONG_PRESS_MS ? held : undefined;
};
