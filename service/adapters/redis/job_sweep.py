"""The job store's side of retention (service/jobs/retention.py): which finished jobs are
old enough to go, and which keys and index entries no job owns any more. Read through
JobStore.sweeping(); the keys are those jobstore.py lists."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from service.adapters.redis.errors import store_errors

SUFFIXES = ("seg", "done", "remaining", "deliveries")  # job:<id>:<suffix>, see jobstore.py


@store_errors
class JobSweep:
    def __init__(self, client: Any, key: Callable[..., str]) -> None:
        self.r, self.key = client, key

    def created_before(self, cutoff: float) -> list[tuple[str, str]]:
        """(tenant, job id) of every listed job created before ``cutoff`` (seconds)."""
        out = []
        for zkey in self.r.scan_iter(match=self.key("tenant", "*", "jobs"), count=500):
            tenant = zkey.split(":")[-2]
            for job_id in self.r.zrangebyscore(zkey, "-inf", f"({int(cutoff * 1000)}"):
                out.append((tenant, job_id))
        return out

    def existing(self, job_ids: Iterable[str]) -> set[str]:
        """Those of ``job_ids`` whose record exists."""
        ids = list(job_ids)
        pipe = self.r.pipeline(transaction=False)
        for job_id in ids:
            pipe.exists(self.key("job", job_id))
        return {job_id for job_id, n in zip(ids, pipe.execute(), strict=True) if n}

    def strays(self) -> tuple[list[str], list[tuple[str, str]]]:
        """Keys of a job whose record is gone (``job:<id>:<suffix>``), and listing entries
        (tenant zset, member) naming no record."""
        keys: dict[str, list[str]] = {}
        for name in self.r.scan_iter(match=self.key("job", "*", "*"), count=500):
            job_id, _, suffix = name[len(self.key("job", "")) :].partition(":")
            if suffix:
                keys.setdefault(job_id, []).append(name)
        alive = self.existing(keys)
        stray_keys = [k for job_id, names in keys.items() if job_id not in alive for k in names]
        entries = []
        for zkey in self.r.scan_iter(match=self.key("tenant", "*", "jobs"), count=500):
            members = self.r.zrange(zkey, 0, -1)
            alive = self.existing(members)
            entries += [(zkey, m) for m in members if m not in alive]
        return stray_keys, entries

    def remove(self, keys: list[str], entries: list[tuple[str, str]]) -> None:
        pipe = self.r.pipeline(transaction=False)
        for name in keys:
            pipe.delete(name)
        for zkey, member in entries:
            pipe.zrem(zkey, member)
        pipe.execute()
