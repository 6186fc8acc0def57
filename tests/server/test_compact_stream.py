"""Compact snapshots end to end, as far as the official protobuf library and a few
lines of Python can check them: the negotiation, the key/delta chain, sizes, a key
frame's ids and positions decoded from the blobs as docs/PROTOCOL.md describes
them, shared encodings, and the chain staying whole for a client that falls behind."""
import json
import os
import socket
import sys
import time

import steer_pb2
from steertest import Checks, ProtoClient, Server, cells_of, expect, split_frames, wait_for

checks = Checks()
srv = Server("--scenario", "flock", "--snapshot-rate", "20")
SUB = 16  # quanta per cell, per axis


def compact_view(p, x0, y0, x1, y1, cols, rows):
    m = steer_pb2.ClientMessage()
    v = m.viewport
    v.x0, v.y0, v.x1, v.y1 = x0, y0, x1, y1
    v.compact, v.cols, v.rows = True, cols, rows
    p.send(m)


def density_view(p, x0, y0, x1, y1, cols, rows, mode, pick=0):
    m = steer_pb2.ClientMessage()
    v = m.viewport
    v.x0, v.y0, v.x1, v.y1 = x0, y0, x1, y1
    v.compact, v.cols, v.rows, v.density, v.pick = True, cols, rows, mode, pick
    p.send(m)


def next_stream_frame(p):
    """The next compact or density frame, and which it was."""
    while True:
        m = p.read()
        kind = m.WhichOneof("msg")
        if kind in ("compact", "density"):
            return kind, getattr(m, kind)


def fresh_stream_frame(p):
    """The first compact or density frame encoded after now."""
    p.command(line="stats")
    return next_stream_frame(p)


def compact(p):
    return p.read_kind("compact")


def fresh_compact(p):
    """The first compact frame encoded after now (see ProtoClient.fresh_snapshot)."""
    p.command(line="stats")
    return compact(p)


def varints(data):
    out, x, shift = [], 0, 0
    for b in data:
        x |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            out.append(x)
            x, shift = 0, 0
    expect(shift == 0, "a blob ends inside a varint")
    return out


def unzigzag(z):
    return (z >> 1) ^ -(z & 1)


def deinterleave(v):
    x = y = 0
    for k in range(32):
        x |= ((v >> (2 * k)) & 1) << k
        y |= ((v >> (2 * k + 1)) & 1) << k
    return unzigzag(x), unzigzag(y)


def column(blob, n):
    """A key frame's varint column (group, behaviors): each vehicle's value, from the
    vehicle before it's (0 for the first) and its change."""
    changes = [0] * n
    if blob and blob[0] == 0:
        changes = [unzigzag(z) for z in varints(blob[1:])]
    elif blob:
        pairs, at = varints(blob[1:]), 0
        expect(blob[0] == 1 and len(pairs) % 2 == 0, "a column neither dense nor sparse")
        for skip, change in zip(pairs[0::2], pairs[1::2]):
            at += skip
            changes[at] = unzigzag(change)
            at += 1
    expect(len(changes) == n, (len(changes), n))
    out, prior = [], 0
    for change in changes:
        prior = (prior + change) % 2**32
        out.append(prior)
    return out


def blob_bytes(c):
    return sum(len(b) for b in (c.ids, c.pos, c.heading, c.speed, c.group, c.behaviors))


