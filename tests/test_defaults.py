"""Defaulting of built-in kinds (reference_impl.defaults) against what Kubernetes stores.

Expected values are Kubernetes' own, written by tests/fixtures/defaults/record.py for each object
of inputs.yaml, with the release that answered in each file's header:
- recorded.json: a live kube-apiserver (``kubectl create --dry-run=server``);
- recorded-upstream.json: the ``upstream`` target built from Kubernetes' Go modules
  (``upstream decode``: decode, default, convert, read back), the corpus's release.
The reference, asked for the same release, must give the same object once the fields that are
not defaulting are masked on both sides (fixtures/defaults/masks.py, each with its reason).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from reference_impl.defaults import default_object, quantity
from reference_impl.ssa import gotypes
from tests.fixtures.defaults.masks import masked

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "defaults"
INPUTS = {document["metadata"]["name"]: document
          for document in yaml.safe_load_all((FIXTURES / "inputs.yaml").read_text(encoding="utf-8")) if document}
RECORDINGS = {path.stem: json.loads(path.read_text(encoding="utf-8"))
              for path in (FIXTURES / "recorded.json", FIXTURES / "recorded-upstream.json")}
RECORDED = RECORDINGS["recorded"]


def release_of(recording: dict[str, Any]) -> tuple[int, int]:
    major, minor = recording["server"].removeprefix("v").split(".")[:2]
    return int(major), int(minor)

def defaulted(obj: dict[str, Any], release: tuple[int, int]) -> dict[str, Any]:
    return default_object(gotypes.round_trip(obj, obj["apiVersion"], obj["kind"]), release=release)


@pytest.mark.parametrize("recording", sorted(RECORDINGS))
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_defaulted_object_is_what_kubernetes_stores(recording: str, name: str) -> None:
    answer = RECORDINGS[recording]
    assert masked(defaulted(INPUTS[name], release_of(answer))) == masked(answer["stored"][name])


@pytest.mark.parametrize("recording", sorted(RECORDINGS))
def test_every_input_was_recorded(recording: str) -> None:
    assert sorted(RECORDINGS[recording]["stored"]) == sorted(INPUTS)


def test_the_fixtures_cover_the_kinds_asked_for() -> None:
    kinds = {obj["kind"] for obj in INPUTS.values()}
    assert kinds >= {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod", "Service",
                     "ConfigMap", "Secret", "PersistentVolumeClaim", "PersistentVolume", "Namespace",
                     "NetworkPolicy", "Ingress", "PodDisruptionBudget", "Role", "RoleBinding", "ClusterRole",
                     "HorizontalPodAutoscaler"}


def test_input_is_not_mutated() -> None:
    given = gotypes.round_trip(INPUTS["pod-volumes"], "v1", "Pod")
    before = copy.deepcopy(given)
    out = default_object(given)
    assert given == before
    assert out != before  # and something was defaulted (a fresh object, not the input)


def test_kinds_not_modelled_come_back_unchanged() -> None:
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"replicas": None}}
    out = default_object(widget)
    assert out == widget and out is not widget


def test_a_release_not_modelled_is_refused() -> None:
    with pytest.raises(ValueError, match=r"release 1\.20 is not modelled"):
        default_object(INPUTS["configmap-empty"], release=(1, 20))


@pytest.mark.parametrize(("given", "stored"), [
    # the text the server keeps (ParseQuantity's canonical-enough test) and the canonical forms it writes;
    # the same values are in pod-quantities' emptyDir sizeLimits, checked against the server above
    ("1000m", "1"), ("0.5", "500m"), ("1.5Gi", "1536Mi"), ("1024Ki", "1Mi"), ("1000", "1k"),
    ("1.Gi", "1.Gi"), ("2.643P", "2.643P"), ("0.0000000001", "1n"), ("1e3", "1e3"), ("12e2", "1200"),
    ("100000k", "100M"), (5, "5"),
])
def test_quantity_text(given: Any, stored: str) -> None:
    volumes = {volume["emptyDir"]["sizeLimit"]: volume for volume in INPUTS["pod-quantities"]["spec"]["volumes"]}
    recorded = {volume["name"]: volume["emptyDir"]["sizeLimit"]
                for volume in RECORDED["stored"]["pod-quantities"]["spec"]["volumes"]}
    assert recorded[volumes[given]["name"]] == stored  # the server's answer, as this table says
    assert quantity.canonical(given) == stored
