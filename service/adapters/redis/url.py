"""One place that turns NARRATE_REDIS_URL into a Redis client and a Celery broker: a plain
``redis://`` / ``rediss://`` URL, or a Sentinel-managed primary,

    sentinel://[[user]:password@]host:port[,host:port...]/<master name>[/<db>]

(the password is the primary's and each Sentinel's; db 0 unless given). Every client then
asks the Sentinels where the primary is, and again after a failover: the job store, the
lanes, the events, the fleet's heartbeats (redis-py's SentinelConnectionPool) and the broker
(kombu's ``sentinel://`` transport, ``master_name`` in its transport options)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict
from urllib.parse import unquote, urlsplit

import redis
from redis.sentinel import Sentinel

from service.domain.errors import InputError


class ClientOptions(TypedDict):
    """redis-py's connection keywords this module sets (Redis.from_url's, master_for's)."""

    socket_timeout: float
    socket_connect_timeout: float
    decode_responses: bool


class TransportOptions(TypedDict, total=False):
    """kombu's Sentinel transport options (Celery's broker_transport_options)."""

    master_name: str
    sentinel_kwargs: dict[str, str]


@dataclass(frozen=True, slots=True)
class SentinelUrl:
    hosts: tuple[tuple[str, int], ...]
    master: str
    db: int = 0
    username: str | None = None
    password: str | None = None


def parse_sentinel(url: str) -> SentinelUrl | None:
    """The Sentinel form's parts; None for any other URL (redis.Redis.from_url's)."""
    if not url.startswith("sentinel://"):
        return None
    parts = urlsplit(url)
    auth, _, hostlist = parts.netloc.rpartition("@")
    user, _, password = auth.partition(":")
    hosts = []
    for item in filter(None, hostlist.split(",")):
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit():
            raise InputError(f"NARRATE_REDIS_URL: {item!r} is not host:port (a Sentinel's)")
        hosts.append((host.strip("[]"), int(port)))
    path = [p for p in parts.path.split("/") if p]
    if not hosts or not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise InputError(
            "NARRATE_REDIS_URL: a Sentinel URL is sentinel://[:password@]host:port"
            "[,host:port...]/<master name>[/<db>]"
        )
    return SentinelUrl(
        tuple(hosts),
        unquote(path[0]),
        int(path[1]) if len(path) == 2 else 0,
        unquote(user) or None,
        unquote(password) or None,
    )


def client(url: str, timeout: float, connect_timeout: float, decode: bool = True) -> Any:
    """A Redis client on ``url`` whose every call gives up after ``timeout`` s."""
    found = parse_sentinel(url)
    options: ClientOptions = {
        "socket_timeout": timeout,
        "socket_connect_timeout": connect_timeout,
        "decode_responses": decode,
    }
    if found is None:
        return redis.Redis.from_url(url, **options)
    auth = {"username": found.username, "password": found.password}
    sentinels = Sentinel(  # type: ignore[no-untyped-call]
        list(found.hosts),
        sentinel_kwargs={k: v for k, v in auth.items() if v} | {"socket_timeout": timeout},
        socket_timeout=timeout,
        socket_connect_timeout=connect_timeout,
    )
    return sentinels.master_for(found.master, db=found.db, **auth, **options)  # type: ignore[no-untyped-call]


def broker(url: str) -> tuple[str, TransportOptions]:
    """Celery's broker URL for ``url`` and the transport options it needs (kombu's form of
    Sentinel: one ``sentinel://`` URL per Sentinel, ';'-joined, and ``master_name``)."""
    found = parse_sentinel(url)
    if found is None:
        return url, {}
    auth = ""
    if found.password:
        auth = f"{found.username or ''}:{found.password}@"
    urls = ";".join(f"sentinel://{auth}{h}:{p}/{found.db}" for h, p in found.hosts)
    options: TransportOptions = {"master_name": found.master}
    if found.password:
        options["sentinel_kwargs"] = {"password": found.password}
    return urls, options
