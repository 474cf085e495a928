"""A job's ``masters`` at the door (pure): each master a safe, unique name, at most four, only
finishing fields (what would change synthesis or fit is refused naming masters[i].<field>), its
preset looked up once and its values recorded, so a re-render looks nothing up again."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from service.domain.errors import InputError
from service.domain.options import MASTER_FIELDS, MasterOptions, options_error
from service.domain.presets import Preset, preset_from_data, resolve
from service.domain.spec import RenderOptions

SHIPPED = {
    "douyin": preset_from_data(
        {"style": "vertical-safe", "burn_in": True, "on_overflow": "squeeze",
         "loudness": {"target_lufs": -14, "true_peak_dbtp": -1}}
    ),
    "youtube": preset_from_data({"style": "landscape", "loudness": {"target_lufs": -14}}),
}  # fmt: skip


def _never(name: str) -> Preset | None:
    raise AssertionError(f"looked up {name!r} again")


def _refused(options: dict[str, Any]) -> InputError:
    with pytest.raises(ValidationError) as caught:
        RenderOptions.model_validate(options)
    return options_error(caught.value.errors())


@pytest.mark.parametrize(
    ("master", "where", "words"),
    [
        ({"name": "a", "engine": "edge"}, "masters[0].engine", "synthesis runs once"),
        ({"name": "a", "voice": "zh-CN-XiaoxiaoNeural"}, "masters[0].voice", "job's options"),
        ({"name": "a", "on_overflow": "squeeze"}, "masters[0].on_overflow", "fit"),
        ({"name": "a", "exports": ["otio"]}, "masters[0].exports", "job as a whole"),
        ({"name": "Douyin HD"}, "masters[0].name", "lowercase"),
        ({"name": "../up"}, "masters[0].name", "not a master name"),
        ({"name": "a", "loudness": {"target_lufs": -40}}, "masters[0].loudness.target_lufs", "-31"),
        ({"name": "a", "music_level": 3}, "masters[0].music_level", "0"),
        ({"name": "a", "burn_inn": True}, "masters[0].burn_inn", "not permitted"),
    ],
)
def test_a_bad_master_is_refused_naming_masters_i_and_its_field(
    master: dict[str, Any], where: str, words: str
) -> None:
    error = _refused({"masters": [master]} if where.startswith("masters[0]") else master)
    assert error.message.startswith(f"options {where}: "), error.message
    assert words in error.message and error.loc[:3] == ("options", "masters", 0)
    assert "Value error" not in error.message


def test_at_most_four_masters_with_names_of_their_own() -> None:
    error = _refused({"masters": [{"name": f"m{i}"} for i in range(5)]})
    assert error.message == "options masters: 5 masters, over the limit of 4 a job"
    twice = RenderOptions.model_validate({"masters": [{"name": "a"}, {"name": "a"}]})
    with pytest.raises(InputError, match=r"masters\[1\]\.name: 'a' is used twice") as caught:
        resolve(twice, _never)
    assert caught.value.loc == ("options", "masters", 1, "name")


def test_every_option_is_either_a_masters_or_the_jobs_alone() -> None:
    """A new option must say which it is: a master's own field or one it refuses."""
    master = set(MasterOptions.model_fields) - {"name", "preset", "preset_values"}
    job = set(RenderOptions.model_fields) - {"preset", "preset_values"}
    assert set(MASTER_FIELDS) <= job and master == job
    refused = job - set(MASTER_FIELDS)
    assert refused == {
        "engine", "voice", "speakers", "on_overflow", "extend_video",
        "exports", "webhook_url", "masters", "check_speech", "on_mismatch", "lexicons",
    }  # fmt: skip
    schema = RenderOptions.model_json_schema()["$defs"]["MasterOptions"]["properties"]
    assert "engine" not in schema and "burn_in" in schema  # refused ones are not offered


def test_each_masters_preset_is_looked_up_once_and_its_values_recorded() -> None:
    options = RenderOptions.model_validate(
        {
            "engine": "espeak",
            "masters": [
                {"name": "douyin", "preset": "douyin"},
                {"name": "youtube", "preset": "youtube", "burn_in": False},
            ],
        }
    )
    applied = resolve(options, SHIPPED.get)
    douyin, youtube = applied.masters
    assert douyin.preset_values == SHIPPED["douyin"].values()
    assert youtube.preset_values == SHIPPED["youtube"].values() and youtube.burn_in is False
    assert applied.engine == "espeak" and applied.on_overflow is None  # the job's, not douyin's
    # The job's record sent back (a re-render): the same, with no lookup.
    again = resolve(RenderOptions.model_validate(applied.model_dump(mode="json")), _never)
    assert again == applied
    with pytest.raises(InputError, match=r"options masters\[1\]\.preset: no preset named 'x'"):
        resolve(RenderOptions.model_validate({"masters": [{"name": "a"}, {"name": "b", "preset": "x"}]}), SHIPPED.get)  # fmt: skip


def test_a_preset_holds_no_masters() -> None:
    with pytest.raises(InputError, match="preset masters: a preset holds no masters"):
        preset_from_data({"masters": [{"name": "a", "preset": "douyin"}]})
