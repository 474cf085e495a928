#!/usr/bin/env bash
# Set up (scripts/setup.sh), then render the bundled example onto a generated sample video;
# the artifacts land in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p var
ffmpeg -v error -y -f lavfi -i "color=c=0x1b2338:s=1080x1920:r=30:d=63" \
  -f lavfi -i "sine=f=220:d=63:sample_rate=48000" -c:v libx264 -preset ultrafast \
  -pix_fmt yuv420p -c:a aac -shortest var/sample.mp4
.venv/bin/narrate render examples/kv-cache-quantization.md --out out --engine espeak --video var/sample.mp4
ls -l out
