"""Each tenant's pronunciation dictionaries in Redis (the LexiconStore port).

``narrate:lexicons:<tenant>``: a hash, id -> the latest version's about, and
``narrate:lexicons:<tenant>:n``: id -> its latest version number; per dictionary two lists,
``narrate:lexicon:<tenant>:<id>:data`` and ``...:about``, one item per version (version N at
index N-1). Creating and updating are one script each, so two API processes at once can
neither pass a limit together nor give two updates the same number."""

from __future__ import annotations

from typing import Any

from service.adapters.redis.keys import LEXICONS, lexicon
from service.ports import LexiconVersion

CREATE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1
   or redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('DEL', KEYS[3], KEYS[4])
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('RPUSH', KEYS[4], ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], 1)
return 1
"""
UPDATE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0
end
local n = redis.call('LLEN', KEYS[3])
if ARGV[5] ~= '' and n ~= tonumber(ARGV[5]) then
  return -2
end
if n >= tonumber(ARGV[4]) then
  return -1
end
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('RPUSH', KEYS[4], ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], n + 1)
return n + 1
"""


class RedisLexicons:
    """The LexiconStore port in Redis."""

    def __init__(self, client: Any) -> None:
        self.r = client  # decode_responses=True: replies are str
        self._create = client.register_script(CREATE)
        self._update = client.register_script(UPDATE)

    def _keys(self, tenant: str, lexicon_id: str) -> list[str]:
        one = lexicon(tenant, lexicon_id)
        return [LEXICONS + tenant, LEXICONS + tenant + ":n", one + ":data", one + ":about"]

    def create(self, version: LexiconVersion, limit: int) -> bool:
        keys = self._keys(version.tenant, version.lexicon_id)
        args = [version.lexicon_id, version.about, version.data, limit]
        return bool(self._create(keys=keys, args=args))

    def update(self, version: LexiconVersion, limit: int, after: int | None = None) -> int:
        keys = self._keys(version.tenant, version.lexicon_id)
        expected = "" if after is None else str(after)
        args = [version.lexicon_id, version.about, version.data, limit, expected]
        return int(self._update(keys=keys, args=args))

    def get(
        self, tenant: str, lexicon_id: str, version: int | None = None
    ) -> tuple[int, str] | None:
        keys = self._keys(tenant, lexicon_id)
        if version is None:
            latest = self.r.hget(keys[1], lexicon_id)
            if latest is None:
                return None
            version = int(latest)
        if version < 1:
            return None
        data: str | None = self.r.lindex(keys[2], version - 1)
        return None if data is None else (version, data)

    def versions(self, tenant: str, lexicon_id: str) -> list[str]:
        found: list[str] = self.r.lrange(self._keys(tenant, lexicon_id)[3], 0, -1)
        return found

    def latest(self, tenant: str) -> dict[str, tuple[int, str]]:
        abouts: dict[str, str] = self.r.hgetall(LEXICONS + tenant)
        numbers: dict[str, str] = self.r.hgetall(LEXICONS + tenant + ":n")
        return {i: (int(numbers.get(i, 1)), about) for i, about in abouts.items()}

    def delete(self, tenant: str, lexicon_id: str) -> bool:
        keys = self._keys(tenant, lexicon_id)
        pipe = self.r.pipeline(transaction=True)
        pipe.hdel(keys[0], lexicon_id)
        pipe.hdel(keys[1], lexicon_id)
        pipe.delete(keys[2], keys[3])
        gone = pipe.execute()
        return bool(gone[0])
