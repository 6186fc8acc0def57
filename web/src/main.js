// The page: a live view of one steer-server's world, and the same commands as the
// terminal client. docs/WEB.md says how it is built, served and tested.
import { Camera, readHash, writeHash } from './camera.js';
import { Console } from './console.js';
import { Link } from './link.js';
import { Plots } from './plots.js';
import { BEHAVIORS, BIT, DENSITY_ALWAYS, EDGES_NONE, EDGES_WRAP } from './proto.js';
import { Renderer, densityCells, frameOf, hasBehaviour, placeAt, vehicleAt } from './render.js';

// Past this many vehicles in view the page asks for density cells, not vehicles.
const DENSITY_ABOVE = 25000;

const $ = (id) => document.getElementById(id);
const canvas = $('world');
const view = $('view'); // takes the pointer: the overlay canvas is hidden at times
const cam = new Camera();
// ?webgl=on draws the vehicles by WebGL 2 even where it is software, ?webgl=off never.
const webgl = new URLSearchParams(location.search).get('webgl');
const renderer = new Renderer(canvas, $('vehicles'), webgl === 'on' || webgl === 'off' ? webgl : 'auto');
const state = {
  world: null, geometry: null, prev: null, cur: null, density: null,
  selected: 0, follow: false, paused: false, tick: 0, total: 0, stats: null,
  snapshotMs: 50, rate: 20,
  followSeen: null, // the followed vehicle where it was last seen: { id, x, y, vx, vy, time }
};
const hash = readHash();
if (hash.follow) {
  state.selected = hash.follow;
  state.follow = true;
}
const token = hash.token ? String(hash.token) : '';
// The address edited in an open tab: the view goes where it says (the page's own
// updates of it replace the history entry, which fires no hashchange).
window.addEventListener('hashchange', () => {
  const h = readHash();
  if (Number.isFinite(h.zoom) && h.zoom > 0) {
    cam.cx = Number.isFinite(h.x) ? h.x : cam.cx;
    cam.cy = Number.isFinite(h.y) ? h.y : cam.cy;
    cam.scale = h.zoom;
  }
  state.follow = Number.isFinite(h.follow) && h.follow > 0;
  if (state.follow) state.selected = h.follow;
});
const pointer = { x: 0, y: 0 }; // in the view, for keys that act where it is
// For tests and the bench: the intervals between the last frames, the last frame's
// drawing and the time spent taking snapshots in (ms).
const perf = { frames: 0, frameMs: [], last: 0, drawMs: 0, receiveMs: 0 };
window.steer = { state, cam, perf, renderer };

const statusEl = $('status');
const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
const link = new Link({
  url: wsUrl, name: 'web', token,
  onStatus: (kind, text) => {
    statusEl.className = `status ${kind}`;
    statusEl.textContent = kind === 'connected' ? 'live' : text;
  },
  onOpen: () => {
    sentView = '';
    link.command('help').then((r) => r.ok && consoleUi.learn(JSON.parse(r.json)));
  },
  onMessage: (msg) => {
    const t0 = performance.now();
    receive(msg);
    perf.receiveMs += performance.now() - t0;
  },
});
window.steer.link = link;

const consoleUi = new Console($('command'), $('command-form'), $('reply'), (line) => run(line, true));
const plots = new Plots($('plots'));
window.steer.plots = plots;

function addNotice(text) {
  const li = document.createElement('li');
  li.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  const list = $('notices');
  list.appendChild(li);
  while (list.children.length > 100) list.removeChild(list.firstChild);
  list.scrollTop = list.scrollHeight;
}

// Runs a command; shown: its reply goes to the command line's output.
async function run(line, shown) {
  const words = line.trim().split(/\s+/);
  if (words[0] === 'select' && words.length === 2) {
    select(Number(words[1]));
    return { ok: true };
  }
  const r = await link.command(line);
  if (shown || !r.ok) consoleUi.show(r.ok ? `OK ${prettyJson(r.json)}` : `ERR ${r.error}`, !r.ok);
  return r;
}

function prettyJson(json) {
  if (!json) return '';
  try {
    const v = JSON.parse(json);
    if (Array.isArray(v.commands)) {
      const names = Object.keys(v.about);
      return '\n' + v.commands.map((u, k) => `${u}\n    ${v.about[names[k]]}`).join('\n') +
        `\nscenarios: ${v.scenarios.join(' ')}`;
    }
    if (v.usage) return `\n${v.usage}\n    ${v.help}` + (v.keys ? '\n' + Object.entries(v.keys).map(([k, h]) => `  ${k}: ${h}`).join('\n') : '');
    const flat = JSON.stringify(v);
    return flat.length <= 160 ? flat : JSON.stringify(v, null, 1);
  } catch {
    return json;
  }
}

