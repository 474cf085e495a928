"""Test media made on the spot with ffmpeg (for tests and benchmarks)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def make_video(
    path: Path, seconds: float, size: str = "1080x1920", fps: int = 30, audio: bool = True
) -> Path:
    """A real H.264 (+AAC) file, cheap to encode: a flat colour with a moving box."""
    argv = [
        "ffmpeg",
        "-v",
        "error",
        "-y",
        "-f",
        "lavfi",
        "-i",
        f"color=c=0x203050:s={size}:r={fps}:d={seconds}",
    ]
    if audio:
        argv += ["-f", "lavfi", "-i", f"sine=f=330:d={seconds}:sample_rate=48000"]
    argv += ["-vf", "drawbox=x=mod(t*200\\,800):y=200:w=120:h=120:c=white:t=fill"]
    argv += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", str(fps)]
    if audio:
        argv += ["-c:a", "aac", "-shortest"]
    argv.append(str(path))
    subprocess.run(argv, check=True)
    return path
