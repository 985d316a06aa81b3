"""JSON Patch (RFC 6902), exactly as Kubernetes applies it.

kubectl and the apiserver apply JSON Patch with ``gopkg.in/evanphx/json-patch.v4`` v4.12.0.
This module reproduces that library's outcomes and its error wording, including where it
departs from RFC 6902:

- Array indices are read like Go's ``strconv.Atoi``: ``01`` and ``+1`` mean 1; negative
  indices count from the end (``-1`` is the last element for get/remove/replace, and the
  end of the array for ``add``).
- A path's first token is whatever precedes its first ``/`` and is ignored, so ``a/b``
  means ``/b``; a path without any ``/`` (the root path ``""`` too) is "missing" for
  ``add``, ``remove``, ``move`` and ``copy``.
- ``add`` and ``replace`` without ``value`` write ``null``; ``replace`` of an object
  member that does not exist adds it; ``replace`` of the root with a scalar does nothing.
- ``copy`` from a missing object member copies ``null``; ``test`` of a missing member
  against ``null`` passes.
- A ``null`` written by ``add`` or ``replace`` with ``"value": null`` is not the ``null`` of
  a parsed document: the library holds it as a node without text, which as an object's
  member equals nothing (a ``test`` of ``{"a": null}`` after ``add /a null`` fails), and a
  ``copy`` of it is the text ``null``, which tests equal to ``{}`` and not to ``null``.
- Only ``~0`` and ``~1`` are escapes; any other ``~`` is kept as it is.
- A ``null`` patch is an empty patch.
- A ``null`` document reads as an empty object until something writes into it, and a
  patch that only reads (or fails) leaves it ``null``.

Where the library crashes (a Go nil-pointer panic: ``test`` or root ``replace`` without
``value``, ``test`` comparing arrays that hold ``null``, writing through a ``null`` that
an earlier op added) we give the RFC 6902 outcome and, for the missing ``value``, say in
the message that upstream panics. Writing into a ``null`` document (upstream: "assignment
to entry in nil map") is refused with an :class:`InvalidDocument` saying so.

The document and the patch are never mutated; the result shares nothing with either. A
failing patch raises and leaves no partial result behind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import jsonpointer
from .errors import (
    InvalidDocument,
    InvalidIndex,
    InvalidPatch,
    PatchError,
    PathNotFound,
    TestFailed,
)
from .govalue.encoding_json import json_kind
from .govalue.runtime import NIL_POINTER_DEREFERENCE
from .govalue.strconv import NumError, parse_int

Json = Any
Container = dict[str, Json] | list[Json]

# An op without a "value" member. Upstream tells it apart from "value": null.
_ABSENT: Any = object()

UPSTREAM_PANIC = f"upstream panics: {NIL_POINTER_DEREFERENCE}"
NIL_MAP_PANIC = "upstream panics: assignment to entry in nil map"


def apply(document: Json, patch: Json) -> Json:
    """The result of applying JSON Patch ``patch`` to ``document``, as Kubernetes does.

    ``document`` must be an object, an array or ``null``; ``patch`` a list of operation objects
    (or ``None``, which upstream reads as an empty patch). Raises a
    :class:`~patchconf.reference_impl.errors.PatchError` at the first operation that fails.
    """
    operations = decode(patch)
    root = _working_copy(document)
    for operation in operations:
        root = operation.apply(root)
    if isinstance(root, _NullDocument):
        return None
    if any(operation.writes_null_node for operation in operations):
        root = _plain(root)
    return root


def decode(patch: Json) -> list[Operation]:
    """The operations of ``patch``, checked for shape only, as upstream's ``DecodePatch``.

    Members of each operation are read when it runs, so that errors surface in the order
    upstream reports them.
    """
    if patch is None:
        return []
    if not isinstance(patch, list):
        raise InvalidPatch(_unmarshal_error(patch, "jsonpatch.Patch"))
    for spec in patch:
        if spec is not None and not isinstance(spec, Mapping):
            raise InvalidPatch(_unmarshal_error(spec, "jsonpatch.Operation"))
    return [_operation(spec or {}) for spec in patch]


def _operation(spec: Mapping[str, Json]) -> Operation:
    kind = spec.get("op")
    if not isinstance(kind, str):
        kind = "unknown"  # upstream's name for a missing, null or non-string "op"
    return OPERATIONS.get(kind, UnknownOperation)(spec, kind)


def _working_copy(document: Json) -> Container:
    if isinstance(document, dict | list):
        return _plain(document)  # our own copy (a document holds no null nodes)
    if document is None:
        return _NullDocument()
    raise InvalidDocument(_unmarshal_error(document, "jsonpatch.partialDoc"))


class _NullDocument(dict):
    """A ``null`` document as upstream holds it: a nil Go map.

    It reads as an empty object (absent members are null, a root ``test`` against ``{}``
    passes), a patch that only reads leaves it ``null``, and a root ``replace`` swaps it
    for a real container. Writing into it makes upstream panic; we refuse instead.
    """

    def __setitem__(self, key: str, value: Json) -> None:
        raise InvalidDocument(f"cannot write into a null document ({NIL_MAP_PANIC})", "/" + jsonpointer.escape(key))


class Operation:
    """One step of a JSON Patch; a subclass per ``op``."""

    def __init__(self, spec: Mapping[str, Json], kind: str) -> None:
        self.spec = spec
        self.kind = kind
        # add/replace with "value": null write a null node; a copy may copy one
        self.writes_null_node = kind in ("add", "replace") and "value" in spec and spec["value"] is None

    def apply(self, root: Container) -> Container:
        """Apply this step to ``root`` in place; return the root, new only after a root replace."""
        raise NotImplementedError

    def _pointer(self, member: str, *, detailed: bool) -> str:
        """The pointer in ``member`` ("path" or "from"), or the error upstream gives for it.

        Upstream words the error differently per op: some say why the member is unusable,
        some only say "missing value".
        """
        value = self.spec.get(member)
        if isinstance(value, str):
            return value
        if not detailed:
            reason = "missing value"
        elif value is None:
            reason = {
                "path": "operation missing path field: missing value",
                "from": "operation, missing from field: missing value",
            }[member]
        else:
            reason = _unmarshal_error(value, "string")
        raise InvalidPatch(f"{self.kind} operation failed to decode {member}: {reason}")

    def _value_or_null(self) -> Json:
        """A private copy of "value"; ``null`` when it is absent, as upstream writes then,
        and the written null node for ``"value": null``."""
        value = self.spec.get("value", _ABSENT)
        if value is None:
            return WRITTEN_NULL
        return None if value is _ABSENT else _plain(value)


class AddOperation(Operation):
    def apply(self, root: Container) -> Container:
        path = self._pointer("path", detailed=False)
        container, key = _parent(root, path, f'add operation does not apply: doc is missing path: "{path}"')
        try:
            _insert(container, key, self._value_or_null())
        except PatchError as error:
            raise _wrapped(error, f"error in add for path: '{path}'", path) from None
        return root


class RemoveOperation(Operation):
    def apply(self, root: Container) -> Container:
        path = self._pointer("path", detailed=False)
        container, key = _parent(root, path, f'remove operation does not apply: doc is missing path: "{path}"')
        try:
            _delete(container, key)
        except PatchError as error:
            raise _wrapped(error, f"error in remove for path: '{path}'", path) from None
        return root


class ReplaceOperation(Operation):
    def apply(self, root: Container) -> Container:
        path = self._pointer("path", detailed=True)
        if path == jsonpointer.ROOT:
            return self._replace_root(root)
        container, key = _parent(root, path, f"replace operation does not apply: doc is missing path: {path}")
        try:
            # Upstream only checks that the key can be read. An absent object member reads
            # as null, so replacing it adds it; only a bad array index fails here.
            _get(container, key)
        except PatchError:
            message = f"replace operation does not apply: doc is missing key: {path}: missing value"
            raise PathNotFound(message, path) from None
        _overwrite(container, key, self._value_or_null())
        return root

    def _replace_root(self, root: Container) -> Container:
        value = self.spec.get("value", _ABSENT)
        if value is _ABSENT:
            raise InvalidPatch(f"replace operation has no value ({UPSTREAM_PANIC})", jsonpointer.ROOT)
        if isinstance(value, dict | list):
            return _plain(value)
        # Upstream means to refuse a scalar or null root, but wraps a nil error into its
        # "must be object or array" message, which yields no error: nothing changes.
        return root


class MoveOperation(Operation):
    def apply(self, root: Container) -> Container:
        source = self._pointer("from", detailed=True)
        container, key = _parent(root, source, f"move operation does not apply: doc is missing from path: {source}")
        try:
            value = _get(container, key)
            _delete(container, key)
        except PatchError as error:
            # Upstream names only the last token of "from" here.
            raise _wrapped(error, f"error in move for path: '{key}'", source) from None
        # Read after the removal, so a move into the moved node's own child is "missing".
        path = self._pointer("path", detailed=True)
        container, key = _parent(root, path, f"move operation does not apply: doc is missing destination path: {path}")
        try:
            _insert(container, key, value)
        except PatchError as error:
            raise _wrapped(error, f"error in move for path: '{path}'", path) from None
        return root


class CopyOperation(Operation):
    def apply(self, root: Container) -> Container:
        source = self._pointer("from", detailed=True)
        container, key = _parent(root, source, f"copy operation does not apply: doc is missing from path: {source}")
        try:
            # An absent object member reads as null, and null is what gets copied.
            value = _get(container, key)
        except PatchError as error:
            raise _wrapped(error, f"error in copy for from: '{source}'", source) from None
        path = self._pointer("path", detailed=False)
        container, key = _parent(root, path, f"copy operation does not apply: doc is missing destination path: {path}")
        try:
            _insert(container, key, _copied(value))
        except PatchError as error:
            raise _wrapped(error, "error while adding value during copy", path) from None
        return root


class TestOperation(Operation):
    __test__ = False  # not a pytest test class

    def apply(self, root: Container) -> Container:
        path = self._pointer("path", detailed=True)
        expected = self.spec.get("value", _ABSENT)
        if path == jsonpointer.ROOT:
            actual: Json = root
        else:
            container, key = _parent(root, path, f"test operation does not apply: is missing path: {path}")
            try:
                # An absent object member reads as null, so it passes a test against null.
                actual = _get(container, key)
            except PatchError as error:
                raise _wrapped(error, f"error in test for path: '{path}'", path) from None
        if expected is _ABSENT and (actual is None or path == jsonpointer.ROOT):
            raise InvalidPatch(f"test operation has no value ({UPSTREAM_PANIC})", path)
        if expected is _ABSENT or not (_equal(actual, expected) if path == jsonpointer.ROOT
                                       else _value_equal(actual, expected)):
            raise TestFailed(f"testing value {path} failed: test failed", path)
        return root


class UnknownOperation(Operation):
    def apply(self, root: Container) -> Container:
        path = self.spec.get("path")
        raise InvalidPatch(f"Unexpected kind: {self.kind}", path if isinstance(path, str) else "")


OPERATIONS: dict[str, type[Operation]] = {
    "add": AddOperation,
    "remove": RemoveOperation,
    "replace": ReplaceOperation,
    "move": MoveOperation,
    "copy": CopyOperation,
    "test": TestOperation,
}


def _parent(root: Container, path: str, missing: str) -> tuple[Container, str]:
    """The container that holds (or would hold) the node at ``path``, and the node's key.

    Raises :class:`PathNotFound` with message ``missing`` when upstream finds no container.
    Upstream skips whatever precedes the first "/" instead of requiring it to be empty, and
    finds no container at all for a path without "/", the root path "" included.
    """
    tokens = path.split("/")
    if len(tokens) < 2:
        raise PathNotFound(f"{missing}: missing value", path)
    node: Json = root
    for token in tokens[1:-1]:
        try:
            node = _get(node, jsonpointer.unescape(token))
        except PatchError:
            node = None
        # A null, a scalar or an absent member cannot be walked through.
        if not isinstance(node, dict | list):
            raise PathNotFound(f"{missing}: missing value", path)
    return node, jsonpointer.unescape(tokens[-1])


def _get(container: Container, key: str) -> Json:
    """The child at ``key``; an absent object member reads as null, as upstream's nil."""
    if isinstance(container, dict):
        return container.get(key)
    return container[_existing_index(container, key)]


