"""A batch's change events as a Redis Stream (the BatchEvents port), so any API process can
follow any batch (GET /v1/batches/{id}/events). Keys: ``narrate:batch:<id>:events`` (capped,
expiring as a job's events do) and ``narrate:batch:<id>:completed`` (set once, with the
``completed`` event, in one script: however many steps see the last item end, one writes
it)."""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import to_jsonable_python

from service.adapters.redis.errors import store_errors
from service.adapters.redis.job_events import EVENTS_MAX, EVENTS_TTL
from service.adapters.redis.keys import key
from service.domain.job import stream_after
from service.domain.wire import JsonObject
from service.ports.jobs import JobEvent

# KEYS: flag, stream. ARGV: data (JSON), cap, ttl. 1: written now; 0: written before.
COMPLETE = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', tonumber(ARGV[3])) == false then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'event', 'completed', 'data', ARGV[1])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
return 1
"""


def _key(batch_id: str, what: str) -> str:
    return key("batch", batch_id, what)


def _json(data: JsonObject) -> str:
    return json.dumps(to_jsonable_python(data), ensure_ascii=False)


@store_errors
class RedisBatchEvents:
    def __init__(self, client: Any) -> None:
        self.r = client  # decode_responses=True
        self._complete = client.register_script(COMPLETE)

    def publish(self, batch_id: str, event: str, data: JsonObject) -> None:
        pipe = self.r.pipeline(transaction=True)
        stream = _key(batch_id, "events")
        pipe.xadd(
            stream, {"event": event, "data": _json(data)}, maxlen=EVENTS_MAX, approximate=True
        )
        pipe.expire(stream, EVENTS_TTL)
        pipe.execute()

    def events(self, batch_id: str, after: str = "0-0", count: int = 100) -> list[JobEvent]:
        reply = self.r.xread({_key(batch_id, "events"): stream_after(after)}, count=count)
        return [
            JobEvent(entry_id, fields["event"], json.loads(fields["data"]))
            for _stream, entries in reply or []
            for entry_id, fields in entries
        ]

    def complete(self, batch_id: str, data: JsonObject) -> bool:
        keys = [_key(batch_id, "completed"), _key(batch_id, "events")]
        return bool(self._complete(keys=keys, args=[_json(data), EVENTS_MAX, EVENTS_TTL]))
