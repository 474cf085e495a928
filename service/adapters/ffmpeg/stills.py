"""Stills drawn by ffmpeg's subtitles filter (libass), the filter the burn-in draws with."""

from __future__ import annotations

import tempfile
from pathlib import Path

from service.adapters.ffmpeg.burn import _escape
from service.adapters.process import run
from service.config import Settings
from service.domain.errors import MediaError

BACKGROUND = "0x4b5563"  # a neutral mid grey: light and dark text both show on it
TIMEOUT = 20.0  # seconds one still may take (ffmpeg_timeout, if lower)


def still_args(
    settings: Settings, ass: Path, size: tuple[int, int], width: int, video: Path | None, at: float
) -> list[str]:
    """ffmpeg's argv for one PNG on stdout: the picture at ``size``, the subtitles drawn at
    that size (so they land where the burn-in puts them), then scaled to ``width``."""
    w, h = size
    if video is None:
        source = ["-f", "lavfi", "-i", f"color=c={BACKGROUND}:s={w}x{h}:d=1"]
    else:  # -ss before -i: a keyframe seek, then decoded to the exact time
        source = ["-ss", f"{at:.3f}", "-i", str(video)]
    graph = (
        f"scale={w}:{h},setsar=1,subtitles=filename={_escape(ass)},"
        f"scale={width}:-2:flags=area,format=rgb24"
    )
    return [
        settings.ffmpeg, "-nostdin", "-v", "error", *source, "-an", "-sn", "-dn",
        "-vf", graph, "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "pipe:1",
    ]  # fmt: skip


class FfmpegStills:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def draw(
        self, ass: str, size: tuple[int, int], width: int, video: Path | None, at: float
    ) -> bytes:
        with tempfile.TemporaryDirectory(prefix="narrate-still-") as tmp:
            path = Path(tmp) / "still.ass"
            path.write_text(ass, encoding="utf-8")
            argv = still_args(self.settings, path, size, width, video, at)
            out = run(argv, min(TIMEOUT, self.settings.ffmpeg_timeout)).stdout
        if not out.startswith(b"\x89PNG"):  # a time past the video's end: no frame decoded
            raise MediaError(argv, 0, f"no frame at {at:.1f} s to draw the subtitles on")
        return out
