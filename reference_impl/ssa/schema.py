"""Types for server-side apply: what a field is, and how its items relate.

Go twins: sigs.k8s.io/structured-merge-diff/v4 ``schema/elements.go`` (the type language:
atoms, maps, lists, references, ``Schema.Resolve``) and k8s.io/kube-openapi
``pkg/schemaconv`` (``openapi.go``, ``smd.go``: the rules that turn OpenAPI definitions into
that language, as the apiserver does for every kind). Sources of schemas:

- :func:`builtin`: a Kubernetes kind, from the bundled OpenAPI v3 models (``models/``);
- :func:`named`: a named schema of ``cases/schemas/`` (OpenAPI definitions with a root);
- :func:`from_openapi`: any OpenAPI v2 ``definitions`` / v3 ``components.schemas``;
- :func:`deduced`: no schema at all (maps granular, lists atomic), as for schemaless CRDs.
"""

from __future__ import annotations

import enum
import functools
import importlib.resources
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from .. import models
from ..errors import NoStrategicSchema
from ..govalue.decoded import float64_numbers
from ..govalue.fmt import go_sharp_v, go_v
from ..releases import LIVE_RELEASE

# libyaml when PyYAML has it: the same documents as its pure-Python SafeLoader, ten times sooner.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# ElementRelationship values (elements.go).
ASSOCIATIVE = "associative"
ATOMIC = "atomic"
SEPARABLE = "separable"

# Scalar values (elements.go).
NUMERIC = "numeric"
STRING = "string"
BOOLEAN = "boolean"
UNTYPED = "untyped"

SCHEMAS_DIR = Path(__file__).resolve().parents[2] / "cases" / "schemas"

# Definitions schemaconv replaces by hand-written types (smd.go).
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"


class _Absent(enum.Enum):
    ABSENT_DEFAULT = "ABSENT_DEFAULT"

    def __repr__(self) -> str:
        return self.value


ABSENT_DEFAULT = _Absent.ABSENT_DEFAULT
"""A field without a default (Go's nil ``StructField.Default``); ``None`` would be JSON null."""


class SchemaError(ValueError):
    """OpenAPI definitions schemaconv refuses (``ToSchemaFromOpenAPI``'s error), or a malformed file."""


