"""Follow one job through the code, ``POST /v1/jobs`` to its artifacts, and count the calls
that climb back up a layer (issue 34's measure of how the house reads).

The job runs on the fast tier's fleet (``memory://``, espeak, a video, in this process); every
call between two functions of ``service/`` or ``workers/`` is seen by a profiler hook. A call
climbs when its callee's layer is above its caller's: layers, top down, are the doors (api,
cli, workers, wiring), the use cases (jobs), the pipeline, the adapters, and the domain at the
bottom. A climb is mostly a callback (a progress closure handed down) or a lower room reaching
into a higher one. Each distinct (caller, callee) pair counts once: a loop is one climb.

    .venv/bin/python -m devtools.climbs          # the count and each climb
"""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"api": 5, "cli": 5, "workers": 5, "wiring": 5, "jobs": 4, "pipeline": 3}
LOWEST = {"domain": 1, "audio": 1}  # the core; every other service/ room is an adapter (2)


def layer(filename: str) -> tuple[str, int] | None:
    """The room and layer of a source file of the project (None: not the project's)."""
    path = Path(filename)
    if not path.is_relative_to(ROOT):
        return None
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[0] == "workers":
        return "workers", LAYERS["workers"]
    if parts[0] != "service" or len(parts) < 2:
        return None
    room = parts[1]
    return room, LAYERS.get(room) or LOWEST.get(room) or 2


def where(frame: FrameType) -> str:
    rel = Path(frame.f_code.co_filename).relative_to(ROOT)
    return f"{rel}:{frame.f_code.co_name}"


def follow(run: Any) -> set[tuple[str, str]]:
    """Run ``run()`` under the hook: the distinct climbing (caller, callee) pairs."""
    climbs: set[tuple[str, str]] = set()

    def hook(frame: FrameType, event: str, _: object) -> None:
        if event != "call" or frame.f_back is None:
            return
        callee, caller = layer(frame.f_code.co_filename), layer(frame.f_back.f_code.co_filename)
        if callee and caller and callee[1] > caller[1]:
            climbs.add((where(frame.f_back), where(frame)))

    threading.setprofile(hook)
    sys.setprofile(hook)
    try:
        run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return climbs


def one_job() -> None:
    from tests.support.data import SHORT_SCRIPT, make_video
    from tests.support.fleet import make_fleet

    tmp = Path(tempfile.mkdtemp(prefix="narrate-climbs-"))
    fleet = make_fleet(tmp)  # espeak
    video = make_video(tmp / "clip.mp4", 11)
    with fleet.client() as c:
        files = {
            "script": ("s.md", SHORT_SCRIPT.encode(), "text/markdown"),
            "video": ("clip.mp4", video.read_bytes(), "video/mp4"),
        }
        job = c.post("/v1/jobs", files=files).json()["id"]
        fleet.work()
        done = c.get(f"/v1/jobs/{job}").json()
        assert done["status"] == "succeeded", done
        for url in done["links"]["artifacts"].values():
            assert c.get(url).status_code == 200


def main() -> None:
    climbs = sorted(follow(one_job))
    for caller, callee in climbs:
        print(f"{caller}  ->  {callee}")
    print(f"{len(climbs)} calls climb back up a layer")


if __name__ == "__main__":
    main()