function receive(msg) {
  const m = msg.body;
  switch (msg.kind) {
    case 'welcome':
      state.counted = false;
      state.world = { width: m.width, height: m.height, edges: m.edges };
      state.rate = m.snapshotRate || 20;
      state.snapshotMs = 1000 / state.rate;
      if (!cam.fitted) {
        if (hash.zoom) {
          cam.cx = hash.x ?? m.width / 2;
          cam.cy = hash.y ?? m.height / 2;
          cam.scale = hash.zoom;
          cam.fitted = true;
        } else {
          cam.fit(m.width, m.height);
        }
      }
      break;
    case 'geometry':
      state.geometry = m;
      break;
    case 'snapshot':
      header(m.header);
      state.prev = state.cur;
      state.cur = frameOf(m, performance.now());
      state.density = null;
      break;
    case 'density':
      header(m.header);
      state.density = { ...m, list: densityCells(m) };
      state.prev = state.cur = null;
      break;
    case 'notice':
      addNotice(m.text);
      break;
    case 'reply':
      if (!m.ok && m.requestId === 0) {
        // Not an answer to a command: the server says why it refuses or closes.
        statusEl.textContent = m.error;
        addNotice(m.error);
      }
      break;
  }
}

function header(h) {
  state.tick = Number(h.tick);
  state.paused = h.paused;
  state.total = h.totalVehicles;
  state.counted = true;
  if (state.world && (h.width !== state.world.width || h.height !== state.world.height)) {
    state.world.width = h.width;
    state.world.height = h.height;
  }
  $('pause').textContent = h.paused ? 'Resume' : 'Pause';
}

// --- the view the server cuts snapshots to -------------------------------------------

let sentView = '';
function sendView() {
  if (!link.open || !state.world || cam.w < 1 || cam.h < 1) return;
  const v = cam.view(0.15);
  const area = Math.max(0, Math.min(v.x1, state.world.width) - Math.max(v.x0, 0)) *
    Math.max(0, Math.min(v.y1, state.world.height) - Math.max(v.y0, 0));
  const share = area / (state.world.width * state.world.height || 1);
  // Until a snapshot has said how many vehicles there are, cells: a world of a
  // million would otherwise come whole, megabytes a frame, before the page knew.
  const dense = state.world.edges !== EDGES_NONE &&
    (!state.counted || state.total * Math.min(1, share) > DENSITY_ABOVE);
  const msg = { x0: v.x0, y0: v.y0, x1: v.x1, y1: v.y1 };
  if (dense) {
    Object.assign(msg, {
      compact: true, density: DENSITY_ALWAYS, pick: state.selected,
      cols: Math.max(1, Math.min(4096, Math.round(cam.w / 6))),
      rows: Math.max(1, Math.min(4096, Math.round(cam.h / 6))),
    });
  }
  const key = JSON.stringify(msg);
  if (key === sentView) return;
  sentView = key;
  link.send('viewport', msg);
}
setInterval(sendView, 100);

// --- drawing -----------------------------------------------------------------------

