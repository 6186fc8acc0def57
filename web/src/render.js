// Draws the world on a 2-D canvas: the bounds, walls, polygons and obstacles, the
// vehicles as headed triangles coloured by group (between two snapshots, where each
// was), density cells when zoomed far out, and the selected vehicle's aids.
import { VehicleLayer } from './gl.js';
import { BIT } from './proto.js';
import { VehicleRaster } from './raster.js';

export const GROUP_COLOURS = ['#4fc3f7', '#ffb74d', '#81c784', '#f06292', '#ba68c8', '#fff176',
  '#4db6ac', '#e57373'];

// A snapshot's vehicles as typed arrays, with an index by id built when first asked
// for (most frames find each vehicle where the last snapshot had it: slotOf).
export function frameOf(snap, time) {
  return {
    time, tick: Number(snap.header.tick), n: snap.id.length,
    id: Uint32Array.from(snap.id), x: Float32Array.from(snap.x), y: Float32Array.from(snap.y),
    vx: Float32Array.from(snap.vx), vy: Float32Array.from(snap.vy),
    group: Uint32Array.from(snap.group), behaviors: Uint32Array.from(snap.behaviors),
    fx: Float32Array.from(snap.fx), fy: Float32Array.from(snap.fy),
    obstacles: snap.obstacles, routes: snap.routes, byId: null,
    get index() {
      if (!this.byId) {
        this.byId = new Map();
        for (let k = 0; k < this.n; k++) this.byId.set(this.id[k], k);
      }
      return this.byId;
    },
  };
}

// Where vehicle id is in frame f (undefined: not there), looking first at slot k.
function slotOf(f, id, k) {
  return k < f.n && f.id[k] === id ? k : f.index.get(id);
}

// Where vehicle k of cur is at time t, between its place in prev and in cur. A
// vehicle that wrapped round an edge, or is new, is where cur has it.
export function placeAt(prev, cur, k, t, width, height) {
  const x = cur.x[k], y = cur.y[k];
  if (!prev || cur.time <= prev.time) return [x, y];
  const j = slotOf(prev, cur.id[k], k);
  if (j === undefined) return [x, y];
  const a = Math.min(1, Math.max(0, (t - prev.time) / (cur.time - prev.time)));
  const px = prev.x[j], py = prev.y[j];
  if (Math.abs(x - px) > width / 2 || Math.abs(y - py) > height / 2) return [x, y];
  return [px + (x - px) * a, py + (y - py) * a];
}

function varint(bytes, at) {
  let v = 0, shift = 0, b;
  do {
    b = bytes[at.i++];
    v += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80 && at.i < bytes.length);
  return v;
}

// A DensitySnapshot's cells (docs/PROTOCOL.md): skipped empty cells, the count, and
// the mean heading in 256ths of a turn, for each occupied cell in row-major order.
export function densityCells(d) {
  const out = [];
  const at = { i: 0 };
  let cell = 0;
  while (at.i < d.cells.length) {
    cell += varint(d.cells, at);
    const count = varint(d.cells, at);
    const heading = d.cells[at.i++];
    out.push({ col: cell % d.cols, row: Math.floor(cell / d.cols), count, heading });
    cell++;
  }
  return out;
}

function densityColour(count) {
  if (count >= 16) return '#e53935';
  if (count >= 8) return '#fdd835';
  if (count >= 4) return '#43a047';
  if (count >= 2) return '#00acc1';
  return '#1e88e5';
}

// Vehicle k's heading as a unit vector: along its velocity, or +x when it stands.
function heading(cur, k) {
  const vx = cur.vx[k], vy = cur.vy[k];
  const len = Math.hypot(vx, vy);
  return len > 1e-6 ? [vx / len, vy / len] : [1, 0];
}

function vehicleSize(cam) {
  return Math.min(40, Math.max(5, 6 * cam.scale));
}

