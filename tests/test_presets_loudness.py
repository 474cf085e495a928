"""Every bundled example at every shipped preset's loudness: each master within 0.5 LU of its
target and under its true-peak ceiling, as the project's BS.1770 meter reads narration.wav,
and the manifest saying so. Each example's segments are rendered once (espeak-ng), then
finished (placed, mixed, normalised, written) at each preset: the loudness work is finalize's,
the segments' speech does not depend on the target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service import audio as dsp
from service import wiring
from service.adapters.storage import LocalWorkspace
from service.config import Settings
from service.console import read_script
from service.domain.spec import RenderOptions

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.md"))


@pytest.mark.integration
def test_every_example_at_every_shipped_preset_is_within_half_a_lu_under_its_ceiling(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path / "data", default_engine="espeak", tts_cache=False)
    pipeline = wiring.pipeline(settings)
    presets = wiring.presets(settings).all("local")
    assert {p.name for p in presets} >= {"douyin", "podcast", "broadcast-r128", "youtube"}
    assert len(EXAMPLES) >= 5
    seen: dict[str, list[float]] = {}
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
            pipeline.finalize(plan, results, work, out)
            x, rate = dsp.read_wav((out / "narration.wav").read_bytes())
            lufs, peak = dsp.integrated_lufs(x, rate), dsp.true_peak_db(x)
            where = f"{example.name} at {found.name}: {lufs:.2f} LUFS, {peak:.2f} dBTP"
            assert abs(lufs - target.target_lufs) <= 0.5, where
            assert peak <= target.true_peak_dbtp, where
            loud = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["loudness"]
            assert loud["passed"] is True, (where, loud)
            assert abs(loud["integrated_lufs"] - lufs) <= 0.01, (where, loud)
            assert loud["true_peak_ceiling_dbtp"] == target.true_peak_dbtp
            seen.setdefault(found.name, []).append(round(lufs - target.target_lufs, 2))
    print(json.dumps(seen))  # the figure: each master's distance from its target, LU