def test_key_frame_matches_plain_snapshot():
    plain, comp = srv.proto(), srv.proto()
    plain.command(line="pause")
    view = (100, 50, 700, 450)
    plain.viewport(*view)
    compact_view(comp, *view, 120, 40)
    s = plain.fresh_snapshot()
    c = compact(comp)  # the first: a key frame (the world has been paused since)
    expect(c.base_seq == 0 and c.seq > 0, f"first frame is not a key: base {c.base_seq}")
    expect(c.header.tick == s.header.tick and c.header.paused and c.cols == 120 and c.rows == 40, c)
    expect(c.view.x0 == 100 and c.view.y1 == 450, c.view)
    expect(c.count == len(s.id) and c.header.total_vehicles == s.header.total_vehicles,
           (c.count, len(s.id)))
    # ids: ascending gaps from 0; the same vehicles as the plain snapshot
    ids, prev = [], 0
    for gap in varints(c.ids):
        prev += gap
        ids.append(prev)
    expect(ids == sorted(s.id), "compact ids differ from the plain snapshot's")
    # positions: interleaved zigzag quanta from the view's corner, within half a quantum
    qx, qy = (700 - 100) / (120 * SUB), (450 - 50) / (40 * SUB)
    pos = [deinterleave(v) for v in varints(c.pos)]
    expect(len(pos) == c.count, (len(pos), c.count))
    plain_at = {i: (x, y) for i, x, y in zip(s.id, s.x, s.y)}
    worst = max(max(abs(100 + px * qx - plain_at[i][0]) / qx,
                    abs(50 + py * qy - plain_at[i][1]) / qy)
                for i, (px, py) in zip(ids, pos))
    expect(worst <= 0.5 + 1e-3, f"a position is {worst:.3f} quanta off")
    # groups and behaviours: the plain snapshot's, vehicle by vehicle
    by_id = sorted(zip(s.id, s.group, s.behaviors))
    expect(column(c.group, c.count) == [g for _, g, _ in by_id], "groups differ")
    expect(column(c.behaviors, c.count) == [b for _, _, b in by_id], "behaviours differ")
    # paused: the next frames are deltas that change nothing but say so in a byte each
    d = compact(comp)
    expect(d.base_seq == c.seq and d.count == c.count, (d.base_seq, c.seq))
    expect(d.ids == b"" and d.pos == b"\0" * d.count and d.heading == b"" and d.speed == b"",
           "a paused world's delta is not all zeros")
    plain.command(line="resume")
    plain.close()
    comp.close()


def test_deltas_chain_and_stay_small():
    p = srv.proto()
    compact_view(p, 0, 0, 1000, 600, 100, 30)
    c = fresh_compact(p)
    last, sizes, deltas = c.seq, [], 0
    for _ in range(40):
        d = compact(p)
        expect(d.base_seq in (0, last), f"delta on {d.base_seq}, client holds {last}")
        expect(d.seq > last, "seq went backwards")
        if d.base_seq:
            deltas += 1
            sizes.append(blob_bytes(d) / max(1, d.count))
        last = d.seq
        expect(d.ByteSize() < 200 + 8 * d.count, f"frame of {d.ByteSize()} B, {d.count} boids")
    expect(deltas >= 38, f"only {deltas} of 40 frames were deltas")
    mean = sum(sizes) / len(sizes)
    print(f"  flock deltas: {mean:.2f} blob bytes per vehicle")
    expect(mean <= 4.0, f"deltas cost {mean:.2f} bytes per vehicle")
    p.close()


def test_bad_compact_requests():
    p = srv.proto()
    for cols, rows, clear in ((0, 10, False), (10, 5000, False), (10, 10, True)):
        m = steer_pb2.ClientMessage()
        v = m.viewport
        v.x0, v.y0, v.x1, v.y1 = 0, 0, 100, 100
        v.compact, v.cols, v.rows, v.clear = True, cols, rows, clear
        p.send(m)
        r = p.read_kind("reply")
        expect(not r.ok and "compact" in r.error, r)
    # the stream is untouched: still plain snapshots
    expect(p.fresh_snapshot().header.total_vehicles > 0, "no plain snapshot after a refusal")
    p.close()


