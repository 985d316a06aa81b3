"""patchconf.reference_impl.ssa.schema: schemaconv's rules and Schema.Resolve, on the bundled models
and on small OpenAPI definitions. Expected types are written out by hand from the
OpenAPI v3 spec of Kubernetes 1.33.13 and kube-openapi's schemaconv."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patchconf.reference_impl.errors import NoStrategicSchema
from patchconf.reference_impl.ssa import schema as S
from patchconf.reference_impl.ssa.schema import (
    ABSENT_DEFAULT,
    DEDUCED,
    UNTYPED_ATOMIC,
    Atom,
    ListType,
    Map,
    StructField,
    TypeRef,
)

STRING = TypeRef(inlined=Atom(scalar="string"))
CORE = "io.k8s.api.core.v1."
META = "io.k8s.apimachinery.pkg.apis.meta.v1."
UNTYPED_ATOMIC_ATOM = Atom(
    scalar="untyped",
    list=ListType(element_type=UNTYPED_ATOMIC, element_relationship="atomic"),
    map=Map(element_type=UNTYPED_ATOMIC, element_relationship="atomic"),
)
DEDUCED_ATOM = Atom(
    scalar="untyped",
    list=ListType(element_type=UNTYPED_ATOMIC, element_relationship="atomic"),
    map=Map(element_type=DEDUCED, element_relationship="separable"),
)


def at(schema: S.Schema, *names: str) -> tuple[TypeRef, Atom]:
    """The reference and resolved atom of the field at ``names`` below the root (list items by "[]")."""
    ref = schema.root
    atom = schema.resolve(ref)
    for name in names:
        if name == "[]":
            ref = atom.list.element_type
        else:
            found = atom.map.field(name)
            assert found is not None, f"no field {name!r}"
            ref = found.type
        atom = schema.resolve(ref)
    return ref, atom


@pytest.fixture(scope="module")
def deployment() -> S.Schema:
    return S.builtin("apps/v1", "Deployment")


# --- built-in models -----------------------------------------------------------------------------


def test_containers_are_a_list_map_keyed_by_name(deployment):
    _, atom = at(deployment, "spec", "template", "spec", "containers")
    assert atom == Atom(list=ListType(TypeRef(named=CORE + "Container"), "associative", ("name",)))


def test_container_ports_keyed_by_port_and_protocol_which_defaults_to_tcp(deployment):
    _, ports = at(deployment, "spec", "template", "spec", "containers", "[]", "ports")
    assert ports.list == ListType(TypeRef(named=CORE + "ContainerPort"), "associative", ("containerPort", "protocol"))
    port = deployment.resolve(ports.list.element_type).map
    assert port.field("protocol") == StructField("protocol", STRING, "TCP")
    assert port.field("containerPort").default == 0
    assert port.field("hostIP").default is ABSENT_DEFAULT


def test_label_selector_is_an_atomic_map(deployment):
    ref, atom = at(deployment, "spec", "selector")
    assert ref == TypeRef(named=META + "LabelSelector")
    assert atom.map.element_relationship == "atomic"
    assert atom.map.element_type is None
    assert [field.name for field in atom.map.fields] == ["matchExpressions", "matchLabels"]


def test_labels_are_a_granular_map_of_strings(deployment):
    _, atom = at(deployment, "metadata", "labels")
    assert atom == Atom(map=Map(fields=(), element_type=STRING, element_relationship="separable"))


def test_finalizers_are_a_set_of_strings(deployment):
    _, atom = at(deployment, "metadata", "finalizers")
    assert atom == Atom(list=ListType(STRING, "associative", ()))


def test_owner_references_are_keyed_by_uid(deployment):
    _, atom = at(deployment, "metadata", "ownerReferences")
    assert atom == Atom(list=ListType(TypeRef(named=META + "OwnerReference"), "associative", ("uid",)))


def test_tolerations_are_atomic(deployment):
    _, atom = at(deployment, "spec", "template", "spec", "tolerations")
    assert atom == Atom(list=ListType(TypeRef(named=CORE + "Toleration"), "atomic", ()))


def test_int_or_string_has_no_type_so_it_takes_every_shape(deployment):
    # IntOrString's v3 definition is {format: int-or-string, oneOf: [...]}: no `type`, so
    # parseSchema makes an untyped scalar that may also be a list or a map.
    ref, atom = at(deployment, "spec", "strategy", "rollingUpdate", "maxSurge")
    assert ref == TypeRef(named="io.k8s.apimachinery.pkg.util.intstr.IntOrString")
    assert atom == DEDUCED_ATOM


def test_quantity_and_raw_extension_are_hard_coded():
    pod = S.builtin("v1", "Pod")
    _, limits = at(pod, "spec", "containers", "[]", "resources", "limits")
    assert limits.map.element_type == TypeRef(named="io.k8s.apimachinery.pkg.api.resource.Quantity")
    assert pod.resolve(limits.map.element_type) == Atom(scalar="untyped")
    assert pod.find_named_type("io.k8s.apimachinery.pkg.runtime.RawExtension") == UNTYPED_ATOMIC_ATOM


def test_date_time_strings_are_untyped(deployment):
    _, atom = at(deployment, "metadata", "creationTimestamp")
    assert atom == Atom(scalar="untyped")


def test_map_type_beside_a_ref_overrides_the_named_type():
    # PersistentVolumeSpec.claimRef is granular; ObjectReference itself is atomic.
    volume = S.builtin("v1", "PersistentVolume")
    ref, atom = at(volume, "spec", "claimRef")
    assert ref == TypeRef(named=CORE + "ObjectReference", element_relationship="separable")
    assert atom.map.element_relationship == "separable"
    assert volume.find_named_type(CORE + "ObjectReference").map.element_relationship == "atomic"
    assert atom.map.fields == volume.find_named_type(CORE + "ObjectReference").map.fields


def test_builtin_kinds_share_one_memoized_type_table(deployment):
    assert S.builtin("apps/v1", "Deployment") is deployment
    assert S.builtin("apps/v1", "Deployment", "1.33.13") is deployment
    pod = S.builtin("v1", "Pod")
    assert pod.root == TypeRef(named=CORE + "Pod")
    assert pod.find_named_type(CORE + "PodSpec") is deployment.find_named_type(CORE + "PodSpec")


def test_unknown_kind():
    with pytest.raises(S.UnknownKind, match=r"^no corresponding type for apps/v1, Kind=Widget$") as caught:
        S.builtin("apps/v1", "Widget")
    assert isinstance(caught.value, NoStrategicSchema)
    with pytest.raises(S.UnknownKind, match=r"no corresponding type for /v2, Kind=Pod"):
        S.builtin("v2", "Pod")
    with pytest.raises(S.UnknownKind, match=r"no bundled Kubernetes 1\.2 models"):
        S.builtin("v1", "Pod", "1.2")


def test_every_bundled_definition_converts_and_every_kind_resolves():
    models = S._models("1.33")
    models.check()
    assert models.kubernetes == "1.33.13"
    assert models.kinds["apps/v1"]["Deployment"] == "io.k8s.api.apps.v1.Deployment"
    assert models.kinds["v1"]["ConfigMap"] == CORE + "ConfigMap"
    for api_version, kinds in models.kinds.items():
        for kind in kinds:
            schema = S.builtin(api_version, kind)
            assert schema.resolve(schema.root).map is not None, (api_version, kind)


# --- OpenAPI definitions ---------------------------------------------------------------------------

LISTS = {
    "Root": {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "items": {
                "type": "array",
                "items": {"$ref": "#/definitions/Item"},
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name", "port"],
            },
            "args": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "atomic"},
            "plain": {"type": "array", "items": {"type": "string"}},
            "listTypeWins": {
                "type": "array",
                "items": {"$ref": "#/definitions/Item"},
                "x-kubernetes-list-type": "atomic",
                "x-kubernetes-patch-strategy": "merge",
                "x-kubernetes-patch-merge-key": "name",
            },
            "merged": {
                "type": "array",
                "items": {"$ref": "#/definitions/Item"},
                "x-kubernetes-patch-strategy": "merge",
                "x-kubernetes-patch-merge-key": "name",
            },
            "mergedSet": {"type": "array", "items": {"type": "integer"}, "x-kubernetes-patch-strategy": "merge"},
            "unionList": {
                "type": "array",
                "items": {"$ref": "#/definitions/Item"},
                "x-kubernetes-patch-strategy": "merge,retainKeys",
                "x-kubernetes-patch-merge-key": "name",
            },
            "retained": {
                "type": "array",
                "items": {"$ref": "#/definitions/Item"},
                "x-kubernetes-patch-strategy": "retainKeys",
                "x-kubernetes-patch-merge-key": "name",
            },
        },
    },
    "Item": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "port": {"type": "integer", "default": 80}},
    },
}


@pytest.mark.parametrize(("name", "expected"), [
    ("tags", ListType(STRING, "associative", ())),
    ("items", ListType(TypeRef(named="Item"), "associative", ("name", "port"))),
    ("args", ListType(STRING, "atomic", ())),
    ("plain", ListType(STRING, "atomic", ())),
    ("listTypeWins", ListType(TypeRef(named="Item"), "atomic", ())),
    ("merged", ListType(TypeRef(named="Item"), "associative", ("name",))),
    ("mergedSet", ListType(TypeRef(inlined=Atom(scalar="numeric")), "associative", ())),
    ("unionList", ListType(TypeRef(named="Item"), "associative", ("name",))),
    ("retained", ListType(TypeRef(named="Item"), "atomic", ())),
])
def test_list_types_and_patch_strategy_fallbacks(name, expected):
    schema = S.from_openapi(LISTS, "Root")
    assert at(schema, name)[1] == Atom(list=expected)


def test_v3_component_refs_and_single_element_all_of():
    definitions = {
        "Root": {"type": "object", "properties": {
            "direct": {"$ref": "#/components/schemas/Leaf"},
            "wrapped": {"allOf": [{"$ref": "#/components/schemas/Leaf"}], "default": {}},
            "two": {"allOf": [{"$ref": "#/components/schemas/Leaf"}, {"type": "object"}], "type": "string"},
        }},
        "Leaf": {"type": "object", "properties": {"a": {"type": "string"}}},
    }
    root = S.from_openapi(definitions, "Root").resolve(TypeRef(named="Root")).map
    assert root.field("direct") == StructField("direct", TypeRef(named="Leaf"))
    assert root.field("wrapped") == StructField("wrapped", TypeRef(named="Leaf"), {})
    assert root.field("two").type == STRING  # allOf of two: not a reference, the schema's own type


def test_map_type_atomic_on_a_ref_and_inline():
    definitions = {
        "Root": {"type": "object", "properties": {
            "pinned": {"$ref": "#/definitions/Leaf", "x-kubernetes-map-type": "atomic"},
            "loose": {"$ref": "#/definitions/Leaf"},
            "env": {"type": "object", "additionalProperties": {"type": "string"}, "x-kubernetes-map-type": "atomic"},
            "granular": {
                "type": "object", "additionalProperties": {"type": "string"}, "x-kubernetes-map-type": "granular"},
        }},
        "Leaf": {"type": "object", "properties": {"a": {"type": "string"}}},
    }
    schema = S.from_openapi(definitions, "Root")
    ref, pinned = at(schema, "pinned")
    assert ref == TypeRef(named="Leaf", element_relationship="atomic")
    assert pinned == Atom(map=Map(fields=(StructField("a", STRING),), element_relationship="atomic"))
    assert at(schema, "loose")[1].map.element_relationship == "separable"
    assert at(schema, "env")[1] == Atom(map=Map(element_type=STRING, element_relationship="atomic"))
    assert at(schema, "granular")[1].map.element_relationship == "separable"


def test_free_form_and_preserve_unknown_fields_objects_are_deduced():
    definitions = {
        "Root": {"type": "object", "properties": {
            "free": {"type": "object"},
            "anything": {},
            "open": {"type": "object", "additionalProperties": True},
            "closed": {"type": "object", "additionalProperties": False, "properties": {"a": {"type": "string"}}},
            "kept": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": True,
                "properties": {
                    "a": {"type": "string"},
                    "inner": {"type": "object", "properties": {"b": {"type": "string"}}},
                    "leaf": {"$ref": "#/definitions/Leaf"},
                },
            },
        }},
        "Leaf": {"type": "object", "properties": {"c": {"type": "string"}}},
    }
    schema = S.from_openapi(definitions, "Root")
    assert at(schema, "free")[1] == Atom(map=Map(element_type=DEDUCED))
    assert at(schema, "anything")[1] == DEDUCED_ATOM
    assert at(schema, "open")[1] == Atom(map=Map(element_type=DEDUCED))
    assert at(schema, "closed")[1].map.element_type is None
    assert at(schema, "kept")[1].map.element_type == DEDUCED
    assert at(schema, "kept", "inner")[1].map.element_type == DEDUCED  # inlined descendants inherit it
    assert at(schema, "kept", "leaf")[1].map.element_type is None  # a named type does not
    everywhere = S.from_openapi(definitions, "Root", preserve_unknown_fields=True)
    assert at(everywhere, "closed")[1].map.element_type is None  # additionalProperties: false still wins
    assert at(everywhere, "kept", "leaf")[1].map.element_type == DEDUCED


def test_string_formats():
    definitions = {"Root": {"type": "object", "properties": {
        name: {"type": "string", "format": name} for name in ("byte", "date-time", "int-or-string", "email")
    }}}
    schema = S.from_openapi(definitions, "Root")
    assert [at(schema, name)[1].scalar for name in ("byte", "date-time", "int-or-string", "email")] == [
        "string", "untyped", "untyped", "untyped"]


def test_null_default_is_no_default():
    definitions = {"Root": {"type": "object", "properties": {"a": {"type": "string", "default": None}}}}
    assert at(S.from_openapi(definitions, "Root"), "a")[0] == STRING
    assert S.from_openapi(definitions, "Root").resolve(TypeRef(named="Root")).map.field("a").default is ABSENT_DEFAULT


def test_unions_are_ignored():
    definitions = {"Root": {
        "type": "object",
        "properties": {"kind": {"type": "string"}, "a": {"type": "string"}},
        "x-kubernetes-unions": [{"discriminator": "kind", "fields-to-discriminateBy": {"a": "A"}}],
    }}
    assert S.from_openapi(definitions, "Root").resolve(TypeRef(named="Root")) == Atom(map=Map(
        fields=(StructField("kind", STRING), StructField("a", STRING))))


@pytest.mark.parametrize(("spec", "message"), [
    ({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"}, "Root: unknown list type bag"),
    ({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "map"}, "Root: missing map keys"),
    ({"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": "replace"},
     "Root: unknown patch strategy replace"),
    ({"type": "array"}, "Root: `items` must be specified on arrays"),
    ({"type": "object", "x-kubernetes-map-type": "loose"}, "Root: unknown map type loose"),
    ({"type": "object", "properties": {"a": {"type": "file"}}}, "inlined in Root: unrecognized type: 'file'"),
])
def test_schemaconv_errors(spec, message):
    with pytest.raises(S.SchemaError) as caught:
        S.from_openapi({"Root": spec}, "Root")
    assert str(caught.value) == message


# --- Schema.Resolve ----------------------------------------------------------------------------------


def test_resolve():
    schema = S.from_openapi({
        "Root": {"type": "object", "properties": {"a": {"type": "string"}}},
        "Strings": {"type": "array", "items": {"type": "string"}},
        "Word": {"type": "string"},
        "Alias": {"$ref": "#/definitions/Root"},
    }, "Root")
    assert schema.resolve(TypeRef()) == Atom()  # Go's empty TypeRef: the empty inlined atom
    assert schema.resolve(TypeRef(inlined=Atom(scalar="boolean"))) == Atom(scalar="boolean")
    assert schema.resolve(TypeRef(named="Strings", element_relationship="associative")).list.element_relationship \
        == "associative"
    assert schema.resolve(TypeRef(named="Strings")).list.element_relationship == "atomic"
    assert schema.resolve(DEDUCED) == DEDUCED_ATOM
    assert schema.resolve(UNTYPED_ATOMIC) == UNTYPED_ATOMIC_ATOM
    # A deduced type has a list and a map: an override reaches only the map.
    overridden = schema.resolve(TypeRef(named=S.DEDUCED_NAME, element_relationship="atomic"))
    assert (overridden.map.element_relationship, overridden.list) == ("atomic", DEDUCED_ATOM.list)
    with pytest.raises(S.UnresolvedType, match="no type found matching: Word"):
        schema.resolve(TypeRef(named="Word", element_relationship="atomic"))  # a scalar takes no override
    with pytest.raises(KeyError, match="schema error: no type found matching: Alias"):
        schema.resolve(TypeRef(named="Alias"))  # top-level references are skipped
    with pytest.raises(KeyError):
        schema.resolve(TypeRef(named="Nope"))


def test_deduced():
    schema = S.deduced()
    assert schema.root == DEDUCED
    assert schema.resolve(schema.root) == DEDUCED_ATOM


# --- named schemas -----------------------------------------------------------------------------------


def test_named_schema_from_the_corpus_uses_patch_strategies():
    widget = S.named("widget")
    assert widget.root == TypeRef(named="Widget")
    assert at(widget, "metadata", "finalizers")[1].list == ListType(STRING, "associative", ())
    assert at(widget, "spec", "parts")[1].list == ListType(TypeRef(named="Part"), "associative", ("id",))
    assert at(widget, "spec", "steps")[1].list == ListType(TypeRef(named="Step"), "associative", ())
    assert at(widget, "spec", "grid")[1].list.element_relationship == "atomic"
    assert S.named("widget") is widget


def test_named_schema_from_a_mapping_and_a_file(tmp_path):
    document = {"description": "lists", "root": "Root", "definitions": LISTS}
    assert at(S.named(document), "items")[1].list.keys == ("name", "port")
    path = tmp_path / "lists.yaml"
    path.write_text(json.dumps(document))
    assert at(S.named(path), "tags")[1].list.element_relationship == "associative"


def test_named_schema_schemaconv_refuses():
    # sprocket's explicit "replace" patch strategy is a strategic-merge-patch notion.
    with pytest.raises(S.SchemaError, match="inlined in SprocketSpec: unknown patch strategy replace"):
        S.named("sprocket")
    with pytest.raises(S.SchemaError, match="no named schema 'nope'"):
        S.named("nope")
    with pytest.raises(S.SchemaError, match="root 'Missing' is not a definition"):
        S.named({"root": "Missing", "definitions": {}})


# --- the regeneration script ---------------------------------------------------------------------------


def test_a_type_declares_defaults_where_a_declared_default_is_reachable_below_it():
    # what no declared default can reach below a type
    widget = S.named_custom_resource(Path(__file__).resolve().parents[2] / "cases" / "schemas" / "ssa-widget.yaml")
    root = widget.resolved(widget.root)
    metadata = root.member("metadata")
    assert root.declares_defaults() is True  # spec.ports[].protocol: TCP
    assert root.member("status").declares_defaults() is False
    # ObjectMeta's model gives an owner reference's keys "" as their default
    assert metadata.declares_defaults() is True
    assert metadata.member("ownerReferences").declares_defaults() is True
    assert metadata.member("labels").declares_defaults() is False
    # FieldsV1 is untyped, a type that contains itself: it has no default, however deep
    assert metadata.member("managedFields").declares_defaults() is False
    assert metadata.member("managedFields").item().member("fieldsV1").declares_defaults() is False
