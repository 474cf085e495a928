#!/usr/bin/env bash
# The Kubernetes manifests (docker/k8s/), checked offline: each overlay rendered by
# `kubectl kustomize`, its core objects validated against Kubernetes' schemas
# (kubernetes-validate, strict), then checkov's misconfiguration checks, which must pass with 0
# failed (a skip carries its reason in a checkov.io/skip annotation beside the object).
# checkov pins its own dependencies against the project's, so it lives in a venv of its own,
# made on the first run (~2 min): ~/.cache/narrate/checkov. About 25 s a run after that.
set -euo pipefail
cd "$(dirname "$0")/.."
CHECKOV_VERSION=3.3.30
if ! command -v kubectl >/dev/null 2>&1; then
  # As tests/unit/test_k8s_manifests.py: no kubectl, no render (Debian ships none recent).
  echo "k8s-check: skipped, kubectl is not installed (https://kubernetes.io/docs/tasks/tools/)"
  exit 0
fi
venv="$HOME/.cache/narrate/checkov-$CHECKOV_VERSION"
if [ ! -x "$venv/bin/checkov" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "checkov==$CHECKOV_VERSION"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for overlay in single fleet; do
  kubectl kustomize "docker/k8s/overlays/$overlay" >"$out/$overlay.yaml"
  # KEDA's ScaledObject is a custom resource: no schema of Kubernetes' own (the unit test
  # tests/unit/test_k8s_manifests.py checks what it names).
  .venv/bin/python - "$out/$overlay.yaml" <<'PY'
import sys, yaml, kubernetes_validate
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
for d in docs:
    if d["apiVersion"] != "keda.sh/v1alpha1":
        kubernetes_validate.validate(d, "1.32.0", strict=True)
print(f"{sys.argv[1]}: {len(docs)} objects, the core ones valid (Kubernetes 1.32, strict)")
PY
  # --skip-download: offline (no Prisma Cloud guidelines); the checks ship with checkov.
  "$venv/bin/checkov" -f "$out/$overlay.yaml" --framework kubernetes --quiet --compact \
    --skip-download
done
