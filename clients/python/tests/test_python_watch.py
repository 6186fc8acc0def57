"""The snapshot stream through the installed steer package, checked against the
server's own `list`: plain frames exactly (as floats), compact frames (key frames
and deltas, while vehicles come, go, turn, speed up and change group) within their
stated quantization, density frames cell for cell; and the geometry and notices.
The world is paused and driven with `step`, so each frame and its `list` show the
same tick."""
import math
import sys

from harness import Checks, Server, check_installed, expect, stops_cleanly, wait_for

check_installed()
import steer  # noqa: E402

srv = None
W, H = 1000.0, 600.0


def listed(c):
    lst = c.list()
    return lst["tick"], {v["id"]: v for v in lst["vehicles"]}


def close32(a, b):
    """a is b rounded to a float32."""
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def angle_diff(a, b):
    return abs((a - b + math.pi) % (2 * math.pi) - math.pi)


def setup_world(c, n=120):
    c.reset()
    c.world(W, H, "wrap")
    c.pause()
    c.spawn("flock", n, 500, 300, 200)
    c.step(30)


def test_plain_frames_match_list():
    with steer.connect("127.0.0.1", srv.proto_port) as c:
        setup_world(c)
        w = c.watch()
        for _ in range(3):
            c.step(7)
            f = w.fresh()
            tick, want = listed(c)
            expect(f.kind == "snapshot" and f.tick == tick, f"{f} at list tick {tick}")
            expect(f.view is None and f.total_vehicles == len(want), f"{f.view} {f.total_vehicles}")
            got = f.by_id()
            expect(set(got) == set(want), "the same vehicles")
            for i, v in got.items():
                lv = want[i]
                expect(all(close32(a, lv[k]) for a, k in ((v.x, "x"), (v.y, "y"), (v.vx, "vx"),
                                                          (v.vy, "vy"))), f"{v} vs {lv}")
                expect(v.behavior_names == lv["behaviors"] and v.group == lv["group"],
                       f"{v.behavior_names} vs {lv['behaviors']}")
        # A view: every vehicle inside it is sent.
        view = (200.0, 100.0, 600.0, 400.0)
        w = c.watch(view=view)
        f = w.fresh()
        tick, want = listed(c)
        got = f.by_id()
        inside = {i for i, v in want.items()
                  if view[0] <= v["x"] <= view[2] and view[1] <= v["y"] <= view[3]}
        expect(f.view is not None and inside <= set(got) and len(got) < len(want),
               f"view: {len(inside)} inside, {len(got)} sent of {len(want)}")


def check_compact(f, want, full):
    """Every vehicle of a compact frame against the listed ones; full: the view covers
    the whole world, so every listed vehicle must be in the frame."""
    qx, qy = f.quantum
    got = f.by_id()
    expect(list(got) == sorted(got), "ascending ids")
    if full:
        expect(set(got) == set(want), f"ids: {sorted(set(got) ^ set(want))[:10]} differ")
    else:
        x0, y0, x1, y1 = f.view
        inside = {i for i, v in want.items()
                  if x0 + qx <= v["x"] <= x1 - qx and y0 + qy <= v["y"] <= y1 - qy}
        expect(inside <= set(got), f"missing {sorted(inside - set(got))[:10]}")
    for i, v in got.items():
        lv = want.get(i)
        expect(lv is not None, f"vehicle {i} is not listed")
        # Rounding half up: within half a quantum (and a hair for the arithmetic).
        expect(abs(v.x - lv["x"]) <= qx / 2 * (1 + 1e-9) + 1e-9 and
               abs(v.y - lv["y"]) <= qy / 2 * (1 + 1e-9) + 1e-9,
               f"{i}: ({v.x}, {v.y}) vs ({lv['x']}, {lv['y']}), quantum {f.quantum}")
        speed = math.hypot(lv["vx"], lv["vy"])
        expect(abs(v.speed - speed) <= 0.125 + 1e-9 or (0 < speed < 0.25 and v.speed == 0.25),
               f"{i}: speed {v.speed} vs {speed}")
        if speed > 0:
            # 256 directions: within half a step, plus the server's atan's error.
            h = math.atan2(lv["vy"], lv["vx"])
            expect(angle_diff(v.heading, h) <= math.pi / 256 + 1e-4,
                   f"{i}: heading {v.heading} vs {h}")
            expect(abs(v.vx - v.speed * math.cos(v.heading)) < 1e-9, "vx from heading")
        expect(v.group == lv["group"] and v.behavior_names == lv["behaviors"],
               f"{i}: group {v.group} {v.behavior_names} vs {lv['group']} {lv['behaviors']}")


