// Roles and accessible names, one implementation for the replayer's resolver and the recorder:
// an element recorded as `button "Save"` is looked for by exactly the rule that named it.
// Roles follow HTML-AAM (https://www.w3.org/TR/html-aam-1.0/#html-element-role-mappings) and
// WAI-ARIA 1.2; names follow the Accessible Name and Description Computation 1.2
// (https://www.w3.org/TR/accname-1.2/#computation-steps, cited below as §4.3.2 step N).

import { composedParent } from './shadow';
import { styleVisible } from './visibility';

export type Role = string;

export const norm = (s: unknown): string => (s == null ? '' : String(s)).replace(/\s+/g, ' ').trim();

/// The rendered text (what a `text` selector and a text read see), not a name.
export const textOf = (el: Element): string => {
  if (el instanceof HTMLInputElement && ['submit', 'button', 'reset'].includes(el.type)) return norm(el.value);
  const t = (el as HTMLElement).innerText;
  return norm(t !== undefined ? t : el.textContent);
};
const tagOf = (el: Element): string => el.localName;
const typeOf = (el: Element): string => (el.getAttribute('type') || 'text').toLowerCase();

// WAI-ARIA 1.2 §5.4 concrete roles (and the ARIA 1.3 ones Chromium maps): an explicit role
// is the first of these in the attribute's token list (§7.1 "role attribute"), else none.
const ROLES = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox '
  + 'code columnheader combobox comment complementary contentinfo definition deletion dialog directory document '
  + 'emphasis feed figure form generic grid gridcell group heading img insertion link list listbox listitem log '
  + 'main mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note '
  + 'option paragraph presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search '
  + 'searchbox sectionfooter sectionheader separator slider spinbutton status strong subscript suggestion '
  + 'superscript switch tab table '
  + 'tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem').split(' '));
// WAI-ARIA 1.2 §5.2.8.4 "Roles Supporting Name from Content" (listitem kept: recorded tools
// name list items by their text, as browsers and Playwright do).
const NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link',
  'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab',
  'tooltip', 'treeitem', 'listitem', 'comment', 'suggestion']);
const TEXTBOX_TYPES = new Set(['text', 'email', 'tel', 'url', 'password']);
const RANGE_ROLES = new Set(['slider', 'spinbutton', 'progressbar', 'meter', 'scrollbar']);

// A header or footer is a landmark only when scoped to the body (HTML-AAM "header", "footer").
const SECTIONING = 'article, aside, main, nav, section, [role=article], [role=complementary], [role=main], '
  + '[role=navigation], [role=region]';
// Ancestors in the composed tree (through shadow hosts): a header in a web component inside an
// article is the article's.
const insideComposed = (el: Element, selector: string): boolean => {
  for (let n = composedParent(el); n; n = composedParent(n)) if (n.matches(selector)) return true;
  return false;
};
const scopedToBody = (el: Element): boolean => !insideComposed(el, SECTIONING);
// An aside is complementary at the top level or in main; nested in other sectioning content
// (article, aside, nav, section) only when named, else generic (HTML-AAM "aside").
const ASIDE_SECTIONING = 'article, aside, nav, section, [role=article], [role=complementary], [role=navigation], [role=region]';
const asideRole = (el: Element): Role | null => (!insideComposed(el, ASIDE_SECTIONING)
  || nameOf(el, 'complementary') ? 'complementary' : null);

