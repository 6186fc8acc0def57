#!/usr/bin/env python3
"""Steering one vehicle along waypoints, from a script.

Spawns a vehicle on the first point and sends it to each next one in turn: `seek`
towards the intermediate points, `arrive` at the last. It watches the vehicle in
compact frames and moves on when the vehicle is within --reach of its waypoint (at
the last, also slower than 1 unit/s). The server has a path behaviour of its own
(`waypoint ID X Y`); this shows the same done from outside, where a script could
choose each next point from what it sees.

    python3 waypoints.py --port 7700 --points "100,100 400,120 450,400 150,350"
    python3 waypoints.py --step         # pause the world and step it: no waiting
"""
import argparse
import math
import sys

import steer


def parse_points(text):
    try:
        pts = [tuple(float(c) for c in p.split(",")) for p in text.split()]
    except ValueError:
        pts = []
    if len(pts) < 2 or any(len(p) != 2 for p in pts):
        raise argparse.ArgumentTypeError("two or more points, as 'x,y x,y ...'")
    return pts


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7700, help="steer-server's protobuf port")
    p.add_argument("--points", type=parse_points,
                   default=parse_points("100,100 400,120 450,400 150,350"))
    p.add_argument("--speed", type=float, default=120.0, help="the vehicle's max_speed")
    p.add_argument("--reach", type=float, default=15.0)
    p.add_argument("--timeout", type=float, default=60.0,
                   help="simulated seconds allowed for each waypoint")
    p.add_argument("--step", action="store_true",
                   help="pause the world and step it from here, rather than watch it run")
    p.add_argument("--keep", action="store_true", help="leave the vehicle in the world")
    args = p.parse_args()

    c = steer.connect(args.host, args.port, name="waypoints")
    rate = c.world()["tick_rate"]
    was_paused = c.stats()["paused"]
    x, y = args.points[0]
    vid = c.spawn(x, y, max_speed=args.speed, slowing_radius=60)["id"]
    print(f"vehicle {vid} at ({x:g}, {y:g})")
    status = 0
    try:
        if args.step:
            c.pause()
        frames = c.watch(compact=True, density="never")
        for k, (x, y) in enumerate(args.points[1:], 1):
            last = k == len(args.points) - 1
            if last:
                c.seek(vid, "off")  # seek and arrive would add up: one at a time
                c.arrive(vid, x, y)
            else:
                c.seek(vid, x, y)
            f = frames.fresh()
            deadline = f.tick + args.timeout * rate
            while True:
                v = f.by_id().get(vid)
                if v is None:
                    raise SystemExit(f"vehicle {vid} is gone")
                d = math.hypot(v.x - x, v.y - y)
                if d <= args.reach and (not last or v.speed < 1):
                    print(f"tick {f.tick}: reached waypoint {k} ({x:g}, {y:g}), {d:.1f} away, "
                          f"at {v.speed:.1f} units/s", flush=True)
                    break
                if f.tick > deadline:
                    print(f"waypoint {k} ({x:g}, {y:g}) not reached in {args.timeout:g} s: "
                          f"{d:.1f} away", file=sys.stderr)
                    return 1
                if args.step:
                    c.step(6)
                    f = frames.fresh()
                else:
                    f = next(frames)
        c.arrive(vid, "off")
    except KeyboardInterrupt:
        status = 130
    finally:
        if not args.keep:
            try:
                c.remove(vid)
            except steer.CommandError:
                pass
        if args.step and not was_paused:
            c.resume()
        c.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
