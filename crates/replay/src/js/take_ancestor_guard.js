(() => {
  // Disarms the guard of `arm_ancestor_guard.js`: how many events it stopped (null: none armed).
  const guard = globalThis.__browserflowAncestorGuard;
  globalThis.__browserflowAncestorGuard = null;
  return guard ? guard.stopped : null;
})()
