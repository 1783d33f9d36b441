// A minimal W3C WebDriver client (tauri-driver in front of WebKitWebDriver), enough to drive
// the app: find, click, type, read text, run a script, read the window's place on screen.
// (Screenshots come from the X display: see xvfb.mjs.)
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

export class WebDriver {
  constructor(base) {
    this.base = base;
    this.session = null;
  }

  async cmd(method, path, body) {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.value ?? json)}`);
    return json.value;
  }

  async start(application) {
    const value = await this.cmd('POST', '/session', {
      capabilities: { alwaysMatch: { browserName: 'wry', 'tauri:options': { application } } },
    });
    this.session = value.sessionId;
    return this;
  }

  s(path) {
    return `/session/${this.session}${path}`;
  }

  async quit() {
    if (this.session) await this.cmd('DELETE', this.s('')).catch(() => {});
    this.session = null;
  }

  async find(css) {
    const v = await this.cmd('POST', this.s('/element'), { using: 'css selector', value: css });
    return v[ELEMENT];
  }

  async findAll(css) {
    const v = await this.cmd('POST', this.s('/elements'), { using: 'css selector', value: css });
    return v.map((e) => e[ELEMENT]);
  }

  /** Waits until `css` matches an element (and `predicate(text)` holds, when given). */
  async waitFor(css, { timeout = 30000, text } = {}) {
    const deadline = Date.now() + timeout;
    let last = '';
    for (;;) {
      try {
        const id = await this.find(css);
        if (!text) return id;
        last = await this.text(id);
        if (text(last)) return id;
      } catch {
        // not there yet
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${css}${last ? ` (text: ${last.slice(0, 400)})` : ''}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Waits until `css` matches at least `n` elements. */
  async waitForCount(css, n, timeout = 30000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const found = await this.findAll(css).catch(() => []);
      if (found.length >= n) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} × ${css} (found ${found.length})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async click(css) {
    const id = await this.waitFor(css);
    await this.cmd('POST', this.s(`/element/${id}/click`), {});
  }

  async type(css, text) {
    const id = await this.waitFor(css);
    await this.cmd('POST', this.s(`/element/${id}/clear`), {});
    await this.cmd('POST', this.s(`/element/${id}/value`), { text });
  }

  async text(id) {
    return this.cmd('GET', this.s(`/element/${id}/text`));
  }

  async textOf(css) {
    return this.text(await this.waitFor(css));
  }

  async execute(script, args = []) {
    return this.cmd('POST', this.s('/execute/sync'), { script, args });
  }

  /** Sets a <select>'s value and tells the UI (as a person choosing an option would). */
  async select(css, value) {
    await this.waitFor(css);
    await this.execute(
      `const el = document.querySelector(arguments[0]); el.value = arguments[1];
       el.dispatchEvent(new Event('change', { bubbles: true })); el.dispatchEvent(new Event('input', { bubbles: true }));`,
      [css, value],
    );
  }

  /** The app window's position and size on the screen. */
  async windowRect() {
    return this.cmd('GET', this.s('/window/rect'));
  }
}
