"""The ports stay small, by role: no Protocol in service/ports over MAX_METHODS methods."""

from __future__ import annotations

from devtools.protocols import MAX_METHODS, method_counts


def test_every_port_protocol_is_a_role_of_at_most_eight_methods() -> None:
    counts = method_counts()
    assert counts["jobs.JobRecords"] <= MAX_METHODS  # the walk found the ports
    over = {name: n for name, n in counts.items() if n > MAX_METHODS}
    assert over == {}
