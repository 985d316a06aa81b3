"""What the apiserver's registry strategies and the internal version add around the field manager
(reference_impl/ssa/strategies.py, conversion.py, qos.py). Each expectation is what kube-apiserver
1.33.13 stored for the same requests (the local control plane, 2026-11-26: `patchconf fuzz --truth
live` seeds 4242, 90210, 660011 and kubectl against it)."""

from __future__ import annotations

import copy

from patchconf.reference_impl.releases import LIVE_RELEASE
from patchconf.reference_impl.ssa import apiserver
from patchconf.reference_impl.ssa.qos import compute_pod_qos
from patchconf.reference_impl.ssa.schema import builtin


def run(api_version, kind, steps, current=None):
    return apiserver.run_case(builtin(api_version, kind, LIVE_RELEASE), api_version, kind,
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


HEADLESS = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"},
            "spec": {"clusterIP": "None", "selector": {"app": "db"}, "ports": [{"name": "pg", "port": 5432}]}}


def test_an_apply_dropping_a_headless_services_cluster_ip_keeps_none_unowned():
    without = copy.deepcopy(HEADLESS)
    del without["spec"]["clusterIP"]
    _, applied = run("v1", "Service", [{"op": "apply", "manager": "flux", "object": HEADLESS},
                                       {"op": "apply", "manager": "flux", "object": without}])
    # patchAllocatedValues: services.yaml::headless-cluster-ip-dropped-from-configuration
    assert applied["document"]["spec"]["clusterIP"] == "None"
    assert applied["managed_fields"][0]["fieldsV1"]["f:spec"].keys() == {"f:ports", "f:selector"}


def test_an_update_dropping_a_headless_services_cluster_ip_keeps_it_and_owns_nothing():
    without = copy.deepcopy(HEADLESS)
    del without["spec"]["clusterIP"]
    (updated,) = run("v1", "Service", [{"op": "update", "manager": "bob", "object": without}], current=HEADLESS)
    assert updated["document"]["spec"]["clusterIP"] == "None"
    assert updated["changed"] is False  # services.yaml::headless-cluster-ip-dropped-by-update


def test_a_node_port_left_out_is_taken_back_by_port_name_unless_another_port_has_it():
    node_port = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                 "spec": {"type": "NodePort", "selector": {"app": "web"},
                          "ports": [{"name": "http", "port": 80, "nodePort": 30080},
                                    {"name": "https", "port": 443, "nodePort": 30443}]}}
    swapped = copy.deepcopy(node_port)
    swapped["spec"]["ports"] = [{"name": "http", "port": 80}, {"name": "https", "port": 443, "nodePort": 30080}]
    (updated,) = run("v1", "Service", [{"op": "update", "manager": "bob", "object": swapped}], current=node_port)
    # patchAllocatedValues' rule: http's old 30080 is used by https now, so it is not taken back (a
    # server then allocates http a new one, which the reference does not model)
    assert [port.get("nodePort") for port in updated["document"]["spec"]["ports"]] == [None, 30080]


def test_a_node_port_left_out_by_an_apply_is_kept_and_unowned():
    node_port = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                 "spec": {"type": "NodePort", "selector": {"app": "web"},
                          "ports": [{"name": "http", "port": 80, "nodePort": 30080}]}}
    without = copy.deepcopy(node_port)
    del without["spec"]["ports"][0]["nodePort"]
    _, applied = run("v1", "Service", [{"op": "apply", "manager": "gitops", "object": node_port},
                                       {"op": "apply", "manager": "gitops", "object": without}])
    # services.yaml::node-port-dropped-from-configuration-kept
    assert applied["document"]["spec"]["ports"][0]["nodePort"] == 30080
    assert applied["managed_fields"][0]["fieldsV1"]["f:spec"]["f:ports"] == {
        'k:{"port":80,"protocol":"TCP"}': {".": {}, "f:name": {}, "f:port": {}}}


