"""kubectl's client-side apply as steps on the reference's endpoint (op kubectl-apply,
patchconf.reference_impl.ssa.kubectl_client_apply) and the annotation size limit the endpoint runs.

Expected values are kube-apiserver 1.33.13's answers to the real kubectl 1.32 (the same sequences
are cases/server-side-apply/kubectl-apply.yaml, recorded from the live target), and apimachinery's
ValidateAnnotations and SetLastApplied (v0.32.4) for the size limit.
"""

from __future__ import annotations

import copy

import pytest

from patchconf.reference_impl.kubernetes_object import resource_plural
from patchconf.reference_impl.releases import LIVE_RELEASE
from patchconf.reference_impl.ssa import apiserver
from patchconf.reference_impl.ssa.kubectl_client_apply import missing_annotation_warning
from patchconf.reference_impl.ssa.schema import builtin

CM_SCHEMA = builtin("v1", "ConfigMap", LIVE_RELEASE)
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
CSA = "kubectl-client-side-apply"
ANNOTATION_FIELDS = {"f:annotations": {".": {}, f"f:{LAST_APPLIED}": {}}}
MISSING = ("resource configmaps/cm is missing the kubectl.kubernetes.io/last-applied-configuration annotation "
           "which is required by kubectl apply. kubectl apply should only be used on resources created "
           "declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will "
           "be patched automatically.")


def configmap(data, name="cm", **metadata):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default", **metadata},
            "data": data}


def last_applied(data_json, name="cm"):
    return ('{"apiVersion":"v1","data":' + data_json + ',"kind":"ConfigMap","metadata":{"annotations":{},'
            f'"name":"{name}","namespace":"default"}}}}\n')


def csa(data, manager=CSA, name="cm"):
    return {"op": "kubectl-apply", "manager": manager, "object": configmap(data, name)}


def run(steps, current=None):
    return apiserver.run_case(CM_SCHEMA, "v1", "ConfigMap", copy.deepcopy(current), steps)


def test_create_then_a_dropped_key_is_deleted_by_the_managers_updates():
    created, patched = run([csa({"a": "1", "b": "2"}), csa({"a": "1"})])
    assert created == {"changed": True, "warnings": [],
                       "document": configmap({"a": "1", "b": "2"},
                                             annotations={LAST_APPLIED: last_applied('{"a":"1","b":"2"}')}),
                       "managed_fields": [{"manager": CSA, "operation": "Update", "apiVersion": "v1", "time": 1,
                                           "fieldsV1": {"f:data": {".": {}, "f:a": {}, "f:b": {}},
                                                        "f:metadata": ANNOTATION_FIELDS}}]}
    assert patched == {"changed": True, "warnings": [],
                       "document": configmap({"a": "1"}, annotations={LAST_APPLIED: last_applied('{"a":"1"}')}),
                       "managed_fields": [{"manager": CSA, "operation": "Update", "apiVersion": "v1", "time": 2,
                                           "fieldsV1": {"f:data": {".": {}, "f:a": {}},
                                                        "f:metadata": ANNOTATION_FIELDS}}]}


def test_an_object_without_the_annotation_warns_and_keeps_what_the_manifest_lacks():
    first, second = run([csa({"a": "1", "c": "3"}), csa({"a": "1"})], current=configmap({"a": "1", "b": "2"}))
    assert first["warnings"] == [MISSING]
    assert first["document"]["data"] == {"a": "1", "b": "2", "c": "3"}
    # an object without managedFields: the server does not track the updates
    assert first["managed_fields"] == [] and first["changed"] is True
    assert second["warnings"] == [] and second["document"]["data"] == {"a": "1", "b": "2"}


def test_reapplying_the_same_manifest_sends_nothing():
    _, again = run([csa({"a": "1"}), csa({"a": "1"})])
    assert again["changed"] is False and again["warnings"] == [] and again["managed_fields"][0]["time"] == 1


def test_the_warning_names_the_resource_as_discovery_does():
    assert missing_annotation_warning("ConfigMap", "cm") == MISSING
    assert missing_annotation_warning("NetworkPolicy", "np").startswith("resource networkpolicies/np is missing")


@pytest.mark.parametrize(("kind", "resource"), [
    ("ConfigMap", "configmaps"), ("Ingress", "ingresses"), ("NetworkPolicy", "networkpolicies"),
    ("Endpoints", "endpoints"), ("Gateway", "gateways"),
])
def test_resource_plural(kind, resource):
    assert resource_plural(kind) == resource


# --- the annotation size limit ------------------------------------------------------------------

NAME = "big"
BASE = len(LAST_APPLIED) + len(last_applied('{"fill":""}', NAME))  # the annotation's key and text, no fill


def fill(total_size):
    """Data whose last-applied annotation makes the annotations exactly ``total_size`` bytes."""
    return {"fill": "f" * (total_size - BASE)}


def test_the_annotation_limit_takes_262144_bytes():
    [created] = run([csa(fill(262144), name=NAME)])
    annotation = created["document"]["metadata"]["annotations"][LAST_APPLIED]
    assert created["changed"] is True and len(LAST_APPLIED) + len(annotation) == 262144


def test_one_byte_over_the_limit_is_refused_and_server_side_apply_of_it_is_not():
    refused, applied = run([csa(fill(262145), name=NAME),
                            {"op": "apply", "manager": "kubectl", "object": configmap(fill(262145), NAME)}])
    assert refused == {"warnings": [], "error": {
        "class": "invalid", "status": 422, "reason": "Invalid",
        "message": 'ConfigMap "big" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes'}}
    assert applied["changed"] is True and "annotations" not in applied["document"]["metadata"]


def test_an_update_over_the_limit_leaves_the_object_as_it_was():
    small, refused = run([csa({"fill": "small"}, name=NAME), csa(fill(262145), name=NAME)])
    assert refused["error"]["status"] == 422
    *_, again = run([csa({"fill": "small"}, name=NAME), csa(fill(262145), name=NAME),
                     csa({"fill": "small"}, name=NAME)])
    assert again["changed"] is False and again["document"] == small["document"]


@pytest.mark.parametrize(("size", "kept"), [(262144 + 17, True), (262144 + 18, False)])
def test_server_side_apply_by_kubectl_drops_a_last_applied_annotation_it_would_make_too_large(size, kept):
    """SetLastApplied writes the applied configuration without kubectl's "annotations":{}, (17 bytes)
    and drops it when the annotations would exceed the limit."""
    results = run([csa({"fill": "small"}, name=NAME),
                   {"op": "apply", "manager": "kubectl", "object": configmap(fill(size), NAME)}])
    annotations = results[1]["document"]["metadata"].get("annotations") or {}
    assert (LAST_APPLIED in annotations) is kept
    if kept:
        assert len(LAST_APPLIED) + len(annotations[LAST_APPLIED]) == 262144