def _insert(container: Container, key: str, value: Json) -> None:
    if isinstance(container, dict):
        container[key] = value
    else:
        container.insert(_insertion_index(container, key), value)


def _overwrite(container: Container, key: str, value: Json) -> None:
    if isinstance(container, dict):
        container[key] = value
    else:
        container[_existing_index(container, key)] = value


def _delete(container: Container, key: str) -> None:
    if isinstance(container, dict):
        if key not in container:
            raise PathNotFound(f"Unable to remove nonexistent key: {key}: missing value")
        del container[key]
    else:
        del container[_existing_index(container, key)]


def _existing_index(array: list[Json], token: str) -> int:
    """The position of an existing element; negative indices count from the end."""
    index = _atoi(token)
    if not -len(array) <= index < len(array):
        raise _invalid_index(index)
    return index % len(array)


def _insertion_index(array: list[Json], token: str) -> int:
    """Where ``add`` inserts: ``-`` or ``len`` append, and ``-1`` appends too.

    Negative indices count from the end of the array as it will be after the insertion.
    """
    if token == "-":
        return len(array)
    try:
        index = _atoi(token)
    except InvalidIndex as error:
        raise InvalidIndex(f"value was not a proper array index: '{token}': {error.message}") from None
    size = len(array) + 1
    if not -size <= index < size:
        raise _invalid_index(index)
    return index % size


