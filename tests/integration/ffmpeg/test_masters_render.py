"""Several masters from one `narrate render` (one render for the module): synthesis and fit once,
then each master's files under masters/<name>/, each mix within 0.5 LU of its target and under
its ceiling as the project's BS.1770 meter reads it, the picture encoded once for the burned-in
masters that differ only in loudness (the second stream-copies the first's packets) and the
source's packets copied for the soft ones, and the manifest's masters section saying so."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from service import audio as dsp
from service import wiring
from service.adapters.storage.local import LocalWorkspace
from service.cli.console import read_script
from service.config import Settings
from service.domain.options import MAX_MASTERS
from service.domain.spec import RenderOptions
from service.pipeline import Handoff
from tests.support.data import make_video
from tests.support.helpers import narrate, read_manifest

SCRIPT = """标题:双版本

[段 1 · 3 秒 开场] 代码测试通过以后,再做优化。

[段 2 · 3.5 秒 机制] 评分员对轨迹排序,低排名降权。
"""
QUIET = {
    "name": "quiet",
    "preset": "douyin",
    "loudness": {"target_lufs": -18, "true_peak_dbtp": -2},
}
MASTERS = ["douyin", json.dumps(QUIET), "youtube", "broadcast=broadcast-r128"]
TARGETS = {"douyin": (-14, -1), "quiet": (-18, -2), "youtube": (-14, -1), "broadcast": (-23, -1)}


def _chord(path: Path) -> Path:
    """4 s of a two-note chord, looped under the narration as its music bed."""
    lavfi = "sine=f=440:d=4[a];sine=f=554:d=4[b];[a][b]amix=inputs=2"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-filter_complex", lavfi, str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def render(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("masters")
    (tmp / "job.md").write_text(SCRIPT, encoding="utf-8")
    video = make_video(tmp / "clip.mp4", 7, size="320x568", fps=10)
    lavfi = "sine=f=440:d=4[a];sine=f=554:d=4[b];[a][b]amix=inputs=2"
    music = tmp / "chord.wav"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-filter_complex", lavfi, str(music)], check=True
    )
    flags = [x for m in MASTERS for x in ("--master", m)]
    out = tmp / "out"
    done = narrate(
        "render", tmp / "job.md", "--video", video, "--music", music, "--out", out,
        "--engine", "espeak", *flags,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "masters/quiet: -18" in done.stdout and "picture douyin" in done.stdout, done.stdout
    assert "preset douyin's on_overflow 'squeeze' is not applied" in done.stderr, done.stderr
    return out, video


def _packets(path: Path) -> str:
    """The video stream's packets, hashed as they are stored (no decode)."""
    argv = ["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-c", "copy"]
    return subprocess.run(
        [*argv, "-f", "md5", "-"], check=True, capture_output=True
    ).stdout.decode()


def _streams(path: Path) -> list[str]:
    argv = ["ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0"]
    out = subprocess.run([*argv, str(path)], check=True, capture_output=True, text=True).stdout
    return out.split()


def test_each_master_has_its_files_and_the_job_its_own_without_a_video(
    render: tuple[Path, Path],
) -> None:
    out, _ = render
    manifest = read_manifest(out)
    assert [m["name"] for m in manifest["masters"]] == list(TARGETS)
    assert not (out / "video.mp4").exists()
    for name in ("narration.wav", "mix.wav", "subtitles.srt", "manifest.json"):
        assert (out / name).is_file(), name
    for m in manifest["masters"]:
        folder = out / "masters" / m["name"]
        files = {"narration.wav", "mix.wav", "subtitles.srt", "subtitles.vtt", "subtitles.ass"}
        assert {p.name for p in folder.iterdir()} == files | {"video.mp4"}
        assert m["artifacts"] == sorted(f"masters/{m['name']}/{f}" for f in files | {"video.mp4"})
    # Burned in: the douyin style's screen text and its own ASS; soft: a mov_text track.
    by = {m["name"]: m for m in manifest["masters"]}
    assert by["douyin"]["burn_in"] and by["douyin"]["screen_text"]
    assert not by["youtube"]["burn_in"] and not by["youtube"]["screen_text"]
    assert by["douyin"]["style"] != by["youtube"]["style"]
    assert _streams(out / "masters" / "youtube" / "video.mp4") == ["h264", "aac", "mov_text"]


def _measured(wav: Path) -> tuple[float, float]:
    x, rate = dsp.read_wav(wav.read_bytes())
    return dsp.integrated_lufs(x, rate), dsp.true_peak_db(x)


