"""The server-side apply reference: field sets, typed merge, the field manager chain.

Expected values are structured-merge-diff's own (its typed/merge_test.go triplets, its
FieldsV1 encoding) or follow from the apimachinery chain's documented rules.
"""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path

import pytest

from patchconf.reference_impl.releases import LIVE_RELEASE
from patchconf.reference_impl.ssa import apiserver
from patchconf.reference_impl.ssa.fieldpath import FieldSet, PathElement, make_path, path_string
from patchconf.reference_impl.ssa.managedfields import manager_identifier, print_manager
from patchconf.reference_impl.ssa.schema import builtin, from_openapi
from patchconf.reference_impl.ssa.typed import TypedValue

CASES = Path(__file__).resolve().parents[2] / "cases"

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


def test_sets_of_the_same_trie_encode_alike_and_a_member_is_not_an_empty_child():
    # The field manager writes a manager's set that is the same trie as its last one as the FieldsV1
    # it wrote then: that is right only if the same trie always has the same encoding.
    a = FieldSet.of(make_path("a", "b"), make_path("c"))
    b = FieldSet.of(make_path("c"), make_path("a", "b"))
    assert a is not b and a.same_trie(b) and a.to_json() == b.to_json()
    assert not a.same_trie(FieldSet.of(make_path("a", "b"), make_path("c", "d")))
    member, empty_child = FieldSet({PathElement.field("a")}), FieldSet(children={PathElement.field("a"): FieldSet()})
    assert not member.same_trie(empty_child)


def test_manager_identifiers_as_go_marshals_them():
    assert manager_identifier("kubectl", "Apply", "v1") == '{"manager":"kubectl","operation":"Apply"}'
    assert manager_identifier("hpa", "Update", "apps/v1", "status") == (
        '{"manager":"hpa","operation":"Update","apiVersion":"apps/v1","subresource":"status"}')
    # Identifiers are cached: a malformed entry's member (unhashable, or no string) is refused in the
    # encoder's words all the same, every time.
    for member in (["kubectl"], 1, True):
        for _ in range(2):
            with pytest.raises(TypeError, match="expected string or bytes-like object"):
                manager_identifier(member, "Apply", "v1")


def test_entries_are_written_in_the_go_structs_member_order():
    # metav1.ManagedFieldsEntry declares manager, operation, apiVersion, time, fieldsType, fieldsV1,
    # subresource: encoding/json writes them so, and answers keep that order.
    from patchconf.reference_impl.ssa.fieldpath import VersionedSet
    from patchconf.reference_impl.ssa.managedfields import Managed, encode_managed_fields

    status = manager_identifier("hpa", "Update", "v1", "status")
    applier = manager_identifier("kubectl", "Apply", "v1")
    fields = FieldSet.of(make_path("data", "a"))
    entries = encode_managed_fields(Managed({status: VersionedSet(fields, "v1", False),
                                             applier: VersionedSet(fields, "v1", True)}, {status: 3}))
    assert [list(entry) for entry in entries] == [
        ["manager", "operation", "apiVersion", "fieldsType", "fieldsV1"],
        ["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"]]
    assert entries[1]["operation"] == "Update" and entries[1]["subresource"] == "status"


def _configmap(data, **metadata):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", **metadata}, "data": data}


CM_SCHEMA = builtin("v1", "ConfigMap", LIVE_RELEASE)  # the built-in kind, decoded through its Go type


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
    # A ConfigMap is not created by an update (its strategy refuses), so m00's entry is stored already.
    created = _configmap({"k0": "v"}, managedFields=[{"manager": "m00", "operation": "Update", "apiVersion": "v1",
                                                      "time": 0, "fieldsV1": {"f:data": {".": {}, "f:k0": {}}}}])
    steps = [{"op": "update", "manager": f"m{i:02d}", "object": _configmap({f"k{j}": "v" for j in range(i + 1)})}
             for i in range(1, 11)]
    results = run(steps, current=created)
    managers = [entry["manager"] for entry in results[-1]["managed_fields"]]
    assert managers == ["ancient-changes", *(f"m{i:02d}" for i in range(2, 11))]
    assert results[-1]["managed_fields"][0]["fieldsV1"] == {"f:data": {".": {}, "f:k0": {}, "f:k1": {}}}


