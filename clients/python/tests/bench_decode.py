"""How fast the installed package decodes a flock's frames: starts a server with a
flock of each size, records 40 compact frames (cols=rows=1024, the default) and 40
plain ones of the whole world, then times decoding them (CPU time, so other load
on the machine does not count), five times, and prints the medians. Not a test:

    STEER_SERVER=build/server/steer-server \\
        build/clients/python/venv/bin/python clients/python/tests/bench_decode.py 1000 10000
"""
import statistics
import sys
import time

from harness import Server

import steer
from steer import codec, steer_pb2


def record(c, compact, n):
    """n raw frames of the stream, as the reader thread saw them."""
    raw = []
    orig = c._dispatch

    def tap(body):
        if body and body[0] == (0x22 if compact else 0x12):
            raw.append(body)
        orig(body)

    c._dispatch = tap
    c.stats()  # the reader thread has looked the method up again since
    w = c.watch(compact=compact, density="never")
    while len(raw) < n:
        w.next()
    c._dispatch = orig
    w.close()
    msgs = [steer_pb2.ServerMessage.FromString(b) for b in raw]
    if compact:  # from the first key frame on, as a client decodes them
        first = next(k for k, m in enumerate(msgs) if m.compact.base_seq == 0)
        raw, msgs = raw[first:], msgs[first:]
    return raw, msgs


def decode_ms(msgs, compact):
    runs = []
    for _ in range(5):
        d = codec.CompactDecoder()
        t0 = time.process_time()
        for m in msgs:
            if compact:
                f = codec.compact_frame(m.compact, d.decode(m.compact), None)
            else:
                f = codec.plain_frame(m.snapshot, None)
            f.vehicles  # noqa: B018 - made on first use
        runs.append((time.process_time() - t0) / len(msgs) * 1e3)
    return statistics.median(runs)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 10000]
    print(f"{'vehicles':>9} {'kind':>8} {'bytes/frame':>12} {'ms/frame':>9}")
    for n in sizes:
        srv = Server()
        try:
            with steer.connect("127.0.0.1", srv.proto_port) as c:
                c.spawn("flock", n, 500, 300, 280)
                for compact in (True, False):
                    raw, msgs = record(c, compact, 40)
                    size = statistics.median(len(b) for b in raw[1:])  # deltas, not the key
                    print(f"{n:9d} {'compact' if compact else 'plain':>8} {size:12.0f} "
                          f"{decode_ms(msgs, compact):9.1f}", flush=True)
        finally:
            srv.stop()


if __name__ == "__main__":
    sys.exit(main())
