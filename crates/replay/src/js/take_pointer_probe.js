(() => {
  // Like `read_pointer_probe.js`, once the gesture is over: the watch is disarmed, so no
  // later gesture (a person's, another step's) is judged or stopped by it.
  const probe = globalThis.__browserflowProbe;
  if (!probe) return null;
  globalThis.__browserflowProbe = null;
  return { moved: probe.moved, pressed: probe.pressed, stopped: probe.stopped };
})()