def compact_session(c, w, full, rounds=40):
    """Steps and changes the world, checking each fresh frame; returns what the
    frames were: counts of keys, deltas, and deltas whose id list changed."""
    keys = deltas = edits = 0
    prev = None
    ids = sorted(listed(c)[1])
    for r in range(rounds):
        c.step(1 + r % 4)
        if r % 5 == 1:
            c.spawn("flock", 3, 100 + 20 * r, 150, 30)  # new ids, mid-list too after removes
        if r % 5 == 2:
            c.remove(ids[r])  # dropped ids
        if r % 5 == 3:
            c.set(ids[r + 40], "group=3", "max_speed=40")  # a column changes, sparsely
        if r % 7 == 4:
            c.seek(ids[r + 1], 10, 10)  # behaviours change
        f = w.fresh()
        tick, want = listed(c)
        expect(f.kind == "compact" and f.tick == tick, f"{f} at list tick {tick}")
        check_compact(f, want, full)
        if f.keyframe:
            keys += 1
        else:
            deltas += 1
            if prev is not None and [v.id for v in f.vehicles] != prev:
                edits += 1
        prev = [v.id for v in f.vehicles]
    return keys, deltas, edits


def test_compact_frames_match_list():
    with steer.connect("127.0.0.1", srv.proto_port) as c:
        setup_world(c)
        w = c.watch(view=(0, 0, W, H), compact=True, cols=100, rows=40, density="never")
        keys, deltas, edits = compact_session(c, w, True)
        expect(deltas > keys and edits >= 5, f"{keys} keys, {deltas} deltas, {edits} with edits")
        # Coarse precision (quanta of 6.25 x 3.75): the bound is the quantum's.
        setup_world(c)
        w = c.watch(view=(0, 0, W, H), compact=True, cols=10, rows=10, density="never")
        compact_session(c, w, True, rounds=10)


def test_compact_subview():
    """A view smaller than the world: vehicles cross its edges, so deltas add and drop
    ids as they move."""
    with steer.connect("127.0.0.1", srv.proto_port) as c:
        setup_world(c, 200)
        w = c.watch(view=(250, 150, 650, 420), compact=True, cols=80, rows=24,
                    density="never")
        keys, deltas, edits = compact_session(c, w, False, rounds=30)
        expect(deltas > keys and edits >= 5, f"{keys} keys, {deltas} deltas, {edits} with edits")
        c.resume()
        # Running, not stepped: deltas decode for every frame in a row.
        n = 0
        for f in w:
            n += 1
            if n == 30:
                break
        expect(f.base_seq != 0, "a live delta")
        c.pause()


def test_density_frames_match_list():
    with steer.connect("127.0.0.1", srv.proto_port) as c:
        setup_world(c, 300)
        for view in ((0.0, 0.0, W, H), (300.0, 120.0, 700.0, 480.0)):
            w = c.watch(view=view, compact=True, cols=12, rows=7, density="always", pick=5)
            c.step(3)
            f = w.fresh()
            tick, want = listed(c)
            expect(f.kind == "density" and f.tick == tick, f"{f} at {tick}")
            x0, y0, x1, y1 = f.view
            sx, sy = f.cols / (x1 - x0), f.rows / (y1 - y0)
            counts = {}
            for v in want.values():
                x, y = v["x"], v["y"]
                if x0 <= x <= x1 and y0 <= y <= y1:
                    col = min(max(math.floor((x - x0) * sx), 0), f.cols - 1)
                    row = min(max(math.floor((y - y0) * sy), 0), f.rows - 1)
                    counts[(col, row)] = counts.get((col, row), 0) + 1
            got = {(cl.col, cl.row): cl.count for cl in f.cells}
            expect(got == counts, f"cells differ: {sorted(set(got.items()) ^ set(counts.items()))}")
            expect(f.in_view == sum(counts.values()) and f.max_count == max(counts.values()),
                   f"in_view {f.in_view} max {f.max_count}")
            p = f.picked
            expect(p is not None and p.id == 5 and close32(p.x, want[5]["x"]) and
                   close32(p.vy, want[5]["vy"]), f"picked {p}")
            expect(f.vehicles == [p], "the picked vehicle is the frame's one vehicle")
        # Auto: more vehicles than cells gives density, fewer gives vehicles.
        w = c.watch(view=(0, 0, W, H), compact=True, cols=10, rows=5)
        expect(w.fresh().kind == "density", "auto with 300 vehicles in 50 cells")
        w = c.watch(view=(0, 0, W, H), compact=True, cols=100, rows=50)
        expect(w.fresh().kind == "compact", "auto with 300 vehicles in 5000 cells")


