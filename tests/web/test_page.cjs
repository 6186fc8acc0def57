// The page in a real browser (Debian's Chromium, headless, driven by puppeteer-core)
// against real servers on free loopback ports: it shows the world, draws vehicles
// where they are, selects what is clicked, steers the world every client sees,
// rewinds, reconnects, and keeps commands from those without the token.
// Prints "N passed, N failed" as the other tests do.
const { execFileSync } = require('child_process');
const http = require('http');
const puppeteer = require('puppeteer-core');
const { WAIT_MS, CHROMIUM, CHROMIUM_ARGS, startServer, stopServer, text, textLines, stats, waitFor,
  check, expect, done, crashed } = require('./steerweb.cjs');

const TUI = process.env.STEER_TUI || 'steer-tui';

const sessions = [];
process.on('exit', () => {
  for (const name of sessions) {
    try {
      execFileSync('tmux', ['kill-session', '-t', name], { stdio: 'ignore' });
    } catch {}
  }
});

let browser;
async function openPage(s, hash = '', before = async () => {}) {
  const page = await browser.newPage();
  await before(page);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.setViewport({ width: 1200, height: 800 });
  await page.goto(`http://127.0.0.1:${s.web}/${hash}`);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'live',
    { timeout: WAIT_MS, polling: 50 });
  return page;
}

async function typeCommand(page, line) {
  await page.evaluate(() => { document.getElementById('reply').textContent = ''; });
  await page.click('#command');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('reply').textContent !== '',
    { timeout: WAIT_MS, polling: 50 });
  return page.$eval('#reply', (e) => e.textContent);
}

// An isolated vehicle of the paused world: its id, group and place on the page.
async function loneVehicle(page) {
  return page.evaluate(() => {
    const { state, cam } = window.steer;
    const f = state.cur;
    const canvas = document.getElementById('view').getBoundingClientRect();
    const pts = [];
    for (let k = 0; k < f.n; k++) pts.push(cam.toScreen(f.x[k], f.y[k]));
    for (let k = 0; k < f.n; k++) {
      const [x, y] = pts[k];
      if (x < 30 || y < 30 || x > cam.w - 30 || y > cam.h - 30) continue;
      if (pts.every(([u, v], j) => j === k || Math.hypot(u - x, v - y) > 30))
        return { id: f.id[k], group: f.group[k], x: canvas.left + x, y: canvas.top + y };
    }
    return null;
  });
}

// The colours of a screenshot's pixels near (x, y), read back through the browser's
// own PNG decoder.
async function pixelsNear(png, x, y, r) {
  const p = await browser.newPage();
  try {
    return await p.evaluate(async (b64, x, y, r) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      return Array.from(ctx.getImageData(x - r, y - r, 2 * r + 1, 2 * r + 1).data);
    }, png.toString('base64'), Math.round(x), Math.round(y), r);
  } finally {
    await p.close();
  }
}

// In a paused world drawn at tick or later: a vehicle standing alone, and three or
// more pixels of its group's colour where it is in a screenshot. The vehicle.
async function colourAtLoneVehicle(page, tick) {
  await page.waitForFunction((t) => window.steer.state.paused && window.steer.state.tick >= t &&
    window.steer.state.prev && window.steer.state.prev.tick === window.steer.state.cur.tick, { timeout: WAIT_MS, polling: 50 }, tick);
  const lone = await loneVehicle(page);
  expect(lone, 'no vehicle stands alone on the page');
  const want = await page.evaluate((g) => {
    const hex = ['#4fc3f7', '#ffb74d', '#81c784', '#f06292', '#ba68c8', '#fff176', '#4db6ac', '#e57373'][g % 8];
    return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  }, lone.group);
  const px = await pixelsNear(await page.screenshot(), lone.x, lone.y, 4);
  let hits = 0;
  for (let i = 0; i < px.length; i += 4)
    if (Math.abs(px[i] - want[0]) + Math.abs(px[i + 1] - want[1]) + Math.abs(px[i + 2] - want[2]) < 30) hits++;
  expect(hits >= 3, `${hits} pixels of the group's colour near vehicle ${lone.id}`);
  return lone;
}

