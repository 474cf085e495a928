"""Each tenant's saved job presets in Redis (the PresetStore port): one hash per tenant,
``narrate:presets:<tenant>``, name -> the preset's JSON."""

from __future__ import annotations

from typing import Any

from service.adapters.redis.keys import PRESETS

# Save unless the tenant already has ``limit`` other presets: one step, so two API processes
# saving at once cannot pass the limit together.
PUT = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0
   and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


class RedisPresets:
    """The PresetStore port in Redis."""

    def __init__(self, client: Any) -> None:
        self.r = client  # decode_responses=True: replies are str
        self._put = client.register_script(PUT)

    def saved(self, tenant: str) -> dict[str, str]:
        found: dict[str, str] = self.r.hgetall(PRESETS + tenant)
        return found

    def get(self, tenant: str, name: str) -> str | None:
        found: str | None = self.r.hget(PRESETS + tenant, name)
        return found

    def put(self, tenant: str, name: str, data: str, limit: int) -> bool:
        return bool(self._put(keys=[PRESETS + tenant], args=[name, data, limit]))

    def delete(self, tenant: str, name: str) -> bool:
        return bool(self.r.hdel(PRESETS + tenant, name))