def _atoi(token: str) -> int:
    """``token`` read as Go's ``strconv.Atoi`` reads it: a sign, ASCII digits, 64 bits."""
    try:
        return parse_int(token, "Atoi")
    except NumError as error:
        raise InvalidIndex(str(error)) from None


def _invalid_index(index: int) -> InvalidIndex:
    return InvalidIndex(f"Unable to access invalid index: {index}: invalid index referenced")


def _equal(actual: Json, expected: Json) -> bool:
    """Upstream's equality for ``test``: member order is irrelevant, types are not.

    Upstream compares scalars by their compacted JSON text, so ``1`` and ``1.0`` differ
    (and ``100`` and ``1e2``, ``"A"`` and ``"\\u0041"``). Parsed values still tell an int
    from a float, which we honour; text-only differences are gone, and compare equal here.
    Upstream panics on arrays holding ``null``; we compare them as RFC 6902 says.
    """
    if isinstance(actual, dict):
        return (
            isinstance(expected, dict)
            and actual.keys() == expected.keys()
            and all(_member_equal(value, expected[key]) for key, value in actual.items())
        )
    if isinstance(actual, list):
        return isinstance(expected, list) and len(actual) == len(expected) and \
            all(map(_element_equal, actual, expected))
    # type() and not isinstance(): True is not 1, 1 is not 1.0.
    return type(actual) is type(expected) and actual == expected


