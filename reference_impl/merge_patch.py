"""JSON Merge Patch (RFC 7396), exactly as Kubernetes applies and creates it.

kubectl (``patch --type merge``) and the apiserver (``application/merge-patch+json``) use
``MergePatch`` and ``CreateMergePatch`` of ``gopkg.in/evanphx/json-patch.v4`` v4.12.0.
Where that library departs from RFC 7396 we follow the library:

- a ``null`` patch, or a string, number or boolean patch, is an error ("Invalid JSON
  Patch") instead of replacing the document; a ``null`` document is an error too
  ("Invalid JSON Document");
- an array patch replaces the document, but ``null`` members of objects inside it are
  dropped;
- an array value replacing a member that is missing, ``null`` or not an object loses the
  ``null`` members of the objects inside it, at any depth; one replacing an object member
  keeps them;
- ``create`` compares numbers as Go's float64 does (``1`` equals ``1.0``), accepts a pair
  of arrays of objects (one patch per pair of elements) and reads a ``null`` document as
  ``{}``.

The inputs are never mutated; results share nothing with them.
"""

from __future__ import annotations

from typing import Any

from .errors import Conflict, InvalidDocument, InvalidPatch, PreconditionFailed, TypeMismatch
from .govalue.decoded import json_copy

Json = Any

INVALID_DOCUMENT = "Invalid JSON Document"
INVALID_PATCH = "Invalid JSON Patch"
MISMATCHED_DOCUMENTS = "Mismatched JSON Documents"


def apply(document: Json, patch: Json) -> Json:
    """The result of merging ``patch`` into ``document``, as Kubernetes does."""
    # Upstream checks the document before the patch.
    if document is None:
        raise InvalidDocument(INVALID_DOCUMENT)
    if isinstance(patch, dict):
        if isinstance(document, dict):
            return _merge_members(json_copy(document), patch)
        return _without_null_members(patch)
    if isinstance(patch, list):
        return _without_null_members(patch)
    raise InvalidPatch(INVALID_PATCH)


def create(original: Json, modified: Json) -> Json:
    """A merge patch that turns ``original`` into ``modified``, as Kubernetes makes it.

    Members ``modified`` lacks are deleted with ``null``; changed arrays are sent whole;
    identical documents give ``{}``. Two arrays (of objects) give an array holding one
    patch per pair of elements.
    """
    if isinstance(original, list) and isinstance(modified, list):
        if len(original) != len(modified):
            raise InvalidDocument(INVALID_DOCUMENT)
        return [_object_patch(before, after) for before, after in zip(original, modified, strict=True)]
    if isinstance(original, list) or isinstance(modified, list):
        raise TypeMismatch(MISMATCHED_DOCUMENTS)
    return _object_patch(original, modified)


def create_three_way(original: Json, modified: Json, current: Json) -> dict[str, Json]:
    """The merge patch kubectl apply sends for a kind without a strategic schema.

    Mirrors apimachinery's ``CreateThreeWayJSONMergePatch`` with kubectl's preconditions:
    additions and changes come from ``current`` → ``modified`` (so what someone else set is
    overwritten only where the configuration says otherwise), deletions from
    ``original`` (the last-applied configuration) → ``modified`` (so only fields this
    configuration once set are removed). ``None`` for any input means "no document".
    """
    original, modified, current = ({} if doc is None else doc for doc in (original, modified, current))
    additions = _filter_nulls(_object(create(current, modified)), keep_null=False)
    deletions = _filter_nulls(_object(create(original, modified)), keep_null=True)
    if _conflicts(additions, deletions):
        raise Conflict(
            f"patch:\n{additions}\nconflicts with changes made from original to current:\n{deletions}"
        )
    patch = apply(deletions, additions)
    metadata = patch.get("metadata")
    if "apiVersion" in patch or "kind" in patch or (isinstance(metadata, dict) and "name" in metadata):
        raise PreconditionFailed(f"precondition failed for: {patch}")
    return patch