function frame(now) {
  if (perf.last) {
    perf.frameMs.push(now - perf.last);
    if (perf.frameMs.length > 600) perf.frameMs.shift();
  }
  perf.last = now;
  perf.frames++;
  renderer.resize(cam);
  // Drawn one snapshot period behind the newest, between the last two.
  const t = now - state.snapshotMs;
  if (state.follow && state.selected && state.cur) follow(t);
  const t0 = performance.now();
  renderer.draw(state, cam, t);
  perf.drawMs = performance.now() - t0;
  writeHash(cam, state.follow ? state.selected : 0);
  showInfo();
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

// How long a followed vehicle missing from the snapshots is looked for where it should
// be, before the view stays put.
const FOLLOW_LOST_MS = 2000;

// Centres the view on the followed vehicle. Snapshots are cut to the view, and the
// view does not wrap: a vehicle that crosses a wrapping edge leaves the view and the
// snapshots. The view then goes where the vehicle should be, across the seam, going
// on as it last went, and the next view's snapshots hold it again.
function follow(t) {
  const { cur, world } = state;
  const k = cur.index.get(state.selected);
  if (k !== undefined) {
    [cam.cx, cam.cy] = placeAt(state.prev, cur, k, t, world.width, world.height);
    state.followSeen = { id: state.selected, x: cur.x[k], y: cur.y[k], vx: cur.vx[k], vy: cur.vy[k], time: cur.time };
    return;
  }
  const seen = state.followSeen;
  if (!seen || seen.id !== state.selected || world.edges !== EDGES_WRAP || t - seen.time > FOLLOW_LOST_MS) return;
  const s = Math.max(0, t - seen.time) / 1000;
  const wrap = (v, size) => ((v % size) + size) % size;
  cam.cx = wrap(seen.x + seen.vx * s, world.width);
  cam.cy = wrap(seen.y + seen.vy * s, world.height);
}

// Sets an element's text only when it changes: a change costs the page a layout and a
// repaint, which, every frame, a machine without a GPU feels.
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function showInfo() {
  const inView = state.density ? state.density.inView : state.cur ? state.cur.n : 0;
  setText($('world-info'), state.world
    ? `tick ${state.tick}${state.paused ? ' (paused)' : ''} · ${state.total} vehicles · ${inView} in view`
    : '');
  const el = $('selected');
  const cur = state.cur;
  const k = cur && state.selected ? cur.index.get(state.selected) : undefined;
  if (!state.selected) setText(el, 'none: click a vehicle');
  else if (k === undefined) setText(el, `vehicle ${state.selected} (not in view)`);
  else {
    const on = BEHAVIORS.filter((b) => cur.behaviors[k] & BIT[b]).join(' ') || 'none';
    setText(el, `vehicle ${state.selected}${state.follow ? ' (followed)' : ''}\n` +
      `group ${cur.group[k]}\nat ${cur.x[k].toFixed(1)}, ${cur.y[k].toFixed(1)}\n` +
      `speed ${Math.hypot(cur.vx[k], cur.vy[k]).toFixed(1)}\n${on}`);
  }
}

// --- selecting and steering --------------------------------------------------------

function select(id) {
  state.selected = id;
  if (!id) state.follow = false;
  sentView = ''; // density frames carry the picked vehicle
}

function pointerWorld() {
  return cam.toWorld(pointer.x, pointer.y);
}

function num(v) {
  return Number(v.toFixed(3));
}

let drag = null;
view.addEventListener('pointerdown', (ev) => {
  view.focus();
  drag = { x: ev.clientX, y: ev.clientY, moved: false, button: ev.button };
  view.setPointerCapture(ev.pointerId);
});
view.addEventListener('pointermove', (ev) => {
  const r = view.getBoundingClientRect();
  pointer.x = ev.clientX - r.left;
  pointer.y = ev.clientY - r.top;
  if (!drag) return;
  const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < 4) return;
  drag.moved = true;
  state.follow = false;
  cam.pan(dx, dy);
  drag.x = ev.clientX;
  drag.y = ev.clientY;
});
view.addEventListener('pointerup', (ev) => {
  const d = drag;
  drag = null;
  if (!d || d.moved || d.button !== 0) return;
  const r = view.getBoundingClientRect();
  const sx = ev.clientX - r.left, sy = ev.clientY - r.top;
  const hit = vehicleAt(state, cam, performance.now() - state.snapshotMs, sx, sy);
  if (hit || !state.selected) {
    select(hit);
    return;
  }
  const [x, y] = cam.toWorld(sx, sy);
  run(`waypoint ${state.selected} ${num(x)} ${num(y)}`, false);
});
view.addEventListener('contextmenu', (ev) => {
  ev.preventDefault();
  if (!state.selected) return;
  const r = view.getBoundingClientRect();
  const [x, y] = cam.toWorld(ev.clientX - r.left, ev.clientY - r.top);
  run(`goto ${state.selected} ${num(x)} ${num(y)}`, false);
});
view.addEventListener('wheel', (ev) => {
  ev.preventDefault();
  const r = view.getBoundingClientRect();
  cam.zoomAt(ev.clientX - r.left, ev.clientY - r.top, Math.exp(-ev.deltaY * 0.0015));
}, { passive: false });

function nextVehicle(step) {
  const cur = state.cur;
  if (!cur || cur.n === 0) return;
  const ids = Array.from(cur.id).sort((a, b) => a - b);
  let i = ids.indexOf(state.selected);
  i = i < 0 ? (step > 0 ? 0 : ids.length - 1) : (i + step + ids.length) % ids.length;
  select(ids[i]);
}

