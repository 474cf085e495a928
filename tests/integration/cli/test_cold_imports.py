"""The numpy DSP (service/audio/dsp.py) against what it replaces: scipy's resample_poly,
firwin, upfirdn, lfilter and ndimage filters, and pyloudnorm's meter, on random signals,
silence, DC and full scale, odd lengths and every block size; and a cold render that
imports neither scipy nor pyloudnorm, nor pypinyin's tables.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/audio/test_dsp.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from service.adapters.text import pinyinindex
from tests.support.data import ROOT, SHORT_SCRIPT, make_video
from tests.unit.audio.test_dsp import COLD, COLD_ZH


def test_a_cold_render_imports_only_what_it_uses(tmp_path: Path) -> None:
    """A local render needs none of the numeric references (scipy, pyloudnorm: ~1 s of CPU),
    jieba (~1 s: the word index replaces it) or the service's and edge's network stacks
    (~0.6 s) (issue 15 item 10)."""
    video = make_video(tmp_path / "v.mp4", 11, size="180x320", fps=10)  # copied, not encoded
    music = tmp_path / "m.wav"  # the music path meters the bed, ducks it and mixes
    subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=3", str(music)],
        check=True,
    )
    script = tmp_path / "s.md"
    script.write_text(SHORT_SCRIPT, encoding="utf-8")
    argv = ["render", script, "--out", tmp_path / "out", "--engine", "espeak"]
    proc = subprocess.run(
        [sys.executable, "-c", COLD, *map(str, [*argv, "--video", video, "--music", music])],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "rc 0 imported []", proc.stdout
    assert (tmp_path / "out" / "mix.wav").is_file()


def test_a_cold_chinese_render_reads_pinyin_from_the_table(tmp_path: Path) -> None:
    """pypinyin's tables (~0.33 s of CPU before the first synthesis) stay unimported: every
    word of the script is in the readings table built next to the word index."""
    pinyinindex.load()  # the table the render maps (built first if this cache lacks it)
    script = ROOT / "examples" / "kv-cache-quantization.md"
    argv = ["render", str(script), "--out", str(tmp_path / "out"), "--engine", "espeak"]
    proc = subprocess.run(
        [sys.executable, "-c", COLD_ZH, *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "NARRATE_DATA_DIR": str(tmp_path / "data")},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "rc 0 imported []", proc.stdout
    assert (tmp_path / "out" / "narration.wav").is_file()