class UnresolvedType(KeyError):
    """A reference ``Schema.Resolve`` cannot resolve; the text is the one SMD's callers print."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class UnknownKind(NoStrategicSchema):
    """No model for the apiVersion/kind (the type converter's ``noCorrespondingTypeErr``)."""


# --- the type language (elements.go) ---------------------------------------------------------
# Named tuples but for Map (which keeps its fields by name): immutable and compared by value as frozen
# dataclasses are, and quicker to define (a frozen dataclass took some 0.8 ms of each process's import).


class TypeRef(NamedTuple):
    """elements.go TypeRef: a named type or an inlined atom, maybe overriding its relationship.

    ``TypeRef()`` is Go's empty reference: it resolves to the empty :class:`Atom`.
    """

    named: str | None = None
    inlined: Atom | None = None
    element_relationship: str | None = None


class StructField(NamedTuple):
    """elements.go StructField. ``default`` is kept out of the hash: it may be a dict."""

    name: str
    type: TypeRef
    default: Any = ABSENT_DEFAULT

    def __hash__(self) -> int:
        return hash((self.name, self.type))


@dataclass(frozen=True)
class Map:
    """elements.go Map: struct fields, the type of any other key, and granular or atomic."""

    fields: tuple[StructField, ...] = ()
    element_type: TypeRef | None = None  # None: keys other than the fields are not allowed
    element_relationship: str = SEPARABLE

    def field(self, name: str) -> StructField | None:
        """elements.go FindField."""
        return self._fields_by_name.get(name)

    @functools.cached_property
    def _fields_by_name(self) -> dict[str, StructField]:
        return {struct_field.name: struct_field for struct_field in self.fields}


class ListType(NamedTuple):
    """elements.go List: atomic, or associative (a set, or a map keyed by ``keys``)."""

    element_type: TypeRef
    element_relationship: str = ATOMIC
    keys: tuple[str, ...] = ()


class Atom(NamedTuple):
    """elements.go Atom: each shape a value may take (untyped atoms allow several)."""

    scalar: str | None = None
    list: ListType | None = None
    map: Map | None = None


UNTYPED_ATOMIC_NAME = "__untyped_atomic_"
DEDUCED_NAME = "__untyped_deduced_"
UNTYPED_ATOMIC = TypeRef(named=UNTYPED_ATOMIC_NAME)
DEDUCED = TypeRef(named=DEDUCED_NAME)

# smd.go untypedDef and deducedDef (the same two types as typed.DeducedParseableType).
_COMMON_TYPES: dict[str, Atom] = {
    UNTYPED_ATOMIC_NAME: Atom(
        scalar=UNTYPED,
        list=ListType(element_type=UNTYPED_ATOMIC, element_relationship=ATOMIC),
        map=Map(element_type=UNTYPED_ATOMIC, element_relationship=ATOMIC),
    ),
    DEDUCED_NAME: Atom(
        scalar=UNTYPED,
        list=ListType(element_type=UNTYPED_ATOMIC, element_relationship=ATOMIC),
        map=Map(element_type=DEDUCED, element_relationship=SEPARABLE),
    ),
}


class Schema:
    """elements.go Schema (named types) plus ``root``, the type of a whole object.

    Named types are converted from their OpenAPI definition when first resolved.
    """

    def __init__(self, types: _Types, root: TypeRef, partial_keys: bool = False) -> None:
        self._types = types
        self.root = root
        # How typed reads a list-map item that names only some of its keys (typed.list_item_element):
        # keyed by those from structured-merge-diff v6.3 (Kubernetes 1.34), refused before.
        self.partial_keys = partial_keys
        self._resolved = types.resolved[partial_keys]  # id(TypeRef) -> its ResolvedType under this rule

    def __repr__(self) -> str:
        return f"Schema(root={self.root!r})"

    def with_partial_keys(self, partial_keys: bool) -> Schema:
        """The same types, read with or without the partial-key rule (the named types are shared)."""
        return self if partial_keys == self.partial_keys else Schema(self._types, self.root, partial_keys)

    def definition(self, name: str) -> Mapping[str, Any] | None:
        """The OpenAPI definition ``name`` was converted from (None: none, or a common type)."""
        return self._types.definition(name)

    def find_named_type(self, name: str) -> Atom | None:
        """elements.go FindNamedType."""
        return self._types.atom(name)

    def resolve(self, ref: TypeRef) -> Atom:
        """elements.go Resolve: the atom ``ref`` names or inlines, its relationship overridden.

        An override replaces the relationship of the atom's map, or else of its list; a
        scalar cannot take one. Raises :class:`UnresolvedType` where Go returns false.
        """
        if ref.element_relationship is None:
            return self._resolve_plain(ref)
        if ref.inlined is not None or ref.named is None:
            return self._override(ref)
        key = (ref.named, ref.element_relationship)
        found = self._types.overridden.get(key)
        if found is None:
            found = self._types.overridden[key] = self._override(ref)
        return found

    def _resolve_plain(self, ref: TypeRef) -> Atom:
        # elements.go resolveNoOverrides
        if ref.named is not None:
            atom = self._types.atom(ref.named)
            if atom is None:
                raise UnresolvedType(f"schema error: no type found matching: {ref.named}")
            return atom
        return ref.inlined if ref.inlined is not None else Atom()

    def resolved(self, ref: TypeRef) -> ResolvedType:
        """``ref`` resolved once for these types (see :class:`ResolvedType`)."""
        found = self._resolved.get(id(ref))
        if found is None:  # a ResolvedType holds its ref, so an id is never reused while cached
            found = self._resolved[id(ref)] = ResolvedType(self, ref)
        return found

    def _override(self, ref: TypeRef) -> Atom:
        atom = self._resolve_plain(ref)
        relationship = ref.element_relationship
        if atom.map is not None:
            return atom._replace(map=replace(atom.map, element_relationship=relationship))
        if atom.list is not None:
            return atom._replace(list=atom.list._replace(element_relationship=relationship))
        name = ref.named if ref.named is not None else "inlined type"
        raise UnresolvedType(f"schema error: no type found matching: {name}")


EMPTY_TYPE = TypeRef()
# What a scalar type accepts without a problem (typed's validation): null, and its kinds of JSON values.
_SCALAR_PYTHON_TYPES = {
    NUMERIC: frozenset({type(None), int, float}),
    STRING: frozenset({type(None), str}),
    BOOLEAN: frozenset({type(None), bool}),
    UNTYPED: frozenset({type(None), int, float, str, bool}),
}


def _reaches_a_default(start: ResolvedType) -> bool:
    """Whether some field with a ``default`` is reachable from ``start`` through member, element and
    item types: a search of the type graph (types may contain themselves, as the untyped one does)."""
    seen: set[int] = set()
    pending = [start]
    while pending:
        rtype = pending.pop()
        if id(rtype) in seen or rtype._declares_defaults is False:  # False is known exactly
            continue
        if rtype._declares_defaults is True:
            return True
        seen.add(id(rtype))
        if rtype.map is not None:
            for declared in rtype.map.fields:
                if declared.default is not ABSENT_DEFAULT:
                    return True
                pending.append(rtype._schema.resolved(declared.type))
            element = rtype.element()
            if element is not None:
                pending.append(element)
        if rtype.list is not None:
            pending.append(rtype.item())
    return False


class ResolvedType:
    """A type reference resolved once (elements.go ``Resolve``, with helpers.go's ``deduceAtom``
    shapes and ``FindField`` answers kept): the typed walks ask it for each value's shape, a map
    member's type and a list's item type instead of resolving every value's type again.

    ``atom`` is None where Go's Resolve fails. Members, items and shapes are resolved on first use
    (types may be recursive). ``accepts``: the Python types a scalar-only type takes as they are
    (a value of another type is walked to find its problem); ``anything``: an untyped type, in
    which validation finds no problem.
    """

    __slots__ = ("_declares_defaults", "_element", "_item", "_key_defaults", "_schema", "_shapes", "accepts",
                 "anything", "atom", "declared", "list", "map", "member_types", "partial_keys", "ref", "scalar",
                 "scalar_only", "several")

    def __init__(self, schema: Schema, ref: TypeRef, atom: Atom | None = None) -> None:
        self.ref = ref
        self._schema = schema
        self.partial_keys = schema.partial_keys
        if atom is None:
            try:
                atom = schema.resolve(ref)
            except KeyError:
                atom = None
        self.atom = atom
        self.scalar = atom.scalar if atom is not None else None
        self.list = atom.list if atom is not None else None
        self.map = atom.map if atom is not None else None
        shapes = (self.scalar is not None) + (self.list is not None) + (self.map is not None)
        self.several = shapes >= 2
        self.scalar_only = shapes == 1 and self.scalar is not None
        # untyped (smd.go's untypedDef and deducedDef): every JSON value is valid, at any depth
        self.anything = atom is not None and any(atom is common for common in _COMMON_TYPES.values())
        self.accepts = _SCALAR_PYTHON_TYPES.get(self.scalar, frozenset()) if shapes == 1 else frozenset()
        # a map's declared fields by name, and the types of those the walks met (read in their loops)
        self.declared: dict[str, StructField] = self.map._fields_by_name if self.map is not None else {}
        self.member_types: dict[str, ResolvedType] = {}
        self._element: ResolvedType | None = None
        self._item: ResolvedType | None = None
        self._shapes: dict[str, ResolvedType] = {}
        self._key_defaults: tuple | None = None
        self._declares_defaults: bool | None = None

    def __repr__(self) -> str:
        return f"ResolvedType({self.ref!r})"

    def declares_defaults(self) -> bool:
        """Whether a value of this type can get a structural default at or below it (a field's ``default``)."""
        if self._declares_defaults is None:
            self._declares_defaults = _reaches_a_default(self)
        return self._declares_defaults

    def deduced(self, kind: str | None) -> ResolvedType:
        """helpers.go deduceAtom: of a type allowing several shapes, the one a value of ``kind`` has."""
        if not self.several:
            return self
        if kind in ("number", "string", "bool") and self.scalar is not None:
            shape, atom = "scalar", Atom(scalar=self.scalar)
        elif kind == "list" and self.list is not None:
            shape, atom = "list", Atom(list=self.list)
        elif kind == "map" and self.map is not None:
            shape, atom = "map", Atom(map=self.map)
        else:
            return self
        found = self._shapes.get(shape)
        if found is None:
            found = self._shapes[shape] = ResolvedType(self._schema, self.ref, atom)
        return found

    def member(self, name: str) -> ResolvedType | None:
        """A map member's type: its field's, else the map's element type; None if neither."""
        found = self.member_types.get(name)
        if found is not None:
            return found
        declared = self.declared.get(name)
        if declared is None:
            return self.element()
        found = self.member_types[name] = self._schema.resolved(declared.type)
        return found

    def declares(self, name: str) -> bool:
        return name in self.declared

    def element(self) -> ResolvedType | None:
        """The type of a map's undeclared keys (None: they are not allowed)."""
        if self._element is None and self.map.element_type is not None:
            self._element = self._schema.resolved(self.map.element_type)
        return self._element

    def member_or_empty(self, name: str) -> ResolvedType:
        """As ``member``, but Go's empty type where there is none (it resolves to an empty atom)."""
        found = self.member(name)
        return found if found is not None else self._schema.resolved(EMPTY_TYPE)

    def item(self) -> ResolvedType:
        """A list's item type."""
        if self._item is None:
            self._item = self._schema.resolved(self.list.element_type)
        return self._item

    def key_defaults(self) -> tuple[tuple[str, Any], ...]:
        """A keyed list's keys, each with its default in the item type (ABSENT_DEFAULT: none)."""
        if self._key_defaults is None:
            if self.item().atom is None:
                self._schema.resolve(self.list.element_type)  # raises as Resolve fails
            item_map = self.item().map
            defaults = []
            for name in self.list.keys:
                declared = item_map.field(name) if item_map is not None else None
                defaults.append((name, declared.default if declared is not None else ABSENT_DEFAULT))
            self._key_defaults = tuple(defaults)
        return self._key_defaults


class _Types:
    """A schema's named types: OpenAPI definitions, each converted on first use.

    ``beneath``: types for the names these definitions do not have (the bundled models under
    a custom resource's own definitions), shared so that each is converted once.
    """

    def __init__(self, definitions: Mapping[str, Any], preserve_unknown_fields: bool,
                 beneath: _Types | None = None) -> None:
        self._definitions = definitions
        self._preserve_unknown_fields = preserve_unknown_fields
        self._beneath = beneath
        self._atoms: dict[str, Atom | None] = {}
        self.overridden: dict[tuple[str, str], Atom] = {}
        # ResolvedTypes by the partial-key rule (Schema.partial_keys), then by id(TypeRef)
        self.resolved: dict[bool, dict[int, ResolvedType]] = {False: {}, True: {}}

    def definition(self, name: str) -> Mapping[str, Any] | None:
        if self._beneath is not None and name not in self._definitions:
            return self._beneath.definition(name)
        found = self._definitions.get(name)
        return found if isinstance(found, Mapping) else None

    def atom(self, name: str) -> Atom | None:
        # The common types come last in Go's list of types, so they win a name clash.
        if name in _COMMON_TYPES:
            return _COMMON_TYPES[name]
        if self._beneath is not None and name not in self._definitions:
            return self._beneath.atom(name)
        if name not in self._atoms:
            errors: list[str] = []
            self._atoms[name] = self._convert(name, errors)
            if errors:
                raise SchemaError("\n".join(errors))
        return self._atoms[name]

    def check(self) -> None:
        """Convert every definition now, failing with all of schemaconv's errors at once."""
        errors: list[str] = []
        for name in self._definitions:
            if name not in self._atoms:
                self._atoms[name] = self._convert(name, errors)
        if errors:
            raise SchemaError("\n".join(errors))

    def _convert(self, name: str, errors: list[str]) -> Atom | None:
        definition = self._definitions.get(name)
        if definition is None:
            return None
        return _convert_definition(name, definition, self._preserve_unknown_fields, errors)


# --- OpenAPI to types (kube-openapi schemaconv) ------------------------------------------------


class _Convert:
    """schemaconv's ``convert``: where we are (for error messages) and whether unknown fields stay."""

    __slots__ = ("errors", "name", "preserve_unknown_fields")

    def __init__(self, name: str, preserve_unknown_fields: bool, errors: list[str]) -> None:
        self.name = name
        self.preserve_unknown_fields = preserve_unknown_fields
        self.errors = errors

    def push(self, name: str) -> _Convert:
        return _Convert(name, self.preserve_unknown_fields, self.errors)

    def report(self, message: str) -> None:
        self.errors.append(f"{self.name}: {message}")


def _convert_definition(name: str, definition: Any, preserve_unknown_fields: bool, errors: list[str]) -> Atom | None:
    """schemaconv: one definition of ToSchemaFromOpenAPI (None: a top-level reference, skipped)."""
    definition = _schema_object(definition, name)
    if _ref_string(definition.get("$ref")):
        return None
    if name == QUANTITY:
        return Atom(scalar=UNTYPED)
    if name == RAW_EXTENSION:
        return _COMMON_TYPES[UNTYPED_ATOMIC_NAME]
    atom = _visit_spec(definition, _Convert(name, preserve_unknown_fields, errors))
    return None if atom == Atom() else atom  # insertTypeDef


def _visit_spec(spec: Mapping[str, Any], c: _Convert) -> Atom:
    """schemaconv: visitSpec (a schema opts its descendants into preserving unknown fields)."""
    if spec.get("x-kubernetes-preserve-unknown-fields") is True:
        c.preserve_unknown_fields = True
    return _parse_schema(spec, c)


def _parse_schema(spec: Mapping[str, Any], c: _Convert) -> Atom:
    """schemaconv: parseSchema."""
    kind = _openapi_type(spec, c.name)
    if kind == "":
        # No type accepts anything: every shape, lists atomic, maps of deduced values.
        return Atom(scalar=UNTYPED, list=_parse_list(spec, c), map=_parse_object(spec, c))
    if kind == "object":
        return Atom(map=_parse_object(spec, c))
    if kind == "array":
        return Atom(list=_parse_list(spec, c))
    if kind in ("integer", "boolean", "number", "string"):
        return _convert_primitive(kind, spec.get("format") or "")
    c.report(f"unrecognized type: '{kind}'")
    return Atom(scalar=UNTYPED)


def _make_ref(spec: Mapping[str, Any], c: _Convert) -> TypeRef:
    """schemaconv: makeOpenAPIRef. A ``$ref`` (alone or in a one-element ``allOf``) names a type."""
    ref = _ref_string(spec.get("$ref"))
    all_of = spec.get("allOf")
    if not ref and isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], Mapping):
        ref = _ref_string(all_of[0].get("$ref"))
    name = ref.rsplit("/", 1)[-1]  # path.Split
    if name:
        # x-kubernetes-map-type beside the reference overrides the named type's relationship.
        return TypeRef(named=name, element_relationship=_map_element_relationship(spec, c) or None)
    inlined = _visit_spec(spec, c.push(f"inlined in {c.name}"))
    return TypeRef(inlined=inlined)


