"""Redis's errors as the project's: every Redis adapter raises StoreUnavailable, so the jobs
layer, the API and the workers handle an unreachable store without knowing it is Redis."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import redis

from service.domain.errors import StoreUnavailable

T = TypeVar("T")


@contextmanager
def translated() -> Iterator[None]:
    try:
        yield
    except redis.RedisError as exc:
        raise StoreUnavailable(
            f"the job store is unavailable ({type(exc).__name__}: {exc})"
        ) from exc


def _translating(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with translated():
            return fn(*args, **kwargs)

    return call


def store_errors(cls: type[T]) -> type[T]:
    """Make every public method of ``cls`` (defined on it, not inherited) raise
    StoreUnavailable for a Redis error."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(value):
            setattr(cls, name, _translating(value))
    return cls
