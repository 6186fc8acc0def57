"""The examples in clients/python/examples run against a real server with the
installed package and print what they say: the polarization table (its figures
agree with the server's stats), and a vehicle steered through every waypoint."""
import math
import os
import subprocess
import sys

from harness import Checks, Server, check_installed, expect, stops_cleanly

check_installed()
import steer  # noqa: E402

EXAMPLES = os.environ["STEER_EXAMPLES"]
srv = None


def run(name, *args):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--port",
                        str(srv.proto_port)] + list(args), capture_output=True, text=True,
                       timeout=240, cwd="/")
    expect(p.returncode == 0, f"{name} exited {p.returncode}: {p.stderr}")
    return p.stdout.splitlines()


def test_polarization_table():
    with steer.connect_text("127.0.0.1", srv.cmd_port) as c:
        c.reset()
    lines = run("polarization.py", "--step", "--boids", "80", "--rows", "6", "--every", "0.5")
    expect(lines[0].split()[:4] == ["time", "s", "tick", "boids"], f"header: {lines[0]}")
    rows = [ln.split() for ln in lines[1:]]
    expect(len(rows) == 6, f"{len(rows)} rows")
    for r in rows:
        t, tick, boids, pol, server, speed = (float(x) for x in r[:6])
        expect(boids == 80 and 0 <= pol <= 1, f"row {r}")
        # Headings quantized to 256 directions: the figures agree closely.
        expect(abs(pol - server) <= 0.01, f"polarization {pol} vs the server's {server}")
    expect([float(r[0]) for r in rows] == [0.5 * k for k in range(6)], "half a second a row")
    with steer.connect_text("127.0.0.1", srv.cmd_port) as c:
        expect(c.stats()["vehicles"] == 0 and not c.stats()["paused"],
               "the flock removed, the world running again")


def test_waypoints():
    pts = [(100, 100), (300, 120), (320, 300), (150, 280)]
    lines = run("waypoints.py", "--step", "--keep", "--points",
                " ".join(f"{x},{y}" for x, y in pts))
    expect(lines[0].startswith("vehicle "), lines[0])
    vid = int(lines[0].split()[1])
    reached = [ln for ln in lines if "reached waypoint" in ln]
    expect(len(reached) == 3, f"{lines}")
    for k, ln in enumerate(reached, 1):
        expect(f"waypoint {k} ({pts[k][0]}, {pts[k][1]})" in ln, ln)
    with steer.connect_text("127.0.0.1", srv.cmd_port) as c:
        v = c.get(vid)
        d = math.hypot(v["x"] - pts[-1][0], v["y"] - pts[-1][1])
        expect(d <= 15 and math.hypot(v["vx"], v["vy"]) < 1, f"the vehicle ends at {v['x']}, "
               f"{v['y']}: {d} from the last point")


def main():
    global srv
    srv = Server()
    c = Checks()
    for t in (test_polarization_table, test_waypoints):
        c.run(t)
    c.run(stops_cleanly(srv))
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
