// The vehicles drawn by the page itself into the 2-D canvas's pixels, for a browser
// with no WebGL 2 or only a software one (a machine without a GPU: SwiftShader,
// llvmpipe). There the browser's own drawing of ten thousand small triangles misses
// most frames: software WebGL took its GPU process past a frame's 16.7 ms, and a 2-D
// canvas filling them as paths took 350 ms. Filling each triangle's few pixels, row
// by row, takes 2-3 ms (docs/WEB.md has the figures).
import { triangle } from './shape.js';

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

// '#rrggbb' as one pixel of an ImageData's Uint32Array (its bytes are r, g, b, a).
function pixelOf(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const v = LITTLE_ENDIAN ? (0xff << 24) | (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8) | 0xff;
  return v >>> 0;
}

const BACKGROUND = pixelOf('#10141a');
const WORLD = pixelOf('#161c24');

// Fills the triangle (x0, y0), (x1, y1), (x2, y2), in device pixels, with pixel
// colour: every pixel whose centre is inside it or on its edges.
function fillTriangle(px, w, h, x0, y0, x1, y1, x2, y2, colour) {
  const minX = Math.max(0, Math.floor(Math.min(x0, x1, x2)));
  const maxX = Math.min(w - 1, Math.ceil(Math.max(x0, x1, x2)));
  const minY = Math.max(0, Math.floor(Math.min(y0, y1, y2)));
  const maxY = Math.min(h - 1, Math.ceil(Math.max(y0, y1, y2)));
  if (minX > maxX || minY > maxY) return;
  const area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
  if (area === 0) return;
  const s = area > 0 ? 1 : -1; // each edge's inside is where its function is >= 0
  // The three edge functions at the first pixel's centre, and their steps along x, y.
  const cx = minX + 0.5, cy = minY + 0.5;
  let e0 = s * ((x2 - x1) * (cy - y1) - (y2 - y1) * (cx - x1));
  let e1 = s * ((x0 - x2) * (cy - y2) - (y0 - y2) * (cx - x2));
  let e2 = s * ((x1 - x0) * (cy - y0) - (y1 - y0) * (cx - x0));
  const dx0 = -s * (y2 - y1), dx1 = -s * (y0 - y2), dx2 = -s * (y1 - y0);
  const dy0 = s * (x2 - x1), dy1 = s * (x0 - x2), dy2 = s * (x1 - x0);
  // Row by row, the span where all three are >= 0: edge k at pixel x of the row is
  // e_k + dx_k * (x - minX).
  for (let y = minY; y <= maxY; y++) {
    let lo = minX, hi = maxX;
    if (dx0 > 0) lo = Math.max(lo, minX + Math.ceil(-e0 / dx0));
    else if (dx0 < 0) hi = Math.min(hi, minX + Math.floor(e0 / -dx0));
    else if (e0 < 0) hi = lo - 1;
    if (dx1 > 0) lo = Math.max(lo, minX + Math.ceil(-e1 / dx1));
    else if (dx1 < 0) hi = Math.min(hi, minX + Math.floor(e1 / -dx1));
    else if (e1 < 0) hi = lo - 1;
    if (dx2 > 0) lo = Math.max(lo, minX + Math.ceil(-e2 / dx2));
    else if (dx2 < 0) hi = Math.min(hi, minX + Math.floor(e2 / -dx2));
    else if (e2 < 0) hi = lo - 1;
    const row = y * w;
    for (let x = lo; x <= hi; x++) px[row + x] = colour;
    e0 += dy0;
    e1 += dy1;
    e2 += dy2;
  }
}

export class VehicleRaster {
  constructor(ctx, palette) {
    this.ctx = ctx;
    this.palette = Uint32Array.from(palette, pixelOf);
    this.image = null;
    this.px = null;
    this.data = new Float32Array(0);
    this.corners = new Float64Array(6);
  }

  // As VehicleLayer.draw: clears to the background, the world's rectangle a shade
  // lighter, and draws n vehicles that fill(data) wrote as x, y, hx, hy, group each.
  // Draws into the whole canvas: what is drawn on it afterwards goes on top.
  draw(cam, dpr, world, n, fill, size) {
    const canvas = this.ctx.canvas, w = canvas.width, h = canvas.height;
    if (!w || !h) return;
    if (!this.image || this.image.width !== w || this.image.height !== h) {
      this.image = this.ctx.createImageData(w, h);
      this.px = new Uint32Array(this.image.data.buffer);
    }
    const px = this.px;
    px.fill(BACKGROUND);
    if (world) {
      const [x0, y0] = cam.toScreen(0, 0), [x1, y1] = cam.toScreen(world.width, world.height);
      const sx0 = Math.max(0, Math.floor(x0 * dpr)), sx1 = Math.min(w, Math.ceil(x1 * dpr));
      const sy0 = Math.max(0, Math.floor(y0 * dpr)), sy1 = Math.min(h, Math.ceil(y1 * dpr));
      for (let y = sy0; y < sy1; y++) px.fill(WORLD, y * w + sx0, y * w + sx1);
    }
    if (n) {
      if (this.data.length < n * 5) this.data = new Float32Array(Math.max(n * 5, this.data.length * 2));
      const used = fill(this.data);
      const d = this.data, pal = this.palette;
      const s = cam.scale * dpr, ox = (cam.w / 2 - cam.cx * cam.scale) * dpr, oy = (cam.h / 2 - cam.cy * cam.scale) * dpr;
      const t = this.corners;
      for (let k = 0; k < used; k++) {
        const i = k * 5;
        triangle(t, d[i] * s + ox, d[i + 1] * s + oy, d[i + 2], d[i + 3], size * dpr);
        fillTriangle(px, w, h, t[0], t[1], t[2], t[3], t[4], t[5], pal[d[i + 4] % pal.length]);
      }
    }
    this.ctx.putImageData(this.image, 0, 0);
  }
}
