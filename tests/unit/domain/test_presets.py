"""Applying a job preset (pure): the job's options win field by field, objects merged key by
key, the values recorded; resolving again (a re-render) needs no lookup and changes nothing."""

from __future__ import annotations

import pytest

from service.domain.errors import InputError
from service.domain.presets import Preset, preset_from_data, resolve
from service.domain.spec import RenderOptions, spec_from_data

PRESET = preset_from_data(
    {
        "description": "ours",
        "speakers": {"host": "en-GB-RyanNeural", "guest": "en-US-AriaNeural"},
        "loudness": {"target_lufs": -14, "true_peak_dbtp": -1.5},
        "style": {"preset": "vertical-safe", "narration": {"size": 0.03}},
        "burn_in": True,
    }
)


def _never(name: str) -> Preset | None:
    raise AssertionError(f"looked up {name!r} again")


def test_the_jobs_options_win_field_by_field_over_the_presets() -> None:
    mine = RenderOptions.model_validate(
        {
            "preset": "ours",
            "burn_in": False,
            "speakers": {"guest": "en-GB-SoniaNeural"},
            "loudness": {"target_lufs": -16},
            "style": {"narration": {"color": "#FFFF00"}},
        }
    )
    applied = resolve(mine, {"ours": PRESET}.get)
    assert applied.burn_in is False  # set by the job, though to the default
    assert applied.speakers == {"host": "en-GB-RyanNeural", "guest": "en-GB-SoniaNeural"}
    assert applied.loudness is not None
    assert (applied.loudness.target_lufs, applied.loudness.true_peak_dbtp) == (-16, -1.5)
    assert applied.style is not None and applied.style.preset == "vertical-safe"
    assert applied.model_dump(mode="json")["style"]["narration"]["size"] == 0.03
    assert applied.preset == "ours" and applied.preset_values == PRESET.values()
    assert "description" not in applied.preset_values
    # The job's record, resolved again (a re-render of it): the same, with no lookup.
    again = resolve(RenderOptions.model_validate(applied.model_dump(mode="json")), _never)
    assert again == applied
    # The speakers recast the script's.
    spec = spec_from_data(
        {
            "language": "en",
            "speakers": {"host": "en-US-GuyNeural"},
            "segments": [{"text": "Hi.", "seconds": 2, "speaker": "host"}],
        }
    )
    assert spec.rendered_with(applied).speakers["host"] == "en-GB-RyanNeural"


def test_an_unknown_preset_and_a_preset_in_a_preset_are_refused() -> None:
    with pytest.raises(InputError, match="no preset named 'gone'"):
        resolve(RenderOptions(preset="gone"), lambda name: None)
    with pytest.raises(InputError, match=r"preset preset: .*another preset"):
        preset_from_data({"preset": "douyin"})
    with pytest.raises(InputError, match="speakers"):
        preset_from_data({"speakers": {"a b": "x"}})
    assert resolve(RenderOptions(burn_in=True), _never) == RenderOptions(burn_in=True)