export const implicitRole = (el: Element): Role | null => {
  switch (tagOf(el)) {
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : null;
    case 'button': return 'button';
    case 'input': {
      const type = typeOf(el);
      if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox') return 'checkbox';
      if (type === 'radio') return 'radio';
      if (type === 'range') return 'slider';
      if (type === 'number') return 'spinbutton';
      // A suggestions list makes a text field a combobox (HTML-AAM "input type=text with list").
      if (type === 'search') return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      // Password has no ARIA mapping, but browsers (and Playwright) expose it as a textbox.
      if (TEXTBOX_TYPES.has(type)) return el.hasAttribute('list') && type !== 'password' ? 'combobox' : 'textbox';
      return null;
    }
    case 'select': {
      const s = el as HTMLSelectElement;
      return s.multiple || s.size > 1 ? 'listbox' : 'combobox';
    }
    case 'datalist': return 'listbox';
    case 'option': return 'option';
    case 'optgroup': return 'group';
    case 'textarea': return 'textbox';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'img': return el.getAttribute('alt') === '' && !namedByAria(el) ? 'presentation' : 'img';
    case 'ul': case 'ol': case 'menu': case 'dir': return 'list';
    // A list item outside a list is generic (HTML-AAM "li").
    case 'li': return el.parentElement && (['ul', 'ol', 'menu'].includes(el.parentElement.localName)
      || ['list', 'directory'].includes((el.parentElement.getAttribute('role') || '').trim())) ? 'listitem' : null;
    case 'dd': return 'definition';
    case 'dt': case 'dfn': return 'term';
    case 'address': case 'hgroup': return 'group';
    case 'nav': return 'navigation';
    case 'main': return 'main';
    case 'search': return 'search';
    // Scoped to sectioning content, ARIA 1.3's section header and footer (as Chromium maps them).
    case 'header': return scopedToBody(el) ? 'banner' : 'sectionheader';
    case 'footer': return scopedToBody(el) ? 'contentinfo' : 'sectionfooter';
    case 'aside': return asideRole(el);
    case 'article': return 'article';
    // Only a named section or form is a landmark (HTML-AAM "section", "form").
    case 'section': return nameOf(el, 'region') ? 'region' : null;
    case 'form': return nameOf(el, 'form') ? 'form' : null;
    case 'table': return 'table';
    case 'caption': return 'caption';
    case 'thead': case 'tbody': case 'tfoot': return 'rowgroup';
    case 'tr': return 'row';
    case 'td': return inGrid(el) ? 'gridcell' : 'cell';
    case 'th': return headerRole(el);
    case 'dialog': return 'dialog';
    case 'fieldset': return 'group';
    case 'details': return 'group';
    // Only the summary of its details is a button (HTML-AAM "summary").
    case 'summary': return el.parentElement && el.parentElement.localName === 'details'
      && firstChild(el.parentElement, 'summary') === el ? 'button' : null;
    case 'figure': return 'figure';
    case 'progress': return 'progressbar';
    case 'meter': return 'meter';
    case 'output': return 'status';
    case 'hr': return 'separator';
    case 'p': return 'paragraph';
    case 'blockquote': return 'blockquote';
    case 'code': return 'code';
    case 'em': return 'emphasis';
    case 'strong': return 'strong';
    case 'del': case 's': return 'deletion';
    case 'ins': return 'insertion';
    case 'sub': return 'subscript';
    case 'sup': return 'superscript';
    case 'time': return 'time';
    case 'mark': return 'mark';
    case 'math': return 'math';
    default: {
      const h = el as HTMLElement;
      return h.isContentEditable && el.parentElement && !el.parentElement.isContentEditable ? 'textbox' : null;
    }
  }
};
const inGrid = (cell: Element): boolean => {
  const table = cell.closest('table');
  const r = table && (table.getAttribute('role') || '').trim().split(/\s+/)[0];
  return r === 'grid' || r === 'treegrid';
};
// HTML-AAM "th": a row or column header by its scope, else by where it stands: in the head or
// in a row of headers it heads a column; beside data cells it heads its row.
const headerRole = (th: Element): Role => {
  const scope = (th.getAttribute('scope') || '').toLowerCase();
  if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
  if (scope === 'col' || scope === 'colgroup') return 'columnheader';
  if (th.closest('thead')) return 'columnheader';
  const row = th.parentElement;
  return row && Array.from(row.children).some((c) => c.localName === 'td') ? 'rowheader' : 'columnheader';
};
// Global ARIA properties that name or describe: an element carrying one keeps its role.
const namedByAria = (el: Element): boolean => el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')
  || el.hasAttribute('aria-labeledby') || el.hasAttribute('aria-describedby');
