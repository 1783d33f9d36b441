(() => {
  // Arms a guard in a document around the frame a click is aimed into. Events of the frame's
  // own document never pass through this one, so while the guard is armed every trusted event
  // of a pointer gesture that lands here is one the browser routed by stale hit-test data:
  // it is stopped before any page handler or default action sees it, and counted. Listeners
  // on the window, capturing, installed once per isolated world.
  if (!globalThis.__browserflowAncestorGuardInstalled) {
    globalThis.__browserflowAncestorGuardInstalled = true;
    const gesture = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'];
    const stop = (event) => {
      const guard = globalThis.__browserflowAncestorGuard;
      if (!guard || !event.isTrusted) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      guard.stopped += 1;
    };
    for (const type of gesture) window.addEventListener(type, stop, { capture: true, passive: false });
  }
  globalThis.__browserflowAncestorGuard = { stopped: 0 };
  return true;
})()
