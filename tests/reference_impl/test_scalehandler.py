"""The scale subresource (patchconf.reference_impl.ssa.scalehandler) and a Store's requests to /scale.

The ScaleHandler vectors are apimachinery's own (k8s.io/apimachinery pkg/util/managedfields
scalehandler_test.go, v0.33.13, mappings apps/v1 -> spec.replicas); the Store tests follow what
cases/server-side-apply/scale.yaml records from a kube-apiserver 1.33.
"""

from __future__ import annotations

import pytest

import patchconf
from patchconf.reference_impl.ssa import apiserver, scalehandler
from patchconf.reference_impl.ssa.managedfields import RequestError
from patchconf.reference_impl.ssa.schema import builtin

DEPLOYMENT = scalehandler.ScalePaths(("spec", "replicas"), ("status", "replicas"), None, ("apps/v1",))
REPLICAS = {"f:spec": {"f:replicas": {}}}


def entry(manager, operation, api_version, fields, **extra):
    return {"manager": manager, "operation": operation, "apiVersion": api_version, **extra,
            "fieldsType": "FieldsV1", "fieldsV1": fields}


def ordered(entries):
    """Entries compared without their members' order."""
    return [dict(sorted(e.items())) for e in entries or ()]


# --- ToSubresource (TestTransformManagedFieldsToSubresource) --------------------------------------

def test_to_subresource_keeps_only_the_owners_of_replicas_at_autoscaling_v1():
    parent = [entry("manager-1", "Apply", "apps/v1", {"f:spec": {"f:another-field": {}}}),
              entry("manager-2", "Apply", "apps/v1", REPLICAS, time="2013-02-03T00:00:00Z")]
    handler = scalehandler.ScaleHandler(parent, "apps/v1", DEPLOYMENT)
    assert ordered(handler.to_subresource()) == ordered(
        [entry("manager-2", "Apply", "autoscaling/v1", REPLICAS, time="2013-02-03T00:00:00Z")])


def test_to_subresource_keeps_an_entrys_subresource():
    parent = [entry("manager-1", "Apply", "apps/v1", REPLICAS),
              entry("manager-3", "Apply", "apps/v1", REPLICAS, subresource="scale")]
    handler = scalehandler.ScaleHandler(parent, "apps/v1", DEPLOYMENT)
    assert ordered(handler.to_subresource()) == ordered(
        [entry("manager-1", "Apply", "autoscaling/v1", REPLICAS),
         entry("manager-3", "Apply", "autoscaling/v1", REPLICAS, subresource="scale")])


def test_to_subresource_drops_entries_of_an_unknown_version():
    parent = [entry("manager-1", "Apply", "apps/v10", REPLICAS)]
    assert scalehandler.ScaleHandler(parent, "apps/v1", DEPLOYMENT).to_subresource() is None


# --- ToParent (TestTransformingManagedFieldsToParent) ---------------------------------------------

def test_to_parent_an_update_on_scale_steals_replicas_from_an_applier():
    parent = [entry("test", "Apply", "apps/v1", {"f:spec": {"f:replicas": {}, "f:selector": {}}})]
    scale = [entry("scale", "Update", "autoscaling/v1", REPLICAS, subresource="scale")]
    handler = scalehandler.ScaleHandler(parent, "apps/v1", DEPLOYMENT)
    assert ordered(handler.to_parent(scale)) == ordered(
        [entry("test", "Apply", "apps/v1", {"f:spec": {"f:selector": {}}}),
         entry("scale", "Update", "apps/v1", REPLICAS, subresource="scale")])


def test_to_parent_same_manager_update_then_update_gets_a_scale_entry():
    parent = [entry("test", "Update", "apps/v1", {"f:spec": {"f:replicas": {}, "f:selector": {}}})]
    scale = [entry("test", "Update", "autoscaling/v1", REPLICAS, subresource="scale")]
    handler = scalehandler.ScaleHandler(parent, "apps/v1", DEPLOYMENT)
    assert ordered(handler.to_parent(scale)) == ordered(
        [entry("test", "Update", "apps/v1", {"f:spec": {"f:selector": {}}}),
         entry("test", "Update", "apps/v1", REPLICAS, subresource="scale")])


def test_to_parent_same_manager_update_then_apply_on_scale():
    parent = [entry("test", "Update", "apps/v1", {"f:spec": {"f:replicas": {}, "f:selector": {}}})]
    scale = [entry("test", "Apply", "autoscaling/v1", REPLICAS, subresource="scale")]
    handler = scalehandler.ScaleHandler(parent, "apps/v1", DEPLOYMENT)
    assert handler.to_parent(scale) == [
        entry("test", "Apply", "apps/v1", REPLICAS, subresource="scale"),
        entry("test", "Update", "apps/v1", {"f:spec": {"f:selector": {}}})]


