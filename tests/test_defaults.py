"""Defaulting of built-in kinds (patchconf.reference_impl.defaults) against what Kubernetes stores.

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

from patchconf.reference_impl.defaults import default_object, generated, quantity, supported_releases
from patchconf.reference_impl.govalue import gotypes
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


# Rules that changed after 1.33, read from each release's Go code (k8s.io/kubernetes at the patch
# release literal-defaults.json names); each test names the Go it mirrors. The 1.37 answers below
# (StatefulSet, CronJob, both Pods) were also checked with k8s.io/kubernetes v1.37.2's own scheme
# (legacyscheme.Scheme.Default after decoding into the v1 type), not with a running server.

def _template(containers: list[dict[str, Any]]) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "a"}}, "spec": {"restartPolicy": "Never", "containers": containers}}


STATEFUL_SET = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"},
                "spec": {"selector": {"matchLabels": {"app": "a"}}, "serviceName": "s",
                         "template": _template([{"name": "c", "image": "nginx"}])}}


@pytest.mark.parametrize(("release", "rolling_update"), [
    ((1, 36), {"partition": 0}),
    ((1, 37), {"partition": 0, "maxUnavailable": 1}),
])
def test_stateful_set_max_unavailable_from_1_37(release: tuple[int, int], rolling_update: dict[str, Any]) -> None:
    # v1.37.2 pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet: MaxUnavailable = intstr.FromInt32(1)
    # behind MaxUnavailableStatefulSet, whose default turns true in 1.37 (pkg/features/kube_features.go:
    # {Version: "1.37", Default: true, PreRelease: Beta}; 1.36.3 has Default: false)
    assert defaulted(STATEFUL_SET, release)["spec"]["updateStrategy"]["rollingUpdate"] == rolling_update


CRON_JOB = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "j"},
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {
                "podFailurePolicy": {"rules": [
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]},
                "template": _template([{"name": "c", "image": "busybox"}])}}}}


@pytest.mark.parametrize(("release", "status"), [((1, 33), ""), ((1, 34), "True")])
def test_cron_job_template_pod_condition_pattern_status_from_1_34(release: tuple[int, int], status: str) -> None:
    # until 1.33 SetDefaults_Job set a pattern's status, and a CronJob's template is no Job; v1.34.4
    # pkg/apis/batch/v1/defaults.go SetDefaults_PodFailurePolicyOnPodConditionsPattern sets it on the type,
    # and zz_generated.defaults.go SetObjectDefaults_CronJob calls it for the job template's patterns
    cron_job = defaulted(CRON_JOB, release)
    rule = cron_job["spec"]["jobTemplate"]["spec"]["podFailurePolicy"]["rules"][0]
    assert rule["onPodConditions"] == [{"type": "DisruptionTarget", "status": status}]


POD_LEVEL = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {
    "resources": {"limits": {"cpu": "2", "memory": "1Gi"}},
    "initContainers": [
        {"name": "sidecar", "image": "i", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}},
        {"name": "init", "image": "i", "resources": {"requests": {"cpu": "1500m", "memory": "500M"}}}],
    "containers": [
        {"name": "a", "image": "nginx", "resources": {"requests": {"cpu": "250m", "memory": "100Mi"}}},
        {"name": "b", "image": "nginx", "resources": {"limits": {"memory": "200Mi"}}}]}}


@pytest.mark.parametrize(("release", "requests"), [
    ((1, 33), None),  # PodLevelResources off by default
    # containers 250m + sidecar 100m = 350m < init 1500m + sidecar 100m; memory 100Mi + 200Mi (b's limit,
    # copied to its requests first) = 300Mi < init's 500M
    ((1, 34), {"cpu": "1600m", "memory": "500M"}),
    ((1, 36), {"cpu": "1600m", "memory": "500M"}),
    ((1, 37), None),  # PodLevelResourcesFixDefaulting (on) moves it to the pod strategy's PrepareForCreate
])
def test_pod_level_requests_by_release(release: tuple[int, int], requests: dict[str, str] | None) -> None:
    # v1.34.4 pkg/apis/core/v1/defaults.go SetDefaults_Pod -> defaultPodRequests: a missing pod-level
    # request of cpu/memory is the containers' aggregate (component-helpers resource
    # AggregateContainerRequests: sum of containers and sidecars, at least each init container's
    # need); PodLevelResources Beta, default true, from 1.34. v1.37.2 SetDefaults_Pod skips it when
    # PodLevelResourcesFixDefaulting (1.37, Default: true) is on.
    resources = defaulted(POD_LEVEL, release)["spec"]["resources"]
    assert resources == {"limits": {"cpu": "2", "memory": "1Gi"}, **({"requests": requests} if requests else {})}


POD_CONVERTED_FIELDS = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                        "spec": {"serviceAccount": "robot", "terminationGracePeriodSeconds": -5,
                                 "containers": [{"name": "c", "image": "nginx"}]},
                        "status": {"podIP": "10.0.0.7"}}


def test_pod_fields_v1_conversion_kept_in_step_are_defaulted_from_1_37() -> None:
    # v1.37.2 pkg/apis/core/v1/defaults.go: SetDefaults_Pod (negative grace period -> 1),
    # SetDefaults_PodSpec (serviceAccountName <- serviceAccount, then serviceAccount <- serviceAccountName),
    # SetDefaults_PodStatus (podIPs <- podIP); until 1.36 conversion.go's Convert_v1_Pod_To_core_Pod,
    # Convert_v1_PodSpec_To_core_PodSpec and Convert_v1_PodStatus_To_core_PodStatus did it, not defaulting
    new, old = defaulted(POD_CONVERTED_FIELDS, (1, 37)), defaulted(POD_CONVERTED_FIELDS, (1, 36))
    assert (new["spec"]["serviceAccountName"], new["spec"]["serviceAccount"]) == ("robot", "robot")
    assert new["spec"]["terminationGracePeriodSeconds"] == 1
    assert new["status"]["podIPs"] == [{"ip": "10.0.0.7"}]
    assert "serviceAccountName" not in old["spec"] and old["spec"]["terminationGracePeriodSeconds"] == -5
    assert "podIPs" not in old["status"]


def test_releases_modelled() -> None:
    assert supported_releases() == [(1, minor) for minor in range(27, 38)]


def test_the_walk_visits_only_the_fields_that_reach_a_defaulter() -> None:
    # as zz_generated.defaults.go's calls go (core/v1, apps/v1 of 1.32): nothing in a ConfigMap; a
    # Deployment's walk goes down spec.template only (its own function sets the rest of spec); a
    # Container's reaches its ports, env (valueFrom.fieldRef), resources (quantities), probes and
    # lifecycle (their handlers)
    def visited(definition: str) -> list[str]:
        return [name for name, *_ in generated._walk_plan(definition, (1, 32))]

    assert visited("io.k8s.api.core.v1.ConfigMap") == []
    assert visited("io.k8s.api.apps.v1.Deployment") == ["spec"]
    assert visited("io.k8s.api.apps.v1.DeploymentSpec") == ["template"]
    assert visited("io.k8s.api.core.v1.Container") == [
        "ports", "env", "resources", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle"]
