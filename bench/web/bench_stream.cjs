// What one watcher of the whole world receives from a real server, over the
// protobuf port (TCP) and over the page's WebSocket, in interleaved rounds: bytes a
// second, medians. Both readers are raw sockets that only count, so neither side is
// held back by a client's decoding. With many vehicles the server falls behind its
// clock, and each loop turn is mostly a tick: what a connection gets a turn decides
// its rate. Prints a table; asserts nothing (a benchmark, not a test).
//
//   node bench/web/bench_stream.cjs [--server build/server/steer-server]
//     [--vehicles 60000] [--seconds 8] [--rounds 3]
const net = require('net');
const path = require('path');
const { startServer, stopServer, text } = require(path.join(__dirname, '../../tests/web/steerweb.cjs'));

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const SERVER = opt('server', 'build/server/steer-server');
const VEHICLES = Number(opt('vehicles', 60000));
const SECONDS = Number(opt('seconds', 8));
const ROUNDS = Number(opt('rounds', 3));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Bytes a second read on one connection over SECONDS, after the first second.
function rate(port, hello) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let bytes = 0, counting = false;
    sock.on('connect', () => { if (hello) sock.write(hello); });
    sock.on('data', (d) => { if (counting) bytes += d.length; });
    sock.on('error', reject);
    setTimeout(() => { counting = true; }, 1000);
    setTimeout(() => {
      sock.destroy();
      resolve(bytes / SECONDS);
    }, 1000 + SECONDS * 1000);
  });
}

async function main() {
  const s = await startServer(['--world', '6000x4000'], 0, SERVER);
  const reply = await text(s, `spawn flock ${VEHICLES} 3000 2000 2900`);
  if (!reply.startsWith('OK')) throw new Error(reply.slice(0, 200));
  const upgrade = `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${s.web}\r\nUpgrade: websocket\r\n` +
    'Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
    `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: steer\r\nOrigin: http://127.0.0.1:${s.web}\r\n\r\n`;
  const got = { tcp: [], ws: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? ['ws', 'tcp'] : ['tcp', 'ws'];
    for (const k of order) got[k].push(await (k === 'tcp' ? rate(s.proto) : rate(s.web, upgrade)));
  }
  const st = JSON.parse((await text(s, 'stats')).slice(3));
  await stopServer(s);
  console.log(`one watcher of ${VEHICLES + 200} vehicles, ${ROUNDS} rounds of ${SECONDS} s interleaved, ` +
    `medians (the tick: p50 ${st.tick_ms_p50.toFixed(1)} ms, ${st.ticks_dropped} ticks dropped):`);
  for (const k of ['tcp', 'ws'])
    console.log(`  ${k === 'tcp' ? 'protobuf port' : 'WebSocket    '}  ${(median(got[k]) / 1e6).toFixed(2)} MB/s` +
      `  (rounds: ${got[k].map((x) => (x / 1e6).toFixed(2)).join(', ')})`);
}

main().catch((e) => { console.error(e); process.exit(1); });
