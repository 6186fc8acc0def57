#!/usr/bin/env python3
"""Hostile watchers benchmark (issue 15, failure 1): a 100,000-vehicle flock on a
4000x4000 world (60 Hz), and 100 protobuf watchers that each send a slightly different
whole-world Viewport (x0 = -10 - k*0.001, y0 = -10, x1 = y1 = 4010) and never read.
Each case runs twice on a fresh server, without the watchers and with them, and
prints: the tick rate with them relative to without (target >= 95%), the server's
RSS growth while they are connected (target < 256 MiB), and the round trip of a
healthy client's `stats` every 100 ms (p50 target < 50 ms). Modes: plain snapshots,
and compact 4096x4096 ones. With --repeat N the runs are interleaved (off, on, off,
on...) and the medians printed: on a shared machine single runs vary.

usage: bench/hostile_watchers.py [--server PATH] [--vehicles N] [--watchers N]
                                 [--seconds S] [--mode plain|compact|both] [--repeat N]
                                 [--paused]
Needs the build's steer_pb2 on PYTHONPATH (build/tests/pygen), as scripts/bench.sh
sets. A benchmark: prints, asserts nothing."""
import argparse
import os
import socket
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
import steer_pb2  # noqa: E402
import steertest  # noqa: E402


def watcher(port, k, compact):
    """A protobuf client with its own whole-world view that never reads."""
    s = socket.create_connection(("127.0.0.1", port))
    m = steer_pb2.ClientMessage()
    v = m.viewport
    v.x0, v.y0, v.x1, v.y1 = -10 - k * 0.001, -10, 4010, 4010
    if compact:
        v.compact, v.cols, v.rows = True, 4096, 4096
    d = m.SerializeToString()
    s.sendall(steertest.varint(len(d)) + d)
    return s


def one_run(a, compact, with_watchers):
    srv = steertest.Server("--world", "4000x4000", "--max-clients", str(a.watchers + 20),
                           "--idle-timeout", "0")
    try:
        ctl = srv.text()
        # A short sight keeps the tick near 10 ms: the world ticks at its 60 Hz without
        # the watchers, so what they cost shows.
        ctl.ok(f"spawn flock {a.vehicles} 2000 2000 1900 sight_distance=10 "
               "too_close_distance=5")
        if a.paused:
            ctl.ok("pause")
        time.sleep(2.0)  # the flock settles; the allocator reaches its working size
        rss0 = srv.rss_kib()
        tick0, t0 = ctl.ok("stats")["tick"], time.time()
        socks = [watcher(srv.proto_port, k, compact) for k in range(a.watchers)] \
            if with_watchers else []
        rtts, rss_max = [], rss0
        while time.time() - t0 < a.seconds:
            q = time.time()
            st = ctl.ok("stats")
            rtts.append((time.time() - q) * 1000)
            rss_max = max(rss_max, srv.rss_kib())
            time.sleep(max(0.0, 0.1 - (time.time() - q)))
        elapsed = time.time() - t0
        rate = (st["tick"] - tick0) / elapsed
        for s in socks:
            s.close()
        time.sleep(1.5)  # the server notices them leave and frees what they held
        st_end = ctl.ok("stats")
        rss_after = srv.rss_kib()
        ctl.close()
    except (OSError, EOFError, RuntimeError):
        print(f"the server failed; its log ends:\n{srv.log_text()[-2000:]}", file=sys.stderr)
        raise
    finally:
        srv.stop()
    return {"rate": rate, "rss0": rss0 / 1024, "growth": (rss_max - rss0) / 1024,
            "after": (rss_after - rss0) / 1024, "rtt50": statistics.median(rtts),
            "rtt_max": max(rtts), "stats": st, "stats_end": st_end}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.path.join(HERE, "..", "build", "server", "steer-server"))
    ap.add_argument("--vehicles", type=int, default=100000)
    ap.add_argument("--watchers", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--mode", choices=["plain", "compact", "both"], default="both")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--paused", action="store_true",
                    help="pause the world after spawning (for worlds too big to tick at "
                         "60 Hz: then only memory and the round trip mean anything)")
    a = ap.parse_args()
    steertest.SERVER = a.server
    modes = ["plain", "compact"] if a.mode == "both" else [a.mode]
    runs = {(m, w): [] for m in modes for w in (False, True)}
    for _ in range(a.repeat):
        for m in modes:
            for w in (False, True):
                r = one_run(a, m == "compact", w)
                runs[(m, w)].append(r)
                st = r["stats"]
                extra = "".join(f" {k}={st[k]}" for k in (
                    "snapshot_encode_ms_p50", "snapshot_encode_ms_p99", "snapshot_bytes_queued",
                    "clients_throttled", "snapshots_encoded", "ticks_dropped") if k in st)
                print(f"  {m:7s} watchers={'yes' if w else 'no ':3s} ticks/s {r['rate']:6.1f}  "
                      f"rss0 {r['rss0']:6.0f} MiB growth {r['growth']:6.0f} MiB "
                      f"(after they left {r['after']:+5.0f})  stats rtt p50 {r['rtt50']:7.1f} ms "
                      f"max {r['rtt_max']:7.1f}{extra}", flush=True)
    print(f"hostile_watchers: {a.vehicles} vehicles, {a.watchers} non-reading watchers with "
          f"distinct whole-world views, {a.seconds:g} s, medians of {a.repeat}")
    for m in modes:
        off, on = runs[(m, False)], runs[(m, True)]
        rate_off = statistics.median(r["rate"] for r in off)
        rate_on = statistics.median(r["rate"] for r in on)
        print(f"{m:7s}: tick rate {rate_on:.1f}/s with watchers, {rate_off:.1f}/s without: "
              f"{100 * rate_on / max(rate_off, 1e-9):.0f}% (target >= 95%); "
              f"RSS growth {statistics.median(r['growth'] for r in on):.0f} MiB "
              f"(target < 256), {statistics.median(r['after'] for r in on):+.0f} MiB after "
              f"they left; stats round trip p50 "
              f"{statistics.median(r['rtt50'] for r in on):.1f} ms (target < 50), "
              f"{statistics.median(r['rtt50'] for r in off):.1f} ms without")


if __name__ == "__main__":
    main()
