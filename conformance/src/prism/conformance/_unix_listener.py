"""A host Unix socket server that records what sandboxed clients manage to send it.

The sandbox row (E11) and prism-coding-security's own socket tests share it: a connection or a
byte received on the host side is the proof that a sandbox let a client out.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading

__all__ = ["UnixListener"]


class UnixListener:
    """A host Unix socket server in a thread, recording every connection and byte."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(os.fspath(path))
        self.server.listen(8)
        self.server.settimeout(0.1)
        self.received = bytearray()
        self.accepted = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                client, _ = self.server.accept()
            except OSError:
                continue
            self.accepted += 1
            client.settimeout(1)
            with contextlib.suppress(OSError):
                while chunk := client.recv(4096):
                    self.received += chunk
            client.close()

    def close(self) -> None:
        """Stop accepting and close the socket (the serving thread ends within a second)."""
        self.stop.set()
        self.thread.join(5)
        self.server.close()