# --- rules that changed between Kubernetes releases (run_case's kubernetes_version) ---------------

PORTS_SCHEMA = from_openapi({"P": {"type": "object", "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
    "metadata": {"type": "object", "properties": {
        "name": {"type": "string"}, "uid": {"type": "string"},
        "managedFields": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}},
    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "host"],
              "items": {"type": "object", "properties": {
                  "port": {"type": "integer"}, "host": {"type": "string"}, "name": {"type": "string"}}}},
    "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}}}}, "P")


def _ports(**fields):
    return {"apiVersion": "v1", "kind": "P", "metadata": {"name": "p"}, **fields}


def run_ports(steps, kubernetes_version):
    return apiserver.run_case(PORTS_SCHEMA, "v1", "P", None, steps, kubernetes_version=kubernetes_version)


def test_an_item_naming_some_keys_is_refused_before_1_34_and_keyed_by_them_from_1_34():
    step = {"op": "apply", "manager": "a", "object": _ports(ports=[{"port": 80, "name": "web"}])}
    (old,) = run_ports([step], "1.33")
    assert old == {"error": {
        "class": "invalid-patch", "status": 500, "reason": "InternalError",
        "message": "failed to create typed patch object (/p; /v1, Kind=P): .ports: element 0: associative list "
                   "with keys has an element that omits key field \"host\" (and doesn't have default value)"}}
    (new,) = run_ports([step], "1.34")
    assert new["document"]["ports"] == [{"port": 80, "name": "web"}]
    assert new["managed_fields"] == [
        {"manager": "a", "operation": "Apply", "apiVersion": "v1", "time": 1,
         "fieldsV1": {"f:ports": {'k:{"port":80}': {".": {}, "f:name": {}, "f:port": {}}}}}]


def test_an_item_naming_no_key_is_refused_by_every_release_in_its_own_words():
    step = {"op": "apply", "manager": "a", "object": _ports(ports=[{"name": "web"}])}
    messages = {version: run_ports([step], version)[0]["error"]["message"].split(": ", 2)[2]
                for version in ("1.27", "1.34")}
    assert messages == {
        "1.27": 'element 0: associative list with keys has an element that omits key field "port" '
                "(and doesn't have default value)",
        "1.34": 'element 0: associative list with keys has an element that omits all key fields ["port" "host"] '
                "(and doesn't have default values for any key fields)",
    }


def test_duplicates_left_by_an_update_are_typed_from_1_29_and_break_applies_before():
    steps = [{"op": "apply", "manager": "a", "object": _ports(tags=["x"])},
             {"op": "update", "manager": "u", "object": _ports(tags=["x", "x"])},
             {"op": "apply", "manager": "b", "object": _ports(tags=["y"])}]
    old = run_ports(steps, "1.28")
    assert old[1]["managed_fields"] == []  # UpdateNoErrors could not type the object: managedFields dropped
    assert old[2] == {"error": {
        "class": "invalid-document", "status": 500, "reason": "InternalError",
        "message": "failed to create manager for existing fields: failed to convert new object (/p; /v1, Kind=P) "
                   "to smd typed: .tags: duplicate entries for key [=\"x\"]"}}
    new = run_ports(steps, "1.29")
    assert new[1]["managed_fields"] == [
        {"manager": "u", "operation": "Update", "apiVersion": "v1", "time": 2, "fieldsV1": {"f:tags": {'v:"x"': {}}}}]
    assert new[2]["document"]["tags"] == ["x", "x", "y"]


def test_an_update_that_cannot_be_tracked_keeps_the_stored_managed_fields_from_1_37():
    steps = [{"op": "apply", "manager": "a", "object": _ports(tags=["x"])},
             {"op": "update", "manager": "u", "object": _ports(ports=[{"name": "no keys"}])}]
    applied = [{"manager": "a", "operation": "Apply", "apiVersion": "v1", "time": 1,
                "fieldsV1": {"f:tags": {'v:"x"': {}}}}]
    assert run_ports(steps, "1.36")[1]["managed_fields"] == []
    assert run_ports(steps, "1.37")[1]["managed_fields"] == applied


def test_an_apply_that_only_reorders_is_a_change_from_1_29_and_a_no_op_before():
    steps = [{"op": "apply", "manager": "a", "object": _ports(tags=["x", "y"])},
             {"op": "apply", "manager": "a", "object": _ports(tags=["y", "x"])}]
    old = run_ports(steps, "1.28")[1]
    assert (old["document"]["tags"], old["changed"], old["managed_fields"][0]["time"]) == (["x", "y"], False, 1)
    new = run_ports(steps, "1.29")[1]
    assert (new["document"]["tags"], new["changed"], new["managed_fields"][0]["time"]) == (["y", "x"], True, 2)


def test_a_store_and_its_field_managers_are_freed_by_reference_counting():
    # The managers' clock, defaulter and creater must not hold the store: a cycle between them would
    # keep every object, managedFields entry and field set of a sequence for the cyclic collector.
    collecting = gc.isenabled()
    gc.disable()
    try:
        store = apiserver.Store(CM_SCHEMA, "v1", "ConfigMap")
        result = store.run(apiserver.Step.from_json(
            {"op": "apply", "manager": "m", "object": {"apiVersion": "v1", "kind": "ConfigMap",
                                                        "metadata": {"name": "c"}, "data": {"a": "1"}}}))
        assert result.to_json()["managed_fields"][0]["manager"] == "m"
        freed = weakref.ref(store)
        del store
        assert freed() is None
    finally:
        if collecting:
            gc.enable()


@pytest.mark.parametrize("release", ["1.27", "1.32", "1.34"])
def test_no_request_changes_an_earlier_stored_object_or_answer(release, monkeypatch):
    """The endpoint changes no object in place: what it stores and what it answers share values
    with earlier requests' (a request body, the object before) rather than copying them. Every
    corpus case, step by step: each stored object and each answer is, after the last step, what it
    was when it was made."""
    from patchconf.harness.corpus.cases import load_corpus
    from patchconf.harness.targets.reference import ReferenceTarget

    made = []  # (stored object or answer, its text then), of the case running
    run_step = apiserver.Store.run

    def recording_run(store, step):
        answer = run_step(store, step)
        made.extend((value, json.dumps(value, sort_keys=True)) for value in (store.live, answer.to_json()))
        return answer

    monkeypatch.setattr(apiserver.Store, "run", recording_run)
    target = ReferenceTarget(release)
    cases = [case for case in load_corpus([CASES]).cases if case.type == "server-side-apply"]
    assert len(cases) > 300
    changed = []
    for case in cases:
        made.clear()
        target.run(case)
        changed += [case.id for value, text in made if json.dumps(value, sort_keys=True) != text][:1]
    assert changed == []


def test_the_walks_skipped_on_a_change_would_have_found_one(monkeypatch):
    """An apply whose comparison records a path is no no-op, and a request whose entries differ
    besides their times changed the object: neither walks the values to find out (merge.Updater.apply,
    apiserver._ignore_timestamp_only_changes). On every corpus case, the walk agrees."""
    from patchconf.harness.corpus.cases import load_corpus
    from patchconf.harness.targets.reference import ReferenceTarget
    from patchconf.reference_impl.ssa import merge
    from patchconf.reference_impl.ssa.typed import values_equal

    disagreements = []
    update, ignore = merge.Updater._update, apiserver._ignore_timestamp_only_changes

    def checked_update(updater, old, new, *args, **kwargs):
        managers, comparison = update(updater, old, new, *args, **kwargs)
        if not comparison.is_same() and values_equal(old.value, new.value):
            disagreements.append(("compare", comparison))
        return managers, comparison

    def checked_ignore(before, after):
        stored, changed = ignore(before, after)
        if changed == values_equal(before, stored):
            disagreements.append(("changed", before, stored))
        return stored, changed

    monkeypatch.setattr(merge.Updater, "_update", checked_update)
    monkeypatch.setattr(apiserver, "_ignore_timestamp_only_changes", checked_ignore)
    cases = [case for case in load_corpus([CASES]).cases if case.type == "server-side-apply"]
    for release in ("1.27", "1.32"):
        target = ReferenceTarget(release)
        for case in cases:
            target.run(case)
    assert disagreements == []


def test_creations_skipping_the_before_first_apply_update_answer_as_those_running_it(monkeypatch):
    """The field manager runs the before-first-apply update of an apply creating an object once per
    kind, types and rules (managedfields._CREATIONS_OWNING_NOTHING): every corpus case answers the
    same when it runs at every creation."""
    from patchconf.harness.corpus.cases import load_corpus
    from patchconf.harness.targets.reference import ReferenceTarget
    from patchconf.reference_impl.ssa import managedfields

    class NeverKnown(set):
        def __contains__(self, creation):
            return False

    cases = [case for case in load_corpus([CASES]).cases if case.type == "server-side-apply"]

    def answers():
        return [json.dumps(ReferenceTarget(release).run(case).document, sort_keys=True)
                for release in ("1.27", "1.32") for case in cases]

    remembered = answers()
    assert len(managedfields._CREATIONS_OWNING_NOTHING) > 10
    monkeypatch.setattr(managedfields, "_CREATIONS_OWNING_NOTHING", NeverKnown())
    assert answers() == remembered


def test_the_field_manager_changes_no_request_object_it_is_given():
    # A merge may give back members of the applied object as they are (a custom resource's empty
    # metadata, created by the apply): the managedFields are written into metadata of the result's own.
    from patchconf.reference_impl.ssa.schema import custom_resource

    store = apiserver.Store(custom_resource(), "example.com/v1", "Widget", custom_resource=True)
    applied = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {}, "spec": {"a": 1}}
    before = json.dumps(applied)
    created = store.managers[""].apply({"apiVersion": "example.com/v1", "kind": "Widget"}, applied, "me", False)
    assert [entry["manager"] for entry in created["metadata"]["managedFields"]] == ["me"]
    assert json.dumps(applied) == before


