"""kubectl's client-side apply flow (patchconf.reference_impl.kubectl_apply) and Go's JSON text.

Every expected patch, live object and annotation text below is what the upstream program
(targets/upstream, ``apply`` cases: kubectl v0.32.4's ``util.GetModifiedConfiguration`` /
``CreateApplyAnnotation`` and apimachinery's three-way patch functions) returned for the
same inputs, pasted verbatim. The live object's last-applied annotation is written from
``original`` the way kubectl wrote it when that configuration was applied.
"""

from __future__ import annotations

import copy
import math

import pytest

from patchconf.reference_impl.errors import PatchError
from patchconf.reference_impl.kubectl_apply import (
    CREATE,
    LAST_APPLIED,
    MERGE,
    STRATEGIC,
    apply,
    last_applied_configuration,
    set_last_applied,
)
from patchconf.reference_impl.strategic import builtin_patch_meta


def cm(data: dict | None = None, md: dict | None = None, **top) -> dict:
    document = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", **(md or {})}, **top}
    if data is not None:
        document["data"] = data
    return document


def widget(spec: dict, md: dict | None = None) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", **(md or {})}, "spec": spec}


def kubectl_apply(configuration: dict, live: dict | None, last_applied: dict | None, meta):
    """One apply over a live object that carries ``last_applied`` (None: no annotation)."""
    if live is not None:
        live = set_last_applied(live, last_applied)
    return apply(configuration, live, meta)


CONFIG_MAP = builtin_patch_meta("v1", "ConfigMap")
POD = builtin_patch_meta("v1", "Pod")
CM_A1 = '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"c"}}\n'
CM_A2 = '{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"c"}}\n'


def test_first_apply_creates_the_object_with_the_annotation() -> None:
    result = apply(cm({"a": "1"}, md={"labels": {"x": "y"}, "annotations": {"note": "keep"}}), None, CONFIG_MAP)
    assert result.patch_type == CREATE and result.patch is None
    text = (
        '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap",'
        '"metadata":{"annotations":{"note":"keep"},"labels":{"x":"y"},"name":"c"}}\n'
    )
    assert result.live == {
        "apiVersion": "v1",
        "data": {"a": "1"},
        "kind": "ConfigMap",
        "metadata": {"annotations": {LAST_APPLIED: text, "note": "keep"}, "labels": {"x": "y"}, "name": "c"},
    }


def test_create_drops_null_members_but_the_annotation_keeps_them() -> None:
    # kubectl 1.31+ (pruneNullsFromMap); null list items stay. Expected: the upstream program
    # as the applycases branch extends it (it prunes as kubectl does).
    configuration = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "labels": None},
        "data": {"a": "1", "b": None},
        "x": [{"k": None, "j": 1}, None],
    }
    text = (
        '{"apiVersion":"v1","data":{"a":"1","b":null},"kind":"ConfigMap",'
        '"metadata":{"annotations":{},"labels":null,"name":"c"},"x":[{"j":1,"k":null},null]}\n'
    )
    assert apply(configuration, None, CONFIG_MAP).live == {
        "apiVersion": "v1",
        "data": {"a": "1"},
        "kind": "ConfigMap",
        "metadata": {"annotations": {LAST_APPLIED: text}, "name": "c"},
        "x": [{"j": 1}, None],
    }


def test_annotation_text_is_what_go_writes() -> None:
    configuration = cm(
        {"html": "<b>&amp;</b>", "u": "ünï\u2028"}, md={"annotations": {"z": "1", "a": "2"}}, binaryData=None
    )
    assert last_applied_configuration(configuration) == (
        '{"apiVersion":"v1","binaryData":null,"data":{"html":"\\u003cb\\u003e\\u0026amp;\\u003c/b\\u003e",'
        '"u":"ünï\\u2028"},"kind":"ConfigMap","metadata":{"annotations":{"a":"2","z":"1"},"name":"c"}}\n'
    )


def test_annotation_numbers_are_what_go_writes() -> None:
    configuration = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "replicas": 2.0,
            "minReadySeconds": 1.5,
            "x-big": 12345678901234567890,
            "tiny": 0.0000001,
            "huge": 1e21,
        },
    }
    created = apply(configuration, None, builtin_patch_meta("apps/v1", "Deployment")).live
    assert created["metadata"]["annotations"][LAST_APPLIED] == (
        '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"d"},'
        '"spec":{"huge":1e+21,"minReadySeconds":1.5,"replicas":2,"tiny":1e-7,"x-big":12345678901234567000}}\n'
    )
    assert created["spec"] == {
        "huge": 1e21,
        "minReadySeconds": 1.5,
        "replicas": 2,
        "tiny": 1e-07,
        "x-big": 12345678901234567000,
    }