// HTML-AAM "minimum role": a generic element (no role, `generic`, `none`) that can take the
// focus by itself (`autofocus`), be dragged (`draggable`, any value, as Chromium) or pop over
// is a group. Controls, embedded content
// and elements with a platform role of their own (cite, abbr…) keep theirs.
const OWN_PLATFORM_ROLE = 'input, select, textarea, button, img, svg, iframe, embed, object, video, audio, canvas, '
  + 'html, body, abbr, cite, kbd, samp, var, q, label, legend';
const minimumRole = (el: Element): Role | null => (!el.matches(OWN_PLATFORM_ROLE) && (el.hasAttribute('autofocus')
  || el.hasAttribute('popover') || el.hasAttribute('draggable'))
  ? 'group' : null);
const focusable = (el: Element): boolean => el.hasAttribute('tabindex') || el.matches('a[href], button, input, select, textarea');
export const roleOf = (el: Element): Role | null => {
  const tokens = (el.getAttribute('role') || '').trim().toLowerCase().split(/\s+/);
  // `image` is ARIA 1.3's synonym of `img` (Chromium maps it so).
  const explicit = tokens.map((t) => (t === 'image' ? 'img' : t)).find((t) => ROLES.has(t));
  // WAI-ARIA 1.2 §9.1 presentational role conflict resolution: a focusable element, or one
  // with a global ARIA property, keeps its role.
  if ((explicit === 'none' || explicit === 'presentation') && (focusable(el) || namedByAria(el))) return implicitRole(el);
  const role = explicit || implicitRole(el);
  return role === null || role === 'generic' || role === 'none' || role === 'presentation' ? minimumRole(el) || role : role;
};

/// Hidden from the accessibility tree: aria-hidden, never rendered, or hidden by its style
/// (§4.3.2 step 2A; the style half of the one visibility rule, visibility.ts).
export const isHidden = (el: Element): boolean => {
  if (el.getAttribute('aria-hidden') === 'true') return true;
  if (['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT'].includes(el.tagName)) return true;
  return !styleVisible(el);
};
// Hidden by `visibility` alone (rendered, not aria-hidden): a descendant that sets
// `visibility: visible` again is shown, so the element's subtree is still walked.
const hiddenByVisibilityOnly = (el: Element): boolean => el.getAttribute('aria-hidden') !== 'true'
  && typeof el.checkVisibility === 'function' && el.checkVisibility({ visibilityProperty: false });
// An id reference names an element of the referring element's own tree (its document or
// shadow root), never one across a shadow boundary.
const byIdNear = (el: Element, id: string): Element | null => {
  const root = el.getRootNode() as Document | ShadowRoot;
  return root.getElementById ? root.getElementById(id) : null;
};
// `aria-labeledby`, the misspelling, counts where the right spelling is absent (as in
// Chromium and Firefox).
const labelledByAttr = (el: Element): string | null => (el.hasAttribute('aria-labelledby') ? el.getAttribute('aria-labelledby')
  : el.getAttribute('aria-labeledby'));
const labelledBy = (el: Element): Element[] => (labelledByAttr(el) || '').trim().split(/\s+/)
  .filter(Boolean).map((id) => byIdNear(el, id)).filter((e): e is Element => e !== null);

const hasValue = (el: Element): el is Element & { value: unknown } => 'value' in el;

