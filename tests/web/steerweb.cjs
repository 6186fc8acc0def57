// The process side of the page's tests and bench: steer-server on free loopback
// ports (the page's too), the text port, waiting for an event by polling, and checks
// counted as the C tests count them. Every server started is killed at exit if a
// failed test left it running.
const { spawn } = require('child_process');
const fs = require('fs');
const net = require('net');

const SERVER = process.env.STEER_SERVER || 'steer-server';
// How long waitFor waits: generous, for a loaded two-core machine with a sanitizer
// build beside.
const WAIT_MS = 30000;

const servers = [];
process.on('exit', () => {
  for (const s of servers) if (s.proc.exitCode === null) s.proc.kill('SIGKILL');
});

// A steer-server with args, the page on httpPort (0: a free one) and a data
// directory of its own; resolves once it listens on all three ports, with them as
// s.proto, s.cmd and s.web.
function startServer(args, httpPort = 0, server = SERVER) {
  return new Promise((resolve, reject) => {
    const proc = spawn(server, ['--port', '0', '--cmd-port', '0', '--http', String(httpPort),
      '--no-journal', '--data-dir', fs.mkdtempSync('/tmp/steer-web-'), ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] });
    const s = { proc, log: '' };
    servers.push(s);
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

// SIGTERM; resolves when it has exited.
function stopServer(s) {
  return new Promise((resolve) => {
    if (s.proc.exitCode !== null) return resolve();
    s.proc.removeAllListeners('exit');
    s.proc.on('exit', () => resolve());
    s.proc.kill('SIGTERM');
  });
}

// Lines sent on one text connection: their reply lines.
function textLines(s, lines) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(s.cmd, '127.0.0.1');
    let got = '';
    sock.setTimeout(WAIT_MS, () => {
      sock.destroy();
      reject(new Error(`no reply to ${lines.join('; ')}`));
    });
    sock.on('connect', () => sock.write(lines.join('\n') + '\n'));
    sock.on('data', (d) => {
      got += d;
      const replies = got.split('\n').slice(0, -1);
      if (replies.length >= lines.length) {
        sock.destroy();
        resolve(replies);
      }
    });
    sock.on('error', reject);
  });
}

async function text(s, line) {
  return (await textLines(s, [line]))[0];
}

async function stats(s) {
  return JSON.parse((await text(s, 'stats')).replace(/^OK /, ''));
}

// Polls predicate (it may be async) until it returns something true, and returns
// that; fails naming what was awaited (a string, or a function making one).
async function waitFor(predicate, what) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const counts = { passed: 0, failed: 0 };

async function check(name, fn) {
  try {
    await fn();
    counts.passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    counts.failed++;
    console.log(`FAIL ${name}: ${err.message}`);
  }
}

function expect(cond, what) {
  if (!cond) throw new Error(what);
}

// Prints the count and exits: non-zero when a check failed.
function done() {
  console.log(`${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed ? 1 : 0);
}

// For main().catch: an error outside any check.
function crashed(err) {
  console.log(`FAIL ${err.stack}`);
  counts.failed++;
  done();
}

// Chromium's flags for a closed machine (no background network) run as root, with
// WebGL on the CPU as on a machine without a GPU.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
  '--enable-unsafe-swiftshader'];
const CHROMIUM = process.env.STEER_CHROMIUM || '/usr/bin/chromium';

module.exports = { WAIT_MS, CHROMIUM, CHROMIUM_ARGS, startServer, stopServer, text, textLines, stats,
  waitFor, check, expect, done, crashed };
