"""A job's masters as planned at the door: each master's finishing options resolved once into
the JobPlan (its preset's finishing fields over the job's, its own over those), its style and
loudness resolved, what its preset says of synthesis not applied (and said so); the plan stored
whole and read back gives the same masters, so finalize never looks a preset up."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from service import wiring
from service.adapters.storage.local import artifact_file
from service.cli.console import add_render_flags, render_options
from service.config import Settings
from service.domain.errors import InputError, ScriptError
from service.domain.spec import JobSpec, RenderOptions
from service.pipeline import JobPlan, Pipeline, is_artifact
from service.pipeline.results import staged_artifacts

SPEC = JobSpec.model_validate(
    {
        "title": "masters",
        "language": "zh",
        "segments": [{"text": "代码测试通过以后,再做优化。", "seconds": 3}],
    }
)


@pytest.fixture(scope="module")
def door(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Pipeline]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("data"), default_engine="espeak")
    return settings, wiring.pipeline(settings)


def _plan(door: tuple[Settings, Pipeline], options: dict[str, Any]) -> JobPlan:
    settings, pipeline = door
    resolved = wiring.presets(settings).resolve("local", RenderOptions.model_validate(options))
    return pipeline.door.plan(SPEC, resolved)


def test_each_master_takes_its_presets_finishing_fields_and_its_own_over_the_jobs(
    door: tuple[Settings, Pipeline],
) -> None:
    plan = _plan(
        door,
        {
            "engine": "espeak",
            "music_level": -20,
            "loudness": {"true_peak_dbtp": -2},
            "masters": [
                {"name": "douyin", "preset": "douyin"},
                {"name": "youtube", "preset": "youtube", "burn_in": False},
                {"name": "quiet", "preset": "douyin", "loudness": {"target_lufs": -18}},
                {"name": "plain"},
            ],
        },
    )
    douyin, youtube, quiet, plain = plan.masters
    assert douyin.options.burn_in and douyin.style.name == "vertical-safe"
    assert plan.spec.shows_screen_text(douyin.options)
    assert douyin.loudness.target_lufs == -14 and douyin.loudness.true_peak_dbtp == -1
    assert douyin.options.music_level == -10  # douyin's over the job's -20
    assert not youtube.options.burn_in and youtube.style.name == "landscape"
    assert not plan.spec.shows_screen_text(youtube.options)
    # A field left out of the master's loudness is its preset's, then the job's.
    assert (quiet.loudness.target_lufs, quiet.loudness.true_peak_dbtp) == (-18, -1)
    assert quiet.style == douyin.style and quiet.options.burn_in
    assert (plain.loudness.target_lufs, plain.loudness.true_peak_dbtp) == (-16, -2)
    assert plain.options.music_level == -20 and not plain.options.burn_in
    # Synthesis is the job's: douyin's squeeze is not applied, and the job says so once each.
    assert plan.options.on_overflow is None and plan.spec.fit.on_overflow == SPEC.fit.on_overflow
    said = [w.message for w in plan.warnings if w.code == "master.preset_partial"]
    assert len(said) == 2 and "on_overflow 'squeeze' is not applied" in said[0]
    assert all(m.options.masters == [] for m in plan.masters)
    # Stored whole and read back (what a worker does): the same masters.
    again = JobPlan.model_validate(plan.model_dump(mode="json"))
    assert again.masters == plan.masters
    assert again.for_master(quiet).loudness == quiet.loudness


def test_a_masters_unknown_style_or_preset_is_refused_at_the_door_naming_it(
    door: tuple[Settings, Pipeline],
) -> None:
    bad_style = {"masters": [{"name": "a"}, {"name": "b", "style": "nope"}]}
    with pytest.raises(InputError, match=r"options masters\[1\]\.style: ") as caught:
        _plan(door, bad_style)
    assert caught.value.loc == ("options", "masters", 1, "style")
    with pytest.raises(InputError, match=r"masters\[0\]\.preset: no preset named 'tiktok'"):
        _plan(door, {"masters": [{"name": "a", "preset": "tiktok"}]})
    _, pipeline = door
    unresolved = RenderOptions.model_validate({"masters": [{"name": "a", "preset": "douyin"}]})
    with pytest.raises(InputError, match="not resolved"):
        pipeline.door.plan(SPEC, unresolved)


def test_a_masters_files_are_artifacts_and_nothing_else_under_masters(tmp_path: Path) -> None:
    assert is_artifact("masters/douyin/video.mp4") and is_artifact("masters/yt_2/mix.wav")
    for name in (
        "masters/douyin/manifest.json",  # once, for the job
        "masters/douyin/timeline.otio",
        "masters/Douyin/video.mp4",
        "masters/../video.mp4",
        "masters/douyin/../../x",
        "masters/douyin/other.mp4",
        "masters/video.mp4",
        "masters/a/b/video.mp4",
    ):
        assert not is_artifact(name), name
    staged = tmp_path / "staged"
    (staged / "masters" / "douyin").mkdir(parents=True)
    for name in ("narration.wav", "masters/douyin/video.mp4", "masters/douyin/stray.bin"):
        (staged / name).write_bytes(b"x")
    assert staged_artifacts(staged) == ("narration.wav", "masters/douyin/video.mp4")
    # The storage keeps them under the job's artifacts, and nothing out of it.
    assert artifact_file("masters/douyin/video.mp4") == "masters/douyin/video.mp4"
    for name in ("masters/../video.mp4", "masters/a/b/video.mp4", "other/a/video.mp4"):
        with pytest.raises(InputError):
            artifact_file(name)


def test_the_command_lines_master_flag_names_a_preset_or_gives_its_fields() -> None:
    parser = argparse.ArgumentParser()
    add_render_flags(parser)

    def options(*argv: str) -> RenderOptions:
        return render_options(parser.parse_args(list(argv)))

    given = options("--master", "douyin", "--master", "yt=youtube", "--master", '{"name": "q"}')
    assert [(m.name, m.preset) for m in given.masters] == [
        ("douyin", "douyin"),
        ("yt", "youtube"),
        ("q", None),
    ]
    with pytest.raises(ScriptError, match=r"^--master 2: engine changes the voice"):
        options("--master", "a", "--master", '{"name": "b", "engine": "edge"}')
    with pytest.raises(ScriptError, match=r"^--master 1: not a JSON object"):
        options("--master", "{name")
    with pytest.raises(ScriptError, match=r"^--master: 5 masters, over the limit of 4"):
        options(*[x for n in "abcde" for x in ("--master", n)])