def _parse_object(spec: Mapping[str, Any], c: _Convert) -> Map:
    """schemaconv: parseObject."""
    properties = spec.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise SchemaError(f"{c.name}: properties must be a mapping")
    fields = []
    for name, member in properties.items():
        member = _schema_object(member, f"{c.name}.{name}")
        default = member.get("default")
        fields.append(StructField(
            name=name,
            type=_make_ref(member, c),
            default=ABSENT_DEFAULT if default is None else default,  # Go cannot tell null from absent
        ))
    relationship = _map_element_relationship(spec, c)
    return Map(
        fields=tuple(fields),
        element_type=_map_element_type(spec, bool(properties), c),
        element_relationship=relationship or SEPARABLE,
    )


def _map_element_type(spec: Mapping[str, Any], has_properties: bool, c: _Convert) -> TypeRef | None:
    # parseObject's elementType: the type of keys that are not properties.
    additional = spec.get("additionalProperties")
    if additional is None:
        # Without properties and additionalProperties an object is free-form.
        return DEDUCED if c.preserve_unknown_fields or not has_properties else None
    if isinstance(additional, Mapping):
        return _make_ref(additional, c)
    if additional is True:
        return DEDUCED
    if additional is False:
        return None
    raise SchemaError(f"{c.name}: additionalProperties must be a schema or a boolean")


