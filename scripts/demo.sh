#!/usr/bin/env bash
# Set up (scripts/setup.sh), then run the main job through the service: start the stack
# (API + 2 workers + an embedded Redis with AOF under var/), submit the bundled example with a
# generated sample video over HTTP (spoken by kokoro, offline), follow progress, download the
# artifacts into out/, stop.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

export NARRATE_DATA_DIR="$PWD/var"
PORT="${NARRATE_DEMO_PORT:-8000}"
mkdir -p var
ffmpeg -v error -y -f lavfi -i "color=c=0x1b2338:s=1080x1920:r=30:d=63" \
  -f lavfi -i "sine=f=220:d=63:sample_rate=48000" -c:v libx264 -preset ultrafast \
  -pix_fmt yuv420p -c:a aac -shortest var/sample.mp4

.venv/bin/narrate serve --workers 2 --port "$PORT" > var/serve.log 2>&1 &
SERVE=$!
trap 'kill -INT $SERVE 2>/dev/null; wait $SERVE 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
  sleep 0.3
done
curl -fs "http://127.0.0.1:$PORT/readyz"; echo

.venv/bin/narrate submit examples/kv-cache-quantization.md --video var/sample.mp4 \
  --engine kokoro --url "http://127.0.0.1:$PORT" --out out
ls -l out
