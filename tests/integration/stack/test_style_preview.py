"""GET /v1/styles/{name}/preview.png on real ffmpeg (libass): the still decodes, its
subtitle bands change with the style, it is drawn on the job's own video frame (for that
job's tenant only), cached and tagged."""

from __future__ import annotations

import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import numpy as np
import pytest

from devtools.stack import submit
from tests.support.data import SHORT_SCRIPT
from tests.support.fleet import Fleet, make_fleet

GREY = (0x4B, 0x55, 0x63)  # the neutral background (service/adapters/ffmpeg/stills.py)
VIDEO = (0x20, 0x30, 0x50)  # devtools/media.py's flat colour


def decode(png: bytes) -> np.ndarray:
    """The PNG as an (h, w, 3) uint8 array, decoded by ffmpeg (its size from IHDR)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    w, h = struct.unpack(">II", png[16:24])
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "png_pipe", "-i", "pipe:0", "-f", "rawvideo",
         "-pix_fmt", "rgb24", "pipe:1"],
        input=png, capture_output=True, check=True, timeout=30,
    ).stdout  # fmt: skip
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


def text_rows(img: np.ndarray, background: tuple[int, int, int]) -> np.ndarray:
    """Which rows hold anything but the background (the subtitle bands)."""
    off = np.abs(img.astype(int) - np.array(background)).max(axis=2) > 40
    return np.asarray(off.any(axis=1))


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Fleet, str, str]]:
    f = make_fleet(tmp_path_factory.mktemp("preview"), require_keys=True)
    keys = f.keys
    yield f, keys.create("alpha"), keys.create("beta")


def get(fleet: Fleet, key: str, name: str, **params: Any) -> Any:
    with fleet.client(key) as c:
        return c.get(f"/v1/styles/{name}/preview.png", params=params)


def test_styles_are_listed_and_each_still_draws_its_own_bands(
    keyed: tuple[Fleet, str, str], tmp_path: Path
) -> None:
    fleet, alpha, _ = keyed
    with fleet.client(alpha) as c:
        names = [s["name"] for s in c.get("/v1/styles").json()["styles"]]
    assert names[0] == "default" and {"vertical-safe", "landscape"} <= set(names)
    first = get(fleet, alpha, "default")
    assert first.status_code == 200 and first.headers["content-type"] == "image/png"
    default = decode(first.content)
    (tmp_path / "default.png").write_bytes(first.content)
    assert default.shape == (960, 540, 3)  # 1080x1920 drawn, scaled to 540 wide
    safe = decode(get(fleet, alpha, "vertical-safe").content)
    rows_default, rows_safe = text_rows(default, GREY), text_rows(safe, GREY)
    top, bottom = slice(0, 200), slice(560, 960)
    assert rows_default[top].any() and rows_default[bottom].any()  # qualifier, narration
    assert rows_safe[top].any() and rows_safe[bottom].any()
    # vertical-safe lifts the narration clear of the bottom quarter (720 of 960); default
    # sits in it.
    lowest_default, lowest_safe = np.flatnonzero(rows_default)[-1], np.flatnonzero(rows_safe)[-1]
    assert lowest_safe < 720 < lowest_default, (lowest_safe, lowest_default)
    assert not np.array_equal(default[bottom], safe[bottom])
    wide = decode(get(fleet, alpha, "landscape").content)
    assert wide.shape == (304, 540, 3)  # 1920x1080, per the style's frame
    assert decode(get(fleet, alpha, "default", frame="landscape", width=960).content).shape == (
        540, 960, 3,
    )  # fmt: skip
    assert get(fleet, alpha, "no-such-style").status_code == 404
    assert get(fleet, alpha, "default", width=4000).status_code == 422  # bounded


def test_a_still_is_drawn_on_the_jobs_frame_cached_and_tagged(
    keyed: tuple[Fleet, str, str], short_video: Path, tmp_path: Path
) -> None:
    fleet, alpha, beta = keyed
    with fleet.client(alpha) as c:
        # TestClient is httpx2's Client (the mcp SDK installs httpx2): the same interface
        r = submit(cast(httpx.Client, c), SHORT_SCRIPT, short_video)
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
    drawn: list[float] = []
    stills = fleet.app.state.previews.stills
    real = stills.draw

    def counted(*args: Any) -> bytes:
        drawn.append(args[-1])
        return bytes(real(*args))

    stills.draw = counted
    try:
        shot = get(fleet, alpha, "vertical-safe", job=job_id, at=2)
        again = get(fleet, alpha, "vertical-safe", job=job_id, at=2)
        with fleet.client(alpha) as c:
            url = f"/v1/styles/vertical-safe/preview.png?job={job_id}&at=2"
            tagged = c.get(url, headers={"If-None-Match": shot.headers["etag"]})
        late = get(fleet, alpha, "vertical-safe", job=job_id, at=500)  # past the end: clamped
    finally:
        stills.draw = real
    assert shot.status_code == again.status_code == 200 and shot.content == again.content
    assert tagged.status_code == 304 and tagged.headers["etag"] == shot.headers["etag"]
    assert late.status_code == 200 and drawn == [2.0, pytest.approx(10.9, abs=0.1)]
    (tmp_path / "job.png").write_bytes(shot.content)  # looked at: see the CHANGELOG entry
    img = decode(shot.content)
    assert img.shape == (960, 540, 3)
    corner = img[480, 5].astype(int)  # the left margin, mid-frame: the video, not grey
    assert np.abs(corner - np.array(VIDEO)).max() < 12, corner
    assert text_rows(img, VIDEO)[560:].any()
    assert get(fleet, alpha, "default").headers["etag"] != shot.headers["etag"]
    # Another tenant's job does not exist for beta.
    assert get(fleet, beta, "vertical-safe", job=job_id).status_code == 404
