"""dryRun=All on a Store's requests and in kubectl's server-side apply sequence
(patchconf.reference_impl.ssa.apiserver, .migration). Outcomes as
cases/server-side-apply/dry-run.yaml records them from kube-apiserver 1.33.
"""

from __future__ import annotations

from patchconf.reference_impl.ssa import apiserver
from patchconf.reference_impl.ssa.schema import builtin


def configmap(data):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": data}


def test_a_dry_run_answers_the_object_and_stores_nothing():
    store = apiserver.Store(builtin("v1", "ConfigMap"), "v1", "ConfigMap")
    store.run(apiserver.Step("apply", "alice", object=configmap({"a": "1"})))
    stored = store.live
    answer = store.run(apiserver.Step("apply", "bob", object=configmap({"b": "2"}), dry_run=True))
    assert answer.document["data"] == {"a": "1", "b": "2"}
    assert [(e["manager"], e["time"]) for e in answer.managed_fields] == [("alice", 1), ("bob", 2)]
    assert answer.changed is False
    assert store.live is stored


def test_a_dry_run_create_leaves_no_object():
    store = apiserver.Store(builtin("v1", "ConfigMap"), "v1", "ConfigMap")
    answer = store.run(apiserver.Step("apply", "alice", object=configmap({"a": "1"}), dry_run=True))
    assert (answer.document["data"], answer.changed, store.live) == ({"a": "1"}, False, None)


def test_a_dry_run_conflicts_as_a_real_request():
    store = apiserver.Store(builtin("v1", "ConfigMap"), "v1", "ConfigMap")
    store.run(apiserver.Step("apply", "alice", object=configmap({"a": "1"})))
    answer = store.run(apiserver.Step("apply", "bob", object=configmap({"a": "2"}), dry_run=True))
    assert answer.error is not None and answer.error.conflicts == (("alice", ".data.a"),)


def test_kubectl_dry_run_server_prints_what_the_migration_would_remove():
    """kubernetes#125607: each request of kubectl's sequence is a dry run against the stored object."""
    last_applied = ('{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":'
                    '{"annotations":{},"name":"cm","namespace":"default"}}\n')
    current = {"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "cm", "namespace": "default",
                            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": last_applied},
                            "managedFields": [{"manager": "kubectl-client-side-apply", "operation": "Update",
                                               "apiVersion": "v1", "time": 0, "fieldsV1": {
                                                   "f:data": {".": {}, "f:a": {}, "f:b": {}},
                                                   "f:metadata": {"f:annotations": {".": {}, (
                                                       "f:kubectl.kubernetes.io/last-applied-configuration"): {}}}}}]},
               "data": {"a": "1", "b": "2"}}
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"},
                "data": {"a": "1"}}
    step = {"op": "kubectl-apply-server-side", "manager": "kubectl", "object": manifest}
    dry, real = apiserver.run_case(builtin("v1", "ConfigMap"), "v1", "ConfigMap", current,
                                   [{**step, "dry_run": True}, step])
    assert (dry["document"]["data"], dry["changed"]) == ({"a": "1", "b": "2"}, False)
    assert (real["document"]["data"], real["changed"]) == ({"a": "1"}, True)
