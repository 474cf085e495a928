"""The Quotas port on Redis: a token bucket per tenant (``quota:<t>:bucket``, one Lua step,
expiring once full again), the queued/running counts the job store's scripts keep in
``metrics:tenants``, and the jobs being admitted (``quota:<t>:held``: reserved in one step
with the check, so API processes admitting at once cannot pass --max-queued together)."""

from __future__ import annotations

from typing import Any

from service.adapters.redis.errors import store_errors
from service.adapters.redis.keys import TENANT_COUNTS, key
from service.adapters.redis.scripts import BUCKET

# KEYS: the tenant's reservations (sorted set: id -> when it lapses), their sizes (hash:
# id -> jobs), the tenant counts. ARGV: "<tenant> queued", id, jobs, limit, ttl. Lapsed
# reservations (an API process died mid-batch) are dropped first; then queued + held + jobs
# against the limit, and the reservation kept only when within it: {admitted, in use}.
RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
  redis.call('HDEL', KEYS[2], id)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local used = math.max(0, tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0'))
for _, n in ipairs(redis.call('HVALS', KEYS[2])) do used = used + tonumber(n) end
if used + tonumber(ARGV[3]) > tonumber(ARGV[4]) then return {0, used} end
local ttl = tonumber(ARGV[5])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(ttl * 1000))
redis.call('PEXPIRE', KEYS[2], math.ceil(ttl * 1000))
return {1, used}
"""


@store_errors
class RedisQuotas:
    def __init__(self, client: Any) -> None:
        self.r = client
        self._take = client.register_script(BUCKET)
        self._reserve = client.register_script(RESERVE)

    def take(self, tenant: str, per_minute: int) -> float:
        return float(self._take(keys=[key("quota", tenant, "bucket")], args=[per_minute]))

    def in_use(self, tenant: str) -> tuple[int, int]:
        queued, running = self.r.hmget(TENANT_COUNTS, f"{tenant} queued", f"{tenant} running")
        return max(0, int(queued or 0)), max(0, int(running or 0))

    def reserve(
        self, tenant: str, token: str, jobs: int, limit: int, ttl: float
    ) -> tuple[bool, int]:
        keys = [key("quota", tenant, "held"), key("quota", tenant, "held", "jobs"), TENANT_COUNTS]
        args = [f"{tenant} queued", token, jobs, limit, ttl]
        ok, used = self._reserve(keys=keys, args=args)
        return bool(ok), int(used)

    def release(self, tenant: str, token: str) -> None:
        pipe = self.r.pipeline(transaction=True)
        pipe.zrem(key("quota", tenant, "held"), token)
        pipe.hdel(key("quota", tenant, "held", "jobs"), token)
        pipe.execute()
