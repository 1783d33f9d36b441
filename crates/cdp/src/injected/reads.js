// Reads checked like gestures: the one classifier of a read text's shape, and the one rule of
// what a value element is beside (its label) and under (its card's heading). The recorder
// stores a marked output's shape and identity with these; the resolver waits until the value
// it reads is consistent with them, accepts a lower-ranked candidate only on an element of
// that identity, and finds the `beside_label` / `under_heading` structure anchors with them.
// A function of roles.js: evaluates to {shapeOf, structureMembers, notRecorded, inconsistency, identityOf, identityMatches,
// nearLabel, nearHeading, besideLabel, underHeading, anchorsFor}.
(ROLES) => {
  const { norm, textOf, roleOf, accessibleName, labelOf } = ROLES;
  const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
  const LETTER = /\p{L}/u;
  // A value still coming says so with a trailing ellipsis ("Loading…", "Searching..."), or in
  // the words pages show while they wait, the whole text: "Loading", "Please wait",
  // "Calculating" (and a gerund with its object: "Loading results"), and the loading texts
  // of the locales component libraries ship (de, fr, es, it, pt, nl, ru, ja, zh, ko).
  const PLACEHOLDER = new RegExp('^(?:(?:loading|calculating|computing|fetching|updating|refreshing|processing'
    + '|searching|retrieving)(?: \\p{L}+)?|please wait|one moment(?: please)?|just a (?:moment|second)'
    + '|lädt|wird geladen|bitte warten|einen moment(?: bitte)?|wird berechnet'
    + '|chargement(?: en cours)?|veuillez patienter|calcul en cours|cargando|por favor,? espere|espere(?: por favor)?'
    + '|calculando|caricamento(?: in corso)?|attendere(?: prego)?|calcolo in corso|carregando|a carregar|aguarde'
    + '|bezig met laden|even geduld|загрузка|подождите|пожалуйста,? подождите|読み込み中|ロード中|計算中'
    + '|お待ちください|加载中|正在加载|載入中|计算中|请稍候|請稍候|로딩 중|로드 중|잠시만 기다려 주세요)[.!。]*$', 'iu');
  const TRAILING_ELLIPSIS = /(?:\u2026|\.\.\.)$/;
  const stillComing = (t) => TRAILING_ELLIPSIS.test(t) || PLACEHOLDER.test(t);
  const DIGITS = "\\d(?:[\\d.,'\\u00a0\\u202f ]*\\d)?";
  const SIGN = '[+\\-\\u2212]?';
  const NUMBER = new RegExp('^' + SIGN + DIGITS + '(?: ?%)?$', 'u');
  const CURRENCY = '(?:\\p{Sc}|[A-Z]{3})';
  const AMOUNT = new RegExp('^' + SIGN + '(?:' + CURRENCY + ' ?)?' + SIGN + DIGITS + '(?: ?' + CURRENCY + ')?$', 'u');
  const HAS_CURRENCY = new RegExp(CURRENCY, 'u');
  const TIME = '(?:[T ,]+\\d{1,2}:\\d{2}(?::\\d{2})?(?: ?[AaPp][Mm])?)?';
  const DATES = [
    new RegExp('^\\d{4}-\\d{1,2}-\\d{1,2}' + TIME + '$'),
    new RegExp('^\\d{1,2}[./-]\\d{1,2}[./-]\\d{2,4}' + TIME + '$'),
    new RegExp('^(?:\\p{L}+\\.?,? )?\\d{1,2}\\.? \\p{L}{3,}\\.?,? \\d{4}' + TIME + '$', 'u'),
    new RegExp('^(?:\\p{L}+\\.?,? )?\\p{L}{3,}\\.? \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}' + TIME + '$', 'u'),
  ];

  // The shape of a text (TextShape in browserflow-steps): what kind of value, never which.
  const shapeOf = (text) => {
    const t = norm(text);
    if (t === '') return 'empty';
    if (DATES.some((d) => d.test(t))) return 'date';
    if (NUMBER.test(t)) return 'number';
    if (AMOUNT.test(t) && HAS_CURRENCY.test(t)) return 'amount';
    if (LETTER_OR_DIGIT.test(t) && !stillComing(t)) return 'text';
    return 'symbols';
  };
  const SHAPE_WORDS = {
    empty: 'any text', symbols: 'a non-empty text', text: 'a text with letters or digits',
    number: 'a number', amount: 'an amount', date: 'a date', digits: 'a text with a digit',
  };
  const fits = (t, shape) => {
    switch (shape) {
      case 'empty': return true;
      case 'symbols': return t !== '';
      case 'text': return LETTER_OR_DIGIT.test(t) && !stillComing(t);
      case 'number': return NUMBER.test(t);
      case 'amount': return AMOUNT.test(t) && HAS_CURRENCY.test(t);
      case 'date': return DATES.some((d) => d.test(t));
      // What a typed field needs when nothing was recorded: a figure, not a placeholder.
      case 'digits': return /\p{N}/u.test(t) && !stillComing(t);
      default: return false;
    }
  };
  // ARIA's own "being updated" signal, on the element or around it.
  const busy = (el) => {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.parentNode && n.parentNode.host)) {
      if (n.getAttribute('aria-busy') === 'true') return n;
    }
    return null;
  };
  // Why `value`, read from `el`, is not (yet) what the read asks for; null when it is.
  // `read`: {nonEmpty, shape} (the resolver's spec.read).
  const inconsistency = (value, el, read) => {
    const t = norm(value);
    if (read.nonEmpty && t === '') return 'is empty';
    if (!read.shape) return null;
    if (!fits(t, read.shape)) {
      return (t === '' ? 'is empty' : 'is `' + t.slice(0, 80) + '`') + ', expected ' + (SHAPE_WORDS[read.shape] || read.shape);
    }
    const b = busy(el);
    if (b) return 'is `' + t.slice(0, 80) + '` but ' + (b === el ? 'it' : '<' + b.localName + '> around it') + ' is aria-busy';
    return null;
  };

  const MAX_LABEL = 60;
  const cleanLabel = (t) => norm(t).replace(/\s*[:\uff1a]$/, '');
  const isHeading = (e) => roleOf(e) === 'heading';
  // A short text a person reads a value by; '' for content (long) or nothing.
  const shortText = (e) => {
    if ((e.textContent || '').length > 4 * MAX_LABEL) return '';
    const t = cleanLabel(textOf(e));
    return t.length <= MAX_LABEL ? t : '';
  };
  // The label beside `el`: its own label (`<label for>`, `aria-labelledby`), else the nearest
  // element before it — or before one of its two nearest ancestors — with a short text that
  // has a letter and is no heading: "Price" before "$12", the term before its definition, the
  // header cell before its cell.
  const nearLabel = (el) => {
    const own = el.matches && el.matches('input, select, textarea, output, meter, progress') ? labelOf(el) : '';
    if (own && own.length <= MAX_LABEL) return cleanLabel(own);
    let n = el;
    for (let depth = 0; n && depth < 3; depth++) {
      let k = 0;
      for (let s = n.previousElementSibling; s && k < 3; s = s.previousElementSibling, k++) {
        if (isHeading(s)) continue;
        const t = shortText(s);
        if (t && LETTER.test(t)) return t;
        if (!t && norm(s.textContent) !== '') break;
      }
      n = n.parentElement;
      if (!n || n === document.body || n === document.documentElement) break;
    }
    return '';
  };
  // The heading of the card or section holding `el`: the last heading before it in the
  // document whose nearest common ancestor with it is at most 8 levels above it.
  const headingElementOf = (el) => {
    const ancestors = [];
    for (let a = el.parentElement; a && ancestors.length < 8; a = a.parentElement) ancestors.push(a);
    if (!ancestors.length) return null;
    const walker = document.createTreeWalker(ancestors[ancestors.length - 1], NodeFilter.SHOW_ELEMENT);
    walker.currentNode = el;
    for (let steps = 0; steps < 3000; steps++) {
      const p = walker.previousNode();
      if (!p) return null;
      if (p.contains(el)) continue;
      if (isHeading(p)) return p;
    }
    return null;
  };
  const headingText = (h) => {
    const t = norm(accessibleName(h) || textOf(h));
    return t.length <= 80 ? t : '';
  };
  const nearHeading = (el) => {
    const h = headingElementOf(el);
    return h ? headingText(h) : '';
  };

  const allElements = (root) => Array.from(root.querySelectorAll('*'));
  const roleMatches = (e, role) => (roleOf(e) || 'generic') === role;
  // Elements of `role` beside the label `label` in `root`, in document order. Only elements
  // near one showing the label's text are looked at (then checked by `nearLabel` itself).
  const besideLabel = (root, role, label) => {
    const near = new Set();
    for (const l of allElements(root)) {
      if (!(l.textContent || '').includes(label) || shortText(l) !== label) continue;
      let k = 0;
      for (let s = l.nextElementSibling; s && k < 3; s = s.nextElementSibling, k++) {
        near.add(s);
        for (const c of s.children) { near.add(c); for (const g of c.children) near.add(g); }
      }
    }
    // Form controls and outputs labelled by `<label for>` or `aria-labelledby`.
    for (const e of root.querySelectorAll('input, select, textarea, output, meter, progress')) near.add(e);
    return allElements(root).filter((e) => near.has(e) && roleMatches(e, role) && nearLabel(e) === label);
  };
  // Elements of `role` under the heading `heading` in `root`, in document order: one pass in
  // document order keeps the last heading seen; only elements after one with that text are
  // checked by `headingElementOf` itself.
  const underHeading = (root, role, heading) => {
    const out = [];
    let last = null;
    let matches = false;
    for (const e of allElements(root)) {
      if (isHeading(e)) { last = e; matches = headingText(e) === heading; continue; }
      if (matches && roleMatches(e, role) && headingElementOf(e) === last) out.push(e);
    }
    return out;
  };

  // The element's identity (ElementIdentity in browserflow-steps).
  const identityOf = (el) => {
    const id = { tag: el.localName };
    const role = roleOf(el);
    if (role) id.role = role;
    const label = nearLabel(el);
    if (label) id.label = label;
    const heading = nearHeading(el);
    if (heading) id.heading = heading;
    return id;
  };
  // Whether `el` is the element recorded as `id`: the same role, beside the same label and
  // under the same heading, as far as they were recorded (a redesign may change the tag and
  // the markup, not what a person reads the value by); with neither, the same tag.
  const identityMatches = (el, id) => {
    if ((roleOf(el) || null) !== (id.role || null)) return false;
    if (id.label && nearLabel(el) !== id.label) return false;
    if (id.heading && nearHeading(el) !== id.heading) return false;
    return !!(id.label || id.heading) || el.localName === id.tag;
  };

  // The structure candidates of a read element that need neither its ids, its test ids nor its
  // own text: beside its label, under its card's heading; each with its pick among the
  // elements of its role there.
  const anchorsFor = (el) => {
    const root = el.getRootNode();
    const role = roleOf(el) || 'generic';
    const own = textOf(el);
    const out = [];
    const add = (within, members) => {
      const at = members.indexOf(el);
      if (at < 0) return;
      out.push({ role, structure: members.length === 1 ? { within } : { within, pick: { nth: at + 1 }, of: members.length } });
    };
    const label = nearLabel(el);
    if (label && label !== own) add({ beside_label: label }, besideLabel(root, role, label));
    const heading = nearHeading(el);
    if (heading && heading !== own) add({ under_heading: heading }, underHeading(root, role, heading));
    return out;
  };

  // The elements of the role beside the label or under the heading of a structure candidate
  // `c` (`s` its structure) — resolve.js picks among them as in any anchor —, or {error}; null
  // for the other anchors, which resolve.js finds.
  const structureMembers = (c, s, root) => {
    const w = s.within;
    if (w.beside_label == null && w.under_heading == null) return null;
    const pick = s.pick || 'only';
    if (pick !== 'only' && !pick.nth) return { error: 'the pick ' + JSON.stringify(pick) + ' needs a form', permanent: true };
    const role = norm(c.value);
    return { members: w.beside_label != null
      ? besideLabel(root, role, norm(w.beside_label)) : underHeading(root, role, norm(w.under_heading)) };
  };
  const describeIdentity = (id) => '<' + id.tag + '>' + (id.role ? ' (' + id.role + ')' : '')
    + (id.label ? ' beside ' + JSON.stringify(id.label) : '') + (id.heading ? ' under ' + JSON.stringify(id.heading) : '');
  // Why `el` is not the element a read recorded (`read.identity`); null when it is, or when
  // nothing was recorded.
  const notRecorded = (el, read) => {
    if (!read.identity || identityMatches(el, read.identity)) return null;
    const found = identityOf(el);
    return 'not the element recorded: expected ' + describeIdentity(read.identity) + ', found ' + describeIdentity(found);
  };

  return { shapeOf, structureMembers, notRecorded, inconsistency, identityOf, identityMatches, nearLabel, nearHeading, besideLabel, underHeading, anchorsFor };
}
