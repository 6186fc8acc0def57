#!/usr/bin/env python3
"""A flock's polarization over time, printed as a table.

Spawns a flock of its own (one group), watches the world in compact frames, and
prints a row every --every simulated seconds: the flock's polarization (the length
of the mean of its unit headings: 0 when they head every which way, 1 when all
head alike), computed here from the frames, beside the server's own figure from
`stats` (flock_polarization, over every flocking vehicle in the world) and the
flock's mean speed. Ctrl-C stops it; its flock is removed unless --keep.

    python3 polarization.py --port 7700 --boids 200 --rows 20
    python3 polarization.py --step      # pause the world and step it: no waiting
"""
import argparse
import math
import sys

import steer


def polarization(vehicles):
    if not vehicles:
        return 0.0
    sx = sum(math.cos(v.heading) for v in vehicles)
    sy = sum(math.sin(v.heading) for v in vehicles)
    return math.hypot(sx, sy) / len(vehicles)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7700, help="steer-server's protobuf port")
    p.add_argument("--boids", type=int, default=150)
    p.add_argument("--group", type=int, default=7, help="the flock's group")
    p.add_argument("--rows", type=int, default=15)
    p.add_argument("--every", type=float, default=1.0, help="simulated seconds per row")
    p.add_argument("--step", action="store_true",
                   help="pause the world and step it from here, rather than watch it run")
    p.add_argument("--keep", action="store_true", help="leave the flock in the world")
    args = p.parse_args()

    c = steer.connect(args.host, args.port, name="polarization")
    world = c.world()
    rate = world["tick_rate"]
    ticks = max(1, round(args.every * rate))
    was_paused = c.stats()["paused"]
    ids = c.spawn("flock", args.boids, world["width"] / 2, world["height"] / 2,
                  min(world["width"], world["height"]) / 4, group=args.group)["ids"]
    mine = set(ids)
    try:
        if args.step:
            c.pause()
        # The whole world, vehicle by vehicle (never density), at the default precision.
        frames = c.watch(compact=True, density="never")
        print(f"{'time s':>7} {'tick':>7} {'boids':>6} {'polarization':>12} {'server':>7} "
              f"{'speed':>7}")
        start = None
        f = frames.fresh()
        for row in range(args.rows):
            if args.step:
                c.step(ticks)
                f = frames.fresh()
            else:
                while start is not None and f.tick < start + row * ticks:
                    f = next(frames)
            if start is None:
                start = f.tick
            flock = [v for v in f.vehicles if v.id in mine]
            speed = sum(v.speed for v in flock) / len(flock) if flock else 0.0
            server = c.stats()["flock_polarization"]
            pol = polarization(flock)
            print(f"{(f.tick - start) / rate:7.1f} {f.tick:7d} {len(flock):6d} {pol:12.3f} "
                  f"{server:7.3f} {speed:7.1f}  {'#' * round(pol * 30)}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        if not args.keep:
            for i in ids:
                try:
                    c.remove(i)
                except steer.CommandError:
                    pass  # already gone: someone reset the world
        if args.step and not was_paused:
            c.resume()
        c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