def test_three_way_deletes_only_what_was_applied() -> None:
    result = kubectl_apply(
        cm({"a": "1"}), cm({"a": "1", "b": "2", "c": "server"}), cm({"a": "1", "b": "2"}), CONFIG_MAP
    )
    assert result.patch_type == STRATEGIC
    assert result.patch == {"data": {"b": None}, "metadata": {"annotations": {LAST_APPLIED: CM_A1}}}
    assert result.live == {
        "apiVersion": "v1",
        "data": {"a": "1", "c": "server"},
        "kind": "ConfigMap",
        "metadata": {"annotations": {LAST_APPLIED: CM_A1}, "name": "c"},
    }


def test_live_object_without_annotation_deletes_nothing() -> None:
    result = kubectl_apply(cm({"a": "2"}), cm({"a": "1", "b": "2"}), None, CONFIG_MAP)
    assert result.patch == {"data": {"a": "2"}, "metadata": {"annotations": {LAST_APPLIED: CM_A2}}}
    assert result.live == {
        "apiVersion": "v1",
        "data": {"a": "2", "b": "2"},
        "kind": "ConfigMap",
        "metadata": {"annotations": {LAST_APPLIED: CM_A2}, "name": "c"},
    }


def test_live_objects_own_annotation_is_the_original() -> None:
    last_applied = (
        '{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"c"}}\n'
    )
    live = cm({"a": "1", "b": "2"}, md={"annotations": {LAST_APPLIED: last_applied}})
    result = apply(cm({"a": "2"}), live, CONFIG_MAP)
    assert result.patch == {"data": {"a": "2", "b": None}, "metadata": {"annotations": {LAST_APPLIED: CM_A2}}}
    assert result.live == {
        "apiVersion": "v1",
        "data": {"a": "2"},
        "kind": "ConfigMap",
        "metadata": {"annotations": {LAST_APPLIED: CM_A2}, "name": "c"},
    }


def test_unchanged_configuration_sends_nothing() -> None:
    result = kubectl_apply(cm({"a": "1"}), cm({"a": "1"}, md={"uid": "u1"}), cm({"a": "1"}), CONFIG_MAP)
    assert result.patch == {}
    assert result.live == {
        "apiVersion": "v1",
        "data": {"a": "1"},
        "kind": "ConfigMap",
        "metadata": {"annotations": {LAST_APPLIED: CM_A1}, "name": "c", "uid": "u1"},
    }


def test_annotation_in_the_configuration_is_replaced() -> None:
    configuration = cm({"a": "1"}, md={"annotations": {LAST_APPLIED: "stale"}})
    result = kubectl_apply(configuration, cm({"a": "1"}), cm({"a": "1"}), CONFIG_MAP)
    assert result.patch == {}
    assert result.live["metadata"]["annotations"] == {LAST_APPLIED: CM_A1}


def test_strategic_apply_has_no_name_precondition() -> None:
    result = kubectl_apply(cm({"a": "1"}, md={"name": "other"}), cm({"a": "1"}), cm({"a": "1"}), CONFIG_MAP)
    text = '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"other"}}\n'
    assert result.patch == {"metadata": {"annotations": {LAST_APPLIED: text}, "name": "other"}}
    assert result.live["metadata"] == {"annotations": {LAST_APPLIED: text}, "name": "other"}


def test_container_removed_from_configuration_is_deleted_others_kept() -> None:
    def pod(*containers: dict) -> dict:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": list(containers)}}

    result = kubectl_apply(
        pod({"name": "a", "image": "a2"}),
        pod({"name": "a", "image": "a"}, {"name": "b", "image": "b"}, {"name": "istio", "image": "proxy"}),
        pod({"name": "a", "image": "a"}, {"name": "b", "image": "b"}),
        POD,
    )
    text = (
        '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"name":"p"},'
        '"spec":{"containers":[{"image":"a2","name":"a"}]}}\n'
    )
    assert result.patch == {
        "metadata": {"annotations": {LAST_APPLIED: text}},
        "spec": {
            "$setElementOrder/containers": [{"name": "a"}],
            "containers": [{"image": "a2", "name": "a"}, {"$patch": "delete", "name": "b"}],
        },
    }
    assert result.live["spec"] == {"containers": [{"image": "a2", "name": "a"}, {"image": "proxy", "name": "istio"}]}


