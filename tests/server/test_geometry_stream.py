"""Walls and polygons on the protobuf port: the Geometry message comes once after
the Welcome and again only when the geometry changes; every snapshot's header names
the version it goes with."""
import math
import sys

import steer_pb2
from steertest import Checks, Server, expect

checks = Checks()
srv = Server("--scenario", "flock", "--snapshot-rate", "20")


def kinds_until_snapshots(p, n):
    """The messages p receives until its n-th snapshot of any kind, in order."""
    got, seen = [], 0
    while seen < n:
        m = p.read()
        kind = m.WhichOneof("msg")
        got.append(m)
        seen += kind in ("snapshot", "compact", "density")
    return got


def geometries(msgs):
    return [m.geometry for m in msgs if m.WhichOneof("msg") == "geometry"]


def header(m):
    return getattr(m, m.WhichOneof("msg")).header


def walls_of(g):
    return {w.id: (w.x0, w.y0, w.x1, w.y1) for w in g.walls}


def polygons_of(g):
    return {p.id: (list(zip(p.x, p.y)), p.inside) for p in g.polygons}


def test_connect_after_walls_gets_them_once():
    t = srv.text()
    t.ok("reset")
    wall = t.ok("wall 100 100 300 100.5")["id"]
    poly = t.ok("polygon 400 100 500 100 450 200")["id"]
    p = srv.proto()
    msgs = kinds_until_snapshots(p, 10)
    kinds = [m.WhichOneof("msg") for m in msgs]
    gs = geometries(msgs)
    expect(len(gs) == 1, f"one Geometry in the first 10 snapshots: {kinds}")
    expect(kinds.index("geometry") < kinds.index("snapshot"), f"before the first snapshot: {kinds}")
    g = gs[0]
    expect(walls_of(g) == {wall: (100, 100, 300, 100.5)}, f"walls {g.walls}")
    expect(polygons_of(g) == {poly: ([(400, 100), (500, 100), (450, 200)], False)},
           f"polygons {g.polygons}")
    expect(g.version != 0 and not g.contain, f"version {g.version}, contain {g.contain}")
    snaps = [m for m in msgs if m.WhichOneof("msg") == "snapshot"]
    expect(all(header(m).geometry_version == g.version for m in snaps),
           f"snapshots name {[header(m).geometry_version for m in snaps]}, not {g.version}")
    p.close()
    t.close()


def test_a_world_without_walls_sends_an_empty_geometry():
    t = srv.text()
    t.ok("reset")
    p = srv.proto()
    msgs = kinds_until_snapshots(p, 3)
    gs = geometries(msgs)
    expect(len(gs) == 1 and not gs[0].walls and not gs[0].polygons, f"{gs}")
    expect(header(msgs[-1]).geometry_version == gs[0].version, "version named")
    p.close()
    t.close()


def test_changes_send_a_new_geometry():
    t = srv.text()
    t.ok("reset")
    p = srv.proto()
    first = geometries(kinds_until_snapshots(p, 2))
    expect(len(first) == 1, f"{len(first)} at connect")
    v0 = first[0].version
    wall = t.ok("wall 10 20 30 40")["id"]
    msgs = kinds_until_snapshots(p, 3)
    gs = geometries(msgs)
    expect(len(gs) == 1 and walls_of(gs[0]) == {wall: (10, 20, 30, 40)}, f"after wall: {gs}")
    v1 = gs[0].version
    expect(v1 != v0, "the version moved")
    expect(header(msgs[-1]).geometry_version == v1, "snapshots name the new version")
    # Through the protobuf port too, and a polygon.
    r = p.command(line="polygon 100 100 200 100 200 200 100 200")
    expect(r.ok, r.error)
    msgs = kinds_until_snapshots(p, 2)
    gs = geometries(msgs)
    expect(len(gs) == 1 and len(gs[0].polygons) == 1 and len(gs[0].walls) == 1, f"{gs}")
    v2 = gs[0].version
    t.ok(f"remove {wall}")
    gs = geometries(kinds_until_snapshots(p, 3))
    expect(len(gs) == 1 and not gs[0].walls and len(gs[0].polygons) == 1,
           f"after remove: {gs}")
    expect(gs[0].version not in (v0, v1, v2), "a new version")
    # reset empties it.
    t.ok("reset")
    gs = geometries(kinds_until_snapshots(p, 3))
    expect(len(gs) == 1 and not gs[0].walls and not gs[0].polygons, f"after reset: {gs}")
    p.close()
    t.close()


def test_frames_do_not_repeat_it():
    t = srv.text()
    t.ok("scenario flock")
    t.ok("wall 50 50 950 50")
    p = srv.proto()
    kinds_until_snapshots(p, 1)
    # Commands that leave the geometry alone send none, nor does time passing.
    t.ok("spawn 500 300")
    t.ok("obstacle 200 200 20")
    t.ok("pause")
    t.ok("resume")
    msgs = kinds_until_snapshots(p, 30)
    expect(not geometries(msgs), f"{len(geometries(msgs))} Geometry messages without a change")
    p.close()
    t.close()


