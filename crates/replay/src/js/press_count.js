(() => {
  // Counts the trusted presses this document received, from a capture listener on the window
  // (the first place an event reaches, so no page handler can hide it). Installed once per
  // isolated world; page scripts cannot see or reset it.
  const key = "__browserflowPresses";
  if (!(key in globalThis)) {
    globalThis[key] = 0;
    window.addEventListener("mousedown", (event) => {
      if (event.isTrusted) globalThis[key] += 1;
    }, true);
  }
  return globalThis[key];
})()
