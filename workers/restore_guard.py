"""kombu's Redis transport hands a channel's unacked messages back when the channel closes
(``QoS.restore_unacked``). After a connection loss that restore can run on a channel whose
connection is already gone: kombu then fails inside its own connection set-up
(``AttributeError: 'NoneType' object has no attribute 'hostname'``), or on a Redis still
away, and the exception reached the worker's main process and ended it (round four). A
restore that cannot run is logged and left: the messages stay in kombu's unacked hash, where
the fleet's orphan sweep (service/jobs/fleet.py) hands them back once no worker holds them."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from kombu.transport import redis as kombu_redis

log = logging.getLogger("narrate.worker")


def guarded(restore: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(restore)
    def run(qos: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return restore(qos, *args, **kwargs)
        except Exception as exc:  # kombu's or Redis's: neither may end the worker
            log.warning(
                "could not hand back %d unacked message(s) as the broker channel closed "
                "(%s: %s); the orphan sweep hands them back once no worker holds them",
                len(getattr(qos, "_delivered", ())),
                type(exc).__name__,
                exc,
            )
            getattr(qos, "_delivered", {}).clear()
            return None

    run.__narrate_guarded__ = True  # type: ignore[attr-defined]
    return run


def install() -> None:
    """Guard kombu's restore, once per process."""
    qos = kombu_redis.QoS
    if not getattr(qos.restore_unacked, "__narrate_guarded__", False):
        qos.restore_unacked = guarded(qos.restore_unacked)  # type: ignore[method-assign]
