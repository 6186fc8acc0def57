// The WebSocket to steer-server: the same protobuf messages as its TCP stream, one
// per WebSocket message. Reconnects by itself, saying why while it cannot.
import { PROTOCOL_VERSION, decodeServer, encodeClient } from './proto.js';

export class Link {
  constructor({ url, name, token, onMessage, onStatus, onOpen }) {
    this.url = url;
    this.name = name;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onOpen = onOpen;
    this.ws = null;
    this.nextId = 1;
    this.waiting = new Map(); // request_id -> resolve
    this.retryMs = 250;
    this.bytes = 0; // received, for bytes a second
    this.decodeMs = 0; // spent decoding them
    this.lastClose = '';
  }

  connect() {
    const ws = new WebSocket(this.url, 'steer');
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    ws.onopen = () => {
      this.retryMs = 250;
      this.onStatus('connected', '');
      this.send('hello', { protocolVersion: PROTOCOL_VERSION, client: this.name, token: this.token });
      this.onOpen();
    };
    ws.onmessage = (ev) => {
      const bytes = new Uint8Array(ev.data);
      this.bytes += bytes.length;
      let msg;
      const t0 = performance.now();
      try {
        msg = decodeServer(bytes);
        this.decodeMs += performance.now() - t0;
      } catch (err) {
        this.onStatus('error', `a message from the server could not be read: ${err.message}`);
        return;
      }
      if (msg.kind === 'reply') {
        const done = this.waiting.get(msg.body.requestId);
        if (done) {
          this.waiting.delete(msg.body.requestId);
          done(msg.body);
        }
      }
      this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      for (const done of this.waiting.values()) done({ ok: false, error: 'the connection closed', json: '' });
      this.waiting.clear();
      const why = ev.reason || (ev.code === 1006 ? 'the server cannot be reached' : `closed (${ev.code})`);
      this.lastClose = why;
      const wait = this.retryMs;
      this.retryMs = Math.min(5000, this.retryMs * 2);
      this.onStatus('disconnected', `${why}; trying again in ${(wait / 1000).toFixed(1)} s`);
      setTimeout(() => this.connect(), wait);
    };
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  send(kind, body) {
    if (this.open) this.ws.send(encodeClient(kind, body));
  }

  // Runs one line of the server's command grammar; resolves with its Reply.
  command(line) {
    if (!this.open) return Promise.resolve({ ok: false, error: 'not connected', json: '' });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send('command', { requestId: id, body: { case: 'line', value: line } });
    });
  }
}
