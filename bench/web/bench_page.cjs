// The page's figures, measured against a real server: frame times in headless
// Chromium with many vehicles in view, and the server's tick with many WebSocket
// watchers beside it (interleaved with none, medians). Beside the page's frames, a
// blank page's: what the browser gives on this machine with nothing to draw. Prints a
// table; asserts nothing (a benchmark, not a test).
//
//   NODE_PATH=build/web/npm/node_modules node --experimental-websocket \
//     bench/web/bench_page.cjs [--server build/server/steer-server] [--vehicles 10000]
//     [--watchers 50] [--seconds 10] [--rounds 3] [--select]
//   --select: a vehicle is selected while the frames are timed (the page then shows
//   its 2-D overlay above the WebGL canvas, or draws its aids over its own pixels)
const path = require('path');
const puppeteer = require('puppeteer-core');
const { CHROMIUM, CHROMIUM_ARGS, startServer, stopServer, text } =
  require(path.join(__dirname, '../../tests/web/steerweb.cjs'));

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const SERVER = opt('server', 'build/server/steer-server');
const VEHICLES = Number(opt('vehicles', 10000));
const WATCHERS = Number(opt('watchers', 50));
const SECONDS = Number(opt('seconds', 10));
const ROUNDS = Number(opt('rounds', 3));
const SELECT = args.includes('--select');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.floor(p * v.length))] : NaN;
};
const median = (xs) => pct(xs, 0.5);

async function frames(s, browser, query) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(`http://127.0.0.1:${s.web}/${query}`);
  await page.waitForFunction((n) => window.steer.state.cur && window.steer.state.cur.n >= n,
    { timeout: 60000, polling: 100 }, VEHICLES * 0.9);
  if (SELECT) {
    await page.waitForFunction(() => {
      const cur = window.steer.state.cur;
      if (!cur || cur.n < 6) return false;
      window.steer.state.selected = cur.id[5];
      return true;
    }, { timeout: 60000, polling: 100 });
  }
  await sleep(2000);
  await page.evaluate(() => { window.steer.perf.frameMs.length = 0; });
  const draws = [];
  const busy0 = await page.evaluate(() => [window.steer.link.decodeMs, window.steer.perf.receiveMs]);
  const t0 = Date.now();
  while (Date.now() - t0 < SECONDS * 1000) {
    draws.push(await page.evaluate(() => window.steer.perf.drawMs));
    await sleep(100);
  }
  const ms = await page.evaluate(() => window.steer.perf.frameMs.slice());
  const busy1 = await page.evaluate(() => [window.steer.link.decodeMs, window.steer.perf.receiveMs]);
  const decode = (busy1[0] - busy0[0]) / SECONDS, receive = (busy1[1] - busy0[1]) / SECONDS;
  const inView = await page.evaluate(() => window.steer.state.cur.n);
  const kind = await page.evaluate(() => window.steer.renderer.kind);
  await page.close();
  return { ms, draws, inView, kind, decode, receive };
}

// The machine's own floor: a blank page of the same size in the same browser, timing
// only its requestAnimationFrame calls while the world runs beside it.
async function blankFrames(browser) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto('about:blank');
  await page.evaluate(() => {
    window.frameMs = [];
    let last = 0;
    const tick = (t) => {
      if (last) window.frameMs.push(t - last);
      last = t;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await sleep(2000);
  await page.evaluate(() => { window.frameMs.length = 0; });
  const t0 = Date.now();
  while (Date.now() - t0 < SECONDS * 1000) {
    await page.evaluate(() => 0); // polled as the page's figures are, for the same load
    await sleep(100);
  }
  const ms = await page.evaluate(() => window.frameMs.slice());
  await page.close();
  return ms;
}

async function tickWith(s, watchers) {
  const open = [];
  for (let i = 0; i < watchers; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${s.web}/ws`, 'steer');
    ws.binaryType = 'arraybuffer';
    ws.bytes = 0;
    ws.onmessage = (ev) => { ws.bytes += ev.data.byteLength; };
    open.push(ws);
  }
  await sleep(3000); // connected, and the tick history filled with this load
  const before = JSON.parse((await text(s, 'stats')).slice(3));
  await sleep(SECONDS * 1000);
  const st = JSON.parse((await text(s, 'stats')).slice(3));
  const bytes = open.reduce((a, w) => a + w.bytes, 0);
  for (const ws of open) ws.close();
  await sleep(1000);
  return { p50: st.tick_ms_p50, p99: st.tick_ms_p99, dropped: st.ticks_dropped - before.ticks_dropped,
    mbps: bytes / 1e6 / (SECONDS + 3) };
}

async function main() {
  const s = await startServer(['--max-clients', String(WATCHERS + 16)], 0, SERVER);
  const reply = await text(s, `spawn flock ${VEHICLES - 152} 500 300 290`);
  if (!reply.startsWith('OK')) throw new Error(reply);
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  // Paused, the server costs the machine only its snapshots; running, its tick
  // takes most of a core of the two this machine has.
  for (const world of ['paused', 'running']) {
    await text(s, world === 'paused' ? 'pause' : 'resume');
    // As the page chooses on this machine (no GPU: its own pixels), then as it
    // would with WebGL 2 however slow (?webgl=on).
    for (const query of ['', '?webgl=on']) {
      const f = await frames(s, browser, query);
      const how = f.kind === 'webgl' ? 'WebGL 2 (software)' : 'the page\'s own pixels';
      console.log(`page${query}, ${f.inView} vehicles in view${SELECT ? ', one selected' : ''}, world ${world}, ` +
        `${SECONDS} s in headless Chromium (no GPU), vehicles drawn by ${how}:`);
      console.log(`  frame interval ms  p50 ${median(f.ms).toFixed(1)}  p95 ${pct(f.ms, 0.95).toFixed(1)}  (${f.ms.length} frames)`);
      console.log(`  draw ms            p50 ${median(f.draws).toFixed(1)}  p95 ${pct(f.draws, 0.95).toFixed(1)}`);
      console.log(`  snapshots: decoding ${f.decode.toFixed(0)} ms a second, then ${f.receive.toFixed(0)} ms taking them in`);
    }
    const blank = await blankFrames(browser);
    console.log(`  a blank page instead, same browser and world: frame interval ms  p50 ${median(blank).toFixed(1)}` +
      `  p95 ${pct(blank, 0.95).toFixed(1)}  (${blank.length} frames)`);
  }
  await browser.close();

  const rows = { 0: [], [WATCHERS]: [] };
  for (let r = 0; r < ROUNDS; r++)
    for (const n of [0, WATCHERS]) rows[n].push(await tickWith(s, n));
  console.log(`server tick with WebSocket watchers (whole-world snapshots), ${ROUNDS} rounds interleaved, medians:`);
  for (const n of [0, WATCHERS]) {
    const xs = rows[n];
    console.log(`  ${String(n).padStart(3)} watchers: tick ms p50 ${median(xs.map((x) => x.p50)).toFixed(3)}` +
      `  p99 ${median(xs.map((x) => x.p99)).toFixed(3)}  ticks dropped ${median(xs.map((x) => x.dropped))}` +
      `  MB/s sent ${median(xs.map((x) => x.mbps)).toFixed(1)}`);
  }
  await stopServer(s);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
