"""client-go's managedFields upgrade (patchconf.reference_impl.ssa.csaupgrade) and the steps that use it
(patchconf.reference_impl.ssa.migration).

Expected values are client-go's own (k8s.io/client-go util/csaupgrade/upgrade_test.go,
TestFindOwners and TestUpgradeCSA, v0.32.4) or kubectl's sequence as a real kubectl 1.32 ran it
against kube-apiserver 1.33 (cases/server-side-apply/csa-upgrade.yaml records the same).
"""

from __future__ import annotations

import copy

import pytest

from patchconf.reference_impl.releases import LIVE_RELEASE
from patchconf.reference_impl.ssa import apiserver
from patchconf.reference_impl.ssa.csaupgrade import (
    LAST_APPLIED_FIELD,
    find_fields_owners,
    upgrade_managed_fields,
    upgrade_managed_fields_patch,
)
from patchconf.reference_impl.ssa.fieldpath import FieldSet, make_path
from patchconf.reference_impl.ssa.schema import builtin

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
ANNOTATION_FIELDS = {"f:annotations": {".": {}, f"f:{LAST_APPLIED}": {}}}


def entry(manager, operation, fields, api_version="v1", time="2022-08-22T23:08:23Z", **extra):
    return {"apiVersion": api_version, "fieldsType": "FieldsV1", "fieldsV1": fields, "manager": manager,
            "operation": operation, "time": time, **extra}


def data_fields(*keys, dot=False):
    fields = {".": {}} if dot else {}
    return {**fields, **{f"f:{key}": {} for key in keys}}


# --- FindFieldsOwners (upgrade_test.go TestFindOwners) -------------------------------------------

CSA_ENTRY = entry("kubectl-client-side-apply", "Update",
                  {"f:data": data_fields("key", "legacy", dot=True), "f:metadata": ANNOTATION_FIELDS})
SSA_ENTRY = entry("kubectl", "Apply", {"f:data": data_fields("key", "legacy", dot=True)}, time="2022-08-23T23:08:23Z")


@pytest.mark.parametrize(("entries", "operation", "fields", "owners"), [
    ([CSA_ENTRY], "Update", FieldSet.of(make_path("data")), ["kubectl-client-side-apply"]),  # Basic
    ([CSA_ENTRY], "Update", LAST_APPLIED_FIELD, ["kubectl-client-side-apply"]),  # Nested
    ([{**CSA_ENTRY, "manager": "kubectl", "operation": "Apply"}], "Update", LAST_APPLIED_FIELD, []),  # NotFound
    ([{**CSA_ENTRY, "manager": "kubectl", "operation": "Apply"}], "Apply", LAST_APPLIED_FIELD, ["kubectl"]),
    ([entry("kubectl-client-side-apply", "Update", {"f:metadata": ANNOTATION_FIELDS}), SSA_ENTRY],
     "Update", LAST_APPLIED_FIELD, ["kubectl-client-side-apply"]),  # OneOfMultiple
    # MissingOneField: an entry must own every field asked about
    ([entry("kubectl-client-side-apply", "Update", {"f:metadata": ANNOTATION_FIELDS})], "Update",
     FieldSet.of(make_path("data"), make_path("metadata", "annotations", LAST_APPLIED)), []),
])
def test_find_fields_owners(entries, operation, fields, owners):
    assert [found["manager"] for found in find_fields_owners(entries, operation, fields)] == owners


def test_find_fields_owners_passes_over_unreadable_fields():
    unreadable = entry("broken", "Update", {"f:metadata": "not an object"})
    no_fields = {k: v for k, v in CSA_ENTRY.items() if k != "fieldsV1"}
    assert find_fields_owners([unreadable, no_fields, CSA_ENTRY], "Update", LAST_APPLIED_FIELD) == [CSA_ENTRY]


# --- UpgradeManagedFields (upgrade_test.go TestUpgradeCSA) ---------------------------------------

def test_client_side_entry_becomes_the_apply_entry():
    """csa-basic-direct-conversion: no Apply entry yet; fields and time are kept."""
    upgraded = upgrade_managed_fields([CSA_ENTRY], ["kubectl-client-side-apply"], "kubectl")
    assert upgraded == [{**CSA_ENTRY, "manager": "kubectl", "operation": "Apply"}]