// Writes x, y, heading and group of each vehicle in view, where it is at time t,
// into data; returns how many.
function fillVehicles(state, cam, t, data) {
  const { prev, cur, world } = state;
  const v = cam.view(0.05);
  const a = prev && cur.time > prev.time ? Math.min(1, Math.max(0, (t - prev.time) / (cur.time - prev.time))) : 1;
  const hw = world.width / 2, hh = world.height / 2;
  let m = 0;
  for (let k = 0; k < cur.n; k++) {
    let x = cur.x[k], y = cur.y[k];
    if (a < 1) {
      const j = slotOf(prev, cur.id[k], k);
      if (j !== undefined) {
        const px = prev.x[j], py = prev.y[j];
        if (Math.abs(x - px) <= hw && Math.abs(y - py) <= hh) {
          x = px + (x - px) * a;
          y = py + (y - py) * a;
        }
      }
    }
    if (x < v.x0 || x > v.x1 || y < v.y0 || y > v.y1) continue;
    const [hx, hy] = heading(cur, k);
    const o = m * 5;
    data[o] = x;
    data[o + 1] = y;
    data[o + 2] = hx;
    data[o + 3] = hy;
    data[o + 4] = cur.group[k];
    m++;
  }
  return m;
}

// Vehicles go to glCanvas through WebGL 2 where the browser has it on a GPU, and
// everything else to canvas (2-D) laid over it. Without WebGL 2, or with only a
// software one, the page draws the vehicles into canvas's pixels itself (raster.js)
// and the rest on top. webgl: 'auto' as above, 'on' WebGL 2 even in software, 'off'
// never (the address's ?webgl=on|off).
export class Renderer {
  constructor(canvas, glCanvas, webgl = 'auto') {
    this.canvas = canvas;
    this.gl = null;
    if (webgl !== 'off') {
      try {
        this.gl = VehicleLayer.create(glCanvas, GROUP_COLOURS);
      } catch (err) {
        console.warn(`WebGL 2 is there but did not start (${err.message}): drawing on a 2-D canvas`);
      }
    }
    if (this.gl && this.gl.software && webgl !== 'on') {
      this.gl.release();
      this.gl = null;
    }
    if (!this.gl) glCanvas.hidden = true;
    this.ctx = canvas.getContext('2d', { alpha: this.gl !== null });
    this.raster = this.gl ? null : new VehicleRaster(this.ctx, GROUP_COLOURS);
    this.kind = this.gl ? 'webgl' : 'pixels'; // for tests and the bench
    this.debug = false;
  }

  resize(cam) {
    const dpr = window.devicePixelRatio || 1;
    // The container's size: the overlay is hidden (display none, size 0) at times.
    const box = this.canvas.parentElement;
    const w = box.clientWidth, h = box.clientHeight;
    if (this.canvas.width !== Math.round(w * dpr) || this.canvas.height !== Math.round(h * dpr)) {
      this.canvas.width = Math.round(w * dpr);
      this.canvas.height = Math.round(h * dpr);
    }
    cam.w = w;
    cam.h = h;
    this.dpr = dpr;
  }

  draw(state, cam, t) {
    const ctx = this.ctx;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const vehicles = state.cur && !state.density ? state.cur : null;
    if (this.gl) {
      this.gl.draw(cam, this.dpr, state.world, vehicles ? vehicles.n : 0,
        (data) => fillVehicles(state, cam, t, data), vehicleSize(cam));
      // A 2-D canvas laid over WebGL costs a software compositor (a machine without
      // a GPU) hundreds of milliseconds a frame: it is shown only while it has
      // something to show.
      const g = state.geometry;
      const needed = state.world && (state.density || state.selected || this.debug ||
        (vehicles && vehicles.obstacles.length) || (g && (g.walls.length || g.polygons.length || g.contain)));
      this.canvas.style.display = needed ? 'block' : 'none';
      if (!needed) return;
      ctx.clearRect(0, 0, cam.w, cam.h);
    } else {
      this.raster.draw(cam, this.dpr, state.world, vehicles ? vehicles.n : 0,
        (data) => fillVehicles(state, cam, t, data), vehicleSize(cam));
    }
    if (!state.world) return;
    const { width, height } = state.world;
    const [bx0, by0] = cam.toScreen(0, 0), [bx1, by1] = cam.toScreen(width, height);
    ctx.strokeStyle = state.geometry && state.geometry.contain ? '#cfd8dc' : '#37474f';
    ctx.lineWidth = 1;
    ctx.strokeRect(bx0, by0, bx1 - bx0, by1 - by0);
    this.drawGeometry(state.geometry, cam);
    if (state.density) this.drawDensity(state.density, cam);
    else if (state.cur) this.drawVehicles(state, cam, t);
  }

