"""Webhook deliveries over HTTP (httpx): the host resolved, every address it gives checked
(service/domain/webhooks.py ``refused``), then the request sent to the checked IP itself,
with the URL's host in the Host header (and as TLS server name), so a DNS answer that
changes between the check and the connect cannot point the request elsewhere."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from service.domain import webhooks

Resolve = Callable[[str, int], list[str]]


def resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class HttpSender:
    def __init__(self, timeout: float, allow_private: bool, lookup: Resolve = resolve) -> None:
        self.timeout = timeout
        self.allow_private = allow_private
        self.lookup = lookup
        # No proxies from the environment (they would connect for us, unchecked), no redirects.
        self.client = httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False)

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
        extensions: dict[str, Any] = {}
        if parts.scheme == "https":
            extensions["sni_hostname"] = parts.hostname  # the certificate is checked for it
        try:
            answer = self.client.post(pinned, content=body, headers=sent, extensions=extensions)
        except httpx.TimeoutException:
            return None, f"no answer within {self.timeout:g} s"
        except httpx.HTTPError as exc:
            return None, f"{type(exc).__name__}: {exc}"
        status = answer.status_code
        if 200 <= status < 300:
            return status, None
        if 300 <= status < 400:
            return status, f"HTTP {status}: redirects are not followed"
        return status, f"HTTP {status}"

    def close(self) -> None:
        self.client.close()
