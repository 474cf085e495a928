#!/usr/bin/env bash
# The docs' frame of a burned-in video (docs/screenshots/burn-in-kv-frame.png, shown by the
# READMEs and the tutorial), made from a real render, as the tutorial's step 4 makes it: the
# kv-cache example spoken by kokoro over a 1080x1920 card, burned in with the vertical-safe
# style. At 7 s the narration (bottom) and a shot's screen text (top) are both on screen.
# The studio's screenshots come from its browser tests (STUDIO_SCREENSHOTS=docs/screenshots).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffmpeg -v error -f lavfi -i color=c=0x1b2338:s=1080x1920:r=30:d=63 -c:v libx264 \
  -pix_fmt yuv420p "$work/card.mp4"
.venv/bin/narrate render examples/kv-cache-quantization.md --engine kokoro \
  --video "$work/card.mp4" --burn-in --style vertical-safe --out "$work/kv" \
  >"$work/render.log" 2>&1 || { cat "$work/render.log" >&2; exit 1; }
ffmpeg -v error -y -ss 7 -i "$work/kv/video.mp4" -frames:v 1 -vf scale=540:-1 \
  docs/screenshots/burn-in-kv-frame.png
echo "wrote docs/screenshots/burn-in-kv-frame.png"
