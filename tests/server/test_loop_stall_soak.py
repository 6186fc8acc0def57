"""Loop stalls, soaked (opt-in: STEER_LONG_TESTS=1 ./scripts/test.sh): the scenarios of
bench/loop_stall.py that issue 34's targets hold for, each for STEER_SOAK_SECONDS (30
by default), must meet them all along: the healthy client's `stats` round trip p99
under 100 ms, and the tick at 90% or more of the rate the world keeps unattacked
(nominal, unless this machine cannot tick that world so fast). The sanitizer build
runs several times slower: there only that the healthy client is answered and the
world ticks. `spawn-pile` and `rewind-fork` are not here: they do not meet the
targets yet (docs/PERFORMANCE.md, "Loop stalls from clients")."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import loop_stall  # noqa: E402
from steertest import Checks, expect  # noqa: E402

SECONDS = float(os.environ.get("STEER_SOAK_SECONDS", "30"))
SANITIZED = os.environ.get("STEER_SANITIZED", "").upper() in ("1", "ON", "TRUE")
# A world this machine ticks at its nominal rate when no one attacks it.
ARGS = argparse.Namespace(seconds=SECONDS, vehicles=5000, connections=20)
checks = Checks()


def meets_targets(r, rate):
    """r, one of loop_stall.measure's results, against the targets; rate: the tick
    rate the world keeps unattacked."""
    expect(r["samples"] > 0 and r["hz"] > 0,
           f"{r['name']}: no stats answered or no tick: {r}")
    if SANITIZED:
        return
    expect(r["p99"] < 0.100, f"{r['name']}: stats p99 {1000 * r['p99']:.0f} ms (target under "
           f"100 ms): {r}")
    expect(r["hz"] >= 0.9 * rate, f"{r['name']}: {r['hz']:.1f} Hz, under 90% of "
           f"{rate:.1f} Hz: {r}")


def test_list_flood_without_the_token():
    idle, attacked = loop_stall.scenario_list(ARGS, True)
    meets_targets(attacked, min(idle["hz"], idle["rate"]))


def test_list_flood_on_an_open_server():
    idle, attacked = loop_stall.scenario_list(ARGS, False)
    meets_targets(attacked, min(idle["hz"], idle["rate"]))


def test_gotos_in_a_big_maze():
    (r,) = loop_stall.scenario_goto_maze(ARGS)
    meets_targets(r, r["rate"])


def test_gotos_while_walls_change():
    (r,) = loop_stall.scenario_goto(ARGS)
    meets_targets(r, r["rate"])


def test_walls_change_on_a_big_scene():
    (r,) = loop_stall.scenario_walls_big(ARGS)
    meets_targets(r, r["rate"])


for t in (test_list_flood_without_the_token, test_list_flood_on_an_open_server,
          test_gotos_in_a_big_maze, test_gotos_while_walls_change,
          test_walls_change_on_a_big_scene):
    checks.run(t)
raise SystemExit(checks.done())
