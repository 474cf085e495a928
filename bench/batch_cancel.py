"""Canceling a batch (DELETE /v1/batches/{id}) against the real stack (Redis, uvicorn; no
workers, so every item is still queued when canceled): batches of 100, 300 and 1,000 items.
Prints the seconds each cancel took and how many items it canceled (all of them: nothing
deleted). Before the fix each cancel read every item again: 100 items 13 s, 300 items 83 s,
1,000 items about 12 minutes.

Usage: .venv/bin/python bench/batch_cancel.py [SIZES...]   (default 100 300 1000)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.stack import start_stack  # noqa: E402

SPEC: dict[str, Any] = {
    "title": "tiny",
    "language": "en",
    "segments": [{"text": "Hello there.", "seconds": 1}],
}


def one(c: httpx.Client, n: int) -> None:
    body = {"items": [{"name": f"item{i}", "spec": SPEC} for i in range(n)]}
    made = c.post("/v1/batches", json=body)
    assert made.status_code == 202, made.text
    batch = made.json()["id"]
    t0 = time.perf_counter()
    r = c.delete(f"/v1/batches/{batch}")
    took = time.perf_counter() - t0
    assert r.status_code == 200, r.text
    status = c.get(f"/v1/batches/{batch}").json()
    print(
        f"{n:>5} items: cancel {took:7.2f} s, canceled {r.json()['canceled']}, "
        f"batch {status['status']} {status['counts']}"
    )


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [100, 300, 1000]
    with tempfile.TemporaryDirectory() as tmp:
        limits: dict[str, Any] = {"batch_max_items": max(sizes), "max_queued_jobs": 10 * sum(sizes)}
        stack = start_stack(Path(tmp), workers=0, **limits)
        try:
            headers = {"Authorization": f"Bearer {stack.keys['alpha']}"}
            with httpx.Client(base_url=stack.url, headers=headers, timeout=1800) as c:
                for n in sizes:
                    one(c, n)
        finally:
            stack.stop()


if __name__ == "__main__":
    main()
