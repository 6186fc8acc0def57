"""What a watch yields: frames of vehicles (or of density cells), the world's
geometry, and notices, as plain Python values rather than protobuf messages."""
import math
from collections import namedtuple

# Bit k of a vehicle's behaviors, as in wire/steer.proto's Snapshot.behaviors.
BEHAVIORS = ("seek", "flee", "arrive", "pursue", "evade", "wander", "avoid", "path", "flock",
             "follow", "hide", "interpose", "goto")

EDGES = ("wrap", "bounce", "none")


def behavior_names(mask):
    """The names of the behaviours set in a behaviors bit mask, in bit order."""
    return [name for k, name in enumerate(BEHAVIORS) if mask >> k & 1]


class Vehicle(namedtuple("Vehicle", "id x y vx vy heading speed group behaviors")):
    """One vehicle of a frame. heading is in radians, -pi..pi (the direction of the
    velocity in a plain frame, 0 at rest; the heading the server sent, which is
    the last one at rest, in a compact frame); speed in units per second;
    behaviors a bit mask (behavior_names() spells it out)."""

    __slots__ = ()

    @property
    def behavior_names(self):
        return behavior_names(self.behaviors)


class Cell(namedtuple("Cell", "col row count heading")):
    """One occupied cell of a density frame: how many vehicles are in it and the
    direction of the sum of their unit headings (radians, -pi..pi)."""

    __slots__ = ()


Obstacle = namedtuple("Obstacle", "id x y r")
Wall = namedtuple("Wall", "id x0 y0 x1 y1")
Polygon = namedtuple("Polygon", "id points inside")
Notice = namedtuple("Notice", "text")
Notice.__doc__ = """What another client did to the shared session ("bob paused")."""


class Geometry(namedtuple("Geometry", "version walls polygons contain")):
    """The world's walls and polygons, whole: version names this state (every
    frame's geometry_version says which one it goes with); contain says the world's
    bounds are walls. polygons' points are lists of (x, y)."""

    __slots__ = ()


NO_GEOMETRY = Geometry(0, [], [], False)


class Frame:
    """The world at one tick, as one snapshot showed it.

    kind          "snapshot" (plain), "compact" or "density"
    tick, paused, total_vehicles (in the whole world), geometry_version
    width, height, edges ("wrap", "bounce", "none"), tick_rate: the world's
    view          (x0, y0, x1, y1) the frame covers (the server may widen the one
                  asked for slightly), or None for the whole world
    vehicles      list of Vehicle in ascending id order (plain frames: in the
                  server's order); in a density frame only the picked one, if any
    obstacles     list of Obstacle; routes: the protobuf Route messages
    geometry      the Geometry the client held when the frame arrived
    message       the protobuf message itself

    Compact frames also have seq, base_seq (0 for a key frame), cols, rows and
    quantum, the (qx, qy) step of positions: each x is within qx / 2 of the
    vehicle's. Density frames have cols, rows, cells (list of Cell, row-major),
    in_view, max_count and picked (a Vehicle or None)."""

    kind = None
    view = None
    seq = base_seq = None
    cols = rows = None
    quantum = None
    cells = ()
    in_view = max_count = None
    picked = None

    def __init__(self, kind, message, vehicles, geometry):
        self.kind = kind
        self.message = message
        h = message.header
        self.tick = h.tick
        self.paused = h.paused
        self.total_vehicles = h.total_vehicles
        self.geometry_version = h.geometry_version
        self.width = h.width
        self.height = h.height
        self.edges = EDGES[h.edges] if 0 <= h.edges < len(EDGES) else h.edges
        self.tick_rate = h.tick_rate
        if message.HasField("view"):
            v = message.view
            self.view = (v.x0, v.y0, v.x1, v.y1)
        self._vehicles = vehicles
        self.obstacles = [Obstacle(o.id, o.x, o.y, o.r) for o in message.obstacles]
        self.routes = list(getattr(message, "routes", ()))
        self.geometry = geometry

    @property
    def vehicles(self):
        v = self._vehicles
        if callable(v):  # a compact frame's, made on first use
            v = self._vehicles = v()
        return v

    @property
    def keyframe(self):
        """A compact frame that stands alone (not a delta on an earlier one)."""
        return self.kind == "compact" and self.base_seq == 0

    def by_id(self):
        """The vehicles as a dict by id."""
        return {v.id: v for v in self.vehicles}

    def cell_rect(self, cell):
        """The rectangle (x0, y0, x1, y1) a density cell covers."""
        x0, y0, x1, y1 = self.view
        w = (x1 - x0) / self.cols
        h = (y1 - y0) / self.rows
        return (x0 + cell.col * w, y0 + cell.row * h, x0 + (cell.col + 1) * w,
                y0 + (cell.row + 1) * h)

    def __repr__(self):
        n = len(self.cells) if self.kind == "density" else len(self.vehicles)
        what = "cells" if self.kind == "density" else "vehicles"
        return f"<steer.Frame {self.kind} tick={self.tick} {n} {what}>"


def plain_vehicles(s):
    """The vehicles of a plain Snapshot message."""
    atan2, hypot = math.atan2, math.hypot
    return [Vehicle(i, x, y, vx, vy, atan2(vy, vx), hypot(vx, vy), g, b)
            for i, x, y, vx, vy, g, b in zip(s.id, s.x, s.y, s.vx, s.vy, s.group, s.behaviors)]
