"""The tenants' keys in Redis (the TenantKeys port): a hash ``narrate:keys`` (a key's id ->
its record as JSON), a set of ids per tenant, and the set of digests ever imported from a
``keys.json``. Each write is one script, so two machines writing at once cannot leave a key
in the hash without its tenant's set."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from service.adapters.redis.errors import store_errors
from service.adapters.redis.keys import KEYS, KEYS_IMPORTED, KEYS_OF_TENANT
from service.ports import KeyRecord

# KEYS: the hash, the tenant's set, the imported set; ARGV: id, record, digest, importing.
ADD = """
if ARGV[4] == '1' and redis.call('SADD', KEYS[3], ARGV[3]) == 0 then
  return 0
end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return 0
end
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""


def _dump(record: KeyRecord) -> str:
    data = {"digest": record.digest, "tenant": record.tenant, "created": record.created}
    return json.dumps(data | {"limits": record.limits})


def _load(raw: str) -> KeyRecord:
    data = json.loads(raw)
    limits = {str(k): int(v) for k, v in (data.get("limits") or {}).items()}
    return KeyRecord(str(data["digest"]), str(data["tenant"]), float(data["created"]), limits)


@store_errors
class RedisTenantKeys:
    """Every method raises StoreUnavailable for a Redis error (``store_errors``)."""

    def __init__(self, client: Any) -> None:
        self.r = client  # decode_responses=True: replies are str
        self._add = client.register_script(ADD)

    def _write(self, record: KeyRecord, importing: bool) -> bool:
        keys = [KEYS, KEYS_OF_TENANT + record.tenant, KEYS_IMPORTED]
        args = [record.id, _dump(record), record.digest, "1" if importing else "0"]
        return bool(self._add(keys=keys, args=args))

    def add(self, record: KeyRecord) -> bool:
        return self._write(record, importing=False)

    def get(self, key_id: str) -> KeyRecord | None:
        raw: str | None = self.r.hget(KEYS, key_id)
        return None if raw is None else _load(raw)

    def of_tenant(self, tenant: str) -> list[KeyRecord]:
        ids = sorted(self.r.smembers(KEYS_OF_TENANT + tenant))
        found = self.r.hmget(KEYS, ids) if ids else []
        return [_load(raw) for raw in found if raw is not None]

    def all(self) -> list[KeyRecord]:
        found: dict[str, str] = self.r.hgetall(KEYS)
        return [_load(raw) for raw in found.values()]

    def remove(self, records: Sequence[KeyRecord]) -> None:
        pipe = self.r.pipeline(transaction=True)
        for record in records:
            pipe.hdel(KEYS, record.id)
            pipe.srem(KEYS_OF_TENANT + record.tenant, record.id)
        pipe.execute()

    def import_once(self, records: Sequence[KeyRecord]) -> int:
        return sum(self._write(record, importing=True) for record in records)
