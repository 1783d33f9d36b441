// Whether a press into a child frame reached the element the resolver found: a watch on one
// gesture (the probe), and a guard in the documents around the frame.

import { markup } from '../describe';
import { probeReport } from './globals';

const PRESSES = new Set(['pointerdown', 'mousedown']);
const GESTURE = [...PRESSES, 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'];
const IN_GESTURE = new Set(GESTURE);

/// Arms a watch on one gesture of the pointer at the element the resolver found last in this
/// frame (`__browserflowPointerTarget`), and answers the element's action point in this frame's
/// viewport as it is now, and whether it is in view (null: no element, or it left the
/// document).
///
/// The watch sees trusted events first (capture listeners on the window, installed once per
/// isolated world). The first press of the gesture decides: on the element (or inside it), the
/// gesture is the element's and goes on untouched; anywhere else, the browser routed it by
/// stale hit-test data, and every event of the gesture is stopped before any page handler or
/// default action sees it, so the click can be sent again without having acted. A move is only
/// noted: where it landed tells whether the browser's routing is current.
export const armPointerProbe = (): { at: [number, number]; inView: boolean } | null => {
  const target = globalThis.__browserflowPointerTarget;
  if (!target || !target.el.isConnected) return null;
  if (!globalThis.__browserflowProbeInstalled) {
    globalThis.__browserflowProbeInstalled = true;
    const watch = (event: Event) => {
      const probe = globalThis.__browserflowProbe;
      if (!probe || !event.isTrusted) return;
      const path = event.composedPath();
      const onTarget = path.includes(probe.el);
      const where = onTarget ? 'target' : markup(path[0]);
      if (event.type === 'mousemove') {
        probe.moved = where;
        return;
      }
      if (probe.pressed === null && PRESSES.has(event.type)) probe.pressed = where;
      if (probe.pressed !== null && probe.pressed !== 'target' && IN_GESTURE.has(event.type)) {
        event.preventDefault();
        event.stopImmediatePropagation();
        probe.stopped += 1;
      }
    };
    for (const type of [...GESTURE, 'mousemove']) {
      window.addEventListener(type, watch, { capture: true, passive: false });
    }
  }
  globalThis.__browserflowProbe = { el: target.el, moved: null, pressed: null, stopped: 0 };
  const r = target.el.getBoundingClientRect();
  const x = r.left + target.offset[0];
  const y = r.top + target.offset[1];
  return { at: [x, y], inView: x >= 0 && y >= 0 && x < innerWidth && y < innerHeight };
};

/// Where the gesture armed by `armPointerProbe` has landed so far: the last move and the first
/// press ('target', a description of another element, or null: nothing reached this frame),
/// and how many of its events were stopped. The watch stays armed.
export const readPointerProbe = () => {
  const probe = globalThis.__browserflowProbe;
  return probe ? probeReport(probe) : null;
};

/// Like `readPointerProbe`, once the gesture is over: the watch is disarmed, so no later
/// gesture (a person's, another step's) is judged or stopped by it.
export const takePointerProbe = () => {
  const probe = globalThis.__browserflowProbe;
  if (!probe) return null;
  globalThis.__browserflowProbe = null;
  return probeReport(probe);
};

/// Arms a guard in a document around the frame a click is aimed into. Events of the frame's own
/// document never pass through this one, so while the guard is armed every trusted event of a
/// pointer gesture that lands here is one the browser routed by stale hit-test data: it is
/// stopped before any page handler or default action sees it, and counted. Listeners on the
/// window, capturing, installed once per isolated world.
export const armAncestorGuard = (): boolean => {
  if (!globalThis.__browserflowAncestorGuardInstalled) {
    globalThis.__browserflowAncestorGuardInstalled = true;
    const stop = (event: Event) => {
      const guard = globalThis.__browserflowAncestorGuard;
      if (!guard || !event.isTrusted) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      guard.stopped += 1;
    };
    for (const type of GESTURE) window.addEventListener(type, stop, { capture: true, passive: false });
  }
  globalThis.__browserflowAncestorGuard = { stopped: 0 };
  return true;
};

/// Disarms the guard of `armAncestorGuard`: how many events it stopped (null: none armed).
export const takeAncestorGuard = (): number | null => {
  const guard = globalThis.__browserflowAncestorGuard;
  globalThis.__browserflowAncestorGuard = null;
  return guard ? guard.stopped : null;
};
