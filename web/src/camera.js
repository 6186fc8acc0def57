// Where the page looks: the world point at the canvas's centre and the pixels per
// world unit. Kept in the URL's hash with the followed vehicle, so a link opens the
// same view.
export class Camera {
  constructor() {
    this.cx = 500;
    this.cy = 300;
    this.scale = 1;
    this.w = 1; // canvas size in CSS pixels
    this.h = 1;
    this.fitted = false;
  }

  toScreen(x, y) {
    return [(x - this.cx) * this.scale + this.w / 2, (y - this.cy) * this.scale + this.h / 2];
  }

  toWorld(sx, sy) {
    return [(sx - this.w / 2) / this.scale + this.cx, (sy - this.h / 2) / this.scale + this.cy];
  }

  fit(width, height) {
    this.cx = width / 2;
    this.cy = height / 2;
    this.scale = Math.min(this.w / width, this.h / height) * 0.95;
    this.fitted = true;
  }

  // Zooms by factor keeping the world point under (sx, sy) where it is.
  zoomAt(sx, sy, factor) {
    const [wx, wy] = this.toWorld(sx, sy);
    this.scale = Math.min(1e4, Math.max(1e-5, this.scale * factor));
    this.cx = wx - (sx - this.w / 2) / this.scale;
    this.cy = wy - (sy - this.h / 2) / this.scale;
  }

  pan(dxPixels, dyPixels) {
    this.cx -= dxPixels / this.scale;
    this.cy -= dyPixels / this.scale;
  }

  // The world rectangle in view, with a margin so that vehicles entering it are
  // already known.
  view(margin = 0.1) {
    const hw = this.w / 2 / this.scale, hh = this.h / 2 / this.scale;
    return {
      x0: this.cx - hw * (1 + margin), y0: this.cy - hh * (1 + margin),
      x1: this.cx + hw * (1 + margin), y1: this.cy + hh * (1 + margin),
    };
  }
}

// The hash is "#x=..&y=..&zoom=..&follow=..": what a link to this view carries.
export function readHash() {
  const out = {};
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    const [k, v] = part.split('=');
    if (!k || v === undefined) continue;
    const n = Number(decodeURIComponent(v));
    if (Number.isFinite(n)) out[k] = n;
    else out[k] = decodeURIComponent(v);
  }
  return out;
}

export function writeHash(cam, follow) {
  const parts = [`x=${cam.cx.toFixed(1)}`, `y=${cam.cy.toFixed(1)}`, `zoom=${cam.scale.toPrecision(4)}`];
  if (follow) parts.push(`follow=${follow}`);
  const hash = '#' + parts.join('&');
  if (location.hash !== hash) history.replaceState(null, '', hash);
}
