"""Shared fixtures, the test tiers and the hypothesis profiles (see CONTRIBUTING.md).

Tiers follow from the path: ``tests/unit/`` is the fast tier (pure domain, in-process API
tests on the in-memory store and queue, pipeline steps on small audio), ``tests/integration/``
(real Redis, Celery, uvicorn, ffmpeg renders, engines, the CLI as a process, S3) and
``tests/e2e/`` (a browser) are marked ``integration`` here. A bare ``pytest`` runs the fast
tier, ``pytest -m integration`` the rest, ``NARRATE_TESTS=all`` (what scripts/test.sh sets)
both. Tests named on the command line (a file, a node id) run whatever their tier.

Hypothesis: the ``dev`` profile (30 examples a property) by default, ``ci`` (150) when
``CI=true`` or ``HYPOTHESIS_PROFILE=ci``; a test that names its own count keeps it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support.data import SHORT_SCRIPT, make_video

# Where the suite's CPU goes, by test file, printed after every run (devtools/testcpu.py).
pytest_plugins = ["devtools.testcpu"]

# No deadline and no too-slow check: a property is decided by its examples, never by how fast
# a loaded host runs them (a 200 ms deadline failed at 305 ms beside a second CI run).
# Where PYTHONDONTWRITEBYTECODE is set (this machine, CI), pytest would rewrite every test
# module's asserts afresh in every run and every xdist worker, and every stack's worker and API
# process would compile the test support modules it imports: ~60 s of CPU per run, measured.
# The suite keeps its bytecode (in __pycache__, ignored by git), for itself and its processes.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

settings.register_profile(
    "dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci",
    max_examples=150,
    print_blob=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") == "true" else "dev")
)

# The speech check is on by default for users; the suite's stacks and renders (edge against
# a local protocol server, zh-baker) would each load the recogniser for nothing. Tests about
# the check turn it on (tests/integration/asr/, options check_speech).
os.environ.setdefault("NARRATE_SPEECH_CHECK", "false")


@pytest.fixture
def short_script(tmp_path: Path) -> Path:
    p = tmp_path / "short.md"
    p.write_text(SHORT_SCRIPT, encoding="utf-8")
    return p


@pytest.fixture(scope="session")
def short_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("video") / "clip.mp4", 11)


TESTS = Path(__file__).parent
SLOW_TIERS = (TESTS / "integration", TESTS / "e2e")
# The longest files (tens of seconds each: whole stacks, 1080x1920 encodes, schemathesis),
# started first: `pytest -n 3 --dist loadfile` hands files out in collection order, and a long
# one drawn last keeps one worker busy alone while the others are done.
LONG_POLES = (
    "integration/ffmpeg/test_burn_looks.py",
    "integration/s3/test_s3.py",
    "integration/stack/test_redis_faults.py",
    "integration/stack/test_events.py",
    "integration/ffmpeg/test_presets_loudness.py",
    "integration/stack/test_faults.py",
    "e2e/test_studio_speech.py",
    "integration/stack/test_schema.py",
    "e2e/test_studio.py",
    "e2e/test_studio_workbench.py",
    "integration/tts/test_kokoro.py",
    "integration/cli/test_packaging.py",
    "integration/cli/test_segmenter_cache.py",
    "integration/stack/test_edge_fleet.py",
    "integration/stack/test_security.py",
    "integration/stack/test_cleanup.py",
    "integration/stack/test_serve.py",
    "integration/stack/test_webhooks.py",
    "integration/stack/test_kill.py",
    "integration/ffmpeg/test_burn_ocr.py",
    "integration/stack/test_fairshare.py",
    "integration/stack/test_media_faults.py",
    "integration/tts/test_neural.py",
    "integration/s3/test_fleet_soak.py",
    "integration/stack/test_openai_speech.py",
    "integration/asr/test_polyphones.py",
    "integration/stack/test_sentinel.py",
    "integration/cli/test_render.py",
    "integration/stack/test_tenants_fleet.py",
    "integration/stack/test_redis_restart.py",
    "integration/stack/test_soft_shutdown.py",
    "integration/asr/test_take_matching.py",
    "integration/stack/test_metrics.py",
)


def _fast_tier_only(config: pytest.Config) -> bool:
    """A bare ``pytest``: no ``-m``, no ``NARRATE_TESTS=all``, no tests named."""
    named = config.args_source == pytest.Config.ArgsSource.ARGS
    return not (config.option.markexpr or named or os.environ.get("NARRATE_TESTS") == "all")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fast tier never imports the slow tiers' modules (Selenium, moto, the stacks)."""
    if _fast_tier_only(config) and any(collection_path.is_relative_to(d) for d in SLOW_TIERS):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow tiers by their path; a bare ``pytest`` is the fast tier, ``-m``,
    ``NARRATE_TESTS=all`` or named tests choose otherwise. The long poles go first, each
    file's tests staying in their order."""
    for item in items:
        if any(item.path.is_relative_to(d) for d in SLOW_TIERS):
            item.add_marker(pytest.mark.integration)
        elif item.get_closest_marker("integration") is not None:
            raise pytest.UsageError(
                f"{item.nodeid}: an integration test belongs in tests/integration"
            )
    rank = {TESTS / name: k for k, name in enumerate(LONG_POLES)}
    items.sort(key=lambda item: rank.get(item.path, len(rank)))  # stable: files stay whole
    if not _fast_tier_only(config):
        return
    fast = [item for item in items if item.get_closest_marker("integration") is None]
    if len(fast) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in fast])
        items[:] = fast
