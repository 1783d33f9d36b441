// Element resolution and actionability, evaluated in an isolated world of the target frame.
// One call waits (on animation frames, never on fixed sleeps) until the highest-ranked candidate
// that matches exactly one element is actionable, then optionally acts on it in the same task.
// Called as `(RESOLVE)(spec)`; resolves to {ok: true, winner, point, result} or
// {ok: false, states: [reason per candidate]}. `ROLES` is roles.js, bound around this function
// by `RESOLVE_JS` (mod.rs), `STATES` states.js, `REPEAT` repeat.js and `READS` reads.js.
async (spec) => {
  const { norm, textOf, roleOf, accessibleName, labelMatches, sameRole } = ROLES;
  const deadline = performance.now() + spec.timeoutMs;
  // Frames painted while this call waits: stability is judged across frames, never across
  // two timer wake-ups between which the page painted nothing (on a busy machine an
  // animation then looks still).
  let framesSeen = 0;
  const UNPAINTED_STILL_MS = 250;
  const nextFrame = (onMutation) => new Promise((resolve) => {
    // A frame callback, with a timer fallback so a page that is not painting still progresses.
    // Unless the element is being checked for stability (judged across frames), a DOM change
    // also wakes the loop: an element that appears, or text that arrives, is seen at once
    // instead of at the next frame.
    let done = false;
    let observer = null;
    const finish = () => {
      if (done) return;
      done = true;
      if (observer) observer.disconnect();
      resolve();
    };
    requestAnimationFrame(() => { framesSeen += 1; finish(); });
    setTimeout(finish, 50);
    if (onMutation) {
      observer = new MutationObserver(finish);
      observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
    }
  });

  const describe = (el) => {
    if (!el || !el.tagName) return String(el);
    let s = '<' + el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/).join('.');
    return s + '>';
  };

  const escapeAttr = (v) => String(v).replace(/["\\]/g, '\\$&');

  // Semantic candidates search the composed tree: every open shadow root under `root`, at any
  // depth (shadow.js), so "exactly one" counts the matches of every shadow root.
  const allElements = (root) => SHADOW.deepElements(root);
  const deepMatching = (root, css) => allElements(root).filter((e) => e.matches(css));
  const innermost = (els) => {
    const set = new Set(els);
    return els.filter((e) => !els.some((o) => o !== e && set.has(o) && SHADOW.composedContains(e, o)));
  };

  // A `structure` candidate: the element of role `c.value` by its place in something that
  // changes less than it does — the form holding a field (by label or name), a landmark or
  // labelled region (role, name), or what a combobox or button controls — then the pick:
  // the form's default button, the n-th of the role there, or the only one.
  const SUBMIT_INPUTS = new Set(['submit', 'image']);
  const isSubmitButton = (e) => (e instanceof HTMLButtonElement && e.type === 'submit')
    || (e instanceof HTMLInputElement && SUBMIT_INPUTS.has(e.type));
  // A form's fields, as the recorder counts them: no hidden inputs and no buttons.
  const NOT_FIELD_TYPES = new Set(['hidden', 'submit', 'image', 'button', 'reset']);
  const isField = (e) => (e instanceof HTMLInputElement && !NOT_FIELD_TYPES.has(e.type))
    || e instanceof HTMLSelectElement || e instanceof HTMLTextAreaElement;
  const byRole = (root, role) => {
    const want = norm(role.role);
    const name = role.name == null ? null : norm(role.name);
    return allElements(root).filter((e) => sameRole(roleOf(e), want) && (name === null || accessibleName(e) === name));
  };
  const anchorsOf = (within, root) => {
    if (within.form_with_field) {
      const f = within.form_with_field;
      const fields = allElements(root).filter(isField).filter((e) => (f.label != null
        ? labelMatches(e, norm(f.label)) : e.getAttribute('name') === f.name));
      return Array.from(new Set(fields.map((e) => e.form).filter(Boolean)));
    }
    if (within.region) return byRole(root, within.region);
    if (within.controlled_by) {
      const out = new Set();
      for (const owner of byRole(root, within.controlled_by)) {
        const ids = ((owner.getAttribute('aria-controls') || '') + ' ' + (owner.getAttribute('aria-owns') || '')).trim().split(/\s+/);
        // An id reference names an element of the owner's own tree (document or shadow root).
        for (const id of ids.filter(Boolean)) { const e = byIdIn(owner.getRootNode(), id); if (e) out.add(e); }
      }
      return Array.from(out);
    }
    return null;
  };
  const byIdIn = (root, id) => (root.getElementById ? root.getElementById(id) : document.getElementById(id));
  // An `nth` pick names an element by position only among as many elements of its role as
  // the recording saw there (`s.of`): an anchor holding more (a second copy of a web
  // component, an item added to a list) or fewer is an ambiguity the recording did not see,
  // and the candidate finds nothing, naming what the anchor now holds.
  const queryStructure = (c, root) => {
    const s = c.structure;
    if (!s || !s.within) return { error: 'a structure candidate needs `structure.within`', permanent: true };
    const read = READS.structureMembers(c, s, root);
    if (read && read.error) return read;
    const anchors = read ? [null] : anchorsOf(s.within, root);
    if (!anchors) return { error: 'unknown structure anchor ' + JSON.stringify(Object.keys(s.within)), permanent: true };
    const role = norm(c.value);
    const pick = s.pick || 'only';
    const found = new Set();
    let moved = null;
    for (const anchor of anchors) {
      if (pick === 'default_button') {
        // The form's default button: its first submit button in tree order (HTML §4.10.21.2).
        const form = anchor instanceof HTMLFormElement ? anchor : null;
        const button = form && Array.from(form.elements).find(isSubmitButton);
        if (button && roleOf(button) === role) found.add(button);
        continue;
      }
      if (pick.cell || pick.item) { REPEAT.pick(anchor, role, pick).forEach((e) => found.add(e)); continue; }
      const members = read ? read.members : allElements(anchor).filter((e) => roleOf(e) === role);
      if (pick === 'only') members.forEach((e) => found.add(e));
      else if (pick.nth && s.of && members.length !== s.of) moved = moved || members;
      else if (pick.nth && members[pick.nth - 1]) found.add(members[pick.nth - 1]);
    }
    if (moved) {
      return { error: 'holds ' + moved.length + ' elements of role ' + role + ' where the recording saw ' + s.of
        + ': position does not tell which is meant: ' + matchesOf(moved) };
    }
    return { els: Array.from(found) };
  };

  // The elements an ambiguous candidate matched, each with the shadow hosts around it, so a
  // failure says where the duplicates are (`<input#name> in <checkout-card#a>`).
  const matchesOf = (els) => els.slice(0, 3).map((e) => describe(e)
    + SHADOW.hostsOf(e).reverse().map((h) => ' in ' + describe(h)).join('')).join(', ')
    + (els.length > 3 ? ', …' : '');

  // Returns {els} or {error, permanent}.
  // Every match of every host of a shadow chain is searched: a chain matches across hosts.
  const query = (c) => {
    let roots = [document];
    for (const hostSel of c.shadow || []) {
      const next = [];
      let hosts = 0;
      for (const root of roots) {
        let found;
        try { found = root.querySelectorAll(hostSel); } catch (e) { return { error: 'invalid shadow host selector `' + hostSel + '`', permanent: true }; }
        for (const host of found) {
          hosts++;
          if (host.shadowRoot) next.push(host.shadowRoot);
        }
      }
      if (!hosts) return { error: 'shadow host `' + hostSel + '` not found' };
      if (!next.length) return { error: 'shadow host `' + hostSel + '` has no open shadow root' };
      roots = next;
    }
    if (roots.length === 1) return queryIn(c, roots[0]);
    const els = [];
    for (const root of roots) {
      const r = queryIn(c, root);
      if (r.error) return r;
      els.push(...r.els);
    }
    return { els };
  };
  const queryIn = (c, root) => {
    const v = c.value;
    try {
      switch (c.kind) {
        case 'css': return { els: Array.from(root.querySelectorAll(v)) };
        case 'id': return { els: Array.from(root.querySelectorAll('[id="' + escapeAttr(v) + '"]')) };
        case 'test_id': {
          const a = escapeAttr(v);
          return { els: deepMatching(root, ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'].map((n) => '[' + n + '="' + a + '"]').join(',')) };
        }
        case 'placeholder': return { els: deepMatching(root, '[placeholder="' + escapeAttr(v) + '"]') };
        case 'xpath': {
          const out = [];
          const snap = document.evaluate(v, root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
          for (let i = 0; i < snap.snapshotLength; i++) { const n = snap.snapshotItem(i); if (n.nodeType === 1) out.push(n); }
          return { els: out };
        }
        case 'role': {
          const want = norm(v);
          const name = c.name == null ? null : norm(c.name);
          return { els: allElements(root).filter((e) => sameRole(roleOf(e), want) && (name === null || accessibleName(e) === name)) };
        }
        case 'accessible_name': {
          const want = norm(v);
          return { els: innermost(allElements(root).filter((e) => accessibleName(e) === want)) };
        }
        case 'label': {
          const want = norm(v);
          return { els: allElements(root).filter((e) => labelMatches(e, want)) };
        }
        case 'text': {
          const want = norm(v);
          const hits = allElements(root).filter((e) => {
            const tag = e.tagName;
            if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || tag === 'HEAD' || tag === 'SLOT') return false;
            // textContent leaves out a host's shadow tree, which its rendered text shows.
            if (!norm(e.textContent).includes(want) && !(e instanceof HTMLInputElement) && !e.shadowRoot) return false;
            return textOf(e) === want;
          });
          return { els: innermost(hits) };
        }
        case 'structure': return queryStructure(c, root);
        default: return { error: 'unknown selector kind `' + c.kind + '`', permanent: true };
      }
    } catch (e) {
      return { error: 'invalid selector: ' + (e && e.message ? e.message : e), permanent: true };
    }
  };

  const isVisible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    return typeof el.checkVisibility === 'function' ? el.checkVisibility({ visibilityProperty: true }) : true;
  };
  const isDisabled = (el) => {
    try { if (el.matches(':disabled')) return true; } catch (e) { /* not a form control */ }
    return !!el.closest('[aria-disabled="true"]');
  };
  const TEXT_INPUTS = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number']);
  const DIRECT_INPUTS = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);
  const editability = (el) => {
    if (el instanceof HTMLInputElement) {
      // The type the browser gives it: an unknown `type` attribute is a text field
      // (selectize's search field says `type="select-one"`).
      const type = el.type;
      if (!TEXT_INPUTS.has(type) && !DIRECT_INPUTS.has(type)) return 'input of type `' + type + '` cannot be filled';
      if (el.readOnly) return 'element is read-only';
      return null;
    }
    if (el instanceof HTMLTextAreaElement) return el.readOnly ? 'element is read-only' : null;
    if (el instanceof HTMLSelectElement) return null;
    if (el.isContentEditable) return el.getAttribute('aria-readonly') === 'true' ? 'element is read-only' : null;
    return 'element is not an input, textarea, select or contenteditable';
  };
  // Whether a finite animation or transition (CSS or Web Animations) runs, or is about to, on
  // `el` or an element around it: what moves or scales it has not finished. Endless ones (a
  // spinner beside it) never finish, so they do not count.
  const animating = (el) => {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.parentNode && n.parentNode.host) || null) {
      if (!n.getAnimations) continue;
      for (const a of n.getAnimations()) {
        if (a.playState !== 'running' && !a.pending) continue;
        const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
        if (timing && Number.isFinite(timing.endTime)) return true;
      }
    }
    return false;
  };
  const composedContains = SHADOW.composedContains;
  const deepElementFromPoint = (x, y) => {
    let e = document.elementFromPoint(x, y);
    while (e && e.shadowRoot) {
      const inner = e.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === e) break;
      e = inner;
    }
    return e;
  };
  const inViewport = (r) => r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  // A recorded offset keeps its place in a box of another size (`Offset::place` in
  // browserflow-steps): inside the recorded box at the same fraction of it, outside at the
  // same distance from its nearest edge; without a recorded box, the same pixels.
  const along = (at, recorded, now) => (!(recorded > 0) || at < 0 ? at
    : at > recorded ? now + (at - recorded) : at / recorded * now);
  const actionPoint = (r) => {
    const o = spec.offset;
    if (!o) return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    const b = o.box || {};
    return { x: r.left + along(o.x, b.width, r.width), y: r.top + along(o.y, b.height, r.height) };
  };

  const propsMatch = (el) => {
    for (const [k, v] of Object.entries(spec.properties || {})) {
      if (JSON.stringify(el[k]) !== JSON.stringify(v)) return false;
    }
    return true;
  };
  const countOk = (n) => {
    const want = spec.count;
    if (!want) return n >= 1;
    if (want.op === '>=') return n >= want.value;
    if (want.op === '<=') return n <= want.value;
    return n === want.value;
  };

  // What to read or check on the chosen element; null means "not yet" with a reason.
  // The last value read that was not (yet) consistent with the recording: the replayer's
  // failure names it as the actual value.
  let lastRead = null;
  const readValue = (el, index) => {
    const got = readRaw(el);
    if (got.reason) return got;
    const why = READS.inconsistency(got.value, el, spec.read);
    if (why) { lastRead = { candidate: index, value: got.value }; return { reason: describe(el) + ' ' + why }; }
    return got;
  };
  const readRaw = (el) => {
    const from = spec.read.from;
    if (from === 'text') return { value: textOf(el) };
    if (from === 'value') return 'value' in el ? { value: String(el.value) } : { reason: describe(el) + ' has no value' };
    if (from === 'attribute') {
      const a = el.getAttribute(spec.read.attribute);
      return a === null ? { reason: describe(el) + ' has no attribute `' + spec.read.attribute + '`' } : { value: a };
    }
    return { reason: 'unknown source `' + from + '`' };
  };

  const act = (el) => {
    const a = spec.act;
    if (!a) return null;
    if (a.kind === 'focus') { el.focus(); return { done: true }; }
    if (a.kind === 'scroll') {
      el.scrollTo(a.x, a.y);
      return { done: true };
    }
    if (a.kind === 'fill') {
      if (el instanceof HTMLSelectElement) {
        const want = a.value;
        const opt = Array.from(el.options).find((o) => o.value === want) || Array.from(el.options).find((o) => norm(o.label || o.text) === norm(want));
        if (!opt) return { error: 'no option `' + want + '` (options: ' + Array.from(el.options).map((o) => o.value).join(', ') + ')' };
        el.focus();
        el.value = opt.value;
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return { done: true };
      }
      if (el instanceof HTMLInputElement && DIRECT_INPUTS.has(el.type)) {
        el.focus();
        el.value = a.value;
        if (el.value !== a.value) return { error: 'the input rejected the value `' + a.value + '`' };
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return { done: true };
      }
      el.focus();
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
        el.select();
      } else {
        const range = document.createRange();
        range.selectNodeContents(el);
        const sel = getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      }
      if (a.value === '') { document.execCommand('delete'); return { done: true }; }
      return { type: true };
    }
    if (a.kind === 'upload') {
      // A file input gets its files set directly; anything else is clicked to open a chooser.
      if (!(el instanceof HTMLInputElement) || el.type !== 'file') return { fileInput: false };
      if (a.count > 1 && !el.multiple) return { error: describe(el) + ' accepts one file, not ' + a.count };
      globalThis.__browserflowUploadTarget = el;
      return { fileInput: true };
    }
    return { error: 'unknown action `' + a.kind + '`' };
  };

  // A step in a repeating structure (`spec.reliesOn`, see the steps crate's `Repeat`) is
  // found only by what it relies on. On content: only the candidates that name it (a place or
  // a path finds whatever row is there now), and one that matches several ends the search —
  // an extra card of the same kind is an ambiguity the recording did not see, and no place or
  // path may settle it. On position: never by what it shows (the recorded row's text finds
  // that row wherever the input put it), and a place that matches several (a grid still
  // swapping its rows) is waited for, not stepped over. Either way, an element in a row that
  // is still moving or fading (a finite CSS animation or transition on it or around it: a
  // grid animates rows in and out after a filter) is waited for: a fading row is one the page
  // is removing. Any other step holds to the same rule: once a candidate that names the
  // element matches several, no candidate below it that finds by position (an `nth` pick, a
  // CSS path through `:nth-…`/`:first-…`/`:last-…`, an XPath through `[n]`) chooses among
  // them — anchors that are not positions (a form's default button, the label beside a
  // value) still may.
  function relianceRule(s) {
    const NAMING = new Set(['test_id', 'role', 'label', 'placeholder', 'text', 'accessible_name', 'id']);
    const isPlace = (c) => !!(c.structure && c.structure.pick && (c.structure.pick.cell || c.structure.pick.item));
    const positional = (c) => isPlace(c) || !!(c.structure && c.structure.pick && c.structure.pick.nth)
      || (c.kind === 'css' && /:(?:nth-|first-|last-|only-)/.test(c.value))
      || (c.kind === 'xpath' && /\[\s*(?:\d|last\(|position\()/.test(c.value));
    const decides = s.reliesOn === 'content' ? (c) => NAMING.has(c.kind)
      : s.reliesOn === 'position' ? (c) => !NAMING.has(c.kind) : null;
    const on = !!decides && s.candidates.some((c) => (s.reliesOn === 'content' ? NAMING.has(c.kind) : isPlace(c)));
    const animating = (el) => typeof document.getAnimations === 'function' && document.getAnimations().some((a) => {
      const t = a.playState === 'running' && a.effect && a.effect.target;
      return !!t && t.contains(el) && a.effect.getComputedTiming().iterations !== Infinity;
    });
    // The first candidate that names the element and matched several in this pass (-1: none).
    let namedSeveral = -1;
    return {
      settling: (el) => !!decides && animating(el),
      pass: () => { namedSeveral = -1; },
      // Why candidate `c` is not consulted in this pass; null when it is.
      skips: (c) => {
        if (on && !decides(c)) return 'not consulted: the step relies on its ' + s.reliesOn;
        if (namedSeveral >= 0 && positional(c)) {
          return 'not consulted: candidate ' + (namedSeveral + 1) + ' names several elements, and position does not choose among them';
        }
        return null;
      },
      stopsAt: (c, i) => {
        if (s.reliesOn !== 'position' && namedSeveral < 0 && NAMING.has(c.kind)) namedSeveral = i;
        return on && (s.reliesOn === 'content' ? NAMING.has(c.kind) : isPlace(c));
      },
      stop: (states, i, els) => {
        const named = els.slice(0, 5).map((e) => describe(e) + ' "' + textOf(e).slice(0, 40) + '"').join(', ');
        states[i] += ': ' + named + (els.length > 5 ? ', …' : '');
        for (let j = i + 1; j < states.length; j++) states[j] = 'not consulted: candidate ' + (i + 1) + ' is ambiguous';
      },
    };
  }
  const states = spec.candidates.map(() => 'not checked');
  const reliance = relianceRule(spec);
  let previous = null;
  for (;;) {
    lastRead = null;
    let chosen = null;
    let stabilizing = false;
    reliance.pass();
    for (let i = 0; i < spec.candidates.length; i++) {
      const skipped = reliance.skips(spec.candidates[i]);
      if (skipped) { states[i] = skipped; continue; }
      const r = query(spec.candidates[i]);
      if (r.error) { states[i] = r.error; continue; }
      let els = r.els;
      if (spec.mode === 'wait') {
        if (spec.properties) els = els.filter(propsMatch);
        if (spec.visible === true) els = els.filter(isVisible);
        if (spec.visible === false) {
          const visibleCount = els.filter(isVisible).length;
          const ok = spec.count ? countOk(els.length - visibleCount) : visibleCount === 0;
          if (ok) return { ok: true, winner: i, count: els.length };
          states[i] = visibleCount + ' matching element(s) still visible';
          continue;
        }
        if (countOk(els.length)) return { ok: true, winner: i, count: els.length };
        states[i] = 'matched ' + els.length + ' element(s)' + (spec.count ? ', waiting for ' + spec.count.op + ' ' + spec.count.value : '');
        continue;
      }
      if (els.length === 0) { states[i] = 'matched no element'; continue; }
      if (els.length > 1) {
        states[i] = 'matched ' + els.length + ' elements (needs exactly one): ' + matchesOf(els);
        if (reliance.stopsAt(spec.candidates[i], i)) { reliance.stop(states, i, els); break; }
        continue;
      }
      // A read takes a lower-ranked candidate only on the element the recording read.
      const stranger = i > 0 && spec.read && READS.notRecorded(els[0], spec.read);
      if (stranger) { states[i] = 'matched ' + describe(els[0]) + ', ' + stranger; continue; }
      chosen = { index: i, el: els[0] };
      for (let j = i + 1; j < spec.candidates.length; j++) states[j] = 'not needed (candidate ' + (i + 1) + ' matched)';
      break;
    }
    if (chosen) {
      const { index, el } = chosen;
      const req = spec.require;
      let reason = null;
      if (req.visible && !isVisible(el)) reason = describe(el) + ' is not visible';
      if (!reason && req.enabled && isDisabled(el)) reason = describe(el) + ' is disabled';
      if (!reason && req.editable) reason = editability(el);
      if (!reason && spec.read) {
        const got = readValue(el, index);
        if (got.reason) reason = got.reason;
        else if (spec.expect) {
          const v = got.value;
          const e = spec.expect;
          if (e.equals != null && v !== norm(e.equals) && v !== e.equals) reason = 'is `' + v + '`, expected `' + e.equals + '`';
          else if (e.contains != null && !v.includes(e.contains)) reason = 'is `' + v + '`, expected it to contain `' + e.contains + '`';
          else return { ok: true, winner: index, result: v };
        } else return { ok: true, winner: index, result: got.value };
      }
      if (!reason && req.scroll) {
        const r0 = el.getBoundingClientRect();
        if (!inViewport(r0)) {
          el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
          // An element larger than the viewport: bring the action point itself into view.
          const p = actionPoint(el.getBoundingClientRect());
          if (p.x < 0 || p.y < 0 || p.x >= innerWidth || p.y >= innerHeight) {
            scrollBy({ left: p.x - innerWidth / 2, top: p.y - innerHeight / 2, behavior: 'instant' });
          }
        }
      }
      if (!reason && req.stable) {
        const r = el.getBoundingClientRect();
        const key = [r.left, r.top, r.width, r.height].join(',');
        if (animating(el)) {
          // A menu growing in, a panel sliding: the point pressed would move under the pointer.
          previous = null;
          reason = describe(el) + ' is still moving (an animation runs on it or around it)';
          stabilizing = true;
        } else if (!previous || previous.el !== el || previous.key !== key) {
          previous = { el, key, frame: framesSeen, at: performance.now() };
          reason = describe(el) + ' is not stable yet';
          stabilizing = true;
        } else if (previous.frame === framesSeen && performance.now() - previous.at < UNPAINTED_STILL_MS) {
          // Same box, but no frame painted since: still unknown (a page that paints nothing
          // at all — a tab in the background — is taken as still after a while).
          reason = describe(el) + ' is not stable yet';
          stabilizing = true;
        }
      }
      if (!reason && reliance.settling(el)) { reason = describe(el) + ' is in a row still animating'; stabilizing = true; }
      if (!reason && req.hitTest) {
        const r = el.getBoundingClientRect();
        const p = actionPoint(r);
        if (p.x < 0 || p.y < 0 || p.x > innerWidth || p.y > innerHeight) reason = describe(el) + ' is outside the viewport';
        else {
          const hit = deepElementFromPoint(p.x, p.y);
          // An SVG shape's box includes unpainted area, where the hit is the drawing holding it.
          const svgCanvas = el instanceof SVGElement && hit instanceof SVGElement && composedContains(hit, el);
          if (!hit || (!composedContains(el, hit) && !svgCanvas)) reason = describe(el) + ' is covered by ' + describe(hit);
        }
      }
      if (!reason) {
        const r = el.getBoundingClientRect();
        // A step with post-state checks: its element's states and the focus before the action,
        // and mutations counted from now (read by the replayer's check after the action).
        if (spec.watch) {
          const active = STATES.deepActive();
          globalThis.__browserflowWatched = { el, before: STATES.statesOf(el), active,
            activeBefore: STATES.statesOf(active), mutations: STATES.countMutations() };
        }
        const done = act(el);
        if (done && done.error) return { ok: false, fatal: done.error, winner: index, states };
        const point = actionPoint(r);
        // The element a pointer action is about to press, and where on it: the replayer
        // checks that a press into a child frame reached this element (`arm_pointer_probe.js`).
        if (req.hitTest) globalThis.__browserflowPointerTarget = { el, offset: [point.x - r.left, point.y - r.top] };
        return { ok: true, winner: index, point, result: done };
      }
      states[index] = reason;
    }
    if (performance.now() >= deadline) return { ok: false, states, lastRead };
    await nextFrame(!stabilizing);
  }
}
