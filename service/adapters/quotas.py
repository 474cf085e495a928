"""The Quotas port on Redis: a token bucket per tenant (``quota:<t>:bucket``, one Lua step,
expiring once full again) and the queued/running counts the job store's scripts keep in
``metrics:tenants``."""

from __future__ import annotations

from typing import Any

from service.adapters.jobstore import TENANT_COUNTS, key
from service.adapters.redis_errors import store_errors
from service.adapters.redis_scripts import BUCKET


@store_errors
class RedisQuotas:
    def __init__(self, client: Any) -> None:
        self.r = client
        self._take = client.register_script(BUCKET)

    def take(self, tenant: str, per_minute: int) -> float:
        return float(self._take(keys=[key("quota", tenant, "bucket")], args=[per_minute]))

    def in_use(self, tenant: str) -> tuple[int, int]:
        queued, running = self.r.hmget(TENANT_COUNTS, f"{tenant} queued", f"{tenant} running")
        return max(0, int(queued or 0)), max(0, int(running or 0))
