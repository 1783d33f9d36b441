// The globals the replayer's snippets share within one isolated world: the resolver installed
// there (`browserflow-replay`'s `resolve/mod.rs` names it), the pointer probe and the ancestor
// guard.

import type { Resolver } from '../entries/resolve';

/// The watch on one pointer gesture (arm_pointer_probe).
export interface Probe {
  el: Element;
  /// Where the last move landed: 'target', a description of another element, or null.
  moved: string | null;
  /// Where the first press landed, the same way.
  pressed: string | null;
  stopped: number;
}

declare global {
  // eslint-disable-next-line no-var
  var __browserflowResolve: Resolver | undefined;
  // eslint-disable-next-line no-var
  var __browserflowProbe: Probe | null | undefined;
  // eslint-disable-next-line no-var
  var __browserflowProbeInstalled: boolean | undefined;
  // eslint-disable-next-line no-var
  var __browserflowAncestorGuard: { stopped: number } | null | undefined;
  // eslint-disable-next-line no-var
  var __browserflowAncestorGuardInstalled: boolean | undefined;
}

/// What a probe answers: where the gesture landed so far.
export const probeReport = (probe: Probe) => ({ moved: probe.moved, pressed: probe.pressed, stopped: probe.stopped });