async function main() {
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const s = await startServer(['--scenario', 'flock']);
  const page = await openPage(s);

  await check('the page shows the server\'s vehicle count', async () => {
    const st = await stats(s);
    await waitFor(() => page.$eval('#world-info', (e, n) => e.textContent.includes(`${n} vehicles`), st.vehicles),
      `"${st.vehicles} vehicles" on the page`);
  });

  await check('a narrow window puts the panel under the world, which keeps the width', async () => {
    const boxes = () => page.evaluate(() => ['view', 'side'].map((id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height };
    }));
    const side = (b) => document.getElementById('side').scrollWidth <= b;
    let [view, panel] = await boxes();
    expect(panel.x >= view.x + view.w - 1 && view.w >= 800, `wide: view ${JSON.stringify(view)}, panel ${JSON.stringify(panel)}`);
    expect(await page.evaluate(side, panel.w), 'the wide panel scrolls sideways');
    await page.setViewport({ width: 500, height: 700 });
    await waitFor(async () => { [view, panel] = await boxes(); return panel.y >= view.y + view.h - 1; },
      'the panel under the world');
    expect(view.w >= 480 && view.h >= 240 && panel.w >= 480,
      `narrow: view ${JSON.stringify(view)}, panel ${JSON.stringify(panel)}`);
    await page.setViewport({ width: 1200, height: 800 });
    await waitFor(async () => { [view, panel] = await boxes(); return panel.x >= view.x + view.w - 1; },
      'the panel beside the world again');
  });

  await check('the plots span a minute from their first point, not years', async () => {
    await waitFor(() => page.evaluate(() => window.steer.plots.data[0][0].length >= 1), 'a first point');
    const spans = await page.evaluate(() => window.steer.plots.plots.map((u) => u.scales.x.max - u.scales.x.min));
    expect(spans.every((s) => s >= 60 && s < 400), `x spans of ${spans.join(', ')} s`);
  });

  let lone;
  await check('a screenshot has a vehicle\'s colour where the vehicle is', async () => {
    expect((await text(s, 'pause')).startsWith('OK'), 'pause');
    lone = await colourAtLoneVehicle(page, (await stats(s)).tick);
  });

  await check('without WebGL 2, the page draws the vehicles into its pixels', async () => {
    const flat = await openPage(s, '', (p) => p.evaluateOnNewDocument(() => {
      const getContext = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
        return kind === 'webgl2' ? null : getContext.call(this, kind, ...rest);
      };
    }));
    try {
      expect(await flat.evaluate(() => window.steer.renderer.kind === 'pixels'), 'the page did not draw them itself');
      await colourAtLoneVehicle(flat, (await stats(s)).tick);
      expect(flat.errors.length === 0, flat.errors.join('; '));
    } finally {
      await flat.close();
    }
  });

  await check('with ?webgl=on, WebGL 2 draws the vehicles, though software here', async () => {
    const gl = await openPage(s, '?webgl=on');
    try {
      expect(await gl.evaluate(() => window.steer.renderer.kind === 'webgl'), 'the page did not use WebGL 2');
      await colourAtLoneVehicle(gl, (await stats(s)).tick);
      expect(gl.errors.length === 0, gl.errors.join('; '));
    } finally {
      await gl.close();
    }
  });

  await check('a click selects the vehicle under it', async () => {
    expect(lone, 'no vehicle to click');
    await page.mouse.click(lone.x, lone.y);
    await waitFor(() => page.$eval('#selected', (e, id) => e.textContent.startsWith(`vehicle ${id}\n`), lone.id),
      `vehicle ${lone.id} selected`);
  });

  await check('a command typed in the page changes the world a terminal client sees', async () => {
    const session = `steer-web-${process.pid}`;
    sessions.push(session);
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '100', '-y', '30',
      `${TUI} --port ${s.proto} --cmd-port ${s.cmd}`]);
    const before = (await stats(s)).vehicles;
    const screen = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session]).toString();
    await waitFor(() => screen().includes(`vehicles ${before}/`), () => `the terminal client's count:\n${screen()}`);
    const reply = await typeCommand(page, 'spawn flock 40 500 300 30');
    expect(reply.startsWith('OK'), `reply: ${reply}`);
    await waitFor(() => screen().includes(`vehicles ${before + 40}/`), () => `${before + 40} in the terminal client:\n${screen()}`);
  });

  await check('who did what reaches the page as a notice', async () => {
    const replies = await textLines(s, ['name bob', 'pause', 'resume']);
    expect(replies.every((r) => r.startsWith('OK')), replies.join(' | '));
    await waitFor(() => page.$eval('#notices', (e) => /bob paused/.test(e.textContent) && /bob resumed/.test(e.textContent)),
      'notices that bob paused and resumed');
  });

  await check('the timeline rewinds, and Live comes back', async () => {
    expect((await text(s, 'resume')).startsWith('OK'), 'resume');
    await waitFor(async () => (await stats(s)).tick > 240, 'four seconds of ticks');
    const st = await stats(s);
    const to = st.tick - 120;
    await page.waitForFunction((t) => Number(document.getElementById('tick-slider').max) >= t, { timeout: WAIT_MS, polling: 50 }, st.tick);
    await page.$eval('#tick-slider', (el, t) => {
      el.value = String(t);
      el.dispatchEvent(new Event('input'));
      el.dispatchEvent(new Event('change'));
    }, to);
    await waitFor(async () => {
      const now = await stats(s);
      return now.past && now.tick === to;
    }, `the world at tick ${to}`);
    await page.waitForFunction(() => document.getElementById('tick-label').textContent.startsWith('past:'), { timeout: WAIT_MS, polling: 50 });
    await page.click('#live');
    await waitFor(async () => {
      const now = await stats(s);
      return !now.past && !now.paused && now.tick > st.tick;
    }, 'the live world running again');
  });

  await check('a followed vehicle stays in view across a wrapping edge', async () => {
    const reply = await text(s, 'spawn 500 570 vy=40');
    expect(reply.startsWith('OK'), `spawn: ${reply}`);
    const id = JSON.parse(reply.slice(3)).id;
    const follower = await openPage(s, `#x=500&y=570&zoom=4&follow=${id}`);
    try {
      // Past the edge at y 600 and on to y 100 and more, seen by the server.
      let crossed = false;
      await waitFor(async () => {
        const y = JSON.parse((await text(s, `get ${id}`)).slice(3)).y;
        crossed = crossed || y < 300;
        return crossed && y > 100;
      }, `vehicle ${id} across the edge`);
      await follower.waitForFunction((vid) => {
        const { state, cam } = window.steer;
        const k = state.cur && state.cur.index.get(vid);
        return k !== undefined && state.cur.y[k] > 100 && state.cur.y[k] < 300 && Math.abs(cam.cy - state.cur.y[k]) < 20;
      }, { timeout: WAIT_MS, polling: 50 }, id);
      expect(follower.errors.length === 0, follower.errors.join('; '));
    } finally {
      await follower.close();
    }
  });

  await check('without the token commands are refused; with it they run', async () => {
    const t = await startServer(['--scenario', 'flock', '--token', 'a-web-test-token-9f3c']);
    const anon = await openPage(t);
    const refused = await typeCommand(anon, 'spawn 10 10');
    expect(refused.startsWith('ERR') && /token/i.test(refused), `without the token: ${refused}`);
    const owner = await openPage(t, '#token=a-web-test-token-9f3c');
    const ran = await typeCommand(owner, 'spawn 10 10');
    expect(ran.startsWith('OK'), `with the token: ${ran}`);
    await anon.close();
    await owner.close();
    await stopServer(t);
  });

  await check('an error page is answered with its status, and its stylesheet is there', async () => {
    const get = (path, method = 'GET') => new Promise((resolve) => {
      // a connection each: the server closes one after a 405
      const req = http.request({ host: '127.0.0.1', port: s.web, path, method, agent: false }, (res) => {
        let body = '';
        res.on('data', (d) => { body += d; });
        res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
      });
      req.on('error', (e) => resolve({ status: e.message, body: '' }));
      req.end();
    });
    const missing = await get('/no-such-file');
    const posted = await get('/', 'POST');
    expect(missing.status === 404, `GET /no-such-file: ${missing.status}`);
    expect(posted.status === 405, `POST /: ${posted.status}`);
    const css = /href="([^"]+\.css)"/.exec(missing.body);
    expect(css, `no stylesheet in the 404 page: ${missing.body}`);
    if (css) {
      const sheet = await get(css[1]);
      expect(sheet.status === 200 && /text\/css/.test(sheet.type) && sheet.body.includes('h1'),
        `${css[1]}: ${sheet.status} ${sheet.type}`);
    }
  });

  await check('a WebSocket from a page of another origin is refused', async () => {
    const upgrade = (origin) => new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: s.web, path: '/ws', headers: {
        Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'steer', Origin: origin } });
      req.on('upgrade', (res, sock) => { sock.destroy(); resolve(101); });
      req.on('response', (res) => { res.resume(); resolve(res.statusCode); });
      req.on('error', () => resolve('closed'));
      req.end();
    });
    const same = await upgrade(`http://127.0.0.1:${s.web}`);
    const other = await upgrade('http://evil.example');
    expect(same === 101, `same origin: ${same}`);
    expect(other !== 101, `another origin: ${other}`);
  });

  await check('the page reconnects after the server restarts', async () => {
    await page.bringToFront();
    const port = s.web;
    await stopServer(s);
    await page.waitForFunction(() => document.getElementById('status').textContent.includes('trying again'),
      { timeout: WAIT_MS, polling: 50 });
    const again = await startServer(['--scenario', 'flock'], port);
    await page.waitForFunction(() => document.getElementById('status').textContent === 'live', { timeout: WAIT_MS, polling: 50 });
    const st = await stats(again);
    await waitFor(() => page.$eval('#world-info', (e, n) => e.textContent.includes(`${n} vehicles`), st.vehicles),
      'the new world\'s count');
    await stopServer(again);
  });

  await check('WebGL 2 is software here (SwiftShader): the page drew the vehicles itself', async () => {
    expect(await page.evaluate(() => window.steer.renderer.kind === 'pixels'), 'the page drew them by WebGL 2');
  });

  await check('the page ran without script errors', async () => {
    expect(page.errors.length === 0, page.errors.join('; '));
  });

  await browser.close();
  done();
}

main().catch(crashed);
