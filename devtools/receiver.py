"""A webhook receiver on loopback for tests and bench/webhooks.py: a real HTTP server (a
thread) that records every request (headers, body, when) and answers 500 to the first
``fail_first`` tries of each webhook-id, then 204. ``hold`` keeps the next request waiting
(no answer) until ``release``: a sender killed mid-delivery."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float
    status: int
    path: str = ""


@dataclass
class Receiver:
    fail_first: int = 0
    redirect_to: str | None = None  # answer 302 to this Location instead
    requests: list[Received] = field(default_factory=list)
    tries: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)
    holding: threading.Event = field(default_factory=threading.Event)  # set: hold the next
    held: threading.Event = field(default_factory=threading.Event)  # set when one is held
    released: threading.Event = field(default_factory=threading.Event)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def answer(self, headers: dict[str, str], body: bytes, path: str = "") -> int:
        msg_id = headers.get("webhook-id", "")
        with self.lock:
            self.tries[msg_id] += 1
            status = 500 if self.tries[msg_id] <= self.fail_first else 204
            hold = self.holding.is_set()
            self.holding.clear()
        if hold:
            self.held.set()
            self.released.wait(60)
            status = 599  # recorded, never seen by the (killed) sender
        with self.lock:
            self.requests.append(Received(headers, body, time.time(), status, path))
        return status

    def delivered(self) -> dict[str, Received]:
        """The request that got a 2xx, by webhook-id."""
        with self.lock:
            return {r.headers["webhook-id"]: r for r in self.requests if r.status < 300}

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                status = receiver.answer(headers, body, self.path)
                if receiver.redirect_to:
                    self.send_response(302)
                    self.send_header("location", receiver.redirect_to)
                else:
                    self.send_response(min(status, 500))
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.released.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
