"""docker/k8s/: both overlays render with `kubectl kustomize` and every core object validates
against Kubernetes' own schemas (kubernetes-validate, strict: an unknown field is an error);
the KEDA ScaledObject scales the worker Deployment on the backlog gauge; the worker's grace
period outlasts a step. checkov's misconfiguration checks run in scripts/k8s-check.sh (its own
venv: too heavy for this tier)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from service.config import Settings

ROOT = Path(__file__).resolve().parents[2]
OVERLAYS = ("single", "fleet")
K8S_VERSION = "1.32.0"  # the cluster version the manifests are written for (kubectl's)

needs_kubectl = pytest.mark.skipif(not shutil.which("kubectl"), reason="needs kubectl")


def render(overlay: str) -> list[dict[str, Any]]:
    out = subprocess.run(
        ["kubectl", "kustomize", str(ROOT / "docker/k8s/overlays" / overlay)],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    return [doc for doc in yaml.safe_load_all(out) if doc]


def named(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    (found,) = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_core_object_validates(overlay: str) -> None:
    docs = render(overlay)
    core = [d for d in docs if d["apiVersion"] != "keda.sh/v1alpha1"]
    for doc in core:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    assert {d["metadata"].get("namespace") for d in docs if d["kind"] != "Namespace"} == {"narrate"}
    kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
    assert {("Deployment", "narrate-api"), ("Service", "narrate-api")} <= kinds
    assert {
        ("PodDisruptionBudget", "narrate-api"),
        ("PodDisruptionBudget", "narrate-worker"),
    } <= kinds


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_pod_is_probed_sized_and_configured(overlay: str) -> None:
    docs = render(overlay)
    config = named(docs, "ConfigMap", next(
        d["metadata"]["name"] for d in docs if d["metadata"]["name"].startswith("narrate-config")
    ))  # fmt: skip
    secret = next(d for d in docs if d["metadata"]["name"].startswith("narrate-secrets"))
    assert "NARRATE_STORAGE_URL" in config["data"] and "NARRATE_REDIS_URL" in secret["data"]
    api = named(docs, "Deployment", "narrate-api")["spec"]["template"]["spec"]["containers"][0]
    assert api["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert api["livenessProbe"]["httpGet"]["path"] == "/healthz"
    for d in docs:
        if d["kind"] not in ("Deployment", "StatefulSet", "Job"):
            continue
        for c in d["spec"]["template"]["spec"]["containers"]:
            assert c["resources"]["requests"] and c["resources"]["limits"], d["metadata"]["name"]
            refs = [
                e.get("configMapRef", e.get("secretRef", {}))["name"] for e in c.get("envFrom", [])
            ]
            names = {x["metadata"]["name"] for x in docs}
            assert set(refs) <= names, (d["metadata"]["name"], refs)  # the generated names
    reconciler = named(docs, "Deployment", "narrate-reconciler")["spec"]
    assert reconciler["replicas"] == 1 and reconciler["strategy"]["type"] == "Recreate"


@needs_kubectl
def test_workers_outlast_a_step_and_hand_it_back_on_sigterm() -> None:
    docs = render("fleet")
    pod = named(docs, "Deployment", "narrate-worker")["spec"]["template"]["spec"]
    config = next(d for d in docs if d["metadata"]["name"].startswith("narrate-config"))["data"]
    soft = float(config["NARRATE_WORKER_SOFT_SHUTDOWN_TIMEOUT"])
    assert pod["terminationGracePeriodSeconds"] > Settings().task_time_limit + soft
    env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    assert env["REMAP_SIGTERM"] == "SIGQUIT"  # SIGTERM: the cold shutdown, soft first


@needs_kubectl
def test_keda_scales_the_workers_on_the_backlog_gauge() -> None:
    docs = render("fleet")
    scaled = named(docs, "ScaledObject", "narrate-worker")["spec"]
    assert scaled["scaleTargetRef"]["name"] == "narrate-worker"
    named(docs, "Deployment", scaled["scaleTargetRef"]["name"])  # it scales what exists
    (trigger,) = scaled["triggers"]
    assert trigger["type"] == "prometheus"
    assert 'narrate_backlog_tasks{queue="narrate"}' in trigger["metadata"]["query"]
    assert float(trigger["metadata"]["threshold"]) == 1  # one task slot per worker
    assert "ScaledObject" not in {d["kind"] for d in render("single")}  # no KEDA needed