// The value of a control met inside a label or a labelledby target (§4.3.2 step 2C).
const embeddedValue = (el: Element, role: Role | null): string | null => {
  // A password's value is never part of a name.
  if (el instanceof HTMLInputElement && el.type === 'password') return '';
  if (role === 'textbox' || role === 'searchbox') return hasValue(el) ? String(el.value) : textOf(el);
  if (role === 'combobox' || role === 'listbox') {
    if (el instanceof HTMLSelectElement) return Array.from(el.selectedOptions).map((o) => o.text).join(' ');
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) return el.value;
    // An ARIA listbox: its selected options; an ARIA combobox: the text it shows (as Chromium).
    if (role === 'listbox') {
      return Array.from(el.querySelectorAll('[role=option][aria-selected=true]')).map((o) => textOf(o)).join(' ');
    }
    if (hasValue(el) && typeof el.value === 'string') return el.value;
    return textOf(el);
  }
  if (role && RANGE_ROLES.has(role)) {
    const vt = el.getAttribute('aria-valuetext');
    if (vt) return vt;
    const vn = el.getAttribute('aria-valuenow');
    if (vn) return vn;
    return hasValue(el) ? String(el.value) : '';
  }
  return null;
};

/// Where a name is being computed (§4.3.2): the element being named, its role when known,
/// whether inside a labelledby target or any traversal, and the nodes already visited.
interface NameContext {
  root: Element;
  role?: Role | null | undefined;
  inLabelledBy?: boolean;
  inTraversal?: boolean;
  visited: Set<Element>;
  /// Text as written in the document, `text-transform` not applied (names recorded before it
  /// was, see `nameMatches`).
  asWritten?: boolean;
}

// Host-language labels (§4.3.2 step 2E, HTML-AAM §4 "Accessible name computations").
const firstChild = (el: Element, tag: string): Element | undefined => Array.from(el.children).find((c) => c.localName === tag);
const labelsOf = (el: Element): HTMLLabelElement[] => {
  const labels = (el as HTMLInputElement).labels;
  return labels ? Array.from(labels) : [];
};
// A <label>'s text as part of a name; the element being named, when the label wraps it, is
// left out (a wrapped <select> is "Size", not "Size Small Medium Large").
const labelText = (label: Element, ctx: NameContext): string => compute(label, { ...ctx, inTraversal: true }, isHidden(label));
const nativeLabels = (el: Element, ctx: NameContext): string => labelsOf(el).map((l) => labelText(l, ctx)).join(' ');
const legendLike = (el: Element, tag: string, ctx: NameContext): string => {
  const c = firstChild(el, tag);
  return c ? labelText(c, ctx) : '';
};
// HTML-AAM "img": an image without alt that is all a figure holds besides its caption is
// named by the caption (a figure itself is not: HTML-AAM "figure", as Chromium).
const captionOfLoneImage = (img: Element, ctx: NameContext): string => {
  const figure = img.parentElement;
  if (!figure || figure.localName !== 'figure') return '';
  const caption = firstChild(figure, 'figcaption');
  const alone = Array.from(figure.childNodes).every((n) => n === img || n === caption
    || (n.nodeType === Node.TEXT_NODE && !(n as Text).data.trim()) || n.nodeType === Node.COMMENT_NODE);
  return caption && alone ? labelText(caption, ctx) : '';
};
const nativeName = (el: Element, ctx: NameContext): string => {
  const tag = tagOf(el);
  if (tag === 'input') {
    // HTML-AAM "input type=button, submit, reset" and "input type=image": the <label>s come
    // before the value (and an image's alt); a submit or reset button without either has its
    // default label, an image button its title and then "Submit" (lastResort).
    const type = typeOf(el);
    if (['submit', 'button', 'reset', 'image'].includes(type)) {
      const l = nativeLabels(el, ctx);
      if (l.trim()) return l;
      if (type === 'image') return el.getAttribute('alt') || el.getAttribute('value') || '';
      // A value attribute, even empty, is the button's label (HTML "the button's label").
      const v = el.getAttribute('value');
      if (v != null) return v;
      return type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '';
    }
  }
  const l = nativeLabels(el, ctx);
  if (l.trim()) return l;
  if (tag === 'img' && !el.hasAttribute('alt') && !el.getAttribute('title')) return captionOfLoneImage(el, ctx);
  if (tag === 'img' || tag === 'area') return el.getAttribute('alt') || '';
  if (tag === 'fieldset') return legendLike(el, 'legend', ctx);
  if (tag === 'table') return legendLike(el, 'caption', ctx);
  if (tag === 'optgroup') return el.getAttribute('label') || '';
  if (tag === 'option' && el.hasAttribute('label')) return el.getAttribute('label') || '';
  if (tag === 'svg') {
    const c = firstChild(el, 'title');
    return c ? c.textContent || '' : '';
  }
  return '';
};
// HTML-AAM: a text field's placeholder is its last resort, after the title; an image button's
// is its default label.
const PLACEHOLDER_TYPES = new Set([...TEXTBOX_TYPES, 'search', 'number']);
const lastResort = (el: Element, role: Role | null | undefined): string => {
  const tag = tagOf(el);
  if (tag === 'input' && typeOf(el) === 'image') return 'Submit';
  if (tag === 'textarea' || (tag === 'input' && PLACEHOLDER_TYPES.has(typeOf(el)))) {
    return el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || '';
  }
  // A custom text field's aria-placeholder, as Chromium names it.
  return role === 'textbox' || role === 'searchbox' || role === 'combobox' ? el.getAttribute('aria-placeholder') || '' : '';
};

