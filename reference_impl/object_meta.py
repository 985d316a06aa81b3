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

from patchconf.reference_impl.errors import InvalidDocument
from patchconf.reference_impl.govalue.decoded import INT64_MAX, INT64_MIN

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

RFC3339 = "2006-01-02T15:04:05Z07:00"


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


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


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
            raise _TimeFailed(_mismatch(_json_kind(value), struct, path, "string"))
        failure = rfc3339_error(value)
        if failure:
            raise _TimeFailed(failure)
        return
    if kind == "string":
        if not isinstance(value, str):
            remembered.append(_mismatch(_json_kind(value), struct, path, go_type[1]))
    elif kind == "bool":
        if not isinstance(value, bool):
            remembered.append(_mismatch(_json_kind(value), struct, path, go_type[1]))
    elif kind == "int64":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            remembered.append(_mismatch(_json_kind(value), struct, path, go_type[1]))
        elif isinstance(value, float) or not INT64_MIN <= value <= INT64_MAX:
            remembered.append(_mismatch(f"number {json.dumps(value)}", struct, path, go_type[1]))
    elif kind == "map":
        if not isinstance(value, dict):
            remembered.append(_mismatch(_json_kind(value), struct, path, go_type[1]))
            return
        for item in value.values():
            _decode(item, STRING, struct, path, remembered)
    elif kind == "list":
        if not isinstance(value, list):
            remembered.append(_mismatch(_json_kind(value), struct, path, go_type[1]))
            return
        for item in value:
            _decode(item, go_type[2], struct, path, remembered)
    else:  # a struct
        if not isinstance(value, dict):
            remembered.append(_mismatch(_json_kind(value), struct, path, go_type[1]))
            return
        members = go_type[3]
        for name, item in value.items():
            if name in members:
                _decode(item, members[name], go_type[2], (*path, name), remembered)


def rfc3339_error(text: str) -> str | None:
    """Go's ``time.Parse(time.RFC3339, text)`` error message, or None when it parses."""
    value = text.encode("utf-8")
    rest = value

    def cannot_parse(element: str, at: bytes) -> str:
        return (f"parsing time {_quote(value)} as {_quote(RFC3339.encode())}: "
                f"cannot parse {_quote(at)} as {_quote(element.encode())}")

    def out_of_range(what: str) -> str:
        return f"parsing time {_quote(value)}: {what} out of range"

    def number(at: bytes, fixed: bool) -> tuple[int, bytes] | None:
        if not _digit(at, 0):
            return None
        if not _digit(at, 1):
            return None if fixed else (at[0] - 48, at[1:])
        return (at[0] - 48) * 10 + at[1] - 48, at[2:]

    def separator(char: str, at: bytes) -> bytes:
        if not at or at[0] != ord(char):
            raise _Bad(cannot_parse(char, at))
        return at[1:]

    try:
        if len(rest) < 4 or not all(_digit(rest, i) for i in range(4)):
            raise _Bad(cannot_parse("2006", rest))
        year, rest = int(rest[:4]), rest[4:]
        rest = separator("-", rest)
        parsed = number(rest, True)
        if parsed is None:
            raise _Bad(cannot_parse("01", rest))
        month, rest = parsed
        if not 1 <= month <= 12:
            return out_of_range("month")
        rest = separator("-", rest)
        parsed = number(rest, True)
        if parsed is None:
            raise _Bad(cannot_parse("02", rest))
        day, rest = parsed
        rest = separator("T", rest)
        parsed = number(rest, False)
        if parsed is None:
            raise _Bad(cannot_parse("15", rest))
        hour, rest = parsed
        if hour >= 24:
            return out_of_range("hour")
        for element, what in (("04", "minute"), ("05", "second")):
            rest = separator(":", rest)
            parsed = number(rest, True)
            if parsed is None:
                raise _Bad(cannot_parse(element, rest))
            amount, rest = parsed
            if amount >= 60:
                return out_of_range(what)
        if len(rest) >= 2 and rest[0] in b".," and _digit(rest, 1):  # a fraction the layout does not show
            end = 2
            while _digit(rest, end):
                end += 1
            rest = rest[end:]
        if rest[:1] == b"Z":
            rest = rest[1:]
        else:
            if len(rest) < 6 or rest[3] != ord(":"):
                raise _Bad(cannot_parse("Z07:00", rest))
            offset_hour, offset_minute = number(rest[1:3], True), number(rest[4:6], True)
            if offset_hour is not None and offset_minute is not None and offset_minute[0] > 60:
                return out_of_range("time zone offset minute")  # Go's later check wins
            if offset_hour is not None and offset_hour[0] > 24:
                return out_of_range("time zone offset hour")
            if offset_hour is None or offset_minute is None or rest[0] not in b"+-":
                raise _Bad(cannot_parse("Z07:00", rest))
            rest = rest[6:]
        if rest:
            return f"parsing time {_quote(value)}: extra text: {_quote(rest)}"
    except _Bad as bad:
        return str(bad)
    if not 1 <= day <= _days_in(month, year):
        return f"parsing time {_quote(value)}: day out of range"
    return None


class _Bad(Exception):
    pass


def _digit(text: bytes, index: int) -> bool:
    return index < len(text) and 48 <= text[index] <= 57


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _quote(text: bytes) -> str:
    """Go's time.quote: double quotes, '"' and '\\' escaped, bytes of non-ASCII or control
    characters as \\xNN."""
    out = ['"']
    for char in text.decode("utf-8", "surrogateescape"):
        if ord(char) >= 0x80 or ord(char) < 0x20:
            out.extend(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogateescape"))
        else:
            out.append("\\" + char if char in '"\\' else char)
    out.append('"')
    return "".join(out)