def _is_empty_object(value: Json) -> bool:
    return isinstance(value, dict) and not value


def _value_equal(actual: Json, expected: Json) -> bool:
    """``test`` at a path: the written null node equals ``null``; its copy (the text
    ``null``, which the library reads as an empty object) equals ``{}``."""
    if actual is WRITTEN_NULL:
        return expected is None
    if actual is COPIED_NULL:
        return _is_empty_object(expected)
    return _equal(actual, expected)


def _member_equal(actual: Json, expected: Json) -> bool:
    """An object's members: the written null node is not the nil of a parsed null."""
    if actual is WRITTEN_NULL:
        return False
    if actual is COPIED_NULL:
        return _is_empty_object(expected)
    return _equal(actual, expected)


def _element_equal(actual: Json, expected: Json) -> bool:
    # against a null element upstream panics; we compare as RFC 6902 says
    if isinstance(actual, _NullNode):
        return expected is None or (actual is COPIED_NULL and _is_empty_object(expected))
    return _equal(actual, expected)


class _NullNode:
    """A null the library holds as a node rather than as nil (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name} null>"


WRITTEN_NULL = _NullNode("written")  # "value": null of add/replace: a node without text
COPIED_NULL = _NullNode("copied")  # a copy of a null node: the text null


def _copied(value: Json) -> Json:
    """What ``copy`` inserts: the source written out and read again (null nodes in it become
    plain nulls), a null node the text ``null``."""
    if isinstance(value, _NullNode):
        return COPIED_NULL
    return _plain(value)


def _plain(value: Json) -> Json:
    """A new structure with every null node a plain null (as the result is written out)."""
    if isinstance(value, dict):
        copied = {}
        for key, item in value.items():  # (a loop: quicker than a comprehension on small maps)
            copied[key] = _plain(item)
        return copied
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return None if isinstance(value, _NullNode) else value


def _wrapped(error: PatchError, context: str, pointer: str) -> PatchError:
    """``error`` prefixed with ``context`` the way Go's ``errors.Wrapf`` does, at ``pointer``."""
    return type(error)(f"{context}: {error.message}", pointer)


def _unmarshal_error(value: Json, go_type: str) -> str:
    """Go's message for decoding ``value`` into a Go value of type ``go_type``."""
    return f"json: cannot unmarshal {json_kind(value)} into Go value of type {go_type}"