def test_kind_without_strategic_schema_gets_a_json_merge_patch() -> None:
    result = kubectl_apply(
        widget({"size": 2}), widget({"size": 1, "tags": ["a"], "owner": "x"}), widget({"size": 1, "tags": ["a"]}), None
    )
    text = (
        '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"annotations":{},"name":"w"},"spec":{"size":2}}\n'
    )
    assert result.patch_type == MERGE
    assert result.patch == {"metadata": {"annotations": {LAST_APPLIED: text}}, "spec": {"size": 2, "tags": None}}
    assert result.live == {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"annotations": {LAST_APPLIED: text}, "name": "w"},
        "spec": {"owner": "x", "size": 2},
    }


@pytest.mark.parametrize(
    ("configuration", "live", "last_applied", "meta", "error_class"),
    [
        # JSON merge patch refuses a changed name (upstream: "precondition failed for: map[...]").
        (widget({"size": 1}, md={"name": "v"}), widget({"size": 1}), widget({"size": 1}), None, "precondition-failed"),
        # upstream: "Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"c"}}'"
        ({"apiVersion": "v1", "metadata": {"name": "c"}}, None, None, CONFIG_MAP, "invalid-document"),
    ],
    ids=["custom-kind-name-change-refused", "configuration-without-kind"],
)
def test_refused_applies(configuration, live, last_applied, meta, error_class) -> None:
    with pytest.raises(PatchError) as raised:
        kubectl_apply(configuration, live, last_applied, meta)
    assert raised.value.error_class == error_class


def test_annotations_that_are_not_all_strings_refuse_the_file() -> None:
    # kubectl 1.32.4 (apply --dry-run=client -f): its file reader decodes metadata into ObjectMeta
    configuration = cm({"a": "1"}, md={"annotations": {"n": 5}})
    with pytest.raises(PatchError) as raised:
        apply(configuration, None, CONFIG_MAP)
    assert (raised.value.error_class, raised.value.message) == (
        "invalid-document",
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type string")


def test_metadata_that_is_not_a_map_refuses_the_file() -> None:
    # kubectl 1.32.4 (apply --dry-run=client -f), as above
    configuration = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": "oops", "data": {"a": "1"}}
    with pytest.raises(PatchError) as raised:
        apply(configuration, None, CONFIG_MAP)
    assert (raised.value.error_class, raised.value.message) == (
        "invalid-document",
        "json: cannot unmarshal string into Go struct field metadataOnlyObject.metadata of type v1.ObjectMeta")


def test_unreadable_annotation_on_the_live_object_is_an_invalid_document() -> None:
    live = cm({"a": "0"}, md={"annotations": {LAST_APPLIED: "not json"}})
    with pytest.raises(PatchError) as raised:
        apply(cm({"a": "1"}), live, CONFIG_MAP)
    assert (raised.value.error_class, raised.value.message) == ("invalid-document", "invalid JSON document")


def test_inputs_are_not_mutated() -> None:
    configuration, live, last_applied = cm({"a": "2"}), cm({"a": "1", "b": "2"}), cm({"a": "1", "b": "2"})
    before = copy.deepcopy((configuration, live, last_applied))
    kubectl_apply(configuration, live, last_applied, CONFIG_MAP)
    assert (configuration, live, last_applied) == before


@pytest.mark.parametrize("number", [math.inf, -math.inf, math.nan])
@pytest.mark.parametrize("meta", [CONFIG_MAP, None], ids=["strategic", "merge"])
def test_a_number_go_cannot_write_is_refused_in_the_live_object_too(number, meta) -> None:
    # kubectl writes the live object as JSON before diffing, and Go's encoder refuses these
    # (YAML's .inf and .nan reach the library); as written in the configuration.
    for configuration, live in ((cm({"a": "2"}), cm({"a": "1", "b": number})), (cm({"b": number}), cm({"a": "1"}))):
        with pytest.raises(ValueError) as refused:
            kubectl_apply(configuration, live, None, meta)
        assert str(refused.value) == f"json: unsupported value: {number}"
