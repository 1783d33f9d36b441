// Calling the resolver installed in a world.

import type { ListSpec, Spec } from '../protocol/resolve';

/// `(name, spec)`: calls the resolver installed as `globalThis[name]`, or answers
/// `{ ok: false, resolverMissing: true }` when the world has none.
export const callResolver = (name: string, spec: Spec): unknown => {
  const f = (globalThis as unknown as Record<string, unknown>)[name];
  return typeof f === 'function' ? f(spec) : { ok: false, resolverMissing: true };
};

/// `(name, spec)`: reads a list with the resolver installed as `globalThis[name]` (its `list`
/// module), or answers `{ ok: false, resolverMissing: true }` when the world has none.
export const callList = (name: string, spec: ListSpec): unknown => {
  const f = (globalThis as unknown as Record<string, { list?: { extract: (s: ListSpec) => unknown } }>)[name];
  return f && f.list ? f.list.extract(spec) : { ok: false, resolverMissing: true };
};
