"""The server-side apply reference: field sets, typed merge, the field manager chain.

Expected values are structured-merge-diff's own (its typed/merge_test.go triplets, its
FieldsV1 encoding) or follow from the apimachinery chain's documented rules.
"""

from __future__ import annotations

import json

import pytest

from reference_impl.ssa import apiserver
from reference_impl.ssa.fieldpath import FieldSet, PathElement, make_path, path_string
from reference_impl.ssa.managedfields import manager_identifier
from reference_impl.ssa.schema import from_openapi
from reference_impl.ssa.typed import TypedValue

SET_SCHEMA = from_openapi({"Root": {"type": "object", "properties": {
    "setStr": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
    "numeric": {"type": "number"}, "string": {"type": "string"}, "bool": {"type": "boolean"},
}}}, "Root")


def typed(value, schema=SET_SCHEMA):
    return TypedValue(value, schema, schema.root)


# structured-merge-diff v4 typed/merge_test.go, "struct grab bag"
@pytest.mark.parametrize(("lhs", "rhs", "out"), [
    ('{"numeric":1}', '{"numeric":3.14159}', '{"numeric":3.14159}'),
    ('{"string":"aoeu"}', '{"bool":true}', '{"string":"aoeu","bool":true}'),
    ('{"setStr":["a","b","c"]}', '{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}'),
    ('{"setStr":["a","b","c"]}', '{"setStr":[]}', '{"setStr":["a","b","c"]}'),
    ('{"setStr":["a","b"]}', '{"setStr":["b","a"]}', '{"setStr":["b","a"]}'),
    ('{"setStr":["a","b","c","g","f"]}', '{"setStr":["c","d","e","f"]}', '{"setStr":["a","b","c","g","d","e","f"]}'),
    ('{"setStr":["c","d","e","f"]}', '{"setStr":["a","c","e"]}', '{"setStr":["a","c","d","e","f"]}'),
    ('{"setStr":["a","b","c","x","y","z"]}', '{"setStr":["d","e","f","x","y","z"]}',
     '{"setStr":["a","b","c","d","e","f","x","y","z"]}'),
    ('{"setStr":["c","a","g","f"]}', '{"setStr":["c","f","a","g"]}', '{"setStr":["c","f","a","g"]}'),
    ('{"setStr":["a","b","c","d"]}', '{"setStr":["d","e","f","a"]}', '{"setStr":["b","c","d","e","f","a"]}'),
    ('{"setStr":["c","d","e","f","g","h","i","j"]}', '{"setStr":["2","h","3","e","4","k","l"]}',
     '{"setStr":["c","d","f","g","2","h","i","j","3","e","4","k","l"]}'),
    ('{"setStr":["a","b","c","d","e","f","g","h","i","j"]}', '{"setStr":["1","b","2","h","3","e","4","k","l"]}',
     '{"setStr":["a","1","b","c","d","f","g","2","h","i","j","3","e","4","k","l"]}'),
])
def test_merge_matches_structured_merge_diff(lhs, rhs, out):
    merged = typed(json.loads(lhs)).merge(typed(json.loads(rhs)))
    assert merged.value == json.loads(out)


def test_fields_v1_round_trip_and_path_strings():
    encoded = {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
               "f:spec": {"f:ports": {'k:{"port":80,"protocol":"TCP"}': {".": {}, "f:port": {}}},
                          "f:tags": {'v:"a"': {}}}}
    fields = FieldSet.from_json(encoded)
    assert fields.to_json() == encoded
    assert sorted(path_string(p) for p in fields.paths()) == [
        ".metadata.labels", ".metadata.labels.app", '.spec.ports[port=80,protocol="TCP"]',
        '.spec.ports[port=80,protocol="TCP"].port', '.spec.tags[="a"]']
    assert fields.has((PathElement.field("spec"), PathElement.field("ports"),
                       PathElement.key({"protocol": "TCP", "port": 80.0})))