def test_an_apply_stating_another_uid_is_refused_and_a_put_fails_its_precondition():
    deployment = copy.deepcopy(DAEMON_SET) | {"kind": "Deployment"}
    other_uid = copy.deepcopy(deployment)
    other_uid["metadata"]["uid"] = "6d1c0f1e-0000-4000-8000-000000000001"
    created, applied, updated = run("apps/v1", "Deployment", [
        {"op": "apply", "manager": "alice", "object": deployment},
        {"op": "apply", "manager": "alice", "object": other_uid},
        {"op": "update", "manager": "bob", "object": other_uid}])
    # as kube-apiserver 1.33.13 answers (typing.yaml::apply-with-another-objects-uid-is-refused): the
    # group qualifies the kind and the resource
    assert "error" not in created
    assert applied == {"error": {"class": "invalid", "status": 422, "reason": "Invalid", "message": (
        'Deployment.apps "agent" is invalid: metadata.uid: Invalid value: '
        '"6d1c0f1e-0000-4000-8000-000000000001": field is immutable')}}
    assert updated == {"error": {"class": "conflict", "status": 409, "reason": "Conflict", "message": (
        'Operation cannot be fulfilled on deployments.apps "agent": StorageError: invalid object, Code: 4, '
        "Key: /registry/deployments/agent, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
        "UID in precondition: 6d1c0f1e-0000-4000-8000-000000000001, UID in object meta: patchconf-uid")}}


# What kube-apiserver 1.33.13 answered (the local control plane, 2026-11-29: `patchconf fuzz --truth
# live` on Roles and PersistentVolumeClaims, seeds 7302 and 7303, and these requests against it).
CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
         "metadata": {"name": "data", "finalizers": ["kubernetes.io/pvc-protection"]},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "500Mi"}}}}


def test_a_claims_first_update_writes_its_defaulted_status_and_changes_it():
    # PrepareForCreate stores the zero status; storage's decoder answers phase Pending; the first
    # write stores Pending, so even an apply that changes nothing is a change, once
    steps = [{"op": "apply", "manager": "alice", "object": CLAIM} for _ in range(3)]
    created, first, second = run("v1", "PersistentVolumeClaim", steps)
    assert [created["changed"], first["changed"], second["changed"]] == [True, True, False]
    assert first["document"] == second["document"]
    assert first["document"]["status"] == {"phase": "Pending"}
    assert [entry["time"] for entry in second["managed_fields"]] == [1]  # the entry's time kept
    # a claim given as stored (a server's, with its managedFields set by an update) is past that
    (untouched,) = run("v1", "PersistentVolumeClaim", [{"op": "patch", "manager": "bob", "patch_type": "merge-patch",
                                                        "patch": {}}], current=CLAIM)
    assert untouched["changed"] is False
    (patched,) = run("v1", "PersistentVolumeClaim", [steps[0]], current={**CLAIM, "status": {"phase": "Pending"}})
    assert patched["changed"] is True  # alice's entry is new
    (again,) = run("v1", "PersistentVolumeClaim", [{"op": "patch", "manager": "bob", "patch_type": "merge-patch",
                                                     "patch": {}}], current={**CLAIM, "status": {"phase": "Pending"}})
    assert again["changed"] is False


def test_an_empty_list_that_is_not_omitempty_comes_back_from_storage_null():
    # Role.rules has no omitempty: protobuf storage holds no empty list apart from nil
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "reader"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
    _, emptied = run("rbac.authorization.k8s.io/v1", "Role", [
        {"op": "apply", "manager": "alice", "object": role},
        {"op": "apply", "manager": "bob", "object": {**role, "rules": []}, "force": True}])
    assert emptied["document"]["rules"] is None
    assert [(entry["manager"], entry["fieldsV1"]) for entry in emptied["managed_fields"]] == [
        ("bob", {"f:rules": {}})]
