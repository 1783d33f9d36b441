(() => {
  // Where the gesture armed by `arm_pointer_probe.js` has landed so far: the last move and
  // the first press ('target', a description of another element, or null: nothing reached
  // this frame), and how many of its events were stopped. The watch stays armed.
  const probe = globalThis.__browserflowProbe;
  if (!probe) return null;
  return { moved: probe.moved, pressed: probe.pressed, stopped: probe.stopped };
})()
