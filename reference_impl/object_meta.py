"""kubectl's check that a file's metadata reads as ``ObjectMeta``.

kubectl reads each object of a file (``-f``) through cli-runtime's resource builder. Its
decoder (``metadataValidatingDecoder``, k8s.io/cli-runtime pkg/resource/metadata_decoder.go)
reads the object as ``Unstructured`` and then decodes the same bytes once more into a
``TypeMeta`` and an ``ObjectMeta`` (``metadata``), refusing the file when that fails: a
label value that is a number, ``metadata: 5``, a ``generation`` of ``2.0``, a
``creationTimestamp`` that is no RFC 3339 time. The decoding is sigs.k8s.io/json's
(encoding/json, member names matched case-sensitively), so:

- a member of the wrong JSON type is remembered and decoding goes on; the first one is
  reported, as ``json: cannot unmarshal <what> into Go struct field <Struct>.<path> of
  type <Go type>`` (``<what>`` is ``number 2.0`` for a number an integer field cannot hold);
- a time (``metav1.Time``, its own ``UnmarshalJSON``) that fails stops decoding at once, and
  its error is the one reported, whatever was remembered before;
- ``null`` is accepted anywhere, and members ObjectMeta does not have are ignored.

The result of a patch is not checked (kubectl decodes it as ``Unstructured`` alone).
"""

from __future__ import annotations

import json
from typing import Any

from .errors import InvalidDocument
from .govalue.decoded import INT64_MAX, INT64_MIN
from .govalue.encoding_json import json_kind
from .govalue.time import rfc3339_error

# Go types of the members decoded: ("string"|"int64"|"bool"|"time"|"raw", name in messages),
# ("map", name) of strings, ("list", name, element), ("struct", name, members).
STRING = ("string", "string")
INT64 = ("int64", "int64")
BOOL = ("bool", "bool")
TIME = ("time", "string")  # metav1.Time: a JSON string its UnmarshalJSON parses as RFC 3339
UID = ("string", "types.UID")
RAW = ("raw", "")  # metav1.FieldsV1 keeps whatever JSON it is given

OWNER_REFERENCE = ("struct", "v1.OwnerReference", "OwnerReference", {
    "apiVersion": STRING, "kind": STRING, "name": STRING, "uid": UID,
    "controller": BOOL, "blockOwnerDeletion": BOOL,
})
MANAGED_FIELDS_ENTRY = ("struct", "v1.ManagedFieldsEntry", "ManagedFieldsEntry", {
    "manager": STRING, "operation": ("string", "v1.ManagedFieldsOperationType"), "apiVersion": STRING,
    "time": TIME, "fieldsType": STRING, "fieldsV1": RAW, "subresource": STRING,
})
OBJECT_META = ("struct", "v1.ObjectMeta", "ObjectMeta", {
    "name": STRING, "generateName": STRING, "namespace": STRING, "selfLink": STRING, "uid": UID,
    "resourceVersion": STRING, "generation": INT64, "creationTimestamp": TIME, "deletionTimestamp": TIME,
    "deletionGracePeriodSeconds": INT64,
    "labels": ("map", "map[string]string"), "annotations": ("map", "map[string]string"),
    "ownerReferences": ("list", "[]v1.OwnerReference", OWNER_REFERENCE),
    "finalizers": ("list", "[]string", STRING),
    "managedFields": ("list", "[]v1.ManagedFieldsEntry", MANAGED_FIELDS_ENTRY),
})
# TypeMeta's members are promoted into the object cli-runtime decodes (json:"" embeds them).
METADATA_ONLY_OBJECT = ("struct", "metadataOnlyObject", "metadataOnlyObject", {
    "apiVersion": STRING, "kind": STRING, "metadata": OBJECT_META,
})



class _TimeFailed(Exception):
    """A metav1.Time's UnmarshalJSON failed: decoding stops with this message."""


def check_readable_metadata(document: dict) -> None:
    """Raise InvalidDocument as kubectl refuses a file whose object ``document`` (already read
    as ``Unstructured``) does not decode into ``metadataOnlyObject``."""
    remembered: list[str] = []
    try:
        _decode(document, METADATA_ONLY_OBJECT, "metadataOnlyObject", (), remembered)
    except _TimeFailed as exc:
        raise InvalidDocument(str(exc)) from None
    if remembered:
        raise InvalidDocument(remembered[0])


def _mismatch(what: str, struct: str, path: tuple[str, ...], go_type: str) -> str:
    return f"json: cannot unmarshal {what} into Go struct field {struct}.{'.'.join(path)} of type {go_type}"


def _decode(value: Any, go_type: tuple, struct: str, path: tuple[str, ...], remembered: list[str]) -> None:
    """Decode ``value`` into ``go_type`` as encoding/json would; ``struct`` and ``path`` are the
    innermost struct and the member names so far, as its errors name them."""
    if value is None:
        return
    kind = go_type[0]
    if kind == "raw":
        return
    if kind == "time":
        if not isinstance(value, str):
            raise _TimeFailed(_mismatch(json_kind(value), struct, path, "string"))
        failure = rfc3339_error(value)
        if failure:
            raise _TimeFailed(failure)
        return
    if kind == "string":
        if not isinstance(value, str):
            remembered.append(_mismatch(json_kind(value), struct, path, go_type[1]))
    elif kind == "bool":
        if not isinstance(value, bool):
            remembered.append(_mismatch(json_kind(value), struct, path, go_type[1]))
    elif kind == "int64":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            remembered.append(_mismatch(json_kind(value), struct, path, go_type[1]))
        elif isinstance(value, float) or not INT64_MIN <= value <= INT64_MAX:
            remembered.append(_mismatch(f"number {json.dumps(value)}", struct, path, go_type[1]))
    elif kind == "map":
        if not isinstance(value, dict):
            remembered.append(_mismatch(json_kind(value), struct, path, go_type[1]))
            return
        for item in value.values():
            _decode(item, STRING, struct, path, remembered)
    elif kind == "list":
        if not isinstance(value, list):
            remembered.append(_mismatch(json_kind(value), struct, path, go_type[1]))
            return
        for item in value:
            _decode(item, go_type[2], struct, path, remembered)
    else:  # a struct
        if not isinstance(value, dict):
            remembered.append(_mismatch(json_kind(value), struct, path, go_type[1]))
            return
        members = go_type[3]
        for name, item in value.items():
            if name in members:
                _decode(item, members[name], go_type[2], (*path, name), remembered)
