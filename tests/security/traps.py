"""Traps that hostile files point at: a local HTTP server that records every
request and a named pipe that records every read."""

from __future__ import annotations

import os
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class Tripwire(ThreadingHTTPServer):
    """Answers anything with a tiny DTD/entity body and remembers every request."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.requests.append(self.path)  # type: ignore[attr-defined]
        body = b'<!ENTITY fetched "FETCHED-FROM-NETWORK">'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class Secret:
    """A named pipe that hostile files point at.  A thread waits to write the
    secret into it: the pipe only opens once something reads it, so
    ``opened`` records every read, whoever made it (libxml2's C code included)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "secret.fifo"
        os.mkfifo(self.path)
        self.text = f"SECRET-{uuid.uuid4().hex}"
        self.opened: list[float] = []
        self._closing = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            with open(self.path, "w") as f:  # blocks until a reader opens the pipe
                if self._closing:
                    return
                self.opened.append(time.time())
                f.write(self.text + "\n")
            time.sleep(0.2)  # let the reader see end-of-file before the pipe is offered again

    def close(self) -> None:
        self._closing = True
        for _ in range(20):  # the writer may be between two opens: offer the pipe until it has left
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # releases a waiting writer
            self._thread.join(timeout=0.3)
            os.close(fd)
            if not self._thread.is_alive():
                return
