// Hostile WebSocket clients against a real server: ones that never read, send a
// frame too large, a text frame, bytes that are not WebSocket, stall half-way through
// the handshake, or come a thousand at once. Each is refused or closed, and a
// well-behaved watcher keeps its snapshots, the text port its answers, and the server
// its memory. Prints "N passed, N failed" as the other tests do.
const { spawn } = require('child_process');
const fs = require('fs');
const net = require('net');

const SERVER = process.env.STEER_SERVER || 'steer-server';
const WAIT_MS = 30000;

let passed = 0, failed = 0;
let server;
process.on('exit', () => { if (server && server.proc.exitCode === null) server.proc.kill('SIGKILL'); });

function startServer(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(SERVER, ['--port', '0', '--cmd-port', '0', '--http', '0', '--no-journal',
      '--data-dir', fs.mkdtempSync('/tmp/steer-web-'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const s = { proc, log: '' };
    let out = '';
    proc.stderr.on('data', (d) => { s.log += d; });
    proc.stdout.on('data', (d) => {
      out += d;
      for (const line of out.split('\n')) {
        const m = /^listening (\w+) .*:(\d+)$/.exec(line);
        if (m) s[m[1]] = Number(m[2]);
      }
      if (s.proto && s.cmd && s.web) resolve(s);
    });
    proc.on('exit', (code) => reject(new Error(`steer-server exited (${code}): ${s.log}`)));
  });
}

function text(line) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(server.cmd, '127.0.0.1');
    let got = '';
    sock.setTimeout(WAIT_MS, () => { sock.destroy(); reject(new Error(`no reply to ${line}`)); });
    sock.on('connect', () => sock.write(line + '\n'));
    sock.on('data', (d) => {
      got += d;
      const nl = got.indexOf('\n');
      if (nl >= 0) {
        sock.destroy();
        resolve(got.slice(0, nl));
      }
    });
    sock.on('error', reject);
  });
}

async function stats() {
  return JSON.parse((await text('stats')).replace(/^OK /, ''));
}

function fds() {
  return fs.readdirSync(`/proc/${server.proc.pid}/fd`).length;
}

function rssMb() {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
}

async function waitFor(predicate, what) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err.message}`);
  }
}

function expect(cond, what) {
  if (!cond) throw new Error(what);
}

function textOk(line) {
  return text(line).catch(() => 'ERR');
}

// A raw TCP client that does the WebSocket handshake by hand and then does only
// what a test tells it: the hostile clients a browser never is.
function rawSocket(request) {
  return new Promise((resolve) => {
    const sock = net.connect(server.web, '127.0.0.1');
    sock.head = '';
    sock.closed = false;
    sock.on('close', () => { sock.closed = true; });
    sock.resume(); // reads and drops what comes, unless a test pauses it
    sock.on('error', () => {});
    sock.on('connect', () => {
      if (request !== undefined) sock.write(request);
      resolve(sock);
    });
  });
}

const HANDSHAKE = (port) => 'GET /ws HTTP/1.1\r\nHost: 127.0.0.1:' + port +
  '\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
  'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: steer\r\n\r\n';

// A masked client frame header: opcode, and a payload length it claims.
function frameHeader(opcode, length) {
  const mask = [1, 2, 3, 4];
  if (length < 126) return Buffer.from([0x80 | opcode, 0x80 | length, ...mask]);
  const b = Buffer.alloc(14);
  b[0] = 0x80 | opcode;
  b[1] = 0x80 | 127;
  b.writeBigUInt64BE(BigInt(length), 2);
  b.set(mask, 10);
  return b;
}

// A well-behaved watcher (Node's WebSocket): counts the messages it gets each second.
function watcher() {
  const w = { perSecond: [], count: 0, open: false, closed: false };
  const ws = new WebSocket(`ws://127.0.0.1:${server.web}/ws`, 'steer');
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => { w.open = true; };
  ws.onmessage = () => { w.count++; };
  ws.onclose = () => { w.closed = true; };
  w.timer = setInterval(() => { w.perSecond.push(w.count); w.count = 0; }, 1000);
  w.stop = () => { clearInterval(w.timer); ws.close(); };
  return w;
}