def test_same_view_shares_one_encoding():
    a = srv.proto()
    compact_view(a, 0, 0, 500, 300, 80, 24)
    last = {a: fresh_compact(a).seq}
    # b joins the same view later: its first frame is a key while a gets a delta of the
    # same tick; after that both hold the same base and one delta serves both.
    b = srv.proto()
    compact_view(b, 0, 0, 500, 300, 80, 24)
    last[b] = None
    t = srv.text()
    t0, before = time.time(), t.ok("stats")
    frames, keys = {}, {a: 0, b: 0}
    for _ in range(20):
        for p in (a, b):
            c = compact(p)
            if c.base_seq == 0:
                keys[p] += 1
            else:
                expect(c.base_seq == last[p], f"delta on {c.base_seq}, client holds {last[p]}")
            last[p] = c.seq
            frames.setdefault(c.seq, []).append(c.SerializeToString())
    t1, after = time.time(), t.ok("stats")
    expect(keys[a] == 0 and keys[b] == 1, f"key frames: {keys[a]} to a, {keys[b]} to b")
    both = [v for v in frames.values() if len(v) == 2]
    expect(len(both) >= 15 and sum(v[0] == v[1] for v in both) >= len(both) - 1,
           "the same tick's frames differ between the two clients")
    encoded = after["compact_encoded"] - before["compact_encoded"]
    snapshots = (t1 - t0) * 20
    # two clients, one encoding a snapshot (give or take the ends of the interval)
    expect(encoded <= 1.3 * snapshots + 3,
           f"{encoded} compact encodings in {snapshots:.0f} snapshot ticks to two clients")
    t.close()
    a.close()
    b.close()


