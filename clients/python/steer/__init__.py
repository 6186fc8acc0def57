"""A client for steer-server, the Steer simulation's server.

    import steer
    with steer.connect("127.0.0.1", 7700) as c:
        c.scenario("flock")
        for frame in c.watch(view=(0, 0, 500, 300), compact=True):
            print(frame.tick, len(frame.vehicles))

connect() speaks the protobuf port (commands and snapshots), connect_text() the
text port (commands only). docs/SCRIPTING.md in the repository is the guide."""
from .client import Client, TextClient, Watch, connect, connect_text, PROTOCOL_VERSION
from .errors import CommandError, ConnectionClosed, Error, ProtocolError, Timeout
from .frames import (BEHAVIORS, Cell, Frame, Geometry, Notice, Obstacle, Polygon, Vehicle, Wall,
                     behavior_names)

__version__ = "0.1.0"

__all__ = ["connect", "connect_text", "Client", "TextClient", "Watch", "Frame", "Vehicle",
           "Cell", "Obstacle", "Geometry", "Wall", "Polygon", "Notice", "BEHAVIORS",
           "behavior_names", "Error", "CommandError", "ConnectionClosed", "ProtocolError",
           "Timeout", "PROTOCOL_VERSION"]
