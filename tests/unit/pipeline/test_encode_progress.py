"""A picture encode (burn-in, frozen last frame) reports itself as the stage ``encode NN%``
with the share of its frames done, not as the loudness stage that ran before it."""

from __future__ import annotations

from service.pipeline.encode_watch import ENCODE_END, ENCODE_START, encode_watch


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