def _object(patch: Json) -> dict[str, Json]:
    # Two array documents give an array of patches, which upstream then reads as an object.
    if not isinstance(patch, dict):
        raise InvalidDocument("json: cannot unmarshal array into Go value of type map[string]interface {}")
    return patch


def _filter_nulls(patch: Json, keep_null: bool) -> dict[str, Json]:
    """Only the deletions (``keep_null``) or only the additions and changes of a patch.

    An empty object is a value (kept among additions), while an object that filters down
    to nothing is an empty patch for that member and disappears.
    """
    kept: dict[str, Json] = {}
    for key, value in patch.items():
        if value is None:
            if keep_null:
                kept[key] = None
        elif isinstance(value, dict):
            if not value:
                if not keep_null:
                    kept[key] = {}
                continue
            inner = _filter_nulls(value, keep_null)
            if inner:
                kept[key] = inner
        elif not keep_null:
            kept[key] = value
    return kept


def _conflicts(left: Json, right: Json) -> bool:
    """Whether two patches set one location differently (mergepatch.HasConflicts)."""
    if isinstance(left, dict):
        if not isinstance(right, dict):
            return True
        return any(_conflicts(value, right[key]) for key, value in left.items() if key in right)
    if isinstance(left, list):
        if not isinstance(right, list) or len(left) != len(right):
            return True
        return any(_conflicts(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is not type(right) or left != right


def _merge_members(target: dict[str, Json], patch: dict[str, Json]) -> dict[str, Json]:
    """Merge ``patch`` into ``target`` (our own copy) in place, and return ``target``."""
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif target.get(key) is None:
            # A new member (or one replacing null) is the patch value, nulls pruned.
            target[key] = _without_null_members(value)
        else:
            target[key] = _merged(target[key], value)
    return target


def _merged(target: Json, patch: Json) -> Json:
    """What member ``target`` becomes under non-null patch value ``patch``."""
    if not isinstance(target, dict):
        return _without_null_members(patch)
    if not isinstance(patch, dict):
        # Upstream prunes nulls only where the target is not an object; here it keeps them.
        return json_copy(patch)
    return _merge_members(target, patch)


def _without_null_members(value: Json) -> Json:
    """A copy of ``value`` without the ``null`` members of any object in it.

    ``null`` array elements are kept; objects inside arrays are pruned too (RFC 7396 would
    leave arrays as they are).
    """
    if isinstance(value, dict):
        return {key: _without_null_members(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_null_members(item) for item in value]
    return value


def _object_patch(original: Json, modified: Json) -> dict[str, Json]:
    """The merge patch between two objects; ``null`` reads as ``{}`` as upstream decodes it."""
    if not (original is None or isinstance(original, dict)):
        raise InvalidDocument(INVALID_DOCUMENT)
    if not (modified is None or isinstance(modified, dict)):
        raise InvalidDocument(INVALID_DOCUMENT)
    return _diff(original or {}, modified or {})


def _diff(original: dict[str, Json], modified: dict[str, Json]) -> dict[str, Json]:
    patch: dict[str, Json] = {}
    for key, after in modified.items():
        if key not in original or _kind(original[key]) != _kind(after):
            patch[key] = json_copy(after)
        elif isinstance(after, dict):
            nested = _diff(original[key], after)
            if nested:
                patch[key] = nested
        elif not _same(original[key], after):
            patch[key] = json_copy(after)
    for key in original:
        if key not in modified:
            patch[key] = None
    return patch


def _kind(value: Json) -> str:
    """The Go type upstream decodes ``value`` into; ints and floats are both float64."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "slice"
    return type(value).__name__


def _same(a: Json, b: Json) -> bool:
    """Upstream's deep equality of decoded values: numbers compare as float64."""
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if _kind(a) == "float64":
        return _float64_equal(a, b)
    return a == b


def _float64_equal(a: int | float, b: int | float) -> bool:
    # Decoding JSON into float64 rounds: 2**53 + 1 equals 2**53 upstream. (Beyond float64's
    # range upstream fails to decode at all; we compare such integers exactly instead.)
    try:
        return float(a) == float(b)
    except OverflowError:
        return a == b