function toggle(name) {
  if (!state.selected) return;
  const on = hasBehaviour(state.cur, state.selected, name);
  run(`${name} ${state.selected} ${on ? 'off' : 'on'}`, false);
}

const KEYS = {
  ArrowLeft: () => cam.pan(60, 0), ArrowRight: () => cam.pan(-60, 0),
  ArrowUp: () => cam.pan(0, 60), ArrowDown: () => cam.pan(0, -60),
  h: () => cam.pan(60, 0), l: () => cam.pan(-60, 0), k: () => cam.pan(0, 60), j: () => cam.pan(0, -60),
  '+': () => cam.zoomAt(cam.w / 2, cam.h / 2, 1.25), '=': () => cam.zoomAt(cam.w / 2, cam.h / 2, 1.25),
  '-': () => cam.zoomAt(cam.w / 2, cam.h / 2, 0.8),
  0: () => state.world && cam.fit(state.world.width, state.world.height),
  Escape: () => select(0),
  c: () => { state.follow = !state.follow && state.selected !== 0; },
  s: () => {
    const [x, y] = pointerWorld();
    run(`spawn ${num(x)} ${num(y)}`, false).then((r) => {
      if (r.ok) select(JSON.parse(r.json || '{}').id || 0);
    });
  },
  F: () => {
    const [x, y] = pointerWorld();
    run(`spawn flock 20 ${num(x)} ${num(y)} ${num(Math.max(20, 60 / cam.scale))}`, false);
  },
  o: () => {
    const [x, y] = pointerWorld();
    run(`obstacle ${num(x)} ${num(y)} ${num(Math.max(5, 20 / cam.scale))}`, false);
  },
  x: () => { if (state.selected) run(`remove ${state.selected}`, false).then(() => select(0)); },
  w: () => toggle('wander'), a: () => toggle('avoid'), f: () => toggle('flock'),
  ' ': () => run(state.paused ? 'resume' : 'pause', false),
  '.': () => run('pause', false).then(() => run('step', false)),
  '[': () => run(`rewind ${Math.round(tickRate())}`, true),
  ']': () => forward(),
  d: () => { renderer.debug = !renderer.debug; },
  ':': () => $('command').focus(),
  '?': () => { $('help').hidden = !$('help').hidden; },
};

function tickRate() {
  return (state.stats && state.stats.tick_rate) || 60;
}

function forward() {
  const s = state.stats;
  if (!s || !s.past) return;
  const to = state.tick + Math.round(tickRate());
  run(to >= s.live_tick ? 'goto-tick live' : `goto-tick ${to}`, true);
}

document.addEventListener('keydown', (ev) => {
  if (ev.target === $('command') || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === 'Tab') {
    ev.preventDefault();
    nextVehicle(ev.shiftKey ? -1 : 1);
    return;
  }
  const act = KEYS[ev.key];
  if (!act) return;
  ev.preventDefault();
  if (ev.key !== 'c' && ev.key.startsWith('Arrow')) state.follow = false;
  act();
});

$('fit').addEventListener('click', KEYS[0]);
$('pause').addEventListener('click', KEYS[' ']);
$('help-button').addEventListener('click', KEYS['?']);
$('help').addEventListener('click', () => { $('help').hidden = true; });

// --- stats, plots and the timeline -------------------------------------------------

const slider = $('tick-slider');
let sliding = false;
slider.addEventListener('input', () => {
  sliding = true;
  $('tick-label').textContent = `go to tick ${slider.value}`;
});
slider.addEventListener('change', () => {
  sliding = false;
  const s = state.stats;
  const to = Number(slider.value);
  run(s && to >= s.live_tick ? 'goto-tick live' : `goto-tick ${to}`, true);
});
$('live').addEventListener('click', async () => {
  const r = await run('goto-tick live', true);
  if (r.ok) run('resume', false);
});

let lastBytes = 0;
setInterval(async () => {
  if (!link.open) return;
  const r = await link.command('stats');
  if (!r.ok) return;
  const s = JSON.parse(r.json);
  state.stats = s;
  const bytes = link.bytes - lastBytes;
  lastBytes = link.bytes;
  plots.add(s, bytes);
  slider.min = s.oldest_tick ?? 0;
  slider.max = s.live_tick ?? s.tick;
  if (!sliding) {
    slider.value = s.tick;
    $('tick-label').textContent = s.past ? `past: tick ${s.tick} of ${s.live_tick}` : `live: tick ${s.tick}`;
  }
  $('live').disabled = !s.past;
}, 1000);

link.connect();
