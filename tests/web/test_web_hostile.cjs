// Hostile WebSocket clients against a real server: ones that never read, send a
// frame too large, a text frame, bytes that are not WebSocket, stall half-way through
// the handshake, or come a thousand at once. Each is refused or closed, and a
// well-behaved watcher keeps its snapshots, the text port its answers, and the server
// its memory. Prints "N passed, N failed" as the other tests do.
const { spawn } = require('child_process');
const fs = require('fs');
const net = require('net');
const { startServer, stopServer, text, textLines, stats, waitFor, check, expect, done, crashed } =
  require('./steerweb.cjs');

let server;
const QUICK = process.argv.includes('--quick');

function fds() {
  return fs.readdirSync(`/proc/${server.proc.pid}/fd`).length;
}

function rssMb() {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
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

// A well-behaved watcher (Node's WebSocket) in a process of its own, so that the
// hostile clients this one makes cannot keep it from reading: it prints the messages
// it got each second, and why it was closed if it was.
const WATCHER = `
  const ws = new WebSocket(process.argv[1], 'steer');
  ws.binaryType = 'arraybuffer';
  let count = 0;
  ws.onopen = () => console.log('open');
  ws.onmessage = () => { count++; };
  ws.onclose = (ev) => { console.log('closed ' + ev.code + ' ' + ev.reason); process.exit(0); };
  setInterval(() => { console.log(String(count)); count = 0; }, 1000);
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();`;

function watcher() {
  const w = { perSecond: [], open: false, closed: false, why: '' };
  w.proc = spawn(process.execPath, ['--experimental-websocket', '--no-warnings', '-e', WATCHER,
    `ws://127.0.0.1:${server.web}/ws`], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  w.proc.stdout.on('data', (d) => {
    out += d;
    const lines = out.split('\n');
    out = lines.pop();
    for (const line of lines) {
      if (line === 'open') w.open = true;
      else if (line.startsWith('closed')) {
        w.closed = true;
        w.why = line.slice(7);
      } else w.perSecond.push(Number(line));
    }
  });
  w.stop = () => w.proc.stdin.end();
  return w;
}

async function main() {
  // Few slots, a short idle limit, and snapshots of a few hundred kilobytes: the
  // limits are reached in seconds. --quick (the sanitizer build, where a server of
  // that size falls far behind its clock) leaves out the clients that need them: the
  // non-readers and the thousand.
  server = await startServer(['--scenario', 'flock', '--max-clients', '40', '--idle-timeout', '3']);
  if (!QUICK)
    expect((await text(server, 'spawn flock 6000 500 300 290')).startsWith('OK'), 'spawn');
  const good = watcher();
  await waitFor(() => good.open && good.perSecond.length >= 2, 'the watcher\'s first seconds');
  const rss0 = rssMb();

  if (!QUICK) await check('WebSockets that never read are closed, and hold no more than their share', async () => {
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
    await waitFor(async () => (held = (await stats(server)).clients) >= 20, () => `the non-readers connected (${held})`);
    await waitFor(async () => (held = (await stats(server)).clients) <= 2, () => `${held} clients still held`);
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

  if (!QUICK) await check('a thousand WebSockets at once: those past --max-clients are refused', async () => {
    const socks = [];
    for (let i = 0; i < 1000; i++) socks.push(rawSocket(HANDSHAKE(server.web)));
    const all = await Promise.all(socks);
    // Refused ones are told so and closed by the server; the rest hold a slot each.
    await waitFor(() => all.filter((s) => s.closed).length >= 1000 - 40,
      () => `${all.filter((s) => s.closed).length} of 1000 refused`);
    for (const s of all) s.destroy();
    await waitFor(async () => {
      try {
        return (await stats(server)).clients <= 2;
      } catch {
        return false;
      }
    }, 'the thousand gone, and the text port answering');
    expect(!good.closed, `the watcher was closed (${good.why})`);
  });

  await check('the watcher kept its snapshots throughout, and the server its memory', async () => {
    // Every second counted, bar the first; a second or two of the thousand's handshakes
    // may leave it nothing, three in a row would be the server not serving it.
    const seconds = good.perSecond.slice(1);
    const mean = seconds.reduce((a, b) => a + b, 0) / seconds.length;
    const gap = seconds.some((n, i) => n === 0 && seconds[i + 1] === 0 && seconds[i + 2] === 0);
    expect(!good.closed, `the watcher was closed (${good.why}) after ${good.perSecond.length} s: ${good.perSecond.join(' ')}; ` +
      server.log.split('\n').filter((l) => /client 2 |fell behind|throttl/.test(l)).join('\n'));
    expect(mean >= 5 && !gap, `the watcher's messages a second: ${seconds.join(' ')}`);
    expect(rssMb() < rss0 + 150, `the server grew from ${rss0.toFixed(0)} to ${rssMb().toFixed(0)} MB`);
  });

  good.stop();
  await stopServer(server);

  if (!QUICK) await check('snapshots of megabytes reach a WebSocket whole', async () => {
    // The whole world, 60,000 vehicles, in every snapshot: far longer than what the
    // relay reads ahead.
    const big = await startServer(['--world', '4000x3000']);
    const replies = await textLines(big, ['spawn flock 60000 2000 1500 1400', 'pause']);
    expect(replies.every((r) => r.startsWith('OK')), replies.map((r) => r.slice(0, 40)).join(' | '));
    const ws = new WebSocket(`ws://127.0.0.1:${big.web}/ws`, 'steer');
    ws.binaryType = 'arraybuffer';
    let large = 0;
    ws.onmessage = (ev) => { if (ev.data.byteLength > 1000000) large++; };
    await waitFor(() => large >= 5, () => `five snapshots over 1 MB (${large})`);
    ws.close();
    await stopServer(big);
  });
  done();
}

main().catch(crashed);