def test_each_masters_mix_is_within_half_a_lu_of_its_target_under_its_ceiling(
    render: tuple[Path, Path],
) -> None:
    out, _ = render
    manifest = read_manifest(out)
    for m in manifest["masters"]:
        lufs, peak = TARGETS[m["name"]]
        for wav, reported in (("narration.wav", m["loudness"]), ("mix.wav", m["music"])):
            measured, tp = _measured(out / "masters" / m["name"] / wav)
            where = f"{m['name']} {wav}: {measured:.2f} LUFS {tp:.2f} dBTP"
            assert abs(measured - lufs) <= 0.5 and tp <= peak, where
            assert reported["passed"] is True and abs(reported["integrated_lufs"] - measured) < 0.01
            assert (reported["target_lufs"], reported["true_peak_ceiling_dbtp"]) == (lufs, peak)
    # The job's own narration.wav: the service's -16 LUFS.
    assert abs(_measured(out / "narration.wav")[0] + 16) <= 0.5


def test_a_master_differing_only_in_loudness_copies_the_encoded_picture(
    render: tuple[Path, Path],
) -> None:
    out, video = render
    by: dict[str, Any] = {m["name"]: m for m in read_manifest(out)["masters"]}
    assert (by["douyin"]["picture"], by["quiet"]["picture"]) == ("encoded", "douyin")
    assert by["youtube"]["picture"] == by["broadcast"]["picture"] == "source"
    pictures = {name: _packets(out / "masters" / name / "video.mp4") for name in TARGETS}
    assert pictures["quiet"] == pictures["douyin"]  # the same packets: stream-copied
    assert pictures["youtube"] == pictures["broadcast"] == _packets(video) != pictures["douyin"]
    # Their sound is not the same: each its own loudness.
    douyin, quiet = (out / "masters" / n / "mix.wav" for n in ("douyin", "quiet"))
    assert (
        hashlib.sha256(douyin.read_bytes()).digest() != hashlib.sha256(quiet.read_bytes()).digest()
    )


def test_every_shipped_preset_as_a_master_is_within_half_a_lu_under_its_ceiling(
    tmp_path: Path,
) -> None:
    """The script's segments rendered once, then finished with every shipped preset as a
    master (four, then the rest), a music bed under each: each master's narration.wav and
    mix.wav read by the BS.1770 meter (every bundled example at every preset, as the job's
    own master: tests/integration/ffmpeg/test_presets_loudness.py)."""
    settings = Settings(data_dir=tmp_path / "data", default_engine="espeak", tts_cache=False)
    pipeline = wiring.pipeline(settings)
    presets = wiring.presets(settings)
    shipped = [f.name for f in presets.all("local") if f.kind == "shipped"]
    assert len(shipped) >= 6
    (tmp_path / "job.md").write_text(SCRIPT, encoding="utf-8")
    spec = read_script(tmp_path / "job.md")
    base = pipeline.door.plan(spec, RenderOptions(engine="espeak"))
    work = LocalWorkspace(tmp_path / "work")
    results = [pipeline.render_segment(base, i, work) for i in range(len(spec.segments))]
    music = _chord(tmp_path / "chord.wav")
    seen: dict[str, float] = {}
    for k, group in enumerate((shipped[:MAX_MASTERS], shipped[MAX_MASTERS:])):
        masters = [{"name": name, "preset": name} for name in group]
        options = RenderOptions.model_validate({"engine": "espeak", "masters": masters})
        plan = pipeline.door.plan(spec, presets.resolve("local", options))
        out = tmp_path / f"out{k}"
        out.mkdir()
        pipeline.finalize(Handoff(plan, results, work, out, music=music))
        for m in read_manifest(out)["masters"]:
            target = next(p.loudness for p in plan.masters if p.name == m["name"])
            for wav, reported in (("narration.wav", m["loudness"]), ("mix.wav", m["music"])):
                measured, tp = _measured(out / "masters" / m["name"] / wav)
                where = f"{m['name']} {wav}: {measured:.2f} LUFS {tp:.2f} dBTP"
                assert abs(measured - target.target_lufs) <= 0.5, where
                assert tp <= target.true_peak_dbtp and reported["passed"] is True, where
                seen[f"{m['name']} {wav}"] = round(measured - target.target_lufs, 2)
    assert {name.split()[0] for name in seen} == set(shipped)
    print(json.dumps(seen))  # each master's distance from its target, LU