def test_set_algebra():
    a = FieldSet.of(make_path("a", "b"), make_path("a", "c"), make_path("d"))
    b = FieldSet.of(make_path("a"), make_path("a", "b"))
    assert a.difference(b).to_json() == {"f:a": {"f:c": {}}, "f:d": {}}
    assert a.recursive_difference(b).to_json() == {"f:d": {}}
    assert a.intersection(b).to_json() == {"f:a": {"f:b": {}}}
    assert a.union(b).to_json() == {"f:a": {".": {}, "f:b": {}, "f:c": {}}, "f:d": {}}


def test_manager_identifiers_as_go_marshals_them():
    assert manager_identifier("kubectl", "Apply", "v1") == '{"manager":"kubectl","operation":"Apply"}'
    assert manager_identifier("hpa", "Update", "apps/v1", "status") == (
        '{"manager":"hpa","operation":"Update","apiVersion":"apps/v1","subresource":"status"}')


def _configmap(data, **metadata):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", **metadata}, "data": data}


CM_SCHEMA = from_openapi({"CM": {"type": "object", "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
    "metadata": {"type": "object", "properties": {
        "name": {"type": "string"}, "uid": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "managedFields": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}},
    "data": {"type": "object", "additionalProperties": {"type": "string"}}}}}, "CM")


def run(steps, current=None):
    return apiserver.run_case(CM_SCHEMA, "v1", "ConfigMap", current, steps)


def test_update_manager_takes_field_and_applier_conflicts_then_forces():
    results = run([
        {"op": "apply", "manager": "gitops", "object": _configmap({"a": "1"})},
        {"op": "update", "manager": "hpa", "object": _configmap({"a": "2"})},
        {"op": "apply", "manager": "gitops", "object": _configmap({"a": "1"})},
        {"op": "apply", "manager": "gitops", "force": True, "object": _configmap({"a": "1"})},
    ])
    assert results[1]["managed_fields"] == [
        {"manager": "hpa", "operation": "Update", "apiVersion": "v1", "time": 2, "fieldsV1": {"f:data": {"f:a": {}}}}]
    assert results[2] == {"error": {
        "class": "conflict", "status": 409, "reason": "Conflict",
        "message": 'Apply failed with 1 conflict: conflict with "hpa" using v1: .data.a',
        "conflicts": [{"manager": "hpa", "field": ".data.a"}]}}
    assert results[3]["document"]["data"] == {"a": "1"}
    assert results[3]["managed_fields"] == [
        {"manager": "gitops", "operation": "Apply", "apiVersion": "v1", "time": 4, "fieldsV1": {"f:data": {"f:a": {}}}}]


def test_no_op_apply_keeps_times_and_is_no_write():
    config = _configmap({"a": "1"})
    first, second = run([{"op": "apply", "manager": "a", "object": config},
                         {"op": "apply", "manager": "a", "object": config}])
    assert second["changed"] is False
    assert second["managed_fields"] == first["managed_fields"]


def test_object_without_managed_fields_gets_before_first_apply():
    current = _configmap({"a": "1"})
    (result,) = run([{"op": "apply", "manager": "x", "object": _configmap({"b": "2"})}], current=current)
    assert result["document"]["data"] == {"a": "1", "b": "2"}
    assert result["managed_fields"] == [
        {"manager": "x", "operation": "Apply", "apiVersion": "v1", "time": 1, "fieldsV1": {"f:data": {"f:b": {}}}},
        {"manager": "before-first-apply", "operation": "Update", "apiVersion": "v1", "time": 1,
         "fieldsV1": {"f:data": {".": {}, "f:a": {}}}},
    ]


def test_eleventh_update_manager_folds_the_two_oldest_into_ancient_changes():
    steps = [{"op": "update", "manager": f"m{i:02d}", "object": _configmap({f"k{j}": "v" for j in range(i + 1)})}
             for i in range(11)]
    results = run(steps)  # the first update creates the object
    managers = [entry["manager"] for entry in results[-1]["managed_fields"]]
    assert managers == ["ancient-changes", *(f"m{i:02d}" for i in range(2, 11))]
    assert results[-1]["managed_fields"][0]["fieldsV1"] == {"f:data": {".": {}, "f:k0": {}, "f:k1": {}}}