MISMATCH_SCHEMA = from_openapi({"Thing": {"type": "object", "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
    "metadata": {"type": "object", "properties": {"name": {"type": "string"}}},
    "i": {"type": "integer"}, "s": {"type": "string"}, "b": {"type": "boolean"},
    "a": {"type": "array", "items": {"type": "string"}},
}}}, "Thing")


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("i", "a", "expected numeric (int or float), got string"),  # %T of the value
    ("s", 1, "expected string, got &value.valueUnstructured{Value:1}"),  # %#v of the *valueUnstructured
    ("s", ["a"], 'expected string, got &value.valueUnstructured{Value:[]interface {}{"a"}}'),
    ("b", "yes", "expected boolean, got &{yes}"),  # %v
    ("a", "a", "expected list, got &{a}"),
])
def test_values_of_the_wrong_type_are_printed_as_structured_merge_diff_prints_them(field, value, problem):
    # as a server words them (structured-merge-diff#209; typing.yaml::custom-resource-values-of-wrong-types)
    (answer,) = apiserver.run_case(MISMATCH_SCHEMA, "example.com/v1", "Thing", None, [
        {"op": "apply", "manager": "kubectl", "object": {"apiVersion": "example.com/v1", "kind": "Thing",
                                                         "metadata": {"name": "t"}, field: value}}],
        custom_resource=True)
    assert answer["error"]["message"] == (
        f"failed to create typed patch object (/t; example.com/v1, Kind=Thing): .{field}: {problem}")


def test_messages_print_values_and_names_as_go_does() -> None:
    # Both confirmed on the upstream target (Kubernetes 1.32.4): a float64 prints as %#v prints it
    # ("1e+06", not "1000000.0"), a manager's name is quoted by strconv.Quote ("é" stays é).
    with pytest.raises(Exception, match=r"expected string, got &value\.valueUnstructured\{Value:1e\+06\}"):
        typed({"string": 1e6}).validate()
    assert print_manager(manager_identifier("h\u00e9lm", "Apply")) == '"h\u00e9lm"'
