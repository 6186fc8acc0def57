// The wire: the messages of wire/steer.proto, generated at build time by protoc with
// protoc-gen-es, encoded and decoded by @bufbuild/protobuf (no code is evaluated at
// run time, so the page's Content-Security-Policy can forbid it).
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { ClientMessageSchema, ServerMessageSchema } from '@steer/wire';

export const PROTOCOL_VERSION = 3;
export const EDGES_WRAP = 0; // Edges.WRAP
export const EDGES_NONE = 2; // Edges.NONE
export const DENSITY_ALWAYS = 1; // Density.DENSITY_ALWAYS

// One ServerMessage as { kind: 'snapshot' | 'reply' | ..., body }.
export function decodeServer(bytes) {
  const m = fromBinary(ServerMessageSchema, bytes);
  return { kind: m.msg.case, body: m.msg.value };
}

// One ClientMessage from its kind ('hello', 'command', 'viewport') and body.
export function encodeClient(kind, body) {
  return toBinary(ClientMessageSchema, create(ClientMessageSchema, { msg: { case: kind, value: body } }));
}

// Bit k of a vehicle's behaviors (Snapshot.behaviors).
export const BEHAVIORS = ['seek', 'flee', 'arrive', 'pursue', 'evade', 'wander', 'avoid', 'path',
  'flock', 'follow', 'hide', 'interpose', 'goto'];
export const BIT = Object.fromEntries(BEHAVIORS.map((name, k) => [name, 1 << k]));