def sizes(p, n):
    """Bytes of each snapshot and Geometry p receives until its n-th snapshot."""
    out = {"snapshot": [], "geometry": []}
    while len(out["snapshot"]) < n:
        m = p.read()
        kind = m.WhichOneof("msg")
        if kind in out:
            out[kind].append(m.ByteSize())
    return out


def test_snapshots_do_not_grow_with_walls():
    t = srv.text()
    t.ok("reset")
    p = srv.proto()
    empty = sizes(p, 3)
    p.close()
    for i in range(1000):
        t.ok(f"wall {i % 1000} {(i * 7) % 600} {i % 1000 + 5} {(i * 7) % 600 + 3}")
    for i in range(100):
        x, y = 40 + (i % 10) * 95, 40 + (i // 10) * 55
        pts = " ".join(f"{x + 15 * math.cos(k * math.tau / 10):.3f} "
                       f"{y + 15 * math.sin(k * math.tau / 10):.3f}" for k in range(10))
        t.ok(f"polygon {pts}")
    p = srv.proto()
    walled = sizes(p, 3)
    print(f"  empty 1000 x 600 world: snapshot {empty['snapshot'][0]} B, Geometry "
          f"{empty['geometry']} B; with 1000 walls and 100 10-gons: snapshot "
          f"{walled['snapshot'][0]} B, Geometry {walled['geometry']} B")
    # Only the version's varint may grow.
    expect(max(walled["snapshot"]) <= max(empty["snapshot"]) + 2, f"{empty} -> {walled}")
    expect(len(walled["geometry"]) == 1 and walled["geometry"][0] > 1000 * 40,
           f"one Geometry holding them: {walled['geometry']}")
    t.ok("reset")
    p.close()
    t.close()


def compact_view(p):
    m = steer_pb2.ClientMessage()
    v = m.viewport
    v.x0, v.y0, v.x1, v.y1 = 0, 0, 1000, 600
    v.compact, v.cols, v.rows = True, 80, 24
    p.send(m)


def test_compact_and_density_headers_name_it():
    t = srv.text()
    t.ok("scenario flock")
    p = srv.proto()
    g = geometries(kinds_until_snapshots(p, 1))[0]
    compact_view(p)
    t.ok("wall 1 1 2 2")
    msgs = kinds_until_snapshots(p, 4)
    gs = geometries(msgs)
    expect(len(gs) == 1 and gs[0].version != g.version, f"{gs}")
    last = msgs[-1]
    expect(last.WhichOneof("msg") in ("compact", "density"), last.WhichOneof("msg"))
    expect(header(last).geometry_version == gs[0].version, "compact header names it")
    p.close()
    t.close()


def test_private_server_sends_it_after_the_token():
    s = Server("--token", "sekrit-sekrit-sekrit", "--private")
    try:
        t = s.text()
        t.ok("auth sekrit-sekrit-sekrit")
        wall = t.ok("wall 5 5 50 5")["id"]
        p = s.proto(hello=False)
        m = steer_pb2.ClientMessage()
        m.command.request_id = 3
        m.command.line = "auth sekrit-sekrit-sekrit"
        # Nothing but the Welcome before the token: the reply to auth comes first.
        p.sock.settimeout(0.5)
        try:
            early = p.read()
            raise AssertionError(f"sent before auth: {early}")
        except OSError:
            pass
        p.sock.settimeout(10)
        p.send(m)
        got = []
        while True:
            x = p.read()
            got.append(x)
            if x.WhichOneof("msg") == "reply":
                break
        kinds = [x.WhichOneof("msg") for x in got]
        expect(kinds == ["welcome", "geometry", "reply"], f"after auth: {kinds}")
        expect(walls_of(got[1].geometry) == {wall: (5, 5, 50, 5)}, f"{got[1].geometry}")
        gs = geometries(kinds_until_snapshots(p, 3))
        expect(not gs, "sent again")
        p.close()
        t.close()
    finally:
        s.stop()


def test_load_sends_the_loaded_geometry():
    t = srv.text()
    t.ok("reset")
    wall = t.ok("wall 300 300 400 400")["id"]
    t.ok("save geometry-test")
    t.ok("reset")
    p = srv.proto()
    gs = geometries(kinds_until_snapshots(p, 1))
    expect(len(gs) == 1 and not gs[0].walls, f"after reset: {gs}")
    t.ok("load geometry-test")
    gs = geometries(kinds_until_snapshots(p, 3))
    expect(len(gs) == 1 and walls_of(gs[0]) == {wall: (300, 300, 400, 400)}, f"loaded: {gs}")
    p.close()
    t.close()


for t in [test_connect_after_walls_gets_them_once,
          test_a_world_without_walls_sends_an_empty_geometry,
          test_changes_send_a_new_geometry, test_frames_do_not_repeat_it,
          test_snapshots_do_not_grow_with_walls,
          test_compact_and_density_headers_name_it,
          test_private_server_sends_it_after_the_token,
          test_load_sends_the_loaded_geometry]:
    checks.run(t)

code, err = srv.stop()
checks.run(lambda: expect(code == 0, f"exit {code}: {err[-2000:]}"))
sys.exit(checks.done())