def test_only_the_same_api_version_is_folded_in():
    """csa-single-applicable-version: the v5 Update entry's fields join the v5 Apply entry; the
    client-side entries of other versions are dropped, their fields with them."""
    applied = entry("kubectl", "Apply", {"f:data": data_fields("key", "legacy", dot=True),
                                         "f:metadata": ANNOTATION_FIELDS},
                    api_version="v5", time="2022-08-23T23:08:23Z")
    others = [entry("kubectl-client-side-apply", "Update",
                    {"f:data": data_fields(f"key{n}"), "f:metadata": {"f:annotations": {f"f:hello{n}": {}}}},
                    api_version=version) for n, version in ((2, "v5"), (3, "v2"), (4, "v3"), (5, "v4"))]
    upgraded = upgrade_managed_fields([applied, *others], ["kubectl-client-side-apply"], "kubectl")
    assert upgraded == [{**applied, "fieldsV1": {
        "f:data": {".": {}, "f:key": {}, "f:key2": {}, "f:legacy": {}},
        "f:metadata": {"f:annotations": {".": {}, "f:hello2": {}, f"f:{LAST_APPLIED}": {}}}}}]


def test_no_entry_of_the_apply_version_drops_client_side_fields():
    """csa-no-applicable-version."""
    applied = entry("kubectl", "Apply", {"f:data": data_fields("key", dot=True)}, api_version="v5")
    other = entry("kubectl-client-side-apply", "Update", {"f:data": data_fields("key2")}, api_version="v1")
    assert upgrade_managed_fields([applied, other], ["kubectl-client-side-apply"], "kubectl") == [applied]


def test_nothing_to_upgrade_gives_the_same_entries_and_no_patch():
    """noop: no client-side entry and no Apply entry."""
    other = entry("someone", "Update", {"f:data": data_fields("a")})
    obj = {"metadata": {"resourceVersion": "1", "managedFields": [other]}}
    assert upgrade_managed_fields([other], ["kubectl-client-side-apply"], "kubectl") == [other]
    assert upgrade_managed_fields_patch(obj, ["kubectl-client-side-apply"], "kubectl") is None
    assert upgrade_managed_fields_patch({"metadata": {}}, ["kubectl-client-side-apply"], "kubectl") is None


def test_several_client_side_managers_join_one_apply_entry():
    """multipleTargetsExisting, reduced: each named Update manager is folded in; others stay."""
    applied = entry("kubectl", "Apply", {"f:data": data_fields("a")})
    first = entry("csa-1", "Update", {"f:data": data_fields("b")})
    second = entry("csa-2", "Update", {"f:data": data_fields("c")})
    kept = entry("controller", "Update", {"f:data": data_fields("d")})
    upgraded = upgrade_managed_fields([applied, first, kept, second], ["csa-1", "csa-2"], "kubectl")
    assert upgraded == [{**applied, "fieldsV1": {"f:data": data_fields("a", "b", "c")}}, kept]


def test_subresource_option_selects_that_subresources_entries():
    """subresource: only the status entries, on both sides, are looked at."""
    main = entry("kubectl-client-side-apply", "Update", {"f:spec": data_fields("x")})
    status = entry("kubectl-client-side-apply", "Update", {"f:status": data_fields("phase")}, subresource="status")
    upgraded = upgrade_managed_fields([main, status], ["kubectl-client-side-apply"], "kubectl", subresource="status")
    assert upgraded == [main, {**status, "manager": "kubectl", "operation": "Apply"}]
    assert upgrade_managed_fields([main, status], ["kubectl-client-side-apply"], "kubectl") == [
        {**main, "manager": "kubectl", "operation": "Apply"}, status]


def test_patch_replaces_managed_fields_and_restates_the_resource_version():
    obj = {"metadata": {"resourceVersion": "42", "managedFields": [CSA_ENTRY]}}
    before = copy.deepcopy(obj)
    assert upgrade_managed_fields_patch(obj, ["kubectl-client-side-apply"], "kubectl") == [
        {"op": "replace", "path": "/metadata/managedFields",
         "value": [{**CSA_ENTRY, "manager": "kubectl", "operation": "Apply"}]},
        {"op": "replace", "path": "/metadata/resourceVersion", "value": "42"},
    ]
    assert obj == before


