"""Checks on rendered artifacts, shared by the CLI and the service end-to-end tests."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pysubs2
import srt

from devtools.stack import until
from service import audio as dsp
from service.domain.units import ms_to_samples, s_to_ms
from service.ports import MuxRequest, VideoInfo
from tests.support.data import ROOT

FRAME_MS = 1000 / 30
MANIFEST_SCHEMA = json.loads((ROOT / "docs" / "manifest.schema.json").read_text("utf-8"))
# A 10 s 1080x1920 H.264 file at 30 fps, as ffprobe would describe it.
VIDEO_INFO = VideoInfo("mov,mp4,m4a,3gp,3g2,mj2", 1080, 1920, 10.0, 30.0, "h264", True)


def mux_request(**fields: Any) -> MuxRequest:
    """A MuxRequest on made-up paths under /w (its argument lists are checked as data)."""
    base: dict[str, Any] = dict(
        video=Path("/w/source.video"),
        narration=Path("/w/narration.wav"),
        subtitles_srt=Path("/w/subtitles.srt"),
        subtitles_ass=Path("/w/subtitles.ass"),
        output=Path("/w/video.mp4"),
        info=VIDEO_INFO,
        language="zh",
    )
    return MuxRequest(**{**base, **fields})


def ffprobe(path: Path) -> dict[str, Any]:
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", str(path)],
        capture_output=True,
        check=True,
    ).stdout
    info: dict[str, Any] = json.loads(out)
    return info


def stream_md5(path: Path, selector: str = "0:v:0") -> str:
    out = subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-i",
            str(path),
            "-map",
            selector,
            "-c",
            "copy",
            "-f",
            "md5",
            "-",
        ],
        capture_output=True,
        check=True,
    ).stdout
    return out.decode().strip()


def active_frames(x: np.ndarray, rate: int, frame_ms: int = 10, db: float = -45.0) -> np.ndarray:
    n = rate * frame_ms // 1000
    frames = x[: len(x) // n * n].reshape(-1, n)
    rms = np.sqrt(np.mean(frames.astype(np.float64) ** 2, axis=1))
    active: np.ndarray = rms > 10 ** (db / 20)  # numpy types this comparison as Any
    return active


def speech_onsets(x: np.ndarray, rate: int, min_silence_ms: int = 200) -> list[int]:
    """Onsets (ms) of speech that follows at least ``min_silence_ms`` of silence."""
    act = active_frames(x, rate)
    onsets, quiet = [], min_silence_ms
    for i, a in enumerate(act):
        if a:
            if quiet >= min_silence_ms:
                onsets.append(i * 10)
            quiet = 0
        else:
            quiet += 10
    return onsets


def frame_at(video: Path, at: float, size: tuple[int, int], gray: bool = False) -> np.ndarray:
    """The picture of ``video`` at ``at`` seconds (ffmpeg's decode): height x width (x 3 in
    RGB), as ints."""
    argv = ["ffmpeg", "-v", "error", "-ss", f"{at:.3f}", "-i", str(video), "-frames:v", "1",
            "-f", "rawvideo", "-pix_fmt", "gray" if gray else "rgb24", "-"]  # fmt: skip
    raw = subprocess.run(argv, capture_output=True, check=True).stdout
    width, height = size
    shape = (height, width) if gray else (height, width, 3)
    return np.frombuffer(raw, np.uint8).reshape(shape).astype(int)


def rms_db(x: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(x.astype(np.float64) ** 2)) + 1e-12))


def read_manifest(out: Path) -> dict[str, Any]:
    """A render's manifest.json, checked against the published schema
    (docs/manifest.schema.json) that other tools read it by."""
    manifest: dict[str, Any] = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    jsonschema.validate(manifest, MANIFEST_SCHEMA)
    return manifest


def check_render(
    out: Path, spec_segments: list[float], overlay_window: tuple[float, float] | None
) -> dict[str, Any]:
    """The outcomes a user cares about, read from the files themselves."""
    manifest = read_manifest(out)
    x, rate = dsp.read_wav(out / "narration.wav")
    assert rate == manifest["sample_rate"]
    assert len(x) == ms_to_samples(s_to_ms(manifest["duration"]), rate)

    # Every segment occupies exactly its allotted seconds, and its speech stays inside.
    act = active_frames(x, rate)
    for seg, allotted in zip(manifest["segments"], spec_segments, strict=True):
        assert seg["end"] - seg["start"] == allotted
        assert seg["allotted"] == allotted
        tail = act[int(seg["end"] * 100) - 15 : int(seg["end"] * 100)]
        assert not tail.any(), f"speech runs into the end of segment {seg['index']}"
        assert act[int(seg["start"] * 100) : int(seg["end"] * 100)].any()

    # Loudness as promised.
    assert abs(dsp.integrated_lufs(x, rate) + 16) <= 0.5
    assert dsp.true_peak_db(x) <= -1.0

    subs = list(srt.parse((out / "subtitles.srt").read_text(encoding="utf-8")))
    narration = [s for s in subs if not s.content.startswith("{\\an8}")]
    overlays = [s for s in subs if s.content.startswith("{\\an8}")]
    onsets = speech_onsets(x, rate)
    tol = 3 * FRAME_MS
    for cue in narration:
        start = cue.start.total_seconds() * 1000
        # The cue never shows long before the speech it carries...
        first_active = next(
            i * 10 for i in range(int(max(0, start - tol) // 10), len(act)) if act[i]
        )
        assert first_active <= start + tol, (cue, first_active)
    for onset in onsets:
        # ...and no speech starts without its cue appearing within 3 frames (or already up).
        assert any(
            abs(c.start.total_seconds() * 1000 - onset) <= tol
            or c.start.total_seconds() * 1000 <= onset <= c.end.total_seconds() * 1000
            for c in narration
        ), onset
    if overlay_window:
        a, b = overlay_window
        assert overlays and all(
            a <= o.start.total_seconds() and o.end.total_seconds() <= b for o in overlays
        )
        ass = pysubs2.load(str(out / "subtitles.ass"))
        tops = [e for e in ass if e.style == "Overlay"]
        assert len(tops) == len(overlays) and all(e.layer == 1 for e in tops)
        assert ass.styles["Overlay"].alignment == pysubs2.Alignment.TOP_CENTER
    return manifest


def narrate(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`narrate ARGS...` in a new process, as a user runs it (in ``cwd``, if given): output
    captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "service.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def eventually(condition: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    """Poll ``condition`` until it holds (a state other processes reach in their own time);
    fail naming ``what`` if it does not within ``timeout`` seconds."""
    until(condition, timeout, what)
