"""Shared fixtures, the test tiers and the hypothesis profiles (see CONTRIBUTING.md).

Tiers: a bare ``pytest`` runs the fast tier (everything not marked ``integration``: pure
domain, in-process API tests on the in-memory store and queue, pipeline steps on small audio);
``pytest -m integration`` runs the tests with real Redis, Celery, uvicorn, ffmpeg renders,
Chromium and S3; ``NARRATE_TESTS=all`` (what scripts/test.sh sets) runs both. Tests named on
the command line (a file, a node id) run whatever their tier.

Hypothesis: the ``dev`` profile (30 examples a property) by default, ``ci`` (300) when
``CI=true`` or ``HYPOTHESIS_PROFILE=ci``; a test that names its own count keeps it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from devtools.media import make_video as make_video  # re-exported: tests import it from here

settings.register_profile("dev", max_examples=30)
settings.register_profile("ci", max_examples=300, print_blob=True)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") == "true" else "dev")
)

# The speech check is on by default for users; the suite's stacks and renders (edge against
# a local protocol server, zh-baker) would each load the recogniser for nothing. Tests about
# the check turn it on (tests/integration/asr/, options check_speech).
os.environ.setdefault("NARRATE_SPEECH_CHECK", "false")

ROOT = Path(__file__).resolve().parent.parent
GAGAR_EXAMPLE = ROOT / "examples" / "gagar-grpo-quality-ranking.md"
BUNDLED_EXAMPLE = ROOT / "examples" / "kv-cache-quantization.md"

SHORT_SCRIPT = """\
  • 标题:测试短片

[段 1 · 4 秒 开场] 代码 Agent 的 RL 用测试当奖励,再叠 GRPO 做优化。

[段 2 · 5.5 秒 机制] 评分员对通过的轨迹排序;低排名降权,按比例 rescale,保持优势总和不变。

字幕层叠加限定语:abstract 未给出具体百分点;仓库未明确。

  1. 镜头 1 · 标题卡 · 0-4s - 时长:4s - 屏幕文字:测试短片 - 画面元素:黑底 - 运动方式:推入
  2. 镜头 2 · 风险卡 · 4-9.5s - 时长:5.5s - 屏幕文字:限定 - 画面元素:风险卡 = 2 条限定语字幕叠加 - 运动方式:浮现
"""


@pytest.fixture
def short_script(tmp_path: Path) -> Path:
    p = tmp_path / "short.md"
    p.write_text(SHORT_SCRIPT, encoding="utf-8")
    return p


@pytest.fixture(scope="session")
def short_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("video") / "clip.mp4", 11)


# The longest files (tens of seconds each: whole stacks, 1080x1920 encodes, schemathesis),
# started first: `pytest -n 3 --dist loadfile` hands files out in collection order, and a long
# one drawn last keeps one worker busy alone while the others are done.
LONG_POLES = (
    "service/test_s3.py",
    "service/test_redis_faults.py",
    "service/test_faults.py",
    "test_presets_loudness.py",
    "test_encode_parts.py",
    "service/test_schema.py",
    "service/test_studio_workbench.py",
    "service/test_studio.py",
    "service/test_webhooks.py",
    "service/test_cleanup.py",
    "service/test_events.py",
    "test_neural.py",
    "service/test_kill.py",
    "service/test_edge_fleet.py",
    "service/test_serve.py",
    "service/test_security.py",
    "service/test_fairshare.py",
    "service/test_media_faults.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A bare ``pytest`` is the fast tier; ``-m``, ``NARRATE_TESTS=all`` or named tests choose
    otherwise. The long poles go first, each file's tests staying in their order."""
    tests = Path(__file__).parent
    rank = {tests / name: k for k, name in enumerate(LONG_POLES)}
    items.sort(key=lambda item: rank.get(item.path, len(rank)))  # stable: files stay whole
    named = config.args_source == pytest.Config.ArgsSource.ARGS
    if config.option.markexpr or named or os.environ.get("NARRATE_TESTS") == "all":
        return
    fast = [item for item in items if item.get_closest_marker("integration") is None]
    if len(fast) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in fast])
        items[:] = fast


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of the module's own on a free port (the store contract tests' Redis)."""
    from devtools.stack import free_port
    from service.stack import redis_argv, wait_for_redis

    port = free_port()
    proc = subprocess.Popen(
        redis_argv(port, tmp_path_factory.mktemp("redis")), stdout=subprocess.DEVNULL
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        wait_for_redis(url)
        yield url
    finally:
        proc.kill()
        proc.wait()
