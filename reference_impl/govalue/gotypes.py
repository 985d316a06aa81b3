"""A built-in object's round trip through its Go type, as the apiserver decodes and stores it.

Go twin: k8s.io/apimachinery/pkg/runtime converter.go (``DefaultUnstructuredConverter``
FromUnstructured then ToUnstructured), which follows encoding/json's rules:

- decoding fills a struct from the members it declares (others are dropped); a null or absent
  member leaves the field's zero value: "" / 0 / false, nil for a pointer, slice or map, the
  zero struct for a struct; a null in a ``map[string]string`` becomes "";
- encoding writes every field but an ``omitempty`` one that is empty: "" / 0 / false, a nil
  pointer, a nil or empty slice or map. A struct is never empty, so a non-pointer struct is
  always written (``strategy: {}``), and a nil that is not ``omitempty`` is written as null;
  types with their own encoding (metav1.Time, resource.Quantity, intstr.IntOrString) write
  their zero value as they encode it (null, "0", 0).

Values of the types with their own encoding pass through as given: their canonical forms
(a Quantity's "1000m" -> "1") are not modelled. The Go shapes are data, ``models/go-types.json``,
written from the Go types by ``python -m patchconf.reference_impl.models.regenerate --go-types``.

A defaulting function works on the decoded value as Go's mutates the struct (:data:`GoStruct`,
:func:`zero_struct`, :func:`is_zero`, :func:`is_empty`).
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Mapping
from typing import Any

from .. import models
from .decoded import json_copy

GoStruct = dict[str, Any]  # a decoded struct: every field, nil as NIL
Shape = dict[str, Any]  # {"shape": string|int|float|bool|bytes|struct|pointer|slice|map|opaque, ...}
NIL = None  # a nil pointer, slice or map, as the Go value is modelled here
SCALAR_ZEROS = {"string": "", "int": 0, "float": 0, "bool": False}
# A managedFields entry's fields: raw JSON bytes in Go, never changed in place (the field manager
# writes new ones), so shared rather than copied: they are most of a large object's metadata.
FIELDS_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"


@functools.cache
def _go_types() -> dict[str, Any]:
    return models.read("go-types.json")


def definition_of(api_version: str, kind: str) -> str | None:
    """The Go struct a built-in kind decodes into (e.g. io.k8s.api.core.v1.ConfigMap), None if none."""
    return _go_types()["kinds"].get(f"{api_version}/{kind}")


def round_trip(obj: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """``obj`` as it comes back from its kind's Go type; unchanged if the kind has none."""
    definition = definition_of(api_version, kind)
    if definition is None:
        return obj
    return to_unstructured(from_unstructured(obj, definition), definition)


def from_unstructured(obj: dict[str, Any], definition: str) -> dict[str, Any]:
    """FromUnstructured: the Go value of ``obj`` as a struct of ``definition`` (a fresh value but
    for FieldsV1, shared: structs as dicts holding every field, nil as NIL; ``obj`` is not touched)."""
    return _decoded(obj, {"shape": "struct", "definition": definition})


def from_unstructured_after_round_trip(obj: dict[str, Any], definition: str) -> dict[str, Any]:
    """``from_unstructured(round_trip(obj))`` in one pass: the Go value as the server decodes the
    JSON its Go type wrote of ``obj`` (an ``omitempty`` member that is empty comes back as its
    zero value, nil for a slice or map; a type with its own encoding holds its zero's encoding)."""
    return _round_tripped_struct(obj, definition)


def to_unstructured(value: dict[str, Any], definition: str) -> dict[str, Any]:
    """ToUnstructured: the JSON object of a Go struct of ``definition``."""
    return _encoded(value, {"shape": "struct", "definition": definition})