def test_to_parent_a_new_update_manager_gets_no_time():
    """Its identifier names autoscaling/v1, which no entry of the object has: ToParent finds no time."""
    parent = [entry("gitops", "Apply", "apps/v1", {"f:spec": {"f:replicas": {}}}, time="2013-02-03T00:00:00Z")]
    scale = [entry("hpa", "Update", "autoscaling/v1", REPLICAS, subresource="scale", time="2024-01-01T00:00:00Z")]
    assert scalehandler.ScaleHandler(parent, "apps/v1", DEPLOYMENT).to_parent(scale) == [
        entry("hpa", "Update", "apps/v1", REPLICAS, subresource="scale")]


# --- the Scale's selector ------------------------------------------------------------------------

@pytest.mark.parametrize(("selector", "kind", "text"), [
    ({"matchLabels": {"b": "2", "a": "1"}}, "Deployment", "a=1,b=2"),
    ({"matchLabels": {"app": "web"}, "matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["z", "a"]}, {"key": "canary", "operator": "DoesNotExist"}]},
     "Deployment", "app=web,!canary,tier in (a,z)"),
    ({}, "Deployment", ""),
    ({"app": "web", "env": "prod"}, "ReplicationController", "app=web,env=prod"),
])
def test_label_selector_string(selector, kind, text):
    assert scalehandler.label_selector_string(selector, kind) == text


def test_custom_scale_paths_are_refused_unless_dotted():
    with pytest.raises(ValueError, match="specReplicasPath"):
        scalehandler.custom({"specReplicasPath": "spec.replicas", "statusReplicasPath": ".status.replicas"},
                            "example.com/v1")


# --- a Store's requests to /scale ---------------------------------------------------------------

WEB = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
       "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                             "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}


def run(steps):
    return apiserver.run_case(builtin("apps/v1", "Deployment"), "apps/v1", "Deployment", None, steps)


def test_scale_patch_moves_replicas_and_the_applier_then_conflicts():
    results = run([{"op": "apply", "manager": "gitops", "object": WEB},
                   {"op": "patch", "manager": "hpa", "subresource": "scale", "patch_type": "merge-patch",
                    "patch": {"spec": {"replicas": 5}}},
                   {"op": "apply", "manager": "gitops", "object": WEB}])
    assert results[1]["document"]["spec"]["replicas"] == 5
    assert results[1]["managed_fields"][1] == {"manager": "hpa", "operation": "Update", "apiVersion": "apps/v1",
                                               "fieldsV1": REPLICAS, "subresource": "scale"}
    assert "f:replicas" not in results[1]["managed_fields"][0]["fieldsV1"]["f:spec"]
    assert results[2]["error"]["conflicts"] == [{"manager": "hpa", "field": ".spec.replicas"}]
    assert results[2]["error"]["message"] == ('Apply failed with 1 conflict: conflict with "hpa" with subresource '
                                              '"scale" using apps/v1: .spec.replicas')


def test_scale_update_of_unowned_replicas_is_not_tracked():
    """No entry owns spec.replicas, so the Scale has no managedFields and skipNonApplied leaves the
    update untracked (kubernetes#94585)."""
    without_replicas = {**WEB, "spec": {k: v for k, v in WEB["spec"].items() if k != "replicas"}}
    results = run([{"op": "apply", "manager": "gitops", "object": without_replicas},
                   {"op": "update", "manager": "kubectl", "subresource": "scale",
                    "object": {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web"},
                               "spec": {"replicas": 4}}}])
    assert results[1]["document"]["spec"]["replicas"] == 4
    assert [e["manager"] for e in results[1]["managed_fields"]] == ["gitops"]
    assert results[1]["changed"] is True


def test_scale_refuses_negative_replicas_and_a_missing_object():
    results = run([{"op": "patch", "manager": "hpa", "subresource": "scale", "patch_type": "merge-patch",
                    "patch": {"spec": {"replicas": 2}}},
                   {"op": "apply", "manager": "gitops", "object": WEB},
                   {"op": "patch", "manager": "hpa", "subresource": "scale", "patch_type": "merge-patch",
                    "patch": {"spec": {"replicas": -1}}}])
    assert (results[0]["error"]["status"], results[0]["error"]["reason"]) == (404, "NotFound")
    assert (results[2]["error"]["status"], results[2]["error"]["class"]) == (422, "invalid")