// The text of `el`'s children (§4.3.2 step 2F.iii), in the flat tree: each child's text
// alternative, boxes that are not inline set apart by spaces as they render.
// An inline box runs on with its neighbours; any other box (a block, an inline-block, a
// flex item) is a word of its own, as Chromium reads it.
const runsInline = (display: string): boolean => display === 'inline' || display === 'contents';
const pad = (el: Element, text: string): string => {
  if (!text) return text;
  return runsInline(getComputedStyle(el).display) ? text : ' ' + text + ' ';
};
// A text node's text as it renders (as Chromium names it): none when its parent's visibility
// hides it, its parent's `text-transform` applied unless the text as written is asked for.
const renderedText = (t: Text, showHidden: boolean, asWritten: boolean | undefined): string => {
  const parent = composedParent(t);
  if (!parent || (showHidden && asWritten)) return t.data;
  const style = getComputedStyle(parent);
  if (!showHidden && style.visibility !== 'visible') return '';
  const how = asWritten ? 'none' : style.textTransform;
  if (how === 'uppercase') return t.data.toUpperCase();
  if (how === 'lowercase') return t.data.toLowerCase();
  if (how === 'capitalize') return t.data.replace(/(^|[\s\p{P}])(\p{L})/gu, (_m, b: string, c: string) => b + c.toUpperCase());
  return t.data;
};

