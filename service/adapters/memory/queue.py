"""The queue in this process's memory (the fast test tier's broker): tasks wait in a list
until a test drains them through the worker steps."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from service.domain.wire import JsonObject
from service.ports import FINALIZE_TASK, SEGMENT_TASK

Task = tuple[str, list[Any]]


class MemoryQueue:
    """Tasks wait in a list until ``drain`` hands each to ``run(name, args)``; with fair share,
    they wait in the tenants' lanes first and ``refill`` (the dispatcher) moves them here."""

    def __init__(self, name: str = "narrate") -> None:
        self.name = name
        self.pending: list[Task] = []
        self.lanes: dict[str, list[Task]] = {}  # lane name -> its tasks, the next one first
        self.refill: Callable[[], object] | None = None  # the dispatcher's tick, if any
        self.running = 0  # tasks drain is running now (the in-flight figure)
        self._lock = threading.RLock()

    def send(self, name: str, args: list[Any]) -> None:
        with self._lock:
            self.pending.append((name, list(args)))

    def encode(self, name: str, args: list[Any]) -> str:
        return json.dumps([name, args])

    def push_first(self, message: str) -> None:
        with self._lock:
            name, args = json.loads(message)
            self.pending.insert(0, (name, args))

    def push_encoded(self, messages: list[str], to: str | None = None) -> None:
        """The messages a store's atomic create hands over (``encode``'s output), for this
        queue or for the lane named ``to`` (adapters/memory/lanes.py)."""
        with self._lock:
            tasks = [(m[0], m[1]) for m in map(json.loads, messages)]
            if to is None or to == self.name:
                self.pending.extend(tasks)
            else:
                self.lanes.setdefault(to, []).extend(tasks)

    def waiting(self) -> int:
        """Tasks waiting anywhere: in this queue or in a lane."""
        with self._lock:
            return len(self.pending) + sum(map(len, self.lanes.values()))

    def step(self, message: JsonObject) -> tuple[str, str] | None:
        """(job id, step) of a message ``broker_messages`` gave (as CeleryQueue.step)."""
        name, args = message["task"], message["args"]
        if not isinstance(args, list):
            return None  # never: every task here carries its args as a list
        if name == SEGMENT_TASK and isinstance(index := args[1], int | float | str):
            return str(args[0]), f"segment:{int(index)}"
        return (str(args[0]), "finalize") if name == FINALIZE_TASK else None

    def drain(self, run: Callable[[str, list[Any]], None], limit: int = 10_000) -> int:
        """Run waiting tasks (and those they send) in order until none is left; how many ran."""
        ran = 0
        while ran < limit:
            if self.refill is not None and not self.pending:
                self.refill()  # the dispatcher moves the next fair pick (not under our lock)
            with self._lock:
                if not self.pending:
                    return ran
                name, args = self.pending.pop(0)
                self.running += 1
            try:
                run(name, args)
            finally:
                with self._lock:
                    self.running -= 1
            ran += 1
        raise RuntimeError(f"the queue did not drain within {limit} tasks")
