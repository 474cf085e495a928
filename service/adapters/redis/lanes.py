"""The Lanes and Lease ports on Redis (the fair-share dispatcher's side of the queue).

Keys:
  narrate:lanes          set: tenants that may have a lane (the create script adds to it)
  narrate:lane:<tenant>  list: the tenant's waiting task messages, kombu's bytes; pushed on
                         the left, taken from the right (as kombu's own queue list)
  narrate:dispatcher     string: the dispatcher lease's holder (expires unless renewed)
  narrate:dispatcher:held  string: when the lease was last taken or renewed (Redis's clock;
                         /readyz tells from it how long no dispatcher has worked)

A message is in exactly one place at a time: a lane, the broker's queue list, or kombu's
unacked hash. The move from a lane to the queue is one Lua step (checked against the head
the dispatcher looked at), so a dispatcher killed anywhere loses and duplicates nothing."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from service.adapters.redis.errors import store_errors
from service.adapters.redis.keys import LANE_PREFIX, LANES, LEASE
from service.domain.wire import JsonObject

LEASE_HELD = ":held"  # the lease's name + this: when it was last held


def lane_key(tenant: str) -> str:
    return LANE_PREFIX + tenant


# KEYS: lane, queue, lanes set. ARGV: expected head, "first"|"last", tenant. Moves the lane's
# head to the queue (RPUSH: where the next BRPOP takes it; LPUSH: behind the rest) if it is
# still the one expected; forgets the tenant once its lane is empty. 1 moved, 0 not.
MOVE = """
local head = redis.call('LINDEX', KEYS[1], -1)
if head ~= ARGV[1] then return 0 end
redis.call('RPOP', KEYS[1])
if ARGV[2] == 'first' then redis.call('RPUSH', KEYS[2], head)
else redis.call('LPUSH', KEYS[2], head) end
if redis.call('LLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[3], ARGV[3]) end
return 1
"""

# KEYS: lane, lanes set. ARGV: message, tenant. At the head of the lane, the tenant listed.
PUSH_FIRST = """
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
"""

# KEYS: lanes set. ARGV: tenants seen with an empty lane. Forgotten only if still empty (a
# create or a finalize may have pushed meanwhile: both list the tenant in the same step).
PRUNE = """
for _, t in ipairs(ARGV) do
  if redis.call('LLEN', KEYS[2] .. t) == 0 then redis.call('SREM', KEYS[1], t) end
end
"""

# KEYS: lease, its held time. ARGV: holder, ms. Taken if free, renewed if ours (and the time
# written, Redis's own); 1 held, 0 another's.
ACQUIRE = """
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
local t = redis.call('TIME')
redis.call('SET', KEYS[2], t[1] .. '.' .. string.format('%06d', tonumber(t[2])))
return 1
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
"""


@store_errors
class RedisLanes:
    """Each method raises StoreUnavailable for a Redis error. ``queue``: the broker's list."""

    def __init__(self, client: Any, queue: str) -> None:
        self.r = client  # decode_responses=True
        self.queue = queue
        self._move = client.register_script(MOVE)
        self._push_first = client.register_script(PUSH_FIRST)
        self._prune = client.register_script(PRUNE)

    def lane(self, tenant: str) -> str:
        return lane_key(tenant)

    def push_first(self, tenant: str, message: str) -> None:
        self._push_first(keys=[lane_key(tenant), LANES], args=[message, tenant])

    def heads(self) -> dict[str, str]:
        tenants = sorted(self.r.smembers(LANES))
        pipe = self.r.pipeline(transaction=False)
        for t in tenants:
            pipe.lindex(lane_key(t), -1)
        found = dict(zip(tenants, pipe.execute(), strict=True))
        empty = [t for t, head in found.items() if head is None]
        if empty:
            self._prune(keys=[LANES, LANE_PREFIX], args=empty)
        return {t: head for t, head in found.items() if head is not None}

    def move(self, tenant: str, message: str, first: bool) -> bool:
        keys = [lane_key(tenant), self.queue, LANES]
        return bool(self._move(keys=keys, args=[message, "first" if first else "last", tenant]))

    def depth(self) -> int:
        return int(self.r.llen(self.queue))

    def depths(self) -> dict[str, int]:
        tenants = sorted(self.r.smembers(LANES))
        pipe = self.r.pipeline(transaction=False)
        for t in tenants:
            pipe.llen(lane_key(t))
        return {t: int(n) for t, n in zip(tenants, pipe.execute(), strict=True)}

    def waiting(self) -> list[JsonObject]:
        tenants = sorted(self.r.smembers(LANES))
        pipe = self.r.pipeline(transaction=True)  # one atomic read of every lane
        for t in tenants:
            pipe.lrange(lane_key(t), 0, -1)
        return [json.loads(m) for lane in pipe.execute() for m in lane]

    def queued(self) -> list[JsonObject]:
        found = []
        for m in self.r.lrange(self.queue, 0, -1):
            with contextlib.suppress(ValueError):  # not kombu's: not a step to count
                found.append(json.loads(m))
        return found


@store_errors
class RedisLease:
    def __init__(self, client: Any, name: str = LEASE) -> None:
        self.r = client
        self.name = name
        self._acquire = client.register_script(ACQUIRE)
        self._release = client.register_script(RELEASE)

    def acquire(self, holder: str, seconds: float) -> bool:
        keys = [self.name, self.name + LEASE_HELD]
        return bool(self._acquire(keys=keys, args=[holder, int(seconds * 1000)]))

    def release(self, holder: str) -> None:
        self._release(keys=[self.name], args=[holder])
