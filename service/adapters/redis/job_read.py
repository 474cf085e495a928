"""Reading job records from Redis (a mixin of the job store: same client, same timeouts):
one job, or many in one round trip (a batch's items, a page of jobs). The keys are the job
store's (jobstore.py): ``job:<id>`` the record, ``job:<id>:seg`` its segments' states."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from service.adapters.redis.errors import store_errors
from service.adapters.redis.keys import key
from service.domain.job import Job
from service.domain.notices import stored_error, stored_warnings


def record(data: dict[str, str], segs: dict[str, str]) -> Job | None:
    """The job from its hashes; None for an absent one, or a stray field of a deleted one."""
    if "id" not in data:
        return None
    return Job(
        id=data["id"],
        tenant=data["tenant"],
        status=data["status"],
        created=float(data["created"]),
        updated=float(data["updated"]),
        spec=json.loads(data["spec"]),
        options=json.loads(data["options"]),
        has_video=data.get("has_video") == "1",
        has_music=data.get("has_music") == "1",
        segments_total=int(data["segments_total"]),
        error=stored_error(data.get("error"), data["status"]),
        warnings=stored_warnings(data.get("warnings")),
        timings=json.loads(data.get("timings") or "{}"),
        artifacts=json.loads(data.get("artifacts") or "[]"),
        stage=data.get("stage", ""),
        stage_progress=float(data.get("stage_progress") or 0),
        segments={int(k): json.loads(v) for k, v in segs.items()},
        parent=data.get("parent") or None,
        plan=json.loads(data.get("plan") or "{}"),
        batch=data.get("batch") or None,
    )


@store_errors
class JobReads:
    """Each method raises StoreUnavailable for a Redis error."""

    r: Any

    def get(self, job_id: str) -> Job | None:
        return self.get_many([job_id])[0]

    def get_many(self, job_ids: Sequence[str]) -> list[Job | None]:
        """Each job (None: absent), in the order asked: one pipelined round trip."""
        if not job_ids:
            return []
        pipe = self.r.pipeline(transaction=False)
        for job_id in job_ids:
            pipe.hgetall(key("job", job_id))
            pipe.hgetall(key("job", job_id, "seg"))
        replies = pipe.execute()
        return [record(replies[i], replies[i + 1]) for i in range(0, len(replies), 2)]