// CSS counters (CSS Lists 3 §4), for generated content that shows one: the document is walked
// in tree order up to the pseudo-element, each element (then its ::before, its children, its
// ::after) applying counter-reset, counter-increment and counter-set; a counter made by an
// element reaches its descendants and its following siblings.
type Pseudo = '::before' | '::after';
interface Counter { name: string; value: number; parent: Element | null }
const counterPairs = (value: string, fallback: number | null): [string, number][] => {
  if (!value || value === 'none') return [];
  const out: [string, number][] = [];
  const words = value.trim().split(/\s+/);
  for (let i = 0; i < words.length; i++) {
    const n = Number(words[i + 1]);
    const has = words[i + 1] !== undefined && Number.isFinite(n);
    out.push([words[i] as string, has ? n : (fallback ?? 0)]);
    if (has) i++;
  }
  return out;
};
// The counters each pseudo-element showing one sees, for the whole document in one walk, kept
// until the current task ends (a resolver's pass names many elements; the page may change
// between passes).
type CounterSnapshots = Map<Element, { [P in Pseudo]?: Counter[] }>;
const counterSnapshots = new WeakMap<Document, CounterSnapshots>();
const showsCounter = (style: CSSStyleDeclaration): boolean => style.display !== 'none' && /counters?\(/.test(style.content);
const countersOf = (doc: Document): CounterSnapshots => {
  const known = counterSnapshots.get(doc);
  if (known) return known;
  const snapshots: CounterSnapshots = new Map();
  const live: Counter[] = [];
  const innermost = (name: string): Counter | undefined => {
    for (let i = live.length - 1; i >= 0; i--) if ((live[i] as Counter).name === name) return live[i];
    return undefined;
  };
  const apply = (style: CSSStyleDeclaration, parent: Element | null) => {
    for (const [name, value] of counterPairs(style.counterReset, 0)) {
      const sibling = innermost(name);
      if (sibling && sibling.parent === parent) sibling.value = value;
      else live.push({ name, value, parent });
    }
    const made = (name: string): Counter => {
      const c = innermost(name);
      if (c) return c;
      const fresh = { name, value: 0, parent };
      live.push(fresh);
      return fresh;
    };
    for (const [name, by] of counterPairs(style.counterIncrement, 1)) made(name).value += by;
    for (const [name, value] of counterPairs(style.counterSet, 0)) made(name).value = value;
  };
  const pseudo = (el: Element, which: Pseudo) => {
    const style = getComputedStyle(el, which);
    if (!style.content || style.content === 'none' || style.content === 'normal' || style.display === 'none') return;
    apply(style, el);
    if (showsCounter(style)) {
      const at = snapshots.get(el) || {};
      at[which] = live.map((c) => ({ ...c }));
      snapshots.set(el, at);
    }
  };
  const walk = (el: Element) => {
    const style = getComputedStyle(el);
    if (style.display === 'none') return;
    apply(style, el.parentElement);
    pseudo(el, '::before');
    for (const child of Array.from(el.children)) walk(child);
    pseudo(el, '::after');
    // What this element's children (and pseudo-elements) made ends with it.
    for (let i = live.length - 1; i >= 0; i--) if ((live[i] as Counter).parent === el) live.splice(i, 1);
  };
  if (doc.documentElement) walk(doc.documentElement);
  counterSnapshots.set(doc, snapshots);
  queueMicrotask(() => counterSnapshots.delete(doc));
  return snapshots;
};
// `counter(name)` and `counters(name, "sep")` in decimal (other counter styles read as decimal).
const counterText = (fn: string, args: string, el: Element, pseudo: Pseudo): string => {
  const [name = '', sep = ''] = args.split(',').map((a) => a.trim());
  const all = (countersOf(el.ownerDocument).get(el)?.[pseudo] || []).filter((c) => c.name === name);
  if (!all.length) return '0';
  if (fn === 'counter') return String((all[all.length - 1] as Counter).value);
  return all.map((c) => c.value).join(unescapeCss(sep.replace(/^["']|["']$/g, '')));
};

// CSS generated content (§4.3.2 step 2F.ii): a ::before or ::after box's `content` — its
// strings, attr() values and counters, or its alternative text after `/` — is part of the text.
const CONTENT_TOKEN = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([^)\s]+)\s*\)|(\/)|(counters?)\(([^)]*)\)|[a-z-]+\([^)]*\)|([a-z-]+)/gi;
const QUOTES: Record<string, string> = { 'open-quote': '\u201C', 'close-quote': '\u201D' };
const unescapeCss = (t: string): string => t.replace(/\\([0-9a-f]{1,6})\s?|\\(.)/gi,
  (_m, hex: string | undefined, ch: string | undefined) => (hex ? String.fromCodePoint(parseInt(hex, 16)) : ch || ''));
const generated = (el: Element, pseudo: Pseudo): string => {
  const style = getComputedStyle(el, pseudo);
  const content = style.content;
  if (!content || content === 'none' || content === 'normal' || style.display === 'none'
    || style.visibility !== 'visible') return '';
  let text = '';
  let alt: string | null = null;
  for (const m of content.matchAll(CONTENT_TOKEN)) {
    if (m[4]) { alt = ''; continue; }
    const part = m[1] != null ? unescapeCss(m[1]) : m[2] != null ? unescapeCss(m[2])
      : m[3] ? (el.getAttribute(m[3]) || '')
        : m[5] ? counterText(m[5].toLowerCase(), m[6] || '', el, pseudo) : (QUOTES[m[7] || ''] || '');
    if (alt !== null) alt += part; else text += part;
  }
  // Alternative text stands as a word of its own (as Chromium reads it).
  const out = alt !== null ? (alt ? ' ' + alt + ' ' : '') : text;
  return out && !runsInline(style.display) ? ' ' + out + ' ' : out;
};

// aria-owns: the elements `el` owns (by id, in its own tree) are its last children, and a child
// another element owns is that element's — unless the owner is hidden, or the owned element
// is hidden from everyone (display: none, at or above it: WAI-ARIA 1.3 "aria-owns").
const ownerOf = (child: Element): Element | null => {
  if (!child.id) return null;
  const root = child.getRootNode() as Document | ShadowRoot;
  for (const owner of Array.from(root.querySelectorAll('[aria-owns]'))) {
    if ((owner.getAttribute('aria-owns') || '').split(/\s+/).includes(child.id)) return owner;
  }
  return null;
};
const ownsHonoured = (owner: Element, owned: Element): boolean => !isHidden(owner)
  && !insideHiddenTree(owner) && owned.checkVisibility?.() !== false;
const insideHiddenTree = (el: Element): boolean => {
  for (let n = composedParent(el); n; n = composedParent(n)) if (n.getAttribute('aria-hidden') === 'true') return true;
  return false;
};
const owned = (el: Element): Element[] => (el.getAttribute('aria-owns') || '').trim().split(/\s+/).filter(Boolean)
  .map((id) => byIdNear(el, id)).filter((o): o is Element => o !== null && ownsHonoured(el, o));

const fromContent = (el: Element, ctx: NameContext, showHidden: boolean): string => {
  let out = generated(el, '::before');
  const each = (n: Node) => {
    if (n.nodeType === Node.TEXT_NODE) {
      out += renderedText(n as Text, showHidden, ctx.asWritten);
    } else if (n.nodeType !== Node.ELEMENT_NODE) return;
    // A line break separates words as it renders.
    else if ((n as Element).localName === 'br') out += ' ';
    else if ((n as Element).localName === 'slot') (n as HTMLSlotElement).assignedNodes({ flatten: true }).forEach(each);
    else {
      const owner = ownerOf(n as Element);
      if (owner && owner !== el && ownsHonoured(owner, n as Element)) return;
      out += pad(n as Element, compute(n as Element, ctx, showHidden));
    }
  };
  (el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes).forEach(each);
  for (const o of owned(el)) out += pad(o, compute(o, ctx, showHidden));
  return out + generated(el, '::after');
};

// 2B: each referenced node's text alternative, in order; a hidden one counts in full. A
// referenced node that contains the element being named leaves it out, unless the element
// references itself (`aria-labelledby="self other"`: its own aria-label, §4.3.2 example).
// Inside a traversal the references share its visited nodes: an image a link's labelledby
// already took is not taken again by the next link.
const labelledByText = (el: Element, root: Element, visited?: Set<Element>, asWritten = false): string => labelledBy(el)
  .map((r) => compute(r, { root, inLabelledBy: true, inTraversal: true, asWritten,
    visited: visited || new Set(r === root ? [] : [root]) }, isHidden(r))).join(' ');

// §4.3.2 for `el`.
const compute = (el: Element, ctx: NameContext, showHidden: boolean): string => {
  const isRoot = el === ctx.root;
  // Each node at most once per traversal: a label inside what it labels cannot loop.
  if (ctx.visited.has(el)) return '';
  ctx.visited.add(el);
  // 2A: hidden nodes are skipped, unless a hidden node was referenced directly; an element
  // hidden by `visibility` alone still shows the descendants that are visible again.
  if (!isRoot && !showHidden && isHidden(el)) {
    return hiddenByVisibilityOnly(el) ? fromContent(el, { ...ctx, inTraversal: true }, false) : '';
  }
  const role = isRoot && ctx.role !== undefined ? ctx.role : roleOf(el);
  // A presentational element has no name of its own (an `img alt=""` is not named by its
  // title); inside a traversal its content still counts.
  if (isRoot && (role === 'presentation' || role === 'none')) return '';
  // 2B: aria-labelledby, not followed again from inside a labelledby target.
  if (!ctx.inLabelledBy && labelledByAttr(el) !== null) {
    const t = labelledByText(el, ctx.root, isRoot ? undefined : ctx.visited, ctx.asWritten);
    if (t.trim()) return t;
  }
  // 2C: a control inside a label or a labelledby target contributes its value.
  if (!isRoot && ctx.inTraversal) {
    const v = embeddedValue(el, role);
    if (v !== null) return v;
  }
  // 2D: aria-label.
  const al = el.getAttribute('aria-label');
  if (al && al.trim()) return al;
  // 2E: the host language's label (label, legend, caption, alt, value…), unless presentational.
  if (role !== 'presentation' && role !== 'none') {
    const n = nativeName(el, ctx);
    if (n.trim()) return n;
  }
  // 2F: name from content, for roles that allow it and for everything inside a traversal
  // (where content of spaces alone still separates words).
  let spaces = '';
  if ((role && NAME_FROM_CONTENT.has(role)) || !isRoot) {
    const t = fromContent(el, { ...ctx, inTraversal: true }, showHidden);
    if (t.trim()) return t;
    spaces = t ? ' ' : '';
  }
  // 2I: the tooltip attribute; then (HTML-AAM) a text field's placeholder.
  const title = el.getAttribute('title');
  if (title && title.trim()) return title;
  return isRoot ? lastResort(el, role) : spaces;
};
// A hidden element's own name is its full text alternative, as if referenced (the recorder
// and the resolver name menu items hidden until a hover).
const nameOf = (el: Element, role: Role | null | undefined, asWritten = false): string =>
  norm(compute(el, { root: el, role, visited: new Set(), asWritten }, isHidden(el)));
/// The accessible name of `el` (accname 1.2), whitespace collapsed.
export const accessibleName = (el: Element): string => nameOf(el, undefined);
/// Whether `el` is named `want`: its accessible name, or — for a name recorded before names
/// followed `text-transform` (a button styled uppercase was "Save", now "SAVE") — the same
/// name with the text as written. Only a difference of letter case is looked at twice.
export const nameMatches = (el: Element, want: string): boolean => {
  const name = accessibleName(el);
  return name === want || (name.toLowerCase() === want.toLowerCase() && nameOf(el, undefined, true) === want);
};

// What a `label` candidate means: a name from aria-labelledby, aria-label or the element's
// <label>s (all of them, or any one), and nothing else.
const labelParts = (el: Element, asWritten = false): string[] => {
  const parts = [norm(labelledByText(el, el, undefined, asWritten)), norm(el.getAttribute('aria-label'))];
  const labels = labelsOf(el);
  if (labels.length) {
    const each = labels.map((l) => norm(labelText(l, { root: el, visited: new Set([el]), asWritten })));
    parts.push(norm(each.join(' ')), ...each);
  }
  return parts.filter(Boolean);
};
export const labelOf = (el: Element): string => labelParts(el)[0] || '';
/// Whether `el` is labelled `want` (one of its labels, or all), the text as written accepted
/// too, as `nameMatches` does.
export const labelMatches = (el: Element, want: string): boolean => {
  const parts = labelParts(el);
  if (parts.includes(want)) return true;
  const lower = want.toLowerCase();
  return parts.some((p) => p.toLowerCase() === lower) && labelParts(el, true).includes(want);
};

// Whether an element of role `role` answers a candidate asking for `want`: `none` and
// `presentation` are one role (WAI-ARIA 1.2), `image` and `img` too (ARIA 1.3, Chromium).
const SYNONYMS: Record<string, string> = { presentation: 'none', image: 'img' };
export const sameRole = (role: Role | null | undefined, want: Role): boolean =>
  role != null && (SYNONYMS[role] || role) === (SYNONYMS[want] || want);