def test_geometry_and_obstacles():
    with steer.connect("127.0.0.1", srv.proto_port) as c:
        setup_world(c, 10)
        w = c.watch(events=True)
        wall = c.wall(10, 20, 110, 20)["id"]
        poly = c.polygon((500, 500), (560, 500), (530, 550))["id"]
        obstacle = c.obstacle(800, 100, 25)["id"]
        f = w.fresh()
        g = c.geometry
        expect([wl.id for wl in g.walls] == [wall] and g.walls[0][1:] == (10, 20, 110, 20),
               f"walls {g.walls}")
        expect([p.id for p in g.polygons] == [poly] and g.polygons[0].points[2] == (530, 550),
               f"polygons {g.polygons}")
        expect(f.geometry_version == g.version and f.geometry is g, "the frame's geometry")
        expect([(o.id, o.x, o.y, o.r) for o in f.obstacles] == [(obstacle, 800, 100, 25)],
               f"obstacles {f.obstacles}")
        # Events come in the stream, in order.
        c.remove(wall)
        other = steer.connect("127.0.0.1", srv.proto_port, name="carol")
        other.resume()
        other.pause()
        other.close()
        seen = []
        for item in w:
            seen.append(item)
            if isinstance(item, steer.Notice) and item.text == "carol paused":
                break
        geos = [x for x in seen if isinstance(x, steer.Geometry)]
        texts = [x.text for x in seen if isinstance(x, steer.Notice)]
        expect(geos and geos[-1].walls == [] and geos[-1].version > g.version,
               f"the geometry without the wall: {geos}")
        expect(texts == ["carol resumed", "carol paused"], f"notices {texts}")


def test_slow_reader_keeps_state():
    """Frames a program does not take are dropped from its backlog, but every one is
    decoded: a later delta still matches the world."""
    with steer.connect("127.0.0.1", srv.proto_port) as c:
        setup_world(c)
        w = c.watch(view=(0, 0, W, H), compact=True, density="never", backlog=2)
        c.resume()  # deltas that change every vehicle
        wait_for(lambda: w.dropped >= 10, lambda: f"10 frames dropped ({w.dropped} so far)")
        c.pause()
        c.step(2)
        f = w.fresh()
        tick, want = listed(c)
        expect(f.tick == tick and not f.keyframe, f"{f}, base {f.base_seq}")
        check_compact(f, want, True)


def test_refused_requests():
    with steer.connect("127.0.0.1", srv.proto_port) as c:
        e = None
        try:
            c.watch(view=(10, 10, 5, 50))
        except steer.CommandError as err:
            e = err
        expect(e is not None and "x1 > x0" in e.message, f"an empty view: {e}")
        try:
            c.watch(view=(0, 0, 100, 100), compact=True, cols=5000)
            e = None
        except steer.CommandError as err:
            e = err
        expect(e is not None and "cols and rows" in e.message, f"cols out of range: {e}")
        # Cells come only in compact snapshots: asked for without, they never came.
        for kw, says in (({"density": "always"}, "compact=True"), ({"pick": 3}, "compact=True"),
                         ({"density": "sometimes"}, "density is one of"),
                         ({"view": (0, 0, 10)}, "view is four numbers"),
                         ({"compact": True, "pick": "3"}, "pick is a vehicle id"),
                         ({"compact": True, "pick": -1}, "pick is a vehicle id")):
            try:
                c.watch(**kw)
                e = None
            except ValueError as err:
                e = err
            expect(e is not None and says in str(e), f"watch({kw}): {e}")
        w = c.watch(view=(0, 0, 100, 100), compact=True, cols=10, rows=10)
        expect(w.fresh().kind in ("compact", "density"), "a good request after refused ones")


def main():
    global srv
    srv = Server()
    c = Checks()
    for t in (test_plain_frames_match_list, test_compact_frames_match_list, test_compact_subview,
              test_density_frames_match_list, test_geometry_and_obstacles,
              test_slow_reader_keeps_state, test_refused_requests):
        c.run(t)
    c.run(stops_cleanly(srv))
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
