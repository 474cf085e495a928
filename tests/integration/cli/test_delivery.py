"""A voice and delivery per segment: speakers, the Markdown header syntax, casting, and a
real espeak render where two speakers are heard in two voices.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/domain/test_delivery.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from service import audio as dsp
from service.adapters.files.catalog import load_catalog
from service.config import get_settings
from tests.support.helpers import narrate


def test_two_speakers_render_in_two_voices(tmp_path: Path) -> None:
    """espeak: speaker A is the male Mandarin voice, B the female variant (+f3) started 15 %
    faster; the manifest says which voice spoke and both rates, and B's pitch is higher."""
    spec = {
        "speakers": {"A": "cmn-latn-pinyin", "B": "cmn-latn-pinyin+f3"},
        "segments": [
            {"text": "测试通过不等于实现质量好。", "seconds": 3.5, "speaker": "A"},
            {
                "text": "评分员对通过的轨迹重新排序。",
                "seconds": 3.5,
                "speaker": "B",
                "rate": "+15%",
            },
        ],
    }
    script = tmp_path / "job.json"
    script.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out"
    proc = narrate("render", str(script), "--out", str(out), "--engine", "espeak")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    a, b = manifest["segments"]
    assert (a["voice"], a["speaker"], a["requested_rate"]) == ("cmn-latn-pinyin", "A", None)
    assert (b["voice"], b["speaker"], b["requested_rate"]) == ("cmn-latn-pinyin+f3", "B", "+15%")
    assert b["native_rate"] > 0
    audio, sr = dsp.read_wav(out / "narration.wav")

    def pitch(x: np.ndarray) -> float:
        """Median fundamental by autocorrelation over voiced 40 ms frames (60-400 Hz)."""
        n = int(sr * 0.04)
        f0 = []
        for i in range(0, len(x) - n, n):
            fr = x[i : i + n] - x[i : i + n].mean()
            if np.sqrt((fr**2).mean()) < 0.02:
                continue
            ac = np.correlate(fr, fr, "full")[n - 1 :]
            lo, hi = sr // 400, sr // 60
            lag = lo + int(np.argmax(ac[lo:hi]))
            f0.append(sr / lag)
        return float(np.median(f0))

    def ms(t: float) -> int:
        return int(t * sr)

    pa = pitch(audio[ms(a["start"]) : ms(a["end"])])
    pb = pitch(audio[ms(b["start"]) : ms(b["end"])])
    assert pb > pa * 1.3, (pa, pb)


def test_voices_cli_filters_and_refresh_fails_clearly_offline(tmp_path: Path) -> None:
    import os

    path = tmp_path / "catalog.json"
    before = get_settings().voices_file.read_text(encoding="utf-8")
    path.write_text(before, encoding="utf-8")
    env = {**os.environ, "NARRATE_VOICES_FILE": str(path)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "service.cli.main", "voices", *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )

    zh = run("--language", "zh")
    assert zh.returncode == 0
    ids = [line.split()[-1] for line in zh.stdout.splitlines()]
    assert "zh-TW-YunJheNeural" in ids and "cmn-latn-pinyin" in ids
    assert not any(i.startswith("en-") for i in ids)
    assert run("--language", "xx").returncode == 2
    refreshed = run("--refresh")
    if refreshed.returncode == 0:  # online: the live list replaced the snapshot
        assert len(load_catalog(path).filter(engine="edge")) > 300
    else:  # offline (as on the build machine): a clear error and nothing changed
        assert refreshed.returncode == 1
        assert "cannot fetch edge's voice list" in refreshed.stderr
        assert "catalog is unchanged" in refreshed.stderr
        assert path.read_text(encoding="utf-8") == before
