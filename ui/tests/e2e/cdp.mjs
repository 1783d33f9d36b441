// Drives the Chromium window the app records through the Chrome DevTools Protocol, with
// trusted input (Input.dispatch*), as a person's mouse and keyboard would.
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Launches a visible Chromium with a CDP endpoint; resolves to { ws, process }. */
export async function launchChromium(executable, env = {}) {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'bflow-e2e-chrome-'));
  const child = spawn(executable, [
    '--remote-debugging-port=0', `--user-data-dir=${profile}`, '--no-first-run', '--no-default-browser-check',
    '--no-sandbox', '--disable-gpu', '--window-position=1290,0', '--window-size=1100,800', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const ws = await new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`chromium printed no DevTools endpoint: ${err}`)), 20000);
    child.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on('exit', (code) => reject(new Error(`chromium exited (${code}): ${err}`)));
  });
  return { ws, process: child };
}

export class Cdp {
  static async connect(ws) {
    const socket = new WebSocket(ws);
    await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
    return new Cdp(socket);
  }

  constructor(socket) {
    this.socket = socket;
    this.next = 1;
    this.pending = new Map();
    socket.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      const p = msg.id && this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
      else p.resolve(msg.result);
    };
  }

  send(method, params = {}, sessionId) {
    const id = this.next++;
    this.socket.send(JSON.stringify({ id, method, params, sessionId }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
  }

  close() {
    this.socket.close();
  }

  /** Closes the first page whose URL matches `pattern`, as a person closes its window. */
  async closePage(pattern) {
    const { targetInfos } = await this.send('Target.getTargets');
    const target = targetInfos.find((t) => t.type === 'page' && pattern.test(t.url));
    if (!target) throw new Error(`no page matches ${pattern}: ${targetInfos.map((t) => t.url).join(', ')}`);
    await this.send('Target.closeTarget', { targetId: target.targetId });
  }

  /** Waits for a page whose URL matches `pattern` and attaches to it. */
  async page(pattern, timeout = 30000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const { targetInfos } = await this.send('Target.getTargets');
      const target = targetInfos.find((t) => t.type === 'page' && pattern.test(t.url));
      if (target) {
        const { sessionId } = await this.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
        return new CdpPage(this, sessionId);
      }
      if (Date.now() > deadline) throw new Error(`no page matches ${pattern}: ${targetInfos.map((t) => t.url).join(', ')}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

class CdpPage {
  constructor(cdp, sessionId) {
    this.cdp = cdp;
    this.sessionId = sessionId;
  }

  send(method, params) {
    return this.cdp.send(method, params, this.sessionId);
  }

  async eval(expression) {
    const r = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    return r.result.value;
  }

  async waitFor(css, timeout = 20000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const box = await this.eval(`(() => { const el = document.querySelector(${JSON.stringify(css)});
        if (!el) return null; const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 ? { x: r.x + r.width / 2, y: r.y + r.height / 2 } : null; })()`).catch(() => null);
      if (box) return box;
      if (Date.now() > deadline) throw new Error(`the recorded page has no visible ${css}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Clicks the centre of `css` once it is what the pointer would hit there, as a person sees
   * it: not while an overlay covers it. */
  async click(css, timeout = 20000) {
    const deadline = Date.now() + timeout;
    let at = await this.waitFor(css, timeout);
    while (!(await this.eval(`(() => { const el = document.querySelector(${JSON.stringify(css)});
        const hit = el && document.elementFromPoint(${at.x}, ${at.y}); return !!hit && (hit === el || el.contains(hit)); })()`).catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`${css} stays covered on the recorded page`);
      await new Promise((r) => setTimeout(r, 100));
      at = await this.waitFor(css, timeout);
    }
    const { x, y } = at;
    await this.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
    await this.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', clickCount: 1 });
    await this.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', clickCount: 1 });
  }

  async type(text) {
    await this.send('Input.insertText', { text });
  }

  async press(key) {
    const codes = { Enter: 13, Tab: 9 };
    const base = { key, code: key, windowsVirtualKeyCode: codes[key], nativeVirtualKeyCode: codes[key] };
    await this.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...base, text: key === 'Enter' ? '\r' : undefined });
    await this.send('Input.dispatchKeyEvent', { type: 'char', ...base, text: key === 'Enter' ? '\r' : '\t' });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
  }

  async url() {
    return this.eval('location.href');
  }
}
