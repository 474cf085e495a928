"""Batch records in Redis (the BatchStore port; the record's shape is service/domain/batch.py).

Keys (prefix ``narrate:``):
  batch:<id>                 string: the batch as JSON (expires a day after its jobs would)
  tenant:<t>:batches         sorted set of batch ids by creation time (ms)
  idem:<t>:batch:<key>       "<body hash> <batch id>" for the batch's Idempotency-Key (24 h)

A batch is stored in one script with its Idempotency-Key, so two requests with one key make
one batch. Its jobs are ordinary job records (jobstore.py) carrying the batch's id."""

from __future__ import annotations

import json
from typing import Any

import redis

from service.adapters.redis.errors import store_errors
from service.adapters.redis.idem import made_before
from service.adapters.redis.keys import key
from service.domain.batch import Batch
from service.domain.job import page_cursor, parse_cursor

CREATE = """
if KEYS[3] ~= '' then
  local got = redis.call('GET', KEYS[3])
  if got then
    local sp = string.find(got, ' ', 1, true)
    if string.sub(got, 1, sp - 1) ~= ARGV[3] then return {'conflict'} end
    return {'exists', string.sub(got, sp + 1)}
  end
  redis.call('SET', KEYS[3], ARGV[3] .. ' ' .. ARGV[4], 'EX', 86400)
end
if tonumber(ARGV[5]) > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[5])
else
  redis.call('SET', KEYS[1], ARGV[1])
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
return {'created'}
"""


@store_errors
class RedisBatches:
    """Every method raises StoreUnavailable for a Redis error (``store_errors``)."""

    def __init__(self, client: redis.Redis, keep_seconds: float = 0.0) -> None:
        self.r: Any = client  # decode_responses=True: replies are str
        self.keep = int(keep_seconds)
        self._create = client.register_script(CREATE)

    def create(self, batch: Batch, idem: tuple[str, str] | None = None) -> tuple[Batch, bool]:
        keys = [
            key("batch", batch.id),
            key("tenant", batch.tenant, "batches"),
            key("idem", batch.tenant, "batch", idem[0]) if idem else "",
        ]
        data = json.dumps(batch.to_data(), ensure_ascii=False)
        args: list[Any] = [
            data,
            int(batch.created * 1000),
            idem[1] if idem else "",
            batch.id,
            self.keep,
        ]
        made = made_before(self._create(keys=keys, args=args), idem)
        found = self.get(made) if made is not None else None
        return (found, False) if found is not None else (batch, True)

    def discard(self, batch: Batch, idem: str | None = None) -> None:
        pipe = self.r.pipeline(transaction=True)
        pipe.delete(key("batch", batch.id))
        pipe.zrem(key("tenant", batch.tenant, "batches"), batch.id)
        if idem:
            pipe.delete(key("idem", batch.tenant, "batch", idem))
        pipe.execute()

    def get(self, batch_id: str) -> Batch | None:
        raw = self.r.get(key("batch", batch_id))
        return Batch.from_data(json.loads(raw)) if raw else None

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Batch], str | None]:
        """Newest first by (creation ms, id), as JobStore.page; an expired record's entry is
        skipped and removed."""
        below = parse_cursor(cursor)
        zkey = key("tenant", tenant, "batches")
        hi = "+inf" if below is None else str(below[0])
        out: list[Batch] = []
        offset = 0
        while len(out) < limit:
            found = self.r.zrevrangebyscore(
                zkey, hi, "-inf", start=offset, num=limit * 2, withscores=True
            )
            if not found:
                return out, None
            offset += len(found)
            for batch_id, score in found:
                if below is not None and int(score) == below[0] and batch_id >= below[1]:
                    continue
                batch = self.get(batch_id)
                if batch is None:
                    self.r.zrem(zkey, batch_id)
                    offset -= 1
                    continue
                out.append(batch)
                if len(out) == limit:
                    return out, page_cursor(int(score), batch_id)
        return out, None
