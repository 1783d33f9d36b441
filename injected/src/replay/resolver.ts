// Calling the resolver installed in a world.

import type { Spec } from '../protocol/resolve';

/// `(name, spec)`: calls the resolver installed as `globalThis[name]`, or answers
/// `{ ok: false, resolverMissing: true }` when the world has none.
export const callResolver = (name: string, spec: Spec): unknown => {
  const f = (globalThis as unknown as Record<string, unknown>)[name];
  return typeof f === 'function' ? f(spec) : { ok: false, resolverMissing: true };
};