def _parse_list(spec: Mapping[str, Any], c: _Convert) -> ListType:
    """schemaconv: parseList."""
    relationship, keys = _list_element_relationship(spec, c)
    items = spec.get("items")
    if items is None:
        if _openapi_type(spec, c.name):
            c.report("`items` must be specified on arrays")
        element_type = UNTYPED_ATOMIC  # a list with no items is untyped
    elif isinstance(items, Mapping):
        element_type = _make_ref(items, c)
    elif isinstance(items, list):
        c.report("structural schema arrays must have exactly one member subtype")
        element_type = DEDUCED
    else:
        raise SchemaError(f"{c.name}: items must be a schema or a list of schemas")
    return ListType(element_type=element_type, element_relationship=relationship, keys=keys)


def _convert_primitive(kind: str, format_: Any) -> Atom:
    """schemaconv: convertPrimitive. Strings of any format but ``byte`` are untyped."""
    if kind in ("integer", "number"):
        return Atom(scalar=NUMERIC)
    if kind == "boolean":
        return Atom(scalar=BOOLEAN)
    if kind == "string" and format_ in ("", "byte"):
        return Atom(scalar=STRING)
    return Atom(scalar=UNTYPED)  # int-or-string, date-time and every other format


def _list_element_relationship(spec: Mapping[str, Any], c: _Convert) -> tuple[str, tuple[str, ...]]:
    """schemaconv: getListElementRelationship. List type first, patch strategy else, atomic by default."""
    if "x-kubernetes-list-type" in spec:
        list_type = spec["x-kubernetes-list-type"]
        if list_type == "atomic":
            return ATOMIC, ()
        if list_type == "set":
            return ASSOCIATIVE, ()
        if list_type == "map":
            if "x-kubernetes-list-map-keys" not in spec:
                c.report("missing map keys")
                return ASSOCIATIVE, ()
            keys = spec["x-kubernetes-list-map-keys"]
            if not isinstance(keys, list):
                c.report(f"uninterpreted map keys: {_extension_sharp_v(keys)}")
                return ASSOCIATIVE, ()
            return ASSOCIATIVE, tuple(key for key in keys if isinstance(key, str))  # toStringSlice
        c.report(f"unknown list type {_extension_v(list_type)}")
        return ATOMIC, ()
    if "x-kubernetes-patch-strategy" in spec:
        strategy = spec["x-kubernetes-patch-strategy"]
        if strategy in ("merge", "merge,retainKeys"):
            if "x-kubernetes-patch-merge-key" not in spec:
                return ASSOCIATIVE, ()  # merge without a key: a set
            key = spec["x-kubernetes-patch-merge-key"]
            if not isinstance(key, str):
                c.report(f"uninterpreted merge key: {_extension_sharp_v(key)}")
                return ASSOCIATIVE, ()
            return ASSOCIATIVE, (key,)
        if strategy == "retainKeys":
            return ATOMIC, ()
        c.report(f"unknown patch strategy {_extension_v(strategy)}")
        return ATOMIC, ()
    return ATOMIC, ()


