"""What the apiserver's registry strategies and the internal version add around the field manager
(reference_impl/ssa/strategies.py, conversion.py, qos.py). Each expectation is what kube-apiserver
1.33.13 stored for the same requests (the local control plane, 2026-11-26: `patchconf fuzz --truth
live` seeds 4242, 90210, 660011 and kubectl against it)."""

from __future__ import annotations

import copy

from patchconf.reference_impl.ssa import apiserver
from patchconf.reference_impl.ssa.qos import compute_pod_qos
from patchconf.reference_impl.ssa.schema import DEFAULT_VERSION, builtin


def run(api_version, kind, steps, current=None):
    return apiserver.run_case(builtin(api_version, kind, DEFAULT_VERSION), api_version, kind,
                              copy.deepcopy(current), steps)


DAEMON_SET = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
              "spec": {"selector": {"matchLabels": {"app": "agent"}},
                       "template": {"metadata": {"labels": {"app": "agent"}},
                                    "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}}}}
GENERATION = "deprecated.daemonset.template.generation"


def test_a_daemon_set_keeps_its_template_generation_and_an_update_without_it_owns_it():
    changed_image = copy.deepcopy(DAEMON_SET)
    changed_image["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.27"
    created, updated = run("apps/v1", "DaemonSet", [
        {"op": "apply", "manager": "alice", "object": DAEMON_SET},
        {"op": "update", "manager": "bob", "object": changed_image}])
    assert created["document"]["metadata"]["annotations"] == {GENERATION: "1"}
    assert updated["document"]["metadata"]["annotations"] == {GENERATION: "2"}  # the template changed
    bob = next(e for e in updated["managed_fields"] if e["manager"] == "bob")
    # as the server owns it (defaulted.yaml::daemonset-put-without-update-strategy-keeps-applier-type)
    assert bob["fieldsV1"]["f:metadata"] == {"f:annotations": {f"f:{GENERATION}": {}}}


def test_an_on_delete_daemon_set_with_a_rolling_update_gets_max_surge_from_the_internal_version():
    on_delete = copy.deepcopy(DAEMON_SET)
    on_delete["spec"]["updateStrategy"] = {"type": "OnDelete", "rollingUpdate": {"maxUnavailable": 2}}
    (created,) = run("apps/v1", "DaemonSet", [{"op": "apply", "manager": "alice", "object": on_delete}])
    assert created["document"]["spec"]["updateStrategy"] == {
        "type": "OnDelete", "rollingUpdate": {"maxUnavailable": 2, "maxSurge": 0}}


def test_a_created_pod_is_pending_with_its_qos_class():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "app", "image": "nginx:1.25", "resources": {"limits": {"cpu": "1", "memory": "64Mi"}}}]}}
    (created,) = run("v1", "Pod", [{"op": "apply", "manager": "alice", "object": pod}])
    # requests are defaulted from limits before PrepareForCreate computes the class
    assert created["document"]["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}


def test_qos_classes():
    def pod(*resources):
        return {"spec": {"containers": [{"name": str(i), "resources": r} for i, r in enumerate(resources)]}}

    assert compute_pod_qos(pod({})) == "BestEffort"
    assert compute_pod_qos(pod({"requests": {"cpu": "100m"}})) == "Burstable"
    both = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1000m", "memory": "1Gi"}}
    assert compute_pod_qos(pod(both, both)) == "Guaranteed"
    assert compute_pod_qos(pod(both, {})) == "Burstable"  # every container needs cpu and memory limits


def test_annotations_sent_to_a_deployments_status_change_and_are_owned_labels_do_not():
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                  "spec": {"selector": {"matchLabels": {"app": "web"}},
                           "template": {"metadata": {"labels": {"app": "web"}},
                                        "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}}}
    status = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "web", "annotations": {"note": "n"}, "labels": {"l": "v"}},
              "status": {"replicas": 2, "observedGeneration": 1}}
    _, after = run("apps/v1", "Deployment", [{"op": "apply", "manager": "a", "object": deployment},
                                             {"op": "apply", "manager": "s", "subresource": "status",
                                              "object": status}])
    assert after["document"]["metadata"] == {"name": "web", "annotations": {"note": "n"}}
    assert after["managed_fields"][1] == {
        "manager": "s", "operation": "Apply", "apiVersion": "apps/v1", "time": 2, "subresource": "status",
        "fieldsV1": {"f:metadata": {"f:annotations": {"f:note": {}}},
                     "f:status": {"f:observedGeneration": {}, "f:replicas": {}}}}


def test_a_service_whose_type_is_deleted_loses_its_external_traffic_policy():
    node_port = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
                 "spec": {"ports": [{"port": 8080}], "type": "NodePort"}}
    (patched,) = run("v1", "Service", [{"op": "patch", "manager": "alice", "patch_type": "merge-patch",
                                        "patch": {"spec": {"type": None}}}], current=node_port)
    assert patched["document"]["spec"] == {
        "internalTrafficPolicy": "Cluster", "ports": [{"port": 8080, "protocol": "TCP", "targetPort": 8080}],
        "sessionAffinity": "None", "type": "ClusterIP"}
