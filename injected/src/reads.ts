// Reads checked like gestures: the one classifier of a read text's shape, and the one rule of
// what a value element is beside (its label) and under (its card's heading). The recorder
// stores a marked output's shape and identity with these; the resolver waits until the value
// it reads is consistent with them, accepts a lower-ranked candidate only on an element of that
// identity, and finds the `beside_label` / `under_heading` structure anchors with them.

import { accessibleName, labelOf, nameMatches, norm, roleOf, textOf } from './roles';
import type { Candidate, Identity, Read, Shape, Structure, Within } from './protocol/resolve';

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
/// Whether a text says its value is still coming (a placeholder, not a value).
export const stillComing = (t: string): boolean => TRAILING_ELLIPSIS.test(t) || PLACEHOLDER.test(t);
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

/// The shape of a text (TextShape in browserflow-steps): what kind of value, never which.
export const shapeOf = (text: string): Exclude<Shape, 'digits'> => {
  const t = norm(text);
  if (t === '') return 'empty';
  if (DATES.some((d) => d.test(t))) return 'date';
  if (NUMBER.test(t)) return 'number';
  if (AMOUNT.test(t) && HAS_CURRENCY.test(t)) return 'amount';
  if (LETTER_OR_DIGIT.test(t) && !stillComing(t)) return 'text';
  return 'symbols';
};
const SHAPE_WORDS: Record<Shape, string> = {
  empty: 'any text', symbols: 'a non-empty text', text: 'a text with letters or digits',
  number: 'a number', amount: 'an amount', date: 'a date', digits: 'a text with a digit',
};
const fits = (t: string, shape: Shape): boolean => {
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
const busy = (el: Element): Element | null => {
  for (let n: Node | null = el; n && n.nodeType === 1;
    n = (n as Element).parentElement || (n.parentNode instanceof ShadowRoot ? n.parentNode.host : null)) {
    if ((n as Element).getAttribute('aria-busy') === 'true') return n as Element;
  }
  return null;
};
/// Why `value`, read from `el`, is not (yet) what the read asks for; null when it is.
export const inconsistency = (value: string, el: Element, read: Pick<Read, 'nonEmpty' | 'shape'>): string | null => {
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
const cleanLabel = (t: string): string => norm(t).replace(/\s*[:\uff1a]$/, '');
const isHeading = (e: Element): boolean => roleOf(e) === 'heading';
// A short text a person reads a value by; '' for content (long) or nothing.
const shortText = (e: Element): string => {
  if ((e.textContent || '').length > 4 * MAX_LABEL) return '';
  const t = cleanLabel(textOf(e));
  return t.length <= MAX_LABEL ? t : '';
};
/// The label beside `el`: its own label (`<label for>`, `aria-labelledby`), else the nearest
/// element before it — or before one of its two nearest ancestors — with a short text that has
/// a letter and is no heading: "Price" before "$12", the term before its definition, the
/// header cell before its cell.
export const nearLabel = (el: Element): string => {
  const own = el.matches('input, select, textarea, output, meter, progress') ? labelOf(el) : '';
  if (own && own.length <= MAX_LABEL) return cleanLabel(own);
  let n: Element | null = el;
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
// The heading of the card or section holding `el`: the last heading before it in the document
// whose nearest common ancestor with it is at most 8 levels above it.
const headingElementOf = (el: Element): Element | null => {
  const ancestors: Element[] = [];
  for (let a = el.parentElement; a && ancestors.length < 8; a = a.parentElement) ancestors.push(a);
  const top = ancestors[ancestors.length - 1];
  if (!top) return null;
  const walker = document.createTreeWalker(top, NodeFilter.SHOW_ELEMENT);
  walker.currentNode = el;
  for (let steps = 0; steps < 3000; steps++) {
    const p = walker.previousNode() as Element | null;
    if (!p) return null;
    if (p.contains(el)) continue;
    if (isHeading(p)) return p;
  }
  return null;
};
const headingText = (h: Element): string => {
  const t = norm(accessibleName(h) || textOf(h));
  return t.length <= 80 ? t : '';
};
/// Whether heading `h` reads `want`: its text now, or — for a heading recorded before names
/// followed `text-transform` — as written (`nameMatches`).
const headingIs = (h: Element, want: string): boolean => headingText(h) === want || nameMatches(h, want);
/// The heading of the card or section holding `el` ('' without one).
export const nearHeading = (el: Element): string => {
  const h = headingElementOf(el);
  return h ? headingText(h) : '';
};

const allElements = (root: ParentNode): Element[] => Array.from(root.querySelectorAll('*'));
const roleMatches = (e: Element, role: string): boolean => (roleOf(e) || 'generic') === role;
/// Elements of `role` beside the label `label` in `root`, in document order. Only elements
/// near one showing the label's text are looked at (then checked by `nearLabel` itself).
export const besideLabel = (root: ParentNode, role: string, label: string): Element[] => {
  const near = new Set<Element>();
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
/// Elements of `role` under the heading `heading` in `root`, in document order: one pass in
/// document order keeps the last heading seen; only elements after one with that text are
/// checked by `headingElementOf` itself.
export const underHeading = (root: ParentNode, role: string, heading: string): Element[] => {
  const out: Element[] = [];
  let last: Element | null = null;
  let matches = false;
  for (const e of allElements(root)) {
    if (isHeading(e)) { last = e; matches = headingIs(e, heading); continue; }
    if (matches && roleMatches(e, role) && headingElementOf(e) === last) out.push(e);
  }
  return out;
};

/// The element's identity (ElementIdentity in browserflow-steps).
export const identityOf = (el: Element): Identity => {
  const id: Identity = { tag: el.localName };
  const role = roleOf(el);
  if (role) id.role = role;
  const label = nearLabel(el);
  if (label) id.label = label;
  const heading = nearHeading(el);
  if (heading) id.heading = heading;
  return id;
};
/// Whether `el` is the element recorded as `id`: the same role, beside the same label and
/// under the same heading, as far as they were recorded (a redesign may change the tag and the
/// markup, not what a person reads the value by); with neither, the same tag.
export const identityMatches = (el: Element, id: Identity): boolean => {
  if ((roleOf(el) || null) !== (id.role || null)) return false;
  if (id.label && nearLabel(el) !== id.label) return false;
  if (id.heading) {
    const h = headingElementOf(el);
    if (!h || !headingIs(h, id.heading)) return false;
  }
  return !!(id.label || id.heading) || el.localName === id.tag;
};

/// The structure candidates of a read element that need neither its ids, its test ids nor its
/// own text: beside its label, under its card's heading; each with its pick among the elements
/// of its role there.
export const anchorsFor = (el: Element): { role: string; structure: Structure }[] => {
  const root = el.getRootNode() as ParentNode;
  const role = roleOf(el) || 'generic';
  const own = textOf(el);
  const out: { role: string; structure: Structure }[] = [];
  const add = (within: Within, members: Element[]) => {
    const at = members.indexOf(el);
    if (at < 0) return;
    // No count (`of`) kept with the place: the wrappers around a value are what a redesign
    // changes, and a lower-ranked candidate reads only an element of the recorded identity
    // (the label beside it, the heading above it: `notRecorded`), which tells values apart.
    out.push({ role, structure: members.length === 1 ? { within } : { within, pick: { nth: at + 1 } } });
  };
  const label = nearLabel(el);
  if (label && label !== own) add({ beside_label: label }, besideLabel(root, role, label));
  const heading = nearHeading(el);
  if (heading && heading !== own) add({ under_heading: heading }, underHeading(root, role, heading));
  return out;
};

/// Why a structure query cannot find (permanent: waiting will not change it).
export type StructureError = { error: string; permanent?: boolean };
/// What a structure query found: the elements, or why it cannot.
export type Found = { els: Element[] } | StructureError;

/// The elements of the role beside the label or under the heading of a structure candidate `c`
/// (`s` its structure) — resolve.ts picks among them as in any anchor —, or why not; null for
/// the other anchors, which resolve.ts finds.
export const structureMembers = (c: Candidate, s: Structure, root: ParentNode)
  : { members: Element[] } | StructureError | null => {
  const w = s.within;
  const members = 'beside_label' in w ? besideLabel(root, norm(c.value), norm(w.beside_label))
    : 'under_heading' in w ? underHeading(root, norm(c.value), norm(w.under_heading)) : null;
  if (!members) return null;
  const pick = s.pick || 'only';
  if (pick !== 'only' && !(typeof pick === 'object' && 'nth' in pick && pick.nth)) {
    return { error: 'the pick ' + JSON.stringify(pick) + ' needs a form', permanent: true };
  }
  return { members };
};
const describeIdentity = (id: Identity): string => '<' + id.tag + '>' + (id.role ? ' (' + id.role + ')' : '')
  + (id.label ? ' beside ' + JSON.stringify(id.label) : '') + (id.heading ? ' under ' + JSON.stringify(id.heading) : '');
/// Why `el` is not the element a read recorded (`read.identity`); null when it is, or when
/// nothing was recorded.
export const notRecorded = (el: Element, read: Read): string | null => {
  if (!read.identity || identityMatches(el, read.identity)) return null;
  const found = identityOf(el);
  return 'not the element recorded: expected ' + describeIdentity(read.identity) + ', found ' + describeIdentity(found);
};
