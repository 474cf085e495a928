"""The webhook ports (WebhookEndpoints, Outbox) in Redis.

Keys (prefix ``narrate:``):
  webhooks:<tenant>          hash: endpoint id -> JSON (url, events, secret, created)
  webhooks:<tenant>:secret   the tenant's default secret (jobs' own ``webhook_url``)
  outbox                     sorted set: delivery id -> when it is next due (s), or when a
                             sender's claim on it expires
  outbox:<delivery id>       hash: the delivery (tenant, job, event, url, body, attempts...)
  job:<id>:webhooks          list of JSON attempts (swept with the job's other keys)

A claim moves a due delivery's score to now + lease in one script: two senders never take
the same one, and a sender killed mid-try leaves it due again when its lease runs out."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from service.adapters.redis.errors import store_errors
from service.adapters.redis.keys import OUTBOX, key
from service.domain import schemas
from service.domain.wire import JsonObject
from service.ports.webhooks import Attempt, Delivery, Endpoint

KEEP = 7 * 86400  # seconds a finished delivery's id is remembered (so it is not queued again)

ADD = """
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
ENQUEUE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""
CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local out = {}
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  local rec = redis.call('HGETALL', ARGV[4] .. id)
  if #rec > 0 then table.insert(out, rec) else redis.call('ZREM', KEYS[1], id) end
end
return out
"""
RECORD = """
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('HINCRBY', KEYS[2], 'attempts', 1)
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HSET', KEYS[2], 'done', 1)
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
return 1
"""


def _delivery(flat: list[str]) -> Delivery:
    """A delivery as the outbox keeps it (one of an older schema upgraded first)."""
    record: JsonObject = dict(zip(flat[::2], flat[1::2], strict=True))
    d = {k: str(v) for k, v in schemas.upgrade(schemas.DELIVERY, record).items()}
    return Delivery(
        id=d["id"],
        tenant=d["tenant"],
        job_id=d["job_id"],
        event=d["event"],
        url=d["url"],
        endpoint=d["endpoint"],
        body=d["body"],
        created=float(d["created"]),
        attempts=int(d.get("attempts") or 0),
    )


@store_errors
class RedisWebhooks:
    """Every method raises StoreUnavailable for a Redis error (``store_errors``)."""

    def __init__(self, client: Any) -> None:
        self.r = client  # decode_responses=True: replies are str
        self._add = client.register_script(ADD)
        self._enqueue = client.register_script(ENQUEUE)
        self._claim = client.register_script(CLAIM)
        self._record = client.register_script(RECORD)

    def add_endpoint(self, tenant: str, endpoint: Endpoint, limit: int) -> bool:
        data = json.dumps(asdict(endpoint))
        return bool(self._add(keys=[key("webhooks", tenant)], args=[endpoint.id, data, limit]))

    def endpoints(self, tenant: str) -> list[Endpoint]:
        found = self.r.hgetall(key("webhooks", tenant))
        return sorted((Endpoint(**json.loads(v)) for v in found.values()), key=_by_created)

    def delete_endpoint(self, tenant: str, endpoint_id: str) -> bool:
        return bool(self.r.hdel(key("webhooks", tenant), endpoint_id))

    def default_secret(self, tenant: str, new: str | None = None) -> str | None:
        name = key("webhooks", tenant, "secret")
        if new is not None:
            self.r.set(name, new)
            return new
        found: str | None = self.r.get(name)
        return found

    def enqueue(self, delivery: Delivery, due: float) -> bool:
        args: list[Any] = [delivery.id, due]
        for k, v in asdict(delivery).items():
            args += [k, v]
        args += [schemas.SCHEMA_FIELD, schemas.current(schemas.DELIVERY)]
        return bool(self._enqueue(keys=[OUTBOX, f"{OUTBOX}:{delivery.id}"], args=args))

    def claim(self, now: float, lease: float, limit: int) -> list[Delivery]:
        found = self._claim(keys=[OUTBOX], args=[now, now + lease, limit, OUTBOX + ":"])
        return [_delivery(flat) for flat in found]

    def record(self, delivery: Delivery, attempt: Attempt) -> None:
        keys = [OUTBOX, f"{OUTBOX}:{delivery.id}", key("job", delivery.job_id, "webhooks")]
        nxt = "" if attempt.next_try is None else attempt.next_try
        self._record(keys=keys, args=[delivery.id, json.dumps(asdict(attempt)), nxt, KEEP])

    def attempts(self, job_id: str) -> list[Attempt]:
        found = self.r.lrange(key("job", job_id, "webhooks"), 0, -1)
        return [Attempt(**json.loads(a)) for a in found]

    def pending(self) -> int:
        return int(self.r.zcard(OUTBOX))


def _by_created(e: Endpoint) -> tuple[float, str]:
    return (e.created, e.id)