def test_unreadable_fields_of_an_entry_to_fold_are_an_error():
    broken = entry("kubectl-client-side-apply", "Update", {"f:data": ["not", "a", "set"]})
    with pytest.raises(ValueError, match="failed to convert fields to set"):
        upgrade_managed_fields([broken], ["kubectl-client-side-apply"], "kubectl")


# --- the steps (patchconf.reference_impl.ssa.migration) ----------------------------------------------------

CM_SCHEMA = builtin("v1", "ConfigMap", LIVE_RELEASE)  # the built-in kind, decoded through its Go type
LAST_APPLIED_AB = ('{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap",'
                   '"metadata":{"annotations":{},"name":"cm","namespace":"default"}}\n')


def configmap(data, **metadata):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default", **metadata},
            "data": data}


CLIENT_SIDE_APPLIED = configmap({"a": "1", "b": "2"}, annotations={LAST_APPLIED: LAST_APPLIED_AB}, managedFields=[
    {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "v1", "time": 0,
     "fieldsV1": {"f:data": data_fields("a", "b", dot=True), "f:metadata": ANNOTATION_FIELDS}}])


def run(steps, current=CLIENT_SIDE_APPLIED):
    return apiserver.run_case(CM_SCHEMA, "v1", "ConfigMap", copy.deepcopy(current), steps)


def test_kubectl_apply_server_side_migrates_and_prunes_the_dropped_field():
    [result] = run([{"op": "kubectl-apply-server-side", "manager": "kubectl", "object": configmap({"a": "1"})}])
    assert result == {"changed": True, "document": configmap({"a": "1"}, annotations={LAST_APPLIED: (
        '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"}}\n')}),
        "managed_fields": [
            {"manager": "kubectl-last-applied", "operation": "Apply", "apiVersion": "v1",
             "fieldsV1": {"f:metadata": {"f:annotations": {f"f:{LAST_APPLIED}": {}}}}},
            {"manager": "kubectl", "operation": "Apply", "apiVersion": "v1", "time": 1,
             "fieldsV1": {"f:data": {"f:a": {}}}}]}


def test_kubectl_apply_server_side_with_another_manager_name_loses_the_annotation():
    [result] = run([{"op": "kubectl-apply-server-side", "manager": "flux", "object": configmap({"a": "1"})}])
    assert result == {"changed": True, "document": configmap({"a": "1"}), "managed_fields": [
        {"manager": "flux", "operation": "Apply", "apiVersion": "v1", "time": 1, "fieldsV1": {"f:data": {"f:a": {}}}}]}


def test_kubectl_apply_server_side_conflict_fails_the_step_and_migrates_nothing():
    results = run([
        {"op": "patch", "manager": "scaler", "patch_type": "merge-patch", "patch": {"data": {"b": "9"}}},
        {"op": "kubectl-apply-server-side", "manager": "kubectl", "object": configmap({"a": "1", "b": "2"})},
    ])
    assert results[1] == {"error": {"class": "conflict", "status": 409, "reason": "Conflict",
                                    "message": 'Apply failed with 1 conflict: conflict with "scaler" using v1: .data.b',
                                    "conflicts": [{"manager": "scaler", "field": ".data.b"}]}}


def test_csa_upgrade_step_without_anything_to_upgrade_writes_nothing():
    applied = {"manager": "kubectl", "operation": "Apply", "apiVersion": "v1", "time": 0,
               "fieldsV1": {"f:data": {"f:a": {}}}}
    current = configmap({"a": "1"}, managedFields=[applied])
    [result] = run([{"op": "csa-upgrade", "manager": "kubectl", "csa_managers": ["kubectl-client-side-apply"]}],
                   current)
    assert result == {"changed": False, "document": configmap({"a": "1"}), "managed_fields": [applied]}


def test_csa_upgrade_step_on_a_missing_object_is_not_found():
    [result] = run([{"op": "csa-upgrade", "manager": "kubectl", "csa_managers": ["x"]}], current=None)
    assert result == {"error": {"class": "path-not-found", "message": "configmap not found", "status": 404,
                                "reason": "NotFound"}}
