"""Webhook deliveries over HTTP (httpcore, httpx's transport): the host resolved, every
address it gives checked (service/domain/webhooks.py ``refused``), then the request sent to
the checked IP itself, with the URL's host in the Host header (and as TLS server name), so a
DNS answer that changes between the check and the connect cannot point the request elsewhere.

A try has a wall-clock deadline (NARRATE_WEBHOOK_TIMEOUT from its start): every connect,
write and read on its socket is given at most what is left of it. httpx's timeouts are per
operation, so a receiver sending its answer a byte a second never reached them and held the
try (and its worker's sender) as long as it liked. Only the status line and headers are read
(bounded by h11); the body is never read, however large: the status is what counts."""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import certifi
import httpcore

from service.domain import webhooks

Resolve = Callable[[str, int], list[str]]
FAILED = (
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpcore.ProxyError,
    OSError,
)


def resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _left(deadline: float, timeout: float | None, late: type[Exception]) -> float:
    """What an operation may wait: its own timeout, never past the try's deadline."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise late("the try's deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, deadline: float) -> None:
        self.inner = inner
        self.deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, _left(self.deadline, timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, _left(self.deadline, timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        wait = _left(self.deadline, timeout, httpcore.ConnectTimeout)
        return _Stream(self.inner.start_tls(ssl_context, server_hostname, wait), self.deadline)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _Deadline(httpcore.NetworkBackend):
    """httpcore's own sockets, each operation bounded by one try's deadline."""

    def __init__(self, deadline: float) -> None:
        self.inner = httpcore.SyncBackend()
        self.deadline = deadline

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        wait = _left(self.deadline, timeout, httpcore.ConnectTimeout)
        stream = self.inner.connect_tcp(host, port, wait, local_address, socket_options)
        return _Stream(stream, self.deadline)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.UnsupportedProtocol("webhooks are sent over TCP")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class HttpSender:
    def __init__(self, timeout: float, allow_private: bool, lookup: Resolve = resolve) -> None:
        self.timeout = timeout
        self.allow_private = allow_private
        self.lookup = lookup
        self.tls = ssl.create_default_context(cafile=certifi.where())

    def _address(self, url: str) -> tuple[str | None, str | None]:
        """(the IP to connect to, None) or (None, why the URL is refused)."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return None, "only http:// and https:// URLs are called"
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = self.lookup(parts.hostname, port)
        if not found:
            return None, f"its host {parts.hostname!r} does not resolve"
        if not self.allow_private:
            why = webhooks.refused(found)
            if why:
                return None, why
        return found[0], None

    def refused(self, url: str) -> str | None:
        return self._address(url)[1]

    def post(self, url: str, headers: dict[str, str], body: bytes) -> tuple[int | None, str | None]:
        ip, why = self._address(url)
        if ip is None:
            return None, f"refused: {why}"
        parts = urlsplit(url)
        host = f"[{ip}]" if ":" in ip else ip
        netloc = host if parts.port is None else f"{host}:{parts.port}"
        pinned = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
        sent = {**headers, "host": parts.netloc.rpartition("@")[2]}
        extensions: Extensions = {"timeout": dict.fromkeys(_PHASES, self.timeout)}
        if parts.scheme == "https":
            extensions["sni_hostname"] = parts.hostname  # the certificate is checked for it
        try:
            status = self._status(pinned, sent, body, extensions)
        except httpcore.TimeoutException:
            return None, f"no answer within {self.timeout:g} s"
        except FAILED as exc:
            return None, f"{type(exc).__name__}: {exc}"
        if 200 <= status < 300:
            return status, None
        if 300 <= status < 400:
            return status, f"HTTP {status}: redirects are not followed"
        return status, f"HTTP {status}"

    def _status(
        self, url: str, headers: dict[str, str], body: bytes, extensions: Extensions
    ) -> int:
        """One request on its own connection (no proxy, no redirect, no keep-alive), under
        one deadline; the answer's status, its body left unread."""
        pool = httpcore.ConnectionPool(
            ssl_context=self.tls,
            max_keepalive_connections=0,
            network_backend=_Deadline(time.monotonic() + self.timeout),
        )
        with (
            pool,
            pool.stream(
                "POST", url, headers=list(headers.items()), content=body, extensions=extensions
            ) as answer,
        ):
            return int(answer.status)

    def close(self) -> None:
        """Nothing is kept between tries."""


_PHASES = ("connect", "read", "write", "pool")
# httpcore's request extensions this client sets: a timeout per phase, and the TLS server name
# (httpcore takes a MutableMapping[str, Any]: a TypedDict is not one, so a dict of the values).
Extensions = dict[str, dict[str, float] | str | None]