  drawGeometry(g, cam) {
    if (!g) return;
    const ctx = this.ctx;
    ctx.strokeStyle = '#cfd8dc';
    ctx.lineWidth = 2;
    ctx.beginPath();
    for (const w of g.walls) {
      const [x0, y0] = cam.toScreen(w.x0, w.y0), [x1, y1] = cam.toScreen(w.x1, w.y1);
      ctx.moveTo(x0, y0);
      ctx.lineTo(x1, y1);
    }
    ctx.stroke();
    for (const p of g.polygons) {
      ctx.beginPath();
      for (let k = 0; k < p.x.length; k++) {
        const [sx, sy] = cam.toScreen(p.x[k], p.y[k]);
        if (k) ctx.lineTo(sx, sy);
        else ctx.moveTo(sx, sy);
      }
      ctx.closePath();
      if (!p.inside) {
        ctx.fillStyle = '#263238';
        ctx.fill();
      }
      ctx.stroke();
    }
  }

  drawObstacles(obstacles, cam) {
    const ctx = this.ctx;
    ctx.fillStyle = '#455a64';
    ctx.strokeStyle = '#90a4ae';
    ctx.lineWidth = 1;
    for (const o of obstacles) {
      const [sx, sy] = cam.toScreen(o.x, o.y);
      ctx.beginPath();
      ctx.arc(sx, sy, Math.max(1, o.r * cam.scale), 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
  }

  // What goes above the vehicles, which WebGL or the raster drew before.
  drawVehicles(state, cam, t) {
    this.drawObstacles(state.cur.obstacles, cam);
    if (this.debug) this.drawForces(state, cam, t);
    if (state.selected) this.drawSelected(state, cam, t, vehicleSize(cam));
  }

  // Debug aid (d): every vehicle's steering force in view, as a short line.
  drawForces(state, cam, t) {
    const { prev, cur, world } = state;
    const ctx = this.ctx;
    ctx.strokeStyle = '#ffeb3b99';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let k = 0; k < cur.n && k < 5000; k++) {
      const f = Math.hypot(cur.fx[k], cur.fy[k]);
      if (f < 1e-6) continue;
      const [x, y] = placeAt(prev, cur, k, t, world.width, world.height);
      const [sx, sy] = cam.toScreen(x, y);
      if (sx < 0 || sy < 0 || sx > cam.w || sy > cam.h) continue;
      const l = Math.min(30, 4 + f / 8);
      ctx.moveTo(sx, sy);
      ctx.lineTo(sx + (cur.fx[k] / f) * l, sy + (cur.fy[k] / f) * l);
    }
    ctx.stroke();
  }

  drawSelected(state, cam, t, size) {
    const { prev, cur, world, selected } = state;
    const k = cur.index.get(selected);
    if (k === undefined) return;
    const ctx = this.ctx;
    const [x, y] = placeAt(prev, cur, k, t, world.width, world.height);
    const [sx, sy] = cam.toScreen(x, y);
    const route = cur.routes.find((r) => r.id === selected);
    if (route) {
      ctx.strokeStyle = '#ffffff88';
      ctx.lineWidth = 1;
      if (route.pathX.length) {
        ctx.beginPath();
        for (let i = 0; i < route.pathX.length; i++) {
          const [px, py] = cam.toScreen(route.pathX[i], route.pathY[i]);
          if (i) ctx.lineTo(px, py);
          else ctx.moveTo(px, py);
        }
        if (route.pathLoop) ctx.closePath();
        ctx.stroke();
        ctx.fillStyle = '#ffffff';
        for (let i = 0; i < route.pathX.length; i++) {
          const [px, py] = cam.toScreen(route.pathX[i], route.pathY[i]);
          ctx.fillRect(px - 2, py - 2, 4, 4);
        }
      }
      if (route.hasTarget) {
        const [tx, ty] = cam.toScreen(route.targetX, route.targetY);
        ctx.strokeStyle = '#ff5252';
        ctx.beginPath();
        ctx.moveTo(sx, sy);
        ctx.lineTo(tx, ty);
        ctx.moveTo(tx - 6, ty - 6);
        ctx.lineTo(tx + 6, ty + 6);
        ctx.moveTo(tx + 6, ty - 6);
        ctx.lineTo(tx - 6, ty + 6);
        ctx.stroke();
      }
    }
    // The steering force, scaled to show its direction and relative size.
    const f = Math.hypot(cur.fx[k], cur.fy[k]);
    if (f > 1e-6) {
      const l = Math.min(60, 10 + f / 4);
      ctx.strokeStyle = '#ffeb3b';
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(sx, sy);
      ctx.lineTo(sx + (cur.fx[k] / f) * l, sy + (cur.fy[k] / f) * l);
      ctx.stroke();
    }
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(sx, sy, size * 1.6, 0, 2 * Math.PI);
    ctx.stroke();
  }

  drawDensity(d, cam) {
    const ctx = this.ctx;
    const cw = (d.view.x1 - d.view.x0) / d.cols, ch = (d.view.y1 - d.view.y0) / d.rows;
    for (const c of d.list) {
      const [sx, sy] = cam.toScreen(d.view.x0 + c.col * cw, d.view.y0 + c.row * ch);
      const w = cw * cam.scale, h = ch * cam.scale;
      ctx.fillStyle = densityColour(c.count);
      ctx.fillRect(sx, sy, Math.max(1, w - 1), Math.max(1, h - 1));
      if (w >= 8) {
        const a = (c.heading / 256) * 2 * Math.PI;
        ctx.strokeStyle = '#10141a';
        ctx.beginPath();
        ctx.moveTo(sx + w / 2, sy + h / 2);
        ctx.lineTo(sx + w / 2 + Math.cos(a) * w * 0.4, sy + h / 2 + Math.sin(a) * h * 0.4);
        ctx.stroke();
      }
    }
    if (d.picked && d.picked.id) {
      const [sx, sy] = cam.toScreen(d.picked.x, d.picked.y);
      ctx.strokeStyle = '#ffffff';
      ctx.beginPath();
      ctx.arc(sx, sy, 8, 0, 2 * Math.PI);
      ctx.stroke();
    }
  }
}

// The vehicle nearest the screen point, within reach pixels; 0 when none.
export function vehicleAt(state, cam, t, sx, sy, reach = 14) {
  const { prev, cur, world } = state;
  if (!cur || state.density) return 0;
  let best = 0, bestD = reach * reach;
  for (let k = 0; k < cur.n; k++) {
    const [x, y] = placeAt(prev, cur, k, t, world.width, world.height);
    const [vx, vy] = cam.toScreen(x, y);
    const d = (vx - sx) ** 2 + (vy - sy) ** 2;
    if (d < bestD) {
      bestD = d;
      best = cur.id[k];
    }
  }
  return best;
}

export function hasBehaviour(cur, id, name) {
  const k = cur ? cur.index.get(id) : undefined;
  return k !== undefined && (cur.behaviors[k] & BIT[name]) !== 0;
}
