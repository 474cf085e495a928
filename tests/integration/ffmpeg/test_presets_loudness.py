"""Every bundled example at every shipped preset's loudness: each master within 0.5 LU of its
target and under its true-peak ceiling, as the project's BS.1770 meter reads narration.wav
(and mix.wav, with a music bed, on one example), and the manifest saying so. Each example's
segments are rendered once (espeak-ng), then finished (placed, mixed, normalised, written) at
each preset: the loudness work is finalize's; the segments' speech does not depend on it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from service import audio as dsp
from service import wiring
from service.adapters.storage import LocalWorkspace
from service.config import Settings
from service.console import read_script
from service.domain.spec import RenderOptions
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
        base = pipeline.plan(spec, RenderOptions(engine="espeak", on_overflow="squeeze"))
        work = LocalWorkspace(tmp_path / example.stem / "work")
        results = [pipeline.render_segment(base, i, work) for i in range(len(spec.segments))]
        for found in presets:
            options = wiring.presets(settings).resolve(
                "local", RenderOptions(preset=found.name, engine="espeak", on_overflow="squeeze")
            )
            plan = pipeline.plan(spec, options)
            target = plan.loudness
            assert target is not None and found.preset.loudness is not None
            assert target.target_lufs == found.preset.loudness.target_lufs
            out = tmp_path / example.stem / found.name
            out.mkdir()
            music = bed if example == EXAMPLES[0] else None  # the mix too, on one example
            pipeline.finalize(plan, results, work, out, music=music)
            manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
            where = f"{example.name} at {found.name}"
            lufs, peak = target.target_lufs, target.true_peak_dbtp
            off = [_check(out / "narration.wav", manifest["loudness"], lufs, peak, where)]
            if music is not None:
                off.append(
                    _check(out / "mix.wav", manifest["music"]["loudness"], lufs, peak, where)
                )
            seen.setdefault(found.name, []).extend(off)
    print(json.dumps(seen))  # the figure: each master's distance from its target, LU
