"""Every bundled example at every shipped preset's loudness: each master within 0.5 LU of its
target and under its true-peak ceiling, as the project's BS.1770 meter reads narration.wav
(and mix.wav, with a music bed, on one example), and the manifest saying so. Each example's
segments are rendered once (espeak-ng), then finished (placed, mixed, normalised, written) at
each preset: the loudness work is finalize's; the segments' speech does not depend on it. Presets
that ask for the same sound (the same target, placement and music bed) share one finish."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from service import audio as dsp
from service import wiring
from service.adapters.storage.local import LocalWorkspace
from service.cli.console import read_script
from service.config import Settings
from service.domain.spec import RenderOptions
from service.pipeline import Handoff
from service.pipeline.results import JobPlan
from tests.support.data import ROOT

EXAMPLES = sorted((ROOT / "examples").glob("*.md"))


def _chord(path: Path) -> Path:
    """4 s of a two-note chord, looped under a narration as its music bed."""
    lavfi = "sine=f=440:d=4[a];sine=f=554:d=4[b];[a][b]amix=inputs=2"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-filter_complex", lavfi, str(path)], check=True)
    return path


def _check(wav: Path, reported: dict[str, Any], lufs: float, peak: float, where: str) -> float:
    """The master as the meter reads it: within 0.5 LU, under the ceiling, as reported."""
    x, rate = dsp.read_wav(wav.read_bytes())
    measured, tp = dsp.integrated_lufs(x, rate), dsp.true_peak_db(x)
    where = f"{where} {wav.name}: {measured:.2f} LUFS, {tp:.2f} dBTP"
    assert abs(measured - lufs) <= 0.5 and tp <= peak, where
    assert reported["passed"] is True and abs(reported["integrated_lufs"] - measured) <= 0.01
    assert (reported["target_lufs"], reported["true_peak_ceiling_dbtp"]) == (lufs, peak), where
    return round(measured - lufs, 2)


def _sound(plan: JobPlan, music: Path | None) -> str:
    """What a master's sound depends on (finalize places the segments by ``on_overflow``,
    normalises the narration to the target, and mixes a music bed at ``music_level``, ducked
    by ``music_duck``): presets alike in it (douyin, bilibili, youtube-shorts and youtube
    differ only in their picture without music) share one finish."""
    options = plan.options
    bed = (options.music_level, options.music_duck) if music is not None else None
    assert plan.loudness is not None
    return json.dumps([plan.loudness.model_dump(), options.on_overflow, bed])


def test_every_example_at_every_shipped_preset_is_within_half_a_lu_under_its_ceiling(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path / "data", default_engine="espeak", tts_cache=False)
    pipeline = wiring.pipeline(settings)
    presets = wiring.presets(settings).all("local")
    assert {p.name for p in presets} >= {"douyin", "podcast", "broadcast-r128", "youtube"}
    assert len(EXAMPLES) >= 5
    seen: dict[str, list[float]] = {}
    bed = _chord(tmp_path / "chord.wav")
    for example in EXAMPLES:
        spec = read_script(example)
        base = pipeline.door.plan(spec, RenderOptions(engine="espeak", on_overflow="squeeze"))
        work = LocalWorkspace(tmp_path / example.stem / "work")
        results = [pipeline.render_segment(base, i, work) for i in range(len(spec.segments))]
        finished: dict[str, list[float]] = {}  # each sound's distance from its target, LU
        for found in presets:
            options = wiring.presets(settings).resolve(
                "local", RenderOptions(preset=found.name, engine="espeak", on_overflow="squeeze")
            )
            plan = pipeline.door.plan(spec, options)
            target = plan.loudness
            assert target is not None and found.preset.loudness is not None
            assert target.target_lufs == found.preset.loudness.target_lufs
            music = bed if example == EXAMPLES[0] else None  # the mix too, on one example
            sound = _sound(plan, music)
            if sound not in finished:
                out = tmp_path / example.stem / found.name
                out.mkdir()
                pipeline.finalize(Handoff(plan, results, work, out, music=music))
                finished[sound] = _check_master(out, music is not None, plan, found.name)
            seen.setdefault(found.name, []).extend(finished[sound])
    print(json.dumps(seen))  # the figure: each master's distance from its target, LU


def _check_master(out: Path, mixed: bool, plan: JobPlan, where: str) -> list[float]:
    """narration.wav (and mix.wav) in ``out`` as the meter reads them and the manifest says."""
    assert plan.loudness is not None
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    where = f"{out.parent.name} at {where}"
    lufs, peak = plan.loudness.target_lufs, plan.loudness.true_peak_dbtp
    off = [_check(out / "narration.wav", manifest["loudness"], lufs, peak, where)]
    if mixed:
        off.append(_check(out / "mix.wav", manifest["music"]["loudness"], lufs, peak, where))
    return off
