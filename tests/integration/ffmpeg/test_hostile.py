"""Hostile input: media files that try to make ffmpeg read local files or reach the network,
absurd media, and script text full of markup. All refused at the door or shown literally."""

from __future__ import annotations

import itertools
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pysubs2
import pytest
import srt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.adapters.ffmpeg.media import FfmpegMedia
from service.config import Settings
from service.domain.errors import MediaInputError, ScriptError
from service.domain.spec import spec_from_data
from service.domain.subtitles import WRITERS, Canvas, Layout, narration_cues, settle, timed_phrases
from service.domain.text import comparable
from tests.support.helpers import narrate


class Listener:
    """A loopback TCP listener that counts every connection made to it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def stop(self) -> None:
        self.running = False
        self.thread.join(2)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    lis = Listener()
    yield lis
    lis.stop()


def hostile_files(tmp: Path, port: int) -> dict[str, Path]:
    url = f"http://127.0.0.1:{port}"
    files = {
        "hls": f"#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\n{url}/seg0.ts\n#EXTINF:10.0,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n",
        "hls-self": "#EXTM3U\n#EXTINF:10.0,\nself.mp4\n#EXT-X-ENDLIST\n",
        "ffconcat": f"ffconcat version 1.0\nfile '{url}/a.mp4'\nfile '/etc/passwd'\n",
        "avi-xbin": "RIFF\x00\x00\x00\x00AVI LIST"
        + "\x00" * 64
        + f"#EXTM3U\n#EXTINF:1,\n{url}/x\n",
        "text": "this is not a video\n",
    }
    out = {}
    for name, body in files.items():
        path = tmp / ("self.mp4" if name == "hls-self" else f"{name}.mp4")
        path.write_bytes(body.encode("latin-1"))
        out[name] = path
    avi = tmp / "real.avi"
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            "color=s=64x64:r=5:d=1",
            "-c:v",
            "mpeg4",
            str(avi),
        ],
        check=True,
    )
    out["avi"] = avi
    return out


def test_hostile_containers_are_refused_without_any_connection(
    listener: Listener, tmp_path: Path
) -> None:
    media = FfmpegMedia(Settings())
    for name, path in hostile_files(tmp_path, listener.port).items():
        with pytest.raises(MediaInputError, match="not a readable video file"):
            media.probe(path)
            pytest.fail(f"{name} was accepted")
    assert listener.connections == 0


def test_hls_as_mp4_through_the_cli_is_exit_2(listener: Listener, tmp_path: Path) -> None:
    files = hostile_files(tmp_path, listener.port)
    script = tmp_path / "s.md"
    script.write_text("[段 1 · 3 秒] 文本。", encoding="utf-8")
    proc = narrate(
        "render", script, "--out", tmp_path / "out", "--engine", "espeak", "--video", files["hls"]
    )
    assert proc.returncode == 2 and "not a readable video file" in proc.stderr
    assert listener.connections == 0 and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("lavfi", "extra", "needle"),
    [
        ("color=s=64x64:r=1000:d=0.2", [], "1000 fps"),
        ("color=s=64x64:r=1/3600:d=36000", [], "36000 s"),
        ("sine=d=1", ["-vn"], "no video stream"),
    ],
)
def test_extreme_media_is_refused_from_probe_figures(
    tmp_path: Path, lavfi: str, extra: list[str], needle: str
) -> None:
    path = tmp_path / "x.mp4"
    codec = ["-c:a", "aac"] if "sine" in lavfi else ["-c:v", "libx264", "-preset", "ultrafast"]
    subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", lavfi, *extra, *codec, str(path)], check=True
    )
    with pytest.raises(MediaInputError, match=needle):
        FfmpegMedia(Settings()).probe(path)


# -- script text ------------------------------------------------------------------------
HOSTILE = [
    "<font color=red>",
    "</font>",
    "{\\an8}",
    "{\\pos(0,0)}",
    "\\N",
    "\\n",
    "<i>",
    "-->",
    "&amp;",
    "😀",
    "👩‍💻",
    "\u200f",
    "\u202e",
    "\x00",
    "文本",
    "GRPO",
    "，",
    "。",
    " ",
]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=30).map("".join))
def test_hostile_text_is_refused_or_shown_literally(text: str) -> None:
    try:
        spec = spec_from_data({"segments": [{"text": text, "seconds": 5}], "qualifiers": [text]})
    except ScriptError as exc:
        assert "control character" in str(exc) or "must not be empty" in str(exc)
        return
    seg = spec.segments[0].text
    layout = Layout.for_spec(spec)
    spans = timed_phrases(seg, layout.line_chars, [(0, len(seg), 0, 4000)])
    cues = settle(narration_cues(seg, spans, layout), layout)
    srt_text = WRITERS["srt"](cues, Canvas())
    parsed = list(srt.parse(srt_text))
    assert all(a.start <= b.start for a, b in itertools.pairwise(parsed))
    assert "<font" not in srt_text and "{\\pos" not in srt_text
    ass = pysubs2.SSAFile.from_string(WRITERS["ass"](cues, Canvas()))
    for event in ass:
        assert "{" not in event.text  # no override block can be smuggled in
    # Nothing that is text is lost: the words survive in the cues.
    assert comparable("".join(c.text for c in cues)) == comparable(seg) or not comparable(seg)


def test_a_1mb_line_is_refused_with_the_limit() -> None:
    with pytest.raises(ScriptError, match="over the limit of 2000"):
        spec_from_data({"segments": [{"text": "字" * 1_000_000, "seconds": 5}]})
