"""Deficit round robin (service/domain/fairshare.py): each backlogged tenant gets its
weight's share of the tasks within one round, a tenant that becomes ready is served within
the others' credits, and an idle tenant saves nothing for later."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from service.domain.fairshare import DeficitRoundRobin

weights = st.dictionaries(
    st.sampled_from(["a", "b", "c", "d", "e"]), st.integers(1, 5), min_size=1, max_size=5
)


@given(weights, st.integers(1, 200))
def test_backlogged_tenants_share_by_weight_within_one_round(w: dict[str, int], n: int) -> None:
    drr = DeficitRoundRobin()
    got = Counter(drr.pick(w) for _ in range(n))
    total = sum(w.values())
    for tenant, weight in w.items():
        assert abs(got[tenant] - n * weight / total) <= max(w.values()), (tenant, got)


@given(weights, st.integers(0, 30))
def test_a_tenant_that_becomes_ready_waits_at_most_the_others_credits(
    w: dict[str, int], warmup: int
) -> None:
    others = {t: v for t, v in w.items() if t != "z"}
    drr = DeficitRoundRobin()
    for _ in range(warmup):
        drr.pick(others)
    ready = {**others, "z": 1}
    waited = 0
    while drr.pick(ready) != "z":
        waited += 1
    assert waited <= sum(others.values())


def test_weights_three_to_one_alternate_in_rounds() -> None:
    drr = DeficitRoundRobin()
    assert "".join(str(drr.pick({"a": 3, "b": 1})) for _ in range(8)) == "aaabaaab"


def test_an_idle_tenant_saves_no_credit() -> None:
    drr = DeficitRoundRobin()
    assert drr.pick({"a": 5, "b": 1}) == "a"  # a's turn: 4 credits left
    assert [drr.pick({"b": 1}) for _ in range(3)] == ["b", "b", "b"]  # a idle: credit gone
    assert drr.credit["a"] == 0
    assert [drr.pick({"a": 5, "b": 1}) for _ in range(7)] == ["a"] * 5 + ["b", "a"]


def test_nobody_ready_picks_nobody() -> None:
    assert DeficitRoundRobin().pick({}) is None


@given(st.lists(st.tuples(st.booleans(), weights), max_size=40))
def test_forgetting_tenants_keeps_every_pick_a_ready_one(
    ops: list[tuple[bool, dict[str, int]]],
) -> None:
    drr = DeficitRoundRobin()
    for forget, ready in ops:
        if forget:
            for tenant in set(drr.credit) - set(ready):
                drr.forget(tenant)
        assert drr.pick(ready) in ready
        assert -1 <= drr.turn < len(drr.ring) and set(drr.ring) == set(drr.credit)
