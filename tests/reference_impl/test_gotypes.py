"""A built-in object's round trip through its Go type (patchconf.reference_impl.govalue.gotypes).

Expected values follow runtime.DefaultUnstructuredConverter (FromUnstructured then ToUnstructured,
k8s.io/api v0.32.4), as the ``upstream`` target's typedRoundTrip answered in
cases/server-side-apply/go-types.yaml (which shows objects without server-owned metadata: an
object's own ``creationTimestamp``, a zero metav1.Time, is null there as in a template's).
"""

from __future__ import annotations

import copy

import pytest

from patchconf.reference_impl.govalue import gotypes


def config_map(**members):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, **members}


def stored_config_map(**members):
    return config_map(**members, metadata={"creationTimestamp": None, "name": "cm"})


@pytest.mark.parametrize(("given", "stored"), [
    # omitempty maps: an empty one is dropped, a null member of map[string]string decodes as "".
    (config_map(data={}), stored_config_map()),
    (config_map(data={"a": None, "b": "1"}), stored_config_map(data={"a": "", "b": "1"})),
    (config_map(metadata={"name": "cm", "labels": {}, "annotations": None}), stored_config_map()),
    # omitempty pointer and string: nil and "" are dropped; a []byte map keeps its "" member.
    ({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"a": "", "b": "eA=="},
      "stringData": {}, "type": "", "immutable": None},
     {"apiVersion": "v1", "kind": "Secret", "metadata": {"creationTimestamp": None, "name": "s"},
      "data": {"a": "", "b": "eA=="}}),
], ids=["empty-map", "null-in-string-map", "empty-and-null-metadata", "secret"])
def test_omitempty_members_are_dropped_when_empty(given, stored) -> None:
    assert gotypes.round_trip(given, given["apiVersion"], given["kind"]) == stored


def test_structs_are_always_written_and_nil_non_omitempty_members_as_null() -> None:
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                  "spec": {"strategy": {}, "template": {"spec": {"containers": [{"name": "app"}]}}}}
    assert gotypes.round_trip(deployment, "apps/v1", "Deployment") == {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"creationTimestamp": None, "name": "web"},
        "spec": {"selector": None,  # *LabelSelector, not omitempty
                 "strategy": {}, "template": {"metadata": {"creationTimestamp": None},
                                              "spec": {"containers": [{"name": "app", "resources": {}}]}}},
        "status": {},
    }


def test_zero_values_of_non_omitempty_fields_are_written() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"topologySpreadConstraints": [{"topologyKey": "zone", "whenUnsatisfiable": None}]}}
    assert gotypes.round_trip(pod, "v1", "Pod")["spec"] == {
        "containers": None,  # []Container, not omitempty: nil is written as null
        "topologySpreadConstraints": [{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": ""}],
    }


def test_types_with_their_own_encoding_write_their_zero_value() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
               "spec": {"ports": [{"port": 80, "protocol": "TCP"}, {"port": 81, "targetPort": "http"}]}}
    assert gotypes.round_trip(service, "v1", "Service") == {
        "apiVersion": "v1", "kind": "Service", "metadata": {"creationTimestamp": None, "name": "s"},
        "spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 0}, {"port": 81, "targetPort": "http"}]},
        "status": {"loadBalancer": {}},
    }


def test_a_kind_without_a_go_type_is_left_alone() -> None:
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"settings": {}, "mode": None}}
    assert gotypes.round_trip(widget, "example.com/v1", "Widget") is widget
    assert gotypes.definition_of("example.com/v1", "Widget") is None
    assert gotypes.definition_of("apps/v1", "Deployment") == "io.k8s.api.apps.v1.Deployment"


def test_the_input_is_not_changed() -> None:
    given = config_map(data={"a": None}, metadata={"name": "cm", "labels": {}})
    before = copy.deepcopy(given)
    gotypes.round_trip(given, "v1", "ConfigMap")
    assert given == before
