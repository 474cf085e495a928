"""A picture encode (burn-in, frozen last frame) reports itself as the stage ``encode NN%``
with the share of its frames done, not as the loudness stage that ran before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import wiring
from service.config import Settings
from service.domain.script import parse_markdown
from service.domain.spec import RenderOptions
from service.pipeline.encode_watch import ENCODE_END, ENCODE_START, encode_watch
from tests.conftest import SHORT_SCRIPT, make_video


class Halfway:
    def __init__(self, steps: list[float]) -> None:
        self.steps = steps

    def wait(self, timeout: float, check: object = None) -> None: ...

    def cancel(self) -> None: ...

    def fraction(self) -> float:
        return self.steps.pop(0)


def test_the_encode_watch_says_each_new_percentage_once_and_checks_every_time() -> None:
    said: list[tuple[float, str]] = []
    checks: list[int] = []
    watch = encode_watch(
        Halfway([0.0, 0.5, 0.504, 1.0]),
        lambda f, s: said.append((f, s)),
        lambda: checks.append(1),
    )
    for _ in range(4):
        watch()
    assert [s for _, s in said] == ["encode 0%", "encode 50%", "encode 100%"]
    assert said[0][0] == ENCODE_START and said[-1][0] == ENCODE_END
    assert len(checks) == 4  # a cancel is seen every quarter second, said or not


@pytest.mark.integration
def test_a_burn_in_render_reports_the_encode_and_its_percentage(tmp_path: Path) -> None:
    pipeline = wiring.pipeline(Settings(data_dir=tmp_path / "data"))
    video = make_video(tmp_path / "clip.mp4", 12, size="360x640")
    plan = pipeline.plan(
        parse_markdown(SHORT_SCRIPT), RenderOptions(engine="espeak", burn_in=True), video
    )
    stages: list[str] = []
    pipeline.render(plan, tmp_path / "out", video, lambda f, s: stages.append(s))
    encode = [s for s in stages if s.startswith("encode ")]
    pct = [int(s.split()[1].rstrip("%")) for s in encode]
    assert pct and pct == sorted(pct) and pct[-1] == 100, stages
    first = stages.index(encode[0])
    assert "loudness" in stages[:first] and "loudness" not in stages[first:]
    assert stages.index("mux") > stages.index(encode[-1])
