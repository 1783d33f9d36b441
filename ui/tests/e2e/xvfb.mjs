// A private X display for the end-to-end test, and screenshots of what it shows.
//
// WebKitWebDriver's screenshot command never answers under Xvfb (the WebKitGTK snapshot it
// waits for does not arrive), so screenshots come from the X server itself: Xvfb keeps its
// framebuffer in a file (`-fbdir`, XWD format), which is read here and written as a PNG. That
// is exactly what a person in front of the display would see.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

/** Starts `Xvfb` on a free display; resolves to { display, screenshot(rect), stop() }. */
export async function startXvfb({ width = 1400, height = 900 } = {}) {
  const fbdir = await mkdtemp(path.join(os.tmpdir(), 'bflow-e2e-xvfb-'));
  for (let n = 90; n < 190; n++) {
    if (existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`)) continue;
    const child = spawn('Xvfb', [`:${n}`, '-screen', '0', `${width}x${height}x24`, '-fbdir', fbdir, '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const framebuffer = path.join(fbdir, 'Xvfb_screen0');
    const up = await new Promise((resolve) => {
      const started = Date.now();
      const poll = setInterval(() => {
        if (child.exitCode !== null) { clearInterval(poll); resolve(false); }
        else if (existsSync(`/tmp/.X11-unix/X${n}`) && existsSync(framebuffer)) { clearInterval(poll); resolve(true); }
        else if (Date.now() - started > 10000) { clearInterval(poll); child.kill(); resolve(false); }
      }, 50);
    });
    if (!up) {
      if (/already active|server is already/i.test(stderr)) continue;
      throw new Error(`Xvfb :${n} did not start: ${stderr.trim() || 'no output'}`);
    }
    return {
      display: `:${n}`,
      /** A PNG of the screen, or of `rect` ({x, y, width, height}) within it. */
      screenshot: (rect) => xwdToPng(readFileSync(framebuffer), rect),
      stop: () => child.kill(),
    };
  }
  throw new Error('no free X display number in :90–:189');
}

/** Converts a 32-bit XWD image (what Xvfb writes) to an RGB PNG, cropped to `rect`. */
export function xwdToPng(xwd, rect) {
  const field = (i) => xwd.readUInt32BE(i * 4);
  const [headerSize, screenWidth, screenHeight] = [field(0), field(4), field(5)];
  const [lsbFirst, bitsPerPixel, bytesPerLine, colors] = [field(7) === 0, field(11), field(12), field(19)];
  if (bitsPerPixel !== 32) throw new Error(`XWD with ${bitsPerPixel} bits per pixel is not supported`);
  const pixels = headerSize + colors * 12;
  const x = Math.max(0, Math.floor(rect?.x ?? 0));
  const y = Math.max(0, Math.floor(rect?.y ?? 0));
  const width = Math.min(screenWidth - x, Math.floor(rect?.width ?? screenWidth));
  const height = Math.min(screenHeight - y, Math.floor(rect?.height ?? screenHeight));
  const stride = width * 3 + 1;
  const raw = Buffer.alloc(stride * height);
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const at = pixels + (row + y) * bytesPerLine + (col + x) * 4;
      const pixel = lsbFirst ? xwd.readUInt32LE(at) : xwd.readUInt32BE(at);
      const out = row * stride + 1 + col * 3;
      raw[out] = (pixel >> 16) & 255;
      raw[out + 1] = (pixel >> 8) & 255;
      raw[out + 2] = pixel & 255;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // truecolour RGB
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type, body) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
}
