(() => {
  // Arms a watch on one gesture of the pointer at the element the resolver found last in this
  // frame (`__browserflowPointerTarget`), and answers the element's action point in this
  // frame's viewport as it is now, and whether it is in view (null: no element, or it left
  // the document).
  //
  // The watch sees trusted events first (capture listeners on the window, installed once per
  // isolated world). The first press of the gesture decides: on the element (or inside it),
  // the gesture is the element's and goes on untouched; anywhere else, the browser routed it
  // by stale hit-test data, and every event of the gesture is stopped before any page handler
  // or default action sees it, so the click can be sent again without having acted. A move
  // is only noted: where it landed tells whether the browser's routing is current.
  const target = globalThis.__browserflowPointerTarget;
  if (!target || !target.el.isConnected) return null;
  if (!globalThis.__browserflowProbeInstalled) {
    globalThis.__browserflowProbeInstalled = true;
    const describe = (node) => {
      if (!node || node.nodeType !== Node.ELEMENT_NODE) return String(node && node.nodeName);
      const classes = typeof node.className === 'string' && node.className.trim()
        ? '.' + node.className.trim().split(/\s+/).join('.') : '';
      return '<' + node.tagName.toLowerCase() + (node.id ? '#' + node.id : '') + classes + '>';
    };
    const presses = new Set(['pointerdown', 'mousedown']);
    const gesture = new Set([...presses, 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu']);
    const watch = (event) => {
      const probe = globalThis.__browserflowProbe;
      if (!probe || !event.isTrusted) return;
      const path = event.composedPath();
      const onTarget = path.includes(probe.el);
      const where = onTarget ? 'target' : describe(path[0]);
      if (event.type === 'mousemove') {
        probe.moved = where;
        return;
      }
      if (probe.pressed === null && presses.has(event.type)) probe.pressed = where;
      if (probe.pressed !== null && probe.pressed !== 'target' && gesture.has(event.type)) {
        event.preventDefault();
        event.stopImmediatePropagation();
        probe.stopped += 1;
      }
    };
    for (const type of [...gesture, 'mousemove']) {
      window.addEventListener(type, watch, { capture: true, passive: false });
    }
  }
  globalThis.__browserflowProbe = { el: target.el, moved: null, pressed: null, stopped: 0 };
  const r = target.el.getBoundingClientRect();
  const x = r.left + target.offset[0];
  const y = r.top + target.offset[1];
  return { at: [x, y], inView: x >= 0 && y >= 0 && x < innerWidth && y < innerHeight };
})()