def through_storage(obj: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """``obj`` (as its Go type writes it) as storage gives it back: a built-in object is stored as
    protobuf, which has no empty slice or map apart from nil, so one that is not ``omitempty``
    comes back null (``rules: []`` as ``rules: null``). A new object where a member changes.

    Go twin: the generated protobuf Unmarshal (k8s.io/api/*/generated.pb.go) leaves a repeated
    field or a map with no entries nil."""
    definition = definition_of(api_version, kind)
    if definition is None:
        return obj
    return _emptied_to_nil(obj, {"shape": "struct", "definition": definition})


def _emptied_to_nil(value: Any, shape: Shape) -> Any:
    kind = shape["shape"]
    if kind == "pointer":
        return _emptied_to_nil(value, shape["elem"])
    if kind == "struct" and isinstance(value, dict):
        out = value
        for name, field_kind, _, field in _layout(shape["definition"]):
            member = value.get(name)
            if field_kind in ("slice", "map") and member in ([], {}) and type(member) is (
                    list if field_kind == "slice" else dict):
                changed = None
            elif isinstance(member, (dict, list)):
                changed = _emptied_to_nil(member, field)
            else:
                continue
            if changed is not member:
                out = dict(out) if out is value else out
                out[name] = changed
        return out
    if kind == "slice" and isinstance(value, list):
        items = [_emptied_to_nil(item, shape["elem"]) for item in value]
        return items if any(new is not old for new, old in zip(items, value, strict=True)) else value
    if kind == "map" and isinstance(value, dict):
        members = {key: _emptied_to_nil(item, shape["elem"]) for key, item in value.items()}
        return members if any(members[key] is not value[key] for key in value) else value
    return value


def fields(definition: str) -> list[dict[str, Any]]:
    """The fields of the struct ``definition``, each with its JSON name and shape."""
    return _go_types()["definitions"][definition]


def is_pointer_field(definition: str, name: str) -> bool:
    """Whether the struct ``definition``'s field of JSON name ``name`` is a pointer (False for a
    struct or field go-types.json does not have)."""
    return any(field["name"] == name and field["shape"] == "pointer"
               for field in _go_types()["definitions"].get(definition, ()))


def struct_definitions() -> Mapping[str, list[dict[str, Any]]]:
    """Every struct modelled, by definition name: its fields."""
    return _go_types()["definitions"]


# A struct field's shape as the walks below read it: (name, shape kind, omitempty, its shape).
Layout = tuple[tuple[str, str, bool, Shape], ...]
# Kinds held by a pointer, slice or map and nil (NIL) when absent; scalars' Python types copied by reference.
_NILABLE = frozenset({"pointer", "slice", "map", "bytes"})
_SCALAR_VALUES = frozenset({str, int, float, bool})


@functools.cache
def _layout(definition: str) -> Layout:
    """A struct's fields, read once per definition instead of once per value."""
    return tuple((field["name"], field["shape"], bool(field.get("omitempty")), field) for field in fields(definition))


_BASE64_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


class InvalidBytes(ValueError):
    """Text encoding/json cannot read as ``[]byte`` (base64.CorruptInputError's words)."""


def go_bytes(text: str) -> str:
    """A ``[]byte`` read from JSON text and written back (encoding/json: base64.StdEncoding, which
    skips CR and LF and ignores the unused bits of the last character): ``"YWRt\\naW4="`` is
    ``"YWRtaW4="``, ``"cB=="`` is ``"cA=="``. Text it cannot read raises :class:`InvalidBytes`."""
    position = _corrupt_base64_at(text.encode("utf-8", "surrogatepass"))
    if position is not None:
        raise InvalidBytes(f"illegal base64 data at input byte {position}")
    joined = text.replace("\r", "").replace("\n", "")
    return base64.b64encode(base64.b64decode(joined)).decode("ascii")


def _corrupt_base64_at(src: bytes) -> int | None:
    """Where base64.StdEncoding.Decode (encoding/base64 decodeQuantum) finds ``src`` corrupt; None if it does not."""
    si, end = 0, len(src)
    newline = (ord("\n"), ord("\r"))
    pad = ord("=")
    while True:
        j = 0
        while j < 4:
            if si == end:
                return None if j == 0 else si - j
            char = src[si]
            si += 1
            if char in _BASE64_ALPHABET:
                j += 1
                continue
            if char in newline:
                continue
            if char != pad or j < 2:
                return si - 1
            if j == 2:  # "==" expected: the second, past line breaks
                while si < end and src[si] in newline:
                    si += 1
                if si == end:
                    return end
                if src[si] != pad:
                    return si - 1
                si += 1
            while si < end and src[si] in newline:
                si += 1
            return si if si < end else None  # anything after the padding is corrupt


class _Zero:
    """The zero value of a type with its own encoding (an absent metav1.Time, IntOrString...)."""

    def __init__(self, shape: Shape) -> None:
        self.encoded = shape["zero"]


def _decoded(value: Any, shape: Shape) -> Any:
    """FromUnstructured: the Go value, with structs as dicts holding every field and nil as NIL."""
    kind = shape["shape"]
    if kind == "struct":
        return _decoded_struct(value, shape["definition"])
    if value is None:
        return SCALAR_ZEROS.get(kind, NIL) if kind != "opaque" else _Zero(shape)
    if kind == "pointer":
        return _decoded(value, shape["elem"])
    if kind == "slice" and isinstance(value, list):
        return [_decoded(item, shape["elem"]) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {key: _decoded(item, shape["elem"]) for key, item in value.items()}
    if kind == "bytes" and isinstance(value, str):
        return go_bytes(value)
    if type(value) in _SCALAR_VALUES or shape.get("named") == FIELDS_V1:
        return value
    return json_copy(value)  # a scalar or a type with its own encoding


def _decoded_struct(value: Any, definition: str) -> dict[str, Any]:
    members = value if isinstance(value, dict) else {}
    out = {}
    for name, kind, _, field in _layout(definition):
        member = members.get(name)
        if member is None and kind in SCALAR_ZEROS:
            out[name] = SCALAR_ZEROS[kind]
        elif member is None and kind in _NILABLE:
            out[name] = NIL
        elif type(member) in _SCALAR_VALUES and kind in SCALAR_ZEROS:
            out[name] = member
        else:
            out[name] = _decoded(member, field)
    return out


def _round_tripped(value: Any, shape: Shape) -> Any:
    """_decoded(_encoded(_decoded(value))): what decoding again reads of what encoding wrote."""
    kind = shape["shape"]
    if kind == "struct":
        return _round_tripped_struct(value, shape["definition"])
    if value is None:
        if kind == "opaque":  # its zero, encoded, read back
            return _Zero(shape) if shape["zero"] is None else _decoded(shape["zero"], shape)
        return SCALAR_ZEROS.get(kind, NIL)
    if kind == "pointer":
        return _round_tripped(value, shape["elem"])
    if kind == "slice" and isinstance(value, list):
        return [_round_tripped(item, shape["elem"]) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {key: _round_tripped(item, shape["elem"]) for key, item in value.items()}
    return _decoded(value, shape)  # a scalar, bytes or a type with its own encoding: read as written


# How ``omitempty`` judges a field of each kind (converter.go isZero), read once per struct.
_NEVER_EMPTY, _EMPTY_IF_ZERO, _EMPTY_IF_NIL, _EMPTY_IF_NIL_OR_NONE = range(4)


@functools.cache
def _struct_fields(definition: str) -> tuple[tuple[str, str, int, Shape, Any], ...]:
    """A struct's fields for the round trip and the encoding: (name, kind, how omitempty judges it or
    _NEVER_EMPTY, shape, the value an absent member reads as: its zero, NIL, or the shape itself for
    a struct or opaque). A struct is never empty, nor a type with its own encoding."""
    fields = []
    for name, kind, omitempty, field in _layout(definition):
        if not omitempty or kind in ("struct", "opaque"):
            emptiness = _NEVER_EMPTY
        elif kind in SCALAR_ZEROS:
            emptiness = _EMPTY_IF_ZERO
        elif kind == "pointer":
            emptiness = _EMPTY_IF_NIL
        else:
            emptiness = _EMPTY_IF_NIL_OR_NONE
        absent = SCALAR_ZEROS.get(kind, NIL if kind in _NILABLE else field)
        fields.append((name, kind, emptiness, field, absent))
    return tuple(fields)


def _omitted(value: Any, emptiness: int, zero: Any) -> bool:
    """What ``omitempty`` leaves out, judged as _struct_fields says."""
    if emptiness == _EMPTY_IF_ZERO:
        return value == zero
    if emptiness == _EMPTY_IF_NIL:
        return value is NIL
    if emptiness == _EMPTY_IF_NIL_OR_NONE:
        return value is NIL or len(value) == 0
    return False


@functools.cache
def _round_trip_plan(definition: str) -> tuple[dict[str, Any], tuple[tuple[str, Shape], ...], dict[str, tuple]]:
    """A struct's round trip laid out once: every field as it reads when absent, in field order (None
    for a struct or a type with its own encoding, made afresh per value); those fields; and each
    field by name, as _struct_fields has it."""
    fields = _struct_fields(definition)
    absent_values = {name: None if absent is field else absent for name, _, _, field, absent in fields}
    made = tuple((name, field) for name, _, _, field, absent in fields if absent is field)
    by_name = {name: (kind, emptiness, field, absent) for name, kind, emptiness, field, absent in fields}
    return absent_values, made, by_name


_NO_MEMBERS: dict[str, Any] = {}


def _round_tripped_struct(value: Any, definition: str) -> dict[str, Any]:
    absent_values, made, by_name = _round_trip_plan(definition)
    members = value if isinstance(value, dict) else _NO_MEMBERS
    # Absent members read as their zeros, which omitempty leaves as they are: copied in one go, so
    # only the members an object has (a few of a struct's dozens of fields) are judged one by one.
    out = absent_values.copy()
    for name, field in made:
        if members.get(name) is None:
            out[name] = _round_tripped(None, field)
    for name, member in members.items():
        found = by_name.get(name) if member is not None else None
        if found is None:  # absent (null), or not a field of the struct: dropped as Go drops it
            continue
        kind, emptiness, field, absent = found
        if type(member) in _SCALAR_VALUES and kind in SCALAR_ZEROS:
            out[name] = absent if emptiness == _EMPTY_IF_ZERO and member == absent else member
            continue
        member = _round_tripped(member, field)
        out[name] = absent if _omitted(member, emptiness, absent) else member
    return out


def _encoded(value: Any, shape: Shape) -> Any:
    """ToUnstructured: the JSON value of a Go value."""
    kind = shape["shape"]
    if isinstance(value, _Zero):
        return value.encoded
    if kind == "struct":
        return _encoded_struct(value, shape["definition"])
    if value is NIL:
        return None
    if kind == "pointer":
        return _encoded(value, shape["elem"])
    if kind == "slice" and isinstance(value, list):
        return [_encoded(item, shape["elem"]) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {key: _encoded(item, shape["elem"]) for key, item in value.items()}
    return value


def _encoded_struct(value: dict[str, Any], definition: str) -> dict[str, Any]:
    out = {}
    # Most fields of a Go value are nil or omitempty scalars: judged here, as _omitted would, without a call.
    for name, kind, emptiness, field, zero in _struct_fields(definition):
        member = value[name]
        if member is NIL:
            if emptiness < _EMPTY_IF_NIL:
                out[name] = None
        elif emptiness == _EMPTY_IF_ZERO:
            if member != zero:
                out[name] = member
        elif emptiness == _NEVER_EMPTY or not _omitted(member, emptiness, zero):
            out[name] = member if kind in SCALAR_ZEROS else _encoded(member, field)
    return out


def zero_struct(definition: str) -> GoStruct:
    """``T{}`` for the struct ``definition``: every field at its zero value."""
    return from_unstructured({}, definition)


def is_zero(value: Any) -> bool:
    """Go's comparison with the zero value for a scalar, pointer, slice or map (a struct is never zero here)."""
    if isinstance(value, _Zero):
        return True
    if isinstance(value, bool):
        return value is False
    return value is None or value == "" or (isinstance(value, (int, float)) and value == 0)


def is_empty(value: Any) -> bool:
    """``len(x) == 0`` for a string, slice or map (nil included)."""
    return value is None or len(value) == 0


def int_or_string_is_zero(value: Any) -> bool:
    """``x == intstr.FromInt32(0) || x == intstr.FromString("")``."""
    return isinstance(value, _Zero) or value == "" or (not isinstance(value, bool) and value == 0)
