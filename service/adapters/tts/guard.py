"""Fleet-wide protection for a remote TTS service: a concurrency cap (a semaphore whose
leases expire if a worker dies) and a circuit breaker (open after N consecutive failures,
closed again after one successful half-open probe). Shared through Redis by every worker;
an in-process twin serves the one-process CLI."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from service.adapters.redis import keys

_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  return 1
end
return 0
"""

log = logging.getLogger("narrate.tts.guard")


class Guard(Protocol):
    def slot(self, wait: float) -> Any: ...

    def allow(self) -> bool: ...

    def success(self) -> None: ...

    def failure(self) -> None: ...


def _opened(name: str, failures: int, cooldown: float, probing: bool) -> None:
    why = "the half-open probe failed" if probing else f"{failures} consecutive failures"
    log.warning("%s circuit breaker open for %g s: %s", name, cooldown, why)


def _store_errors() -> AbstractContextManager[None]:
    """Redis's errors as StoreUnavailable: a worker hands the task back, as for the job
    store. (Imported here: only a RedisGuard loads redis; the CLI's LocalGuard never does.)"""
    from service.adapters.redis.errors import translated

    return translated()


class RedisGuard:
    """Every method raises StoreUnavailable for a Redis error."""

    def __init__(
        self,
        client: Any,
        name: str,
        limit: int,
        failures: int,
        cooldown: float,
        lease: float = 120.0,
    ) -> None:
        self.r = client
        self.key = keys.guard(name)
        self.limit, self.failures, self.cooldown, self.lease = limit, failures, cooldown, lease
        self._acquire = client.register_script(_ACQUIRE)

    @contextmanager
    def slot(self, wait: float) -> Iterator[None]:
        """Hold one of ``limit`` fleet-wide connection slots; waits up to ``wait`` seconds."""
        token = uuid.uuid4().hex
        deadline = time.monotonic() + wait
        with _store_errors():
            while not self._acquire(
                keys=[f"{self.key}:sem"],
                args=[time.time(), time.time() + self.lease, self.limit, token],
            ):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no free connection slot within {wait:g} s")
                time.sleep(0.02)
        try:
            yield
        finally:
            with _store_errors():
                self.r.zrem(f"{self.key}:sem", token)

    def allow(self) -> bool:
        """Closed: yes. Open: no. Past the cool-down: yes for exactly one caller (the probe)."""
        with _store_errors():
            return self._allow()

    def _allow(self) -> bool:
        open_until = float(self.r.get(f"{self.key}:open_until") or 0)
        if not open_until:
            return True
        if time.time() < open_until:
            return False
        return bool(self.r.set(f"{self.key}:probe", "1", nx=True, ex=max(1, int(self.cooldown))))

    def success(self) -> None:
        with _store_errors():
            self.r.delete(f"{self.key}:failures", f"{self.key}:open_until", f"{self.key}:probe")

    def failure(self) -> None:
        with _store_errors():
            self._failure()

    def _failure(self) -> None:
        n = int(self.r.incr(f"{self.key}:failures"))
        probing = self.r.exists(f"{self.key}:probe")
        if n >= self.failures or probing:
            self.r.set(f"{self.key}:open_until", time.time() + self.cooldown)
            self.r.delete(f"{self.key}:probe")
            _opened(self.key, n, self.cooldown, bool(probing))


class LocalGuard:
    """The same rules within one process."""

    def __init__(
        self, limit: int, failures: int, cooldown: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.clock = clock  # the breaker's cool-down is measured on it (tests inject one)
        self.sem = threading.BoundedSemaphore(limit)
        self.failures, self.cooldown = failures, cooldown
        self.count = 0
        self.open_until = 0.0
        self.probing = False
        self.lock = threading.Lock()

    @contextmanager
    def slot(self, wait: float) -> Iterator[None]:
        if not self.sem.acquire(timeout=wait):
            raise TimeoutError(f"no free connection slot within {wait:g} s")
        try:
            yield
        finally:
            self.sem.release()

    def allow(self) -> bool:
        with self.lock:
            if not self.open_until:
                return True
            if self.clock() < self.open_until or self.probing:
                return False
            self.probing = True
            return True

    def success(self) -> None:
        with self.lock:
            self.count, self.open_until, self.probing = 0, 0.0, False

    def failure(self) -> None:
        with self.lock:
            self.count += 1
            if self.count >= self.failures or self.probing:
                _opened("edge", self.count, self.cooldown, self.probing)
                self.open_until = self.clock() + self.cooldown
                self.probing = False
