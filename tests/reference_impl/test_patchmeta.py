"""The patch-metadata layer: built-in kinds from Kubernetes' OpenAPI definitions, named schemas.

Built-in answers are checked against the Go struct tags kubectl uses (the tags are the
source of the definitions' x-kubernetes-patch-* extensions); error wording is
apimachinery's (kubectl prints it for the same lookups, see test_strategic_apply).
"""

from __future__ import annotations

import gc
import json
import weakref

import pytest

from patchconf.reference_impl.errors import ListOfLists, NoStrategicSchema, TypeMismatch
from patchconf.reference_impl.strategic import (
    FieldMeta,
    PatchMeta,
    available_versions,
    builtin_patch_meta,
    named_patch_meta,
    patchmeta,
)


def pod_spec(version: str = "1.32") -> PatchMeta:
    deployment = builtin_patch_meta("apps/v1", "Deployment", version)
    template = deployment.lookup_map("spec").schema.lookup_map("template").schema
    return template.lookup_map("spec").schema


# ---- built-in kinds -------------------------------------------------------------------


def test_merge_list_of_maps():
    containers = pod_spec().lookup_list("containers")
    assert containers.strategies == ("merge",)
    assert containers.merge_key == "name"
    ports = containers.schema.lookup_list("ports")
    assert (ports.strategies, ports.merge_key) == (("merge",), "containerPort")
    assert containers.schema.lookup_list("volumeMounts").merge_key == "mountPath"


def test_strategy_with_retain_keys():
    volumes = pod_spec().lookup_list("volumes")
    assert (volumes.strategies, volumes.merge_key) == (("merge", "retainKeys"), "name")
    strategy = builtin_patch_meta("apps/v1", "Deployment").lookup_map("spec").schema.lookup_map("strategy")
    assert (strategy.strategies, strategy.merge_key) == (("retainKeys",), "")


def test_replace_strategy_on_a_map():
    spec = builtin_patch_meta("policy/v1", "PodDisruptionBudget").lookup_map("spec").schema
    assert spec.lookup_map("selector").strategies == ("replace",)


def test_primitive_merge_list_has_no_merge_key():
    finalizers = builtin_patch_meta("v1", "ConfigMap").lookup_map("metadata").schema.lookup_list("finalizers")
    assert finalizers == FieldMeta(("merge",), "", finalizers.schema)
    assert finalizers.schema.name == "string"


def test_fields_without_metadata():
    tolerations = pod_spec().lookup_list("tolerations")
    assert (tolerations.strategies, tolerations.merge_key) == ((), "")
    assert tolerations.schema.name == "struct"


def test_nullable_types_are_read():
    # kubernetes-validate writes `type: ["array", "null"]`
    args = pod_spec().lookup_list("containers").schema.lookup_list("args")
    assert args.schema.name == "string"
    replicas = builtin_patch_meta("apps/v1", "Deployment").lookup_map("spec").schema.lookup_map("replicas")
    assert replicas.schema.name == "int32"


def test_field_names_match_case_insensitively_as_in_go():
    metadata = builtin_patch_meta("v1", "ConfigMap").lookup_map("metadata").schema
    assert metadata.lookup_map("Labels").schema.name == "map"


def test_unknown_field():
    metadata = builtin_patch_meta("v1", "ConfigMap").lookup_map("metadata").schema
    with pytest.raises(
        NoStrategicSchema, match='unable to find api field in struct ObjectMeta for the json field "foo"'
    ):
        metadata.lookup_map("foo")
    with pytest.raises(NoStrategicSchema, match="for the json field"):
        metadata.lookup_list("foo")


def test_lookup_below_a_map_or_scalar():
    labels = builtin_patch_meta("v1", "ConfigMap").lookup_map("metadata").schema.lookup_map("labels").schema
    with pytest.raises(TypeMismatch, match="data type is not struct, instead is: map"):
        labels.lookup_map("app")
    name = builtin_patch_meta("v1", "ConfigMap").lookup_map("metadata").schema.lookup_map("name").schema
    with pytest.raises(TypeMismatch, match="data type is not struct, instead is: string"):
        name.lookup_map("x")


def test_struct_without_json_fields():
    # runtime.RawExtension: a struct whose fields are not in JSON
    revision = builtin_patch_meta("apps/v1", "ControllerRevision")
    data = revision.lookup_map("data").schema
    with pytest.raises(NoStrategicSchema, match="in struct RawExtension for the json field"):
        data.lookup_map("spec")


