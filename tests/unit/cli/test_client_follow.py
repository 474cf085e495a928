"""The CLI's stream follower (`narrate submit --wait`, `narrate batch`) on a scripted
transport: a stream that drops is resumed with the last event's id; one that fails twice
running, or is refused, gives way to polling; an event shows the state at once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from service.cli.client import follow_events


class Dropping(httpx.SyncByteStream):
    """Some SSE lines, then the connection breaks (or, ``ends``, the stream closes)."""

    def __init__(self, lines: list[str], ends: bool = False) -> None:
        self.lines, self.ends = lines, ends

    def __iter__(self) -> Iterator[bytes]:
        for line in self.lines:
            yield (line + "\n").encode()
        if not self.ends:
            raise httpx.ReadError("connection reset")


def run(answers: list[httpx.Response], done_after: int) -> tuple[dict[str, Any], list[str]]:
    """Follow ``/events`` answered by ``answers`` in turn; the resource ends at the
    ``done_after``-th check. Returns the final state and what was asked (with Last-Event-ID)."""
    asked: list[str] = []
    checks = 0

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(f"{request.url.path} {request.headers.get('last-event-id', '-')}")
        return answers.pop(0)

    def check() -> dict[str, Any] | None:
        nonlocal checks
        checks += 1
        return {"checks": checks} if checks >= done_after else None

    with httpx.Client(transport=httpx.MockTransport(handler), base_url="http://x") as c:
        return follow_events(c, "/events", check), asked


def sse(*ids: str) -> list[str]:
    return [line for i in ids for line in (f"id: {i}", "event: item", "data: {}", "")]


def test_a_dropped_stream_resumes_after_the_last_event_it_saw() -> None:
    answers = [
        httpx.Response(200, stream=Dropping(sse("1-0", "2-0"))),
        httpx.Response(200, stream=Dropping(sse("3-0"))),  # another drop: events came, go on
        httpx.Response(200, stream=Dropping(sse("4-0"), ends=True)),
    ]
    state, asked = run(answers, done_after=4)
    assert state == {"checks": 4}  # one check per event, the last one the end
    assert asked == ["/events -", "/events 2-0", "/events 3-0"]


def test_a_stream_refused_or_failing_twice_running_gives_way_to_polling() -> None:
    state, asked = run([httpx.Response(503)], done_after=1)
    assert state == {"checks": 1} and asked == ["/events -"]  # then polled: no stream again
    failing = [httpx.Response(200, stream=Dropping([": heartbeat", ""])) for _ in range(2)]
    state, asked = run(failing, done_after=1)
    assert state == {"checks": 1} and asked == ["/events -", "/events -"]
