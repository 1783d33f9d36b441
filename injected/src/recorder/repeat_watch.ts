// Which fills re-rendered a repeating structure (a grid filtered as the person typed, a list of
// cards narrowed by a search box): the recorder keeps, for each fill, the content changes the
// page made while it lasted — from its field's first `input` to the next trusted press, or key
// outside that field — and asks, for a step inside a grid, list or cards, which fills changed
// that structure. Only content changes count (nodes added or removed, text changed): hover and
// focus change attributes of every grid.

import { placeOf } from '../repeat';
import type { RepeatInfo } from '../protocol/recorder';

const MAX_NODES = 4000;
const MAX_FILLS = 50;

/// Starts watching; `tokenOf` names elements as the recorder does, `deepTarget` is an event's
/// innermost target.
export const watchRepeats = (tokenOf: (el: Element) => string, deepTarget: (e: Event) => Element | null) => {
  interface Fill { token: string; nodes: { node: Node; added: boolean }[] }
  const fills: Fill[] = [];
  let open: Fill | null = null;
  new MutationObserver((records) => {
    if (!open) return;
    for (const r of records) {
      if (open.nodes.length >= MAX_NODES) return;
      open.nodes.push({ node: r.target, added: false });
      for (const n of r.addedNodes) if (n.nodeType === 1) open.nodes.push({ node: n, added: true });
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
  const close = (e: Event) => {
    if (!e.isTrusted || !open) return;
    if (e.type === 'keydown' && tokenOf(deepTarget(e) || document.body) === open.token) return;
    open = null;
  };
  window.addEventListener('pointerdown', close, true);
  window.addEventListener('keydown', close, true);

  /// A trusted `input` on `el`: its fill's window opens (or goes on while the person types).
  const noteInput = (el: Element) => {
    const token = tokenOf(el);
    if (open && open.token === token) return;
    open = { token, nodes: [] };
    fills.push(open);
    if (fills.length > MAX_FILLS) fills.shift();
  };
  const changedBy = (container: Element): string[] => {
    const tokens: string[] = [];
    for (const f of fills) {
      const changed = f.nodes.some(({ node, added }) => container.contains(node) || (added && node.contains(container)));
      if (changed && !tokens.includes(f.token)) tokens.push(f.token);
    }
    return tokens;
  };
  /// `el`'s place in a repeating structure, its row's or item's text, and the element tokens of
  /// the fields whose fills re-rendered the structure; null outside one.
  const describe = (el: Element, role: string | null): RepeatInfo | null => {
    const place = role ? placeOf(el, role) : null;
    if (!place) return null;
    return { place: place.place, content: place.content, changedBy: changedBy(place.container) };
  };
  return { describe, noteInput };
};
