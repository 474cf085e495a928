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


def make_footage(path: Path, seconds: float, size: str = "1080x1920", fps: int = 30) -> Path:
    """A file with the detail and bitrate of real footage (~6 Mb/s at 1080x1920: ffmpeg's
    moving testsrc2 pattern, x264 veryfast CRF 23, a keyframe every 2 s) and a stereo tone:
    what a studio uploads, where ``make_video``'s flat colour costs an encoder almost nothing.
    Slow to make (about half a minute of CPU per minute): kept in ``~/.cache/narrate/bench``."""
    cached = Path.home() / ".cache" / "narrate" / "bench" / f"footage-{size}-{fps}-{seconds:g}.mp4"
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".part.mp4")
        subprocess.run(
            ["ffmpeg", "-v", "error", "-y",
             "-f", "lavfi", "-i", f"testsrc2=s={size}:r={fps}:d={seconds}",
             "-f", "lavfi", "-i", f"sine=f=330:d={seconds}:sample_rate=48000",
             "-ac", "2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23",
             "-pix_fmt", "yuv420p", "-g", str(2 * fps), "-c:a", "aac", "-shortest", str(tmp)],
            check=True,
        )  # fmt: skip
        tmp.replace(cached)
    path.unlink(missing_ok=True)
    path.symlink_to(cached)
    return path