def test_a_kind_without_scale_has_no_route():
    store = apiserver.Store(builtin("v1", "ConfigMap"), "v1", "ConfigMap")
    store.start({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    result = store.run(apiserver.Step("patch", "hpa", subresource="scale", patch_type="merge-patch", patch={}))
    assert isinstance(result.error, RequestError)
    assert (result.error.status, result.error.message) == (404, "the server could not find the requested resource")



SCALED = scalehandler.ScalePaths(("spec", "replicas"), ("status", "replicas"), ("status", "selector"),
                                 ("example.com/v1",), custom=True)


def run_scaled(steps):
    from patchconf.reference_impl.ssa.schema import custom_resource

    return apiserver.run_case(custom_resource(), "example.com/v1", "Scaled", None, steps, custom_resource=True,
                              scale=SCALED)


SCALE_OF_2 = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "s"}, "spec": {"replicas": 2}}


def scaled(spec):
    return {"apiVersion": "example.com/v1", "kind": "Scaled", "metadata": {"name": "s"}, "spec": spec}


def test_a_custom_resources_scale_refuses_applies_and_negative_replicas():
    results = run_scaled([
        {"op": "apply", "manager": "gitops", "object": scaled({"replicas": 1})},
        {"op": "apply", "manager": "scaler", "subresource": "scale", "force": True, "object": SCALE_OF_2},
        {"op": "patch", "manager": "hpa", "subresource": "scale", "patch_type": "merge-patch",
         "patch": {"spec": {"replicas": -1}}}])
    assert results[1]["error"]["status"] == 500
    assert results[1]["error"]["message"].startswith("failed to convert new object (/s; autoscaling/v1, Kind=Scale)")
    assert results[2]["error"]["message"] == ('Scaled.example.com "s" is invalid: .spec.replicas: Invalid value: -1: '
                                              "should be a non-negative integer")


def test_zero_replicas_are_absent_from_the_scale_so_restating_them_changes_nothing():
    """ScaleSpec.replicas is omitempty: 0 replaced by 0 is no change, and the applier keeps them."""
    zero = {**WEB, "spec": {**WEB["spec"], "replicas": 0}}
    results = run([{"op": "apply", "manager": "alice", "object": zero},
                   {"op": "patch", "manager": "alice", "subresource": "scale", "patch_type": "json-patch",
                    "patch": [{"op": "replace", "path": "/spec/replicas", "value": 0}]}])
    assert results[1]["changed"] is False
    assert results[1]["managed_fields"] == results[0]["managed_fields"]


# --- the entries' order after ToParent (orders_differ) -------------------------------------------

def ports(*numbers):
    return {"f:spec": {"f:ports": {f'k:{{"port":{n},"protocol":"TCP"}}': {".": {}, "f:port": {}}
                                   for n in numbers}}}


@pytest.mark.parametrize(("fields", "differ"), [
    (ports(80, 443), True),        # by size 80 first, as text 443 first
    (ports(443, 80), True),        # the order a map is stated in does not matter
    (ports(80, 8080), False),      # 80 first either way: ',' sorts before '8'
    ({"f:spec": {"f:ports": {'k:{"port":80}': {}, 'k:{"port":8080}': {}}}}, True),  # '}' after '8'
    (ports(9, 10, 11), True),
    (ports(10, 11), False),
    ({"f:metadata": {"f:finalizers": {'v:"b"': {}, 'v:"a"': {}}}}, False),  # strings sort alike
    ({"f:spec": {"f:x": {"v:9": {}, "v:10": {}}}}, True),
    ({"f:data": {"f:b": {}, "f:a": {}, ".": {}}}, False),
    ({}, False),
])
def test_orders_differ_where_numbers_sort_otherwise_as_text(fields, differ):
    entries = [entry("gitops", "Apply", "apps/v1", REPLICAS), entry("hpa", "Update", "apps/v1", fields)]
    assert scalehandler.orders_differ(entries) is differ


def test_orders_differ_without_entries():
    assert scalehandler.orders_differ(None) is False
    assert scalehandler.orders_differ([]) is False


def deployment_with_ports(*numbers):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
                         {"name": "web", "image": "nginx", "ports": [{"containerPort": n} for n in numbers]}]}}}}


@pytest.mark.parametrize(("numbers", "changes"), [((80, 443), [True, True, True, False]),
                                                  ((80, 8080), [True, False, False, False])])
def test_a_scale_write_stores_entries_sorted_as_text(numbers, changes):
    """kube-apiserver 1.33.13 (cases/server-side-apply/scale.yaml::scale-write-reorders-…): the
    /scale write of the replicas the object has, then two main-resource patches changing nothing."""
    server = patchconf.ServerSideApply("apps/v1", "Deployment", clock=lambda: 1)
    server.apply(deployment_with_ports(*numbers), manager="gitops")
    found = [server.changed]
    server.patch({"spec": {"replicas": 2}}, "merge-patch", manager="hpa", subresource="scale")
    found.append(server.changed)
    for _ in range(2):
        server.patch({"spec": {"replicas": 2}}, "merge-patch", manager="hpa")
        found.append(server.changed)
    assert found == changes