def test_list_lookup_of_a_non_list_field():
    with pytest.raises(TypeMismatch, match="expected slice or array type, but got: struct"):
        builtin_patch_meta("v1", "ConfigMap").lookup_list("data")


def test_kinds_by_group_version():
    assert builtin_patch_meta("batch/v1", "CronJob") is not None
    assert builtin_patch_meta("rbac.authorization.k8s.io/v1", "Role") is not None
    with pytest.raises(NoStrategicSchema, match="not supported for apps/v1, Kind=Pod locally"):
        builtin_patch_meta("apps/v1", "Pod")
    with pytest.raises(NoStrategicSchema, match="not supported for apps/v2, Kind=Deployment locally"):
        builtin_patch_meta("apps/v2", "Deployment")


def test_retired_versions_read_the_served_kind():
    retired = builtin_patch_meta("extensions/v1beta1", "Deployment")
    assert retired is builtin_patch_meta("apps/v1", "Deployment")
    assert builtin_patch_meta("extensions/v1beta1", "Ingress") is builtin_patch_meta("networking.k8s.io/v1", "Ingress")
    assert builtin_patch_meta("batch/v1beta1", "CronJob") is builtin_patch_meta("batch/v1", "CronJob")


def test_versions_differ():
    # LabelSelectorRequirement.key carried a merge strategy until 1.27
    def key_meta(version):
        selector = builtin_patch_meta("apps/v1", "Deployment", version).lookup_map("spec").schema
        requirement = selector.lookup_map("selector").schema.lookup_list("matchExpressions").schema
        return requirement.lookup_map("key")

    assert key_meta("1.27").strategies == ("merge",)
    assert key_meta("1.32").strategies == ()
    assert "1.25" in available_versions() and "1.37" in available_versions()


def test_unknown_version():
    with pytest.raises(NoStrategicSchema, match=r"no Kubernetes OpenAPI definitions for version 1\.2 "):
        builtin_patch_meta("v1", "ConfigMap", "1.2")


def test_definitions_load_once_and_nodes_are_shared():
    first = builtin_patch_meta("v1", "Pod", "1.30")
    misses = patchmeta._load_definitions.cache_info().misses
    second = builtin_patch_meta("v1", "Pod", "1.30")
    assert patchmeta._load_definitions.cache_info().misses == misses
    assert first is second
    containers = first.lookup_map("spec").schema.lookup_list("containers").schema
    init_containers = first.lookup_map("spec").schema.lookup_list("initContainers").schema
    assert containers is init_containers  # one node per definition


def test_failed_lookups_give_fresh_errors():
    metadata = builtin_patch_meta("v1", "ConfigMap").lookup_map("metadata").schema
    errors = []
    for _ in range(2):
        with pytest.raises(NoStrategicSchema) as raised:
            metadata.lookup_map("foo")
        errors.append(raised.value)
    assert errors[0] is not errors[1]
    assert errors[0].pointer == errors[1].pointer == ""


# ---- named schemas --------------------------------------------------------------------


def test_named_schema_lists():
    spec = named_patch_meta("widget").lookup_map("spec").schema
    assert spec.lookup_list("tags") == FieldMeta(("merge",), "", spec.lookup_list("tags").schema)
    parts = spec.lookup_list("parts")
    assert (parts.strategies, parts.merge_key) == (("merge",), "id")
    assert parts.schema.lookup_list("aliases").strategies == ("merge",)
    members = spec.lookup_list("groups").schema.lookup_list("members")
    assert (members.strategies, members.merge_key) == (("merge",), "uid")
    # the items of a list of lists are lists: the merge itself refuses them
    assert spec.lookup_list("matrix").schema.name == "Array of integer"


def test_named_schema_maps():
    spec = named_patch_meta("gadget").lookup_map("spec").schema
    assert spec.lookup_map("mode").strategies == ("retainKeys",)
    assert spec.lookup_map("settings").strategies == ("replace",)
    slots = spec.lookup_map("slots").schema
    with pytest.raises(TypeMismatch, match="expected kind, but got map"):
        slots.lookup_map("s1")
    with pytest.raises(TypeMismatch, match="expected slice, but got map"):
        spec.lookup_list("env")


