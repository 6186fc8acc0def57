"""The exceptions the client raises. Every one is a steer.Error, so a script can
catch them all at once; each also derives from the built-in exception it is a case
of (TimeoutError, ConnectionError), so generic handlers see them too."""


class Error(Exception):
    """Something went wrong talking to steer-server."""


class CommandError(Error):
    """The server answered ERR. str(e) and e.message are the server's message,
    without the "ERR " prefix; e.command is the command that was sent."""

    def __init__(self, message, command=None):
        super().__init__(message)
        self.message = message
        self.command = command


class Timeout(Error, TimeoutError):
    """No reply (or no frame) came within the client's timeout."""


class ConnectionClosed(Error, ConnectionError):
    """The connection is closed: by the server (the message says why when the server
    did), by the network, or by close()."""


class ProtocolError(Error):
    """The server sent something this client cannot read: not steer-server's protocol
    on that port, another protocol version, or a malformed frame. The connection is
    closed: the stream cannot be trusted past it."""
