// A vehicle's triangle, as both vehicle layers draw it (gl.js, raster.js): its nose
// size ahead of (x, y) along the unit heading (hx, hy), its two tail corners 0.6 size
// behind and 0.5 size to each side. Writes x0, y0, x1, y1, x2, y2 into out.
export function triangle(out, x, y, hx, hy, size) {
  const b = size * 0.6, c = size * 0.5;
  out[0] = x + hx * size;
  out[1] = y + hy * size;
  out[2] = x - hx * b - hy * c;
  out[3] = y - hy * b + hx * c;
  out[4] = x - hx * b + hy * c;
  out[5] = y - hy * b - hx * c;
}