def test_named_schema_arbitrary_values():
    spec = named_patch_meta("gadget").lookup_map("spec").schema
    below = spec.lookup_map("blob").schema.lookup_map("a").schema  # upstream: a nil schema
    nil = below.lookup_map("b").schema  # upstream: a nil LookupPatchMeta
    assert below.lookup_list("l").strategies == ()
    with pytest.raises(NoStrategicSchema, match="nil pointer dereference"):
        nil.lookup_map("c")


def test_named_schema_unknown_field():
    spec = named_patch_meta("gadget").lookup_map("spec").schema
    with pytest.raises(NoStrategicSchema, match='unable to find api field "nope" in GadgetSpec'):
        spec.lookup_map("nope")


def test_named_schema_by_path_and_directory(tmp_path):
    text = """
description: tiny
root: Thing
definitions:
  Thing:
    type: object
    properties:
      items:
        type: array
        items: {$ref: "#/definitions/Item"}
        x-kubernetes-patch-strategy: merge
        x-kubernetes-patch-merge-key: key
  Item:
    type: object
    properties:
      key: {type: string}
"""
    (tmp_path / "thing.yaml").write_text(text, encoding="utf-8")
    by_name = named_patch_meta("thing", schemas_dir=tmp_path)
    by_path = named_patch_meta(tmp_path / "thing.yaml")
    assert by_name.lookup_list("items").merge_key == by_path.lookup_list("items").merge_key == "key"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("definitions: {}", "needs 'root' and 'definitions'"),
        ("root: A\ndefinitions: {B: {type: object, properties: {}}}", "root 'A' is not a definition"),
        ("root: A\ndefinitions: {A: {properties: {x: {$ref: '#/definitions/Z'}}}}", "unknown model in reference"),
        ("root: A\ndefinitions: {A: {properties: {x: {$ref: '#/definitions/A', type: object}}}}", "can't have a type"),
        ("root: A\ndefinitions: {A: {properties: {x: {type: array}}}}", "exactly one sub-item"),
        ("root: A\ndefinitions: {A: {properties: {x: {type: [string, integer]}}}}", "multiple types"),
    ],
)
def test_malformed_named_schemas(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        named_patch_meta(path)


def test_example_schemas_load():
    for name in ("widget", "gadget", "sprocket"):
        assert isinstance(named_patch_meta(name), PatchMeta)


def test_definitions_decoded_one_by_one_are_those_of_the_whole_file():
    # _definitions.json is read a definition at a time where it is laid out as expected.
    for version in available_versions():
        path = patchmeta._definitions_dir() / f"v{version}.0-local" / "_definitions.json"
        text = path.read_text(encoding="utf-8")
        whole = json.loads(text)["$defs"]
        lazy = patchmeta._load_definitions(version).definitions
        assert isinstance(lazy, patchmeta._DefinitionsText), version
        assert list(lazy) == list(whole), version
        assert all(lazy[name] == whole[name] for name in whole), version
        kinds = [(name, definition[patchmeta.GROUP_VERSION_KIND]) for name, definition in whole.items()
                 if patchmeta.GROUP_VERSION_KIND in definition]
        assert list(lazy.group_version_kinds()) == kinds, version
        assert patchmeta._Definitions(version, whole)._kinds == patchmeta._load_definitions(version)._kinds


def test_list_of_lists_in_struct_metadata_is_refused():
    # Go's PatchMetaFromStruct refuses [][]T fields; the definitions have none built in,
    # so build a node by hand.
    definitions = patchmeta._Definitions(
        "test",
        {"T": {"type": "object", "properties": {"m": {"type": "array", "items": {"type": "array", "items": {}}}}}},
    )
    with pytest.raises(ListOfLists, match="unexpected slice of slice"):
        definitions.node({"$ref": "#/$defs/T"}).lookup_list("m")


def test_a_failed_lookup_is_remembered_without_keeping_the_schema_alive():
    # The memo keeps the error; with its traceback it would hold the frames holding the memo, a cycle
    # that reference counting never frees (a named schema's metadata is made for every case).
    meta = named_patch_meta("widget")
    freed = weakref.ref(meta)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for _ in range(2):  # worked out, then remembered: raised anew each time
            with pytest.raises(NoStrategicSchema, match="unable to find api field"):
                meta.lookup_map("no-such-field")
        del meta
        assert freed() is None
    finally:
        if collecting:
            gc.enable()
