"""Fair share between tenants: deficit round robin (Shreedhar and Varghese, 1996) over the
tenants that have a task ready, one task at a time. Pure: the dispatcher
(service/jobs/dispatch.py) tells it who is ready and does what it picks.

Each tenant in turn earns ``weight`` credits (one credit: one task) and sends tasks while it
has a credit and a task ready; a tenant with nothing ready loses what it had saved, so an
idle tenant cannot come back with a burst. Over any stretch in which a set of tenants stays
backlogged, each gets its weight's share of the tasks sent, within one round; a tenant that
becomes ready waits at most for the credits the others hold in the current round."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass
class DeficitRoundRobin:
    ring: list[str] = field(default_factory=list)  # tenants in the order they first came
    credit: dict[str, float] = field(default_factory=dict)
    turn: int = -1  # index in ``ring`` of the tenant whose turn it is (-1: none yet)

    def pick(self, ready: Mapping[str, int]) -> str | None:
        """The tenant whose task goes next, given the ready tenants and their weights (each
        at least 1); None when nobody is ready. Call once per task sent."""
        for tenant in ready:
            if tenant not in self.credit:
                self.ring.append(tenant)
                self.credit[tenant] = 0.0
        for tenant in self.ring:
            if tenant not in ready:
                self.credit[tenant] = 0.0  # idle: nothing saved for later
        if not ready:
            return None
        current = self.ring[self.turn] if 0 <= self.turn < len(self.ring) else None
        if current is not None and current in ready and self.credit[current] >= 1:
            self.credit[current] -= 1
            return current
        # The turn passes to the next ready tenant in the ring, which earns its weight.
        for step in range(1, len(self.ring) + 1):
            i = (self.turn + step) % len(self.ring)
            tenant = self.ring[i]
            if tenant in ready:
                self.turn = i
                self.credit[tenant] = max(1, ready[tenant]) - 1.0
                return tenant
        return None  # unreachable: every ready tenant is in the ring

    def forget(self, tenant: str) -> None:
        """Drop a tenant that has nothing queued (keeps the ring as small as the backlog)."""
        if tenant not in self.credit:
            return
        i = self.ring.index(tenant)
        self.ring.pop(i)
        del self.credit[tenant]
        if i <= self.turn:
            self.turn -= 1  # (its own turn: the next pick moves on to whoever followed it)