async function main() {
  // Few slots, a short idle limit, and snapshots of a few hundred kilobytes: the
  // limits are reached in seconds.
  server = await startServer(['--scenario', 'flock', '--max-clients', '40', '--idle-timeout', '3']);
  expect((await text('spawn flock 6000 500 300 290')).startsWith('OK'), 'spawn');
  const good = watcher();
  await waitFor(() => good.open && good.perSecond.length >= 2, 'the watcher\'s first seconds');
  const rss0 = rssMb();

  await check('WebSockets that never read are closed, and hold no more than their share', async () => {
    const fds0 = fds();
    const socks = [];
    for (let i = 0; i < 20; i++) {
      const s = await rawSocket(HANDSHAKE(server.web));
      s.pause(); // never reads: the server's writes back up
      socks.push(s);
    }
    // Closed by the server: a client that reads nothing cannot see it, so the
    // server's count of clients tells (the watcher and the one asking are left).
    let held = 0;
    await waitFor(async () => (held = (await stats()).clients) >= 20, () => `the non-readers connected (${held})`);
    await waitFor(async () => (held = (await stats()).clients) <= 2, () => `${held} clients still held`);
    // And their WebSockets too, not only the connections they were relayed to.
    await waitFor(() => fds() <= fds0 + 2, () => `${fds()} descriptors open, ${fds0} before`);
    expect(rssMb() < rss0 + 150, `the server grew from ${rss0.toFixed(0)} to ${rssMb().toFixed(0)} MB`);
    for (const s of socks) s.destroy();
  });

  await check('a frame over the size limit closes that WebSocket', async () => {
    const s = await rawSocket(HANDSHAKE(server.web));
    await waitFor(() => true, '');
    s.write(frameHeader(2, 1 << 30));
    s.write(Buffer.alloc(64 * 1024));
    await waitFor(() => s.closed, 'the oversized frame\'s connection closed');
  });

  await check('a text frame closes that WebSocket', async () => {
    const s = await rawSocket(HANDSHAKE(server.web));
    s.write(Buffer.concat([frameHeader(1, 5), Buffer.from('hello').map((c, i) => c ^ [1, 2, 3, 4][i % 4])]));
    await waitFor(() => s.closed, 'the text frame\'s connection closed');
  });

  await check('bytes that are not HTTP close the connection', async () => {
    const s = await rawSocket(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0xff, 0xfe, 0x00, 0x0d, 0x0a, 0x0d, 0x0a]));
    await waitFor(() => s.closed, 'the garbage connection closed');
  });

  await check('a handshake left half-way is closed after its timeout', async () => {
    const s = await rawSocket('GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await waitFor(() => s.closed, 'the stalled handshake closed');
  });

  await check('a thousand WebSockets at once: those past --max-clients are refused', async () => {
    const socks = [];
    for (let i = 0; i < 1000; i++) socks.push(rawSocket(HANDSHAKE(server.web)));
    const all = await Promise.all(socks);
    // Refused ones are told so and closed by the server; the rest hold a slot each.
    await waitFor(() => all.filter((s) => s.closed).length >= 1000 - 40,
      () => `${all.filter((s) => s.closed).length} of 1000 refused`);
    for (const s of all) s.destroy();
    await waitFor(async () => {
      try {
        return (await stats()).clients <= 2;
      } catch {
        return false;
      }
    }, 'the thousand gone, and the text port answering');
  });

  await check('the watcher kept its snapshots throughout, and the server its memory', async () => {
    const seconds = good.perSecond.slice(1);
    const low = Math.min(...seconds);
    expect(!good.closed, 'the watcher was closed');
    expect(low >= 5, `the watcher's messages a second: ${seconds.join(' ')}`);
    expect(rssMb() < rss0 + 150, `the server grew from ${rss0.toFixed(0)} to ${rssMb().toFixed(0)} MB`);
  });

  good.stop();
  server.proc.removeAllListeners('exit');
  server.proc.kill('SIGTERM');
  await new Promise((r) => server.proc.on('exit', r));
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.log(`FAIL ${err.stack}`);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
});
