"""A custom resource's structural schema as the apiextensions apiserver applies it when it decodes
an object (reference_impl/ssa/structural.py): non-nullable nulls without a default pruned, then
defaults, a default's own members defaulted too. Each outcome is what kube-apiserver 1.33.13
stores for the same request (patchconf live target, the CRD made from cases/schemas/database.yaml)."""

from __future__ import annotations

from pathlib import Path

from patchconf.reference_impl.ssa import apiserver, structural
from patchconf.reference_impl.ssa import schema as S

DATABASE = S.named_custom_resource(Path(__file__).resolve().parents[2] / "cases" / "schemas" / "database.yaml")
WIDGET = S.named_custom_resource(Path(__file__).resolve().parents[2] / "cases" / "schemas" / "ssa-widget.yaml")


def _database(spec: dict) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Database", "metadata": {"name": "db"}, "spec": spec}


def test_absent_fields_get_their_defaults_and_a_default_is_defaulted_in_turn() -> None:
    # spec.storage defaults to {}, whose size defaults to 1Gi; a user's role to reader
    decoded = structural.decode(DATABASE, _database({"users": [{"name": "app"}]}))
    assert decoded == _database({"replicas": 1, "version": "16", "port": 5432, "storage": {"size": "1Gi"},
                                 "users": [{"name": "app", "role": "reader"}]})


def test_a_null_that_is_not_nullable_is_defaulted_or_pruned() -> None:
    decoded = structural.decode(DATABASE, _database({"replicas": None, "parameters": None, "storage": None,
                                                     "values": {"free": None}}))
    # replicas and storage have defaults: a null gets them; parameters has none: the null goes;
    # beneath x-kubernetes-preserve-unknown-fields nothing is declared, so a null stays
    assert decoded["spec"] == {"replicas": 1, "version": "16", "port": 5432, "storage": {"size": "1Gi"},
                               "values": {"free": None}}


def test_a_nullable_field_keeps_its_null_and_metadata_is_not_the_schemas() -> None:
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": None},
              "spec": {"mode": None, "ports": [{"port": 80}]}}
    decoded = structural.decode(WIDGET, widget)
    assert decoded == {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": None},
                       "spec": {"mode": None, "ports": [{"port": 80, "protocol": "TCP"}]}}
    assert decoded["metadata"] is widget["metadata"]
    assert widget["spec"] == {"mode": None, "ports": [{"port": 80}]}  # the input is not changed


def test_an_apply_of_a_null_owns_a_field_the_server_defaults_and_an_update_of_a_null_loses_it() -> None:
    # (an apply of parameters: null, which has no default, the server's validation refuses)
    steps = [{"op": "apply", "manager": "alice", "object": _database({"replicas": 3, "parameters": {"a": "1"}})},
             {"op": "apply", "manager": "alice", "object": _database({"replicas": None, "storage": None,
                                                                      "values": {"free": None}})},
             {"op": "update", "manager": "bob", "object": _database({"replicas": None, "parameters": None,
                                                                     "storage": None, "values": {"free": None}})}]
    _, applied, updated = apiserver.run_case(DATABASE, "example.com/v1", "Database", None, steps,
                                             status_subresource=True, custom_resource=True)
    defaults = {"replicas": 1, "version": "16", "port": 5432, "storage": {"size": "1Gi"}}
    assert applied["document"]["spec"] == {**defaults, "values": {"free": None}}
    assert [entry["fieldsV1"] for entry in applied["managed_fields"]] == [
        {"f:spec": {"f:replicas": {}, "f:storage": {}, "f:values": {"f:free": {}}}}]
    # the update's nulls are pruned or defaulted as it is decoded: bob changed nothing alice owns
    assert updated["document"]["spec"] == applied["document"]["spec"]
    assert [(entry["manager"], entry["fieldsV1"]) for entry in updated["managed_fields"]] == [
        ("alice", {"f:spec": {"f:replicas": {}, "f:storage": {}, "f:values": {"f:free": {}}}})]


def test_a_stored_custom_object_was_defaulted_when_it_was_written() -> None:
    # current, as a patch flow's stored object: the server created it, so it holds the defaults a
    # JSON patch may then remove (and the server gives back); a null label is "" in ObjectMeta
    steps = [{"op": "patch", "manager": "bob", "patch_type": "json-patch",
              "patch": [{"op": "remove", "path": "/spec/replicas"}]},
             {"op": "patch", "manager": "bob", "patch_type": "merge-patch",
              "patch": {"metadata": {"labels": {"c": None, "a": None}}}}]
    current = {**_database({}), "metadata": {"name": "db", "labels": {"a": "b"}}}
    removed, labelled = apiserver.run_case(DATABASE, "example.com/v1", "Database", current, steps,
                                           status_subresource=True, custom_resource=True)
    assert "error" not in removed
    assert removed["document"]["spec"] == {"replicas": 1, "version": "16", "port": 5432, "storage": {"size": "1Gi"}}
    assert "labels" not in labelled["document"]["metadata"]
    applied = apiserver.run_case(DATABASE, "example.com/v1", "Database", None, [
        {"op": "apply", "manager": "carol", "object": {**_database({}), "metadata": {"name": "db",
                                                                                    "labels": {"app": None}}}}],
        status_subresource=True, custom_resource=True)
    assert applied[0]["document"]["metadata"]["labels"] == {"app": ""}


def test_a_write_of_what_reads_the_same_as_the_stored_object_but_is_handed_otherwise_is_a_change() -> None:
    # storage holds the applied null annotation as null and reads it as "": an update sending what
    # was read is a write (a new resourceVersion), the entries' times kept; a second one is not
    steps = [{"op": "apply", "manager": "alice", "object": _database({"replicas": 3})},
             {"op": "apply", "manager": "bob", "object": {**_database({}), "metadata": {
                 "name": "db", "annotations": {"owner": None}}}}]
    steps += [{"op": "update", "manager": "bob", "object": {**_database({"replicas": 3}), "metadata": {
        "name": "db", "annotations": {"owner": owner}}}} for owner in (None, "")]
    results = apiserver.run_case(DATABASE, "example.com/v1", "Database", None, steps,
                                 status_subresource=True, custom_resource=True)
    assert [result["changed"] for result in results] == [True, True, True, False]
    assert results[2]["document"] == results[1]["document"] == results[3]["document"]
    assert results[1]["document"]["metadata"]["annotations"] == {"owner": ""}
    assert results[2]["managed_fields"] == results[1]["managed_fields"]