def _map_element_relationship(spec: Mapping[str, Any], c: _Convert) -> str:
    """schemaconv: getMapElementRelationship ("" when x-kubernetes-map-type is unset)."""
    if "x-kubernetes-map-type" not in spec:
        return ""
    map_type = spec["x-kubernetes-map-type"]
    if map_type == "atomic":
        return ATOMIC
    if map_type == "granular":
        return SEPARABLE
    c.report(f"unknown map type {_extension_v(map_type)}")
    return ""


def _schema_object(spec: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(spec, Mapping):
        raise SchemaError(f"{where}: a schema must be a mapping, not {type(spec).__name__}")
    return spec


def _openapi_type(spec: Mapping[str, Any], where: str) -> str:
    # spec.Schema's Type is a string or a list of them; schemaconv reads the first.
    kind = spec.get("type")
    if kind is None:
        return ""
    if isinstance(kind, list):
        kind = kind[0] if kind else ""
    if not isinstance(kind, str):
        raise SchemaError(f"{where}: type must be a string or a list of strings")
    return kind


def _ref_string(ref: Any) -> str:
    if ref is None:
        return ""
    if not isinstance(ref, str):
        raise SchemaError(f"$ref must be a string, not {type(ref).__name__}")
    return ref


def _extension_v(value: Any) -> str:
    """``%v`` of a schema's value as kube-openapi holds it: decoded by encoding/json, every number a float64."""
    return go_v(float64_numbers(value))


def _extension_sharp_v(value: Any) -> str:
    """``%#v`` of such a value."""
    return go_sharp_v(float64_numbers(value))


# --- the four ways to a schema -----------------------------------------------------------------


def from_openapi(definitions: Mapping[str, Any], root: str, *, preserve_unknown_fields: bool = False) -> Schema:
    """kube-openapi ``ToSchemaFromOpenAPI``: the schema of ``root`` among OpenAPI definitions.

    ``definitions`` are v2 ``definitions`` or v3 ``components.schemas``; references name a
    definition by the last segment of ``$ref``. Every definition is converted now, so any
    problem raises :class:`SchemaError` with all of schemaconv's messages.
    """
    if not isinstance(definitions, Mapping):
        raise SchemaError("definitions must be a mapping of names to schemas")
    types = _Types(definitions, preserve_unknown_fields)
    types.check()
    name = root.rsplit("/", 1)[-1]
    if types.atom(name) is None:
        raise SchemaError(f"root {root!r} is not a definition")
    return Schema(types, TypeRef(named=name))


def deduced() -> Schema:
    """typed.DeducedParseableType: no schema (maps granular, lists atomic, scalars untyped)."""
    return _DEDUCED_SCHEMA


_DEDUCED_SCHEMA = Schema(_Types({}, False), DEDUCED)


def named(path_or_mapping: str | os.PathLike | Mapping[str, Any]) -> Schema:
    """A named schema: ``{description, root, definitions}``, as a mapping, a file, or a file
    stem in ``cases/schemas/``."""
    if isinstance(path_or_mapping, Mapping):
        return _named_schema(path_or_mapping, "named schema")
    return _named_file(_named_path(path_or_mapping))


def _named_path(path_or_name: str | os.PathLike) -> Path:
    candidate = Path(path_or_name)
    if candidate.suffix in (".yaml", ".yml", ".json") or candidate.is_file():
        return candidate.resolve()
    for suffix in (".yaml", ".yml", ".json"):
        path = SCHEMAS_DIR / f"{path_or_name}{suffix}"
        if path.is_file():
            return path
    raise SchemaError(f"no named schema {str(path_or_name)!r} in {SCHEMAS_DIR}")


@functools.cache
def _named_file(path: Path) -> Schema:
    with path.open(encoding="utf-8") as file:
        document = yaml.load(file, Loader=_SAFE_LOADER)
    return _named_schema(document, str(path))


def _named_schema(document: Any, where: str) -> Schema:
    if not isinstance(document, Mapping) or not isinstance(document.get("root"), str):
        raise SchemaError(f"{where}: a named schema is a mapping with a root and definitions")
    try:
        return from_openapi(document.get("definitions") or {}, document["root"])
    except SchemaError as exc:
        raise SchemaError(f"{where}: {exc}") from exc


# --- built-in kinds: the bundled models --------------------------------------------------------


class _Models:
    """One Kubernetes version's models: its definitions and the kinds they declare."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.kubernetes: str = data["kubernetes"]
        self.kinds: dict[str, dict[str, str]] = data["kinds"]
        self._types = _Types(data["definitions"], preserve_unknown_fields=False)
        self._schemas: dict[str, Schema] = {}

    def schema(self, definition: str) -> Schema:
        # One type table for every kind, as the type converter has one parser.
        if definition not in self._schemas:
            self._schemas[definition] = Schema(self._types, TypeRef(named=definition))
        return self._schemas[definition]

    def check(self) -> None:
        self._types.check()


def _models_file(minor: str) -> Traversable:
    return importlib.resources.files("patchconf.reference_impl.models") / f"kubernetes-{minor}.json"


def available_versions() -> list[str]:
    """The Kubernetes minor versions (``"1.33"``) whose models are bundled."""
    names = (entry.name for entry in importlib.resources.files("patchconf.reference_impl.models").iterdir())
    found = [name[len("kubernetes-"):-len(".json")] for name in names
             if name.startswith("kubernetes-") and name.endswith(".json")]
    return sorted(found, key=lambda version: tuple(int(part) for part in version.split(".")))


def builtin_kinds(version: str = LIVE_RELEASE) -> dict[str, list[str]]:
    """The built-in kinds of a Kubernetes minor's models, by apiVersion, sorted."""
    kinds = _models(".".join(version.removeprefix("v").split(".")[:2])).kinds
    return {api_version: sorted(kinds[api_version]) for api_version in sorted(kinds)}


@functools.cache
def _models(minor: str) -> _Models:
    source = _models_file(minor)
    if not source.is_file():
        raise UnknownKind(f"no bundled Kubernetes {minor} models (have: {', '.join(available_versions())})")
    return _Models(models.read(source.name))


def builtin(api_version: str, kind: str, version: str = LIVE_RELEASE) -> Schema:
    """The schema of a built-in kind, as the apiserver's type converter finds it by
    ``x-kubernetes-group-version-kind``. ``version`` is a Kubernetes minor (``1.33.13`` counts as 1.33)."""
    models = _models(".".join(version.removeprefix("v").split(".")[:2]))
    definition = models.kinds.get(api_version, {}).get(kind)
    if definition is None:
        group, _, group_version = api_version.rpartition("/")
        raise UnknownKind(f"no corresponding type for {group}/{group_version}, Kind={kind}")
    return models.schema(definition)


# --- custom resources: what the apiextensions server builds ------------------------------------

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_CUSTOM_ROOT = "patchconf.custom.Root"


def custom_resource(definitions: Mapping[str, Any] | None = None, root: str | None = None,
                    version: str = LIVE_RELEASE) -> Schema:
    """The schema a CRD's objects are applied with: its structural schema (``definitions`` and
    ``root``, a named schema's) or none (preserve-unknown-fields), with ``metadata`` always the
    real ObjectMeta and apiVersion/kind strings, as apiextensions' ``BuildOpenAPIV3`` adds them."""
    return _custom_resource(_freeze(definitions), root, ".".join(version.split(".")[:2]))


@functools.cache
def _custom_resource(frozen: Any, root: str | None, minor: str) -> Schema:
    definitions = json.loads(frozen) if frozen else {}
    if root is None:
        own: dict[str, Any] = {}
        top: dict[str, Any] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {}}
    else:
        own = dict(definitions)
        top = json.loads(json.dumps(definitions[root]))
    top.setdefault("properties", {})
    top["properties"]["apiVersion"] = {"type": "string"}
    top["properties"]["kind"] = {"type": "string"}
    top["properties"]["metadata"] = {"$ref": f"#/components/schemas/{OBJECT_META}"}
    own[_CUSTOM_ROOT] = top
    # The CRD's definitions over the bundled models, as ToSchemaFromOpenAPI of both: the CRD's are
    # converted now (a problem raises with all of schemaconv's messages), the models' as the
    # built-in kinds' are, once for every kind.
    types = _Types(own, preserve_unknown_fields=False, beneath=_models(minor)._types)
    types.check()
    return Schema(types, TypeRef(named=_CUSTOM_ROOT))


def _freeze(definitions: Mapping[str, Any] | None) -> str:
    return json.dumps(definitions, sort_keys=True) if definitions else ""


def named_custom_resource(path: str | os.PathLike, version: str = LIVE_RELEASE) -> Schema:
    """:func:`custom_resource` of a named schema file (read once)."""
    return _named_custom_resource(Path(path).resolve(), ".".join(version.split(".")[:2]))


@functools.cache
def _named_custom_resource(path: Path, minor: str) -> Schema:
    with path.open(encoding="utf-8") as file:
        document = yaml.load(file, Loader=_SAFE_LOADER)
    return custom_resource(document.get("definitions") or {}, document["root"], minor)
