"""Hostile webhook receivers on loopback (real HTTP over real sockets), for the sender's
tests: ``Dripper`` answers a byte at a time (its status line never ends) until the test
releases it or the sender hangs up, counting the tries of each webhook-id in flight at once;
``Flood`` answers 200 with a body far larger than anyone should read, counting what it
managed to write before the sender hung up."""

from __future__ import annotations

import select
import socket
import threading
from collections import Counter
from dataclasses import dataclass, field
from socketserver import BaseRequestHandler, ThreadingTCPServer


def _headers(conn: socket.socket) -> dict[str, str]:
    """Read a request's head and body (the sender's small JSON) off ``conn``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")[1:]
    found = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    want = int(found.get("content-length") or 0)
    while len(body) < want:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return found


class _Server(ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@dataclass
class Dripper:
    every: float = 0.2  # seconds between two bytes: the fault itself, not a wait
    released: threading.Event = field(default_factory=threading.Event)
    reached: threading.Event = field(default_factory=threading.Event)  # a try arrived
    lock: threading.Lock = field(default_factory=threading.Lock)
    open_now: Counter[str] = field(default_factory=Counter)  # webhook-id -> tries open now
    most_at_once: Counter[str] = field(default_factory=Counter)
    tries: Counter[str] = field(default_factory=Counter)
    ended: Counter[str] = field(default_factory=Counter)  # tries the sender hung up on
    server: _Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/drip"

    def _drip(self, conn: socket.socket, msg_id: str) -> None:
        with self.lock:
            self.tries[msg_id] += 1
            self.open_now[msg_id] += 1
            self.most_at_once[msg_id] = max(self.most_at_once[msg_id], self.open_now[msg_id])
        self.reached.set()
        try:
            for byte in b"HTTP/1.1 204 No Content\r\nx-drip: " + b"a" * 100_000:
                if self.released.is_set():
                    return
                # wait out the interval, seeing a hang-up (readable end-of-file) at once
                readable, _, _ = select.select([conn], [], [], self.every)
                if readable and conn.recv(1) == b"":
                    break
                conn.sendall(bytes([byte]))
        except OSError:
            pass
        finally:
            with self.lock:
                self.open_now[msg_id] -= 1
                self.ended[msg_id] += 1

    def start(self) -> Dripper:
        owner = self

        class Handler(BaseRequestHandler):
            def handle(self) -> None:
                headers = _headers(self.request)
                owner._drip(self.request, headers.get("webhook-id", ""))

        self.server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.released.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


@dataclass
class Flood:
    size: int = 100 * 2**20  # the answer's body
    written: int = 0
    done: threading.Event = field(default_factory=threading.Event)
    server: _Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/flood"

    def _answer(self, conn: socket.socket) -> None:
        _headers(conn)
        head = f"HTTP/1.1 200 OK\r\ncontent-length: {self.size}\r\n\r\n".encode()
        chunk = b"x" * 65536
        try:
            conn.sendall(head)
            while self.written < self.size:
                conn.sendall(chunk)
                self.written += len(chunk)
        except OSError:
            pass
        finally:
            self.done.set()

    def start(self) -> Flood:
        owner = self

        class Handler(BaseRequestHandler):
            def handle(self) -> None:
                owner._answer(self.request)

        self.server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
