"""Reading job records from Redis (a mixin of the job store: same client, same timeouts):
one job, or many in one round trip (a batch's items, a page of jobs). The keys are the job
store's (jobstore.py): ``job:<id>`` the record, ``job:<id>:seg`` its segments' states."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.adapters.redis.errors import store_errors
from service.adapters.redis.keys import key
from service.domain.job import Job
from service.domain.job_record import read_job


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
        return [read_job(replies[i], replies[i + 1]) for i in range(0, len(replies), 2)]