def small_window_client(port):
    """A protobuf client with a tiny receive window, read by hand."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.settimeout(10.0)
    p = ProtoClient.__new__(ProtoClient)
    p.sock, p.buf, p.next_id = s, b"", 1
    p.welcome = p.read_kind("welcome")
    return p


def read_compact_frames(p, buf, state):
    """Takes the complete frames off buf; checks each compact one against the last."""
    frames, buf = split_frames(buf)
    for f in frames:
        m = steer_pb2.ServerMessage()
        m.ParseFromString(f)
        if m.WhichOneof("msg") != "compact":
            continue
        c = m.compact
        state["frames"] += 1
        if c.base_seq == 0:
            state["keys"] += 1
        else:
            expect(c.base_seq == state["last"],
                   f"delta on {c.base_seq}, client holds {state['last']}")
            state["across_skips"] += c.seq - state["last"] > 1
        state["last"] = c.seq
    return buf


def test_stalled_reader_gets_deltas_on_what_it_has():
    # A client that stops reading until the server replaces its pending frames, then
    # reads again: each delta must name the last frame this client received, across
    # the frames it never got. A paused world keeps the server idle while thousands
    # of vehicles a frame at 100 Hz fill the socket buffers within seconds.
    sanitized = os.environ.get("STEER_SANITIZED", "0") == "1"
    n = 8000 if sanitized else 20000
    big = Server("--snapshot-rate", "100", "--world", "5600x5600")
    t = big.text()
    t.ok("pause")
    t.ok(f"spawn flock {n} 2800 2800 3960")
    p = small_window_client(big.proto_port)
    compact_view(p, 0, 0, 5600, 5600, 400, 200)
    state = {"frames": 0, "keys": 0, "across_skips": 0, "last": None}
    # What reading the Welcome took past it is the stream's next bytes: dropped, the
    # frames after it would be read from the middle of one.
    buf, p.buf = p.buf, b""
    while state["last"] is None:  # the compact stream has begun
        buf = read_compact_frames(p, buf + p.sock.recv(1 << 20), state)
    replaced = wait_for(lambda: t.ok("stats")["snapshots_replaced"],
                        "the stalled reader to fall behind (snapshots_replaced > 0)",
                        every=0.2)
    # Read again: through what the kernel buffered before the stall, to the frames
    # written after it, which must build on the last frame before it.
    deadline, settle = time.time() + 20, time.time() + 1
    while (state["across_skips"] < 1 or time.time() < settle) and time.time() < deadline:
        buf = read_compact_frames(p, buf + p.sock.recv(1 << 20), state)
    print(f"  stalled reader: {state['frames']} frames ({state['keys']} keys, "
          f"{state['across_skips']} deltas across skipped frames); server replaced {replaced}")
    expect(state["across_skips"] >= 1, "no delta spanned the skipped frames")
    p.close()
    code, err = big.stop()
    expect(code == 0, f"exit {code}: {err[-2000:]}")


def test_zoomed_out_views_get_density_bounded_by_the_screen():
    world = Server("--snapshot-rate", "20", "--world", "4000x4000")
    t = world.text()
    t.ok("pause")
    t.ok("spawn flock 3000 2000 2000 1900")
    p = world.proto()
    # The whole world on a 40 x 12 map: 3,000 vehicles in 480 cells, so density.
    density_view(p, 0, 0, 4000, 4000, 40, 12, steer_pb2.DENSITY_AUTO)
    kind, d = fresh_stream_frame(p)
    expect(kind == "density", f"a zoomed-out view got {kind}")
    cells = cells_of(d)
    expect(sum(c[2] for c in cells) == d.in_view, "cell counts do not add up to in_view")
    expect(d.in_view == 3000 and d.header.total_vehicles == 3000, f"in view {d.in_view}")
    expect(max(c[2] for c in cells) == d.max_count, "max_count is not the largest count")
    expect(all(0 <= c[0] < 40 and 0 <= c[1] < 12 for c in cells), "a cell off the grid")
    small = d.ByteSize()
    # Ten times the vehicles, same screen: the frame is bounded by its 480 cells.
    t.ok("spawn flock 27000 2000 2000 1900")
    kind, d = fresh_stream_frame(p)
    expect(kind == "density" and d.in_view == 30000, f"{kind}, {getattr(d, 'in_view', 0)}")
    big = d.ByteSize()
    print(f"  density frame, 40 x 12 map: {small} B for 3,000 vehicles, {big} B for 30,000")
    expect(big <= 200 + 480 * 5, f"{big} B for 480 cells")
    # The same view asking never to get density: vehicles, in a compact frame.
    density_view(p, 0, 0, 4000, 4000, 40, 12, steer_pb2.DENSITY_NEVER)
    kind, c = fresh_stream_frame(p)
    expect(kind == "compact" and c.count >= 29000, f"never gave {kind}")
    # Zoomed in to 200 x 100 units on a 100 x 30 map: few vehicles, so vehicles.
    density_view(p, 1900, 1900, 2100, 2000, 100, 30, steer_pb2.DENSITY_AUTO)
    kind, c = fresh_stream_frame(p)
    expect(kind == "compact", f"a zoomed-in view got {kind}")
    # Always: cells even for a few vehicles; an unknown mode is refused, stream kept.
    density_view(p, 1900, 1900, 2100, 2000, 100, 30, steer_pb2.DENSITY_ALWAYS)
    kind, d = fresh_stream_frame(p)
    expect(kind == "density" and d.in_view == sum(c[2] for c in cells_of(d)), f"{kind}")
    density_view(p, 0, 0, 4000, 4000, 40, 12, 9)
    r = p.read_kind("reply")
    expect(not r.ok and "density" in r.error, r)
    kind, d = next_stream_frame(p)
    expect(kind == "density", "the stream changed after a refused viewport")
    stats = json.loads(p.command(line="stats").json)
    expect(stats["density_encoded"] >= 3, stats)
    p.close()
    code, err = world.stop()
    expect(code == 0, f"exit {code}: {err[-2000:]}")


def test_density_holds_until_half_a_vehicle_per_cell():
    world = Server("--snapshot-rate", "20", "--world", "4000x4000")
    t = world.text()
    t.ok("pause")
    t.ok("spawn flock 600 2000 2000 1000")
    p = world.proto()
    # 600 vehicles on a 20 x 20 map (400 cells): density
    density_view(p, 0, 0, 4000, 4000, 20, 20, steer_pb2.DENSITY_AUTO)
    kind, _ = fresh_stream_frame(p)
    expect(kind == "density", f"600 in 400 cells got {kind}")
    # down to 300: above half a vehicle per cell, so p keeps density; a client new
    # to the same view starts from vehicles (the group builds both)
    t.ok("reset")
    t.ok("pause")
    t.ok("spawn flock 300 2000 2000 1000")
    q = world.proto()
    density_view(q, 0, 0, 4000, 4000, 20, 20, steer_pb2.DENSITY_AUTO)
    q.command(line="stats")
    kind_p, d = fresh_stream_frame(p)
    kind_q, c = next_stream_frame(q)
    expect(kind_p == "density" and d.in_view == 300, f"p got {kind_p}")
    expect(kind_q == "compact" and c.count == 300, f"q got {kind_q}")
    # picking a vehicle is not a new picture: p keeps density, now with the pick
    vid = t.ok("list")["vehicles"][0]["id"]
    density_view(p, 0, 0, 4000, 4000, 20, 20, steer_pb2.DENSITY_AUTO, pick=vid)
    kind_p, d = fresh_stream_frame(p)
    expect(kind_p == "density" and d.picked.id == vid, f"p got {kind_p} after a pick")
    # down to 200, half a vehicle per cell: p returns to vehicles
    t.ok("reset")
    t.ok("pause")
    t.ok("spawn flock 200 2000 2000 1000")
    kind_p, c = fresh_stream_frame(p)
    expect(kind_p == "compact" and c.count == 200, f"p got {kind_p} at 200")
    p.close()
    q.close()
    code, err = world.stop()
    expect(code == 0, f"exit {code}: {err[-2000:]}")


def test_picked_vehicle_shows_among_the_counts():
    """Zoomed out to density, a client that picked a vehicle gets it whole in each
    frame; another on the same view gets the same cells and no vehicle."""
    world = Server("--snapshot-rate", "20", "--world", "4000x4000")
    t = world.text()
    t.ok("pause")
    t.ok("spawn flock 3000 2000 2000 1900")
    vid = t.ok("spawn 1234.5 2345.25 vx=7 vy=-3 group=4")["id"]
    p, q = world.proto(), world.proto()
    density_view(p, 0, 0, 4000, 4000, 40, 12, steer_pb2.DENSITY_AUTO, pick=vid)
    density_view(q, 0, 0, 4000, 4000, 40, 12, steer_pb2.DENSITY_AUTO)
    for c in (p, q):
        c.command(line="stats")
    kind_p, dp = next_stream_frame(p)
    kind_q, dq = next_stream_frame(q)
    expect(kind_p == "density" and kind_q == "density", f"{kind_p}, {kind_q}")
    expect(dp.HasField("picked") and not dq.HasField("picked"), "the pick went astray")
    pk = dp.picked
    expect(pk.id == vid and abs(pk.x - 1234.5) < 1e-3 and abs(pk.y - 2345.25) < 1e-3,
           f"picked #{pk.id} at ({pk.x}, {pk.y})")
    expect(pk.vx == 7 and pk.vy == -3 and pk.group == 4, pk)
    expect(dp.cells == dq.cells and dp.in_view == dq.in_view == 3001, "the cells differ")
    # It follows the vehicle as it moves, and stops when the vehicle is gone.
    t.ok("step 30")
    kind_p, dp = fresh_stream_frame(p)
    expect(kind_p == "density" and dp.picked.x > 1234.5 + 1, f"the pick did not move: {dp.picked}")
    t.ok(f"remove {vid}")
    kind_p, dp = fresh_stream_frame(p)
    expect(kind_p == "density" and not dp.HasField("picked"), "a removed vehicle was sent")
    p.close()
    q.close()
    code, err = world.stop()
    expect(code == 0, f"exit {code}: {err[-2000:]}")


for fn in [test_key_frame_matches_plain_snapshot, test_deltas_chain_and_stay_small,
           test_bad_compact_requests, test_same_view_shares_one_encoding,
           test_stalled_reader_gets_deltas_on_what_it_has,
           test_zoomed_out_views_get_density_bounded_by_the_screen,
           test_density_holds_until_half_a_vehicle_per_cell,
           test_picked_vehicle_shows_among_the_counts]:
    checks.run(fn)
code, err = srv.stop()
if code != 0:
    print(f"server exit {code}: {err[-2000:]}")
    checks.failed += 1
sys.exit(checks.done())
