"""JSON as Go holds it once decoded into ``interface{}``: its Go types, ``==``, ``reflect.DeepEqual``, a copy.

Go twins: k8s.io/apimachinery/pkg/util/json (``Unmarshal`` into ``interface{}``: an integer
that fits int64 is an ``int64``, any other number a ``float64``), the language's ``==`` on
interface values, reflect/deepequal.go and runtime.DeepCopyJSONValue (converter.go).
A Python ``int`` within int64 stands for an ``int64``, any other number for a ``float64``;
so ``1`` and ``1.0`` are different values, as they are to Go.
"""

from __future__ import annotations

import copy
from typing import Any

from ..errors import InvalidPatch, TypeMismatch

Json = Any

GO_MAP = "map[string]interface {}"
GO_SLICE = "[]interface {}"
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT64 = range(INT64_MIN, INT64_MAX + 1)  # (``in`` on a range is one comparison pair)

# JSON's scalars: a copy shares them, and two of one class are equal as Python says.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def json_copy(value: Json) -> Json:
    """A deep copy of JSON data in which every map and list is new, as decoded JSON's are.

    Scalars, and values of no JSON kind (sentinels), are shared; a subclass of dict or list
    is copied as a plain one. (copy.deepcopy is several times slower on JSON.)
    """
    cls = value.__class__
    # scalar members, most of them, are taken over without a call
    if cls is dict:
        return {key: member if member.__class__ in _SCALARS else json_copy(member) for key, member in value.items()}
    if cls is list:
        return [item if item.__class__ in _SCALARS else json_copy(item) for item in value]
    if isinstance(value, dict):
        return {key: json_copy(member) for key, member in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    return value


def json_copy_keeping_shared(value: Json, copies: dict[int, Json]) -> Json:
    """``copy.deepcopy(value, copies)``, quicker on JSON: a map or list met again (by identity)
    is given the copy made of it before, so what several values share stays shared among their copies."""
    kind = type(value)
    if kind is dict or kind is list:
        copied = copies.get(id(value))
        if copied is None:
            if kind is dict:
                copied = {key: json_copy_keeping_shared(item, copies) for key, item in value.items()}
            else:
                copied = [json_copy_keeping_shared(item, copies) for item in value]
            copies[id(value)] = copied  # (JSON holds no cycles: no need to register it first)
        return copied
    if kind in (str, int, float, bool) or value is None:
        return value
    return copy.deepcopy(value, copies)  # a subclass of a JSON type, copied as deepcopy would


def go_type(value: Json) -> str | None:
    """The Go type the decoder gives ``value`` (None for ``null``)."""
    kind = type(value)
    if kind is dict:
        return GO_MAP
    if kind is list:
        return GO_SLICE
    if kind is str:
        return "string"
    if kind is bool:
        return "bool"
    if kind is int:
        return "int64" if value in INT64 else "float64"
    if kind is float:
        return "float64"
    if value is None:
        return None
    return go_type(plain(value))


def same_go_type(left: Json, right: Json) -> bool:
    """Whether the decoder gives both values the same Go type."""
    kind = type(left)
    if kind is type(right) and kind is not int:  # (an integer beyond int64 is a float64)
        return True
    return go_type(left) == go_type(right)


def plain(value: Json) -> Json:
    """``value`` as its JSON base type: subclasses (OrderedDict, IntEnum, …) behave as their base."""
    for base in (bool, dict, list, str, int, float):
        if isinstance(value, base):
            return base(value)
    raise InvalidPatch(f"not a JSON value: {value!r}")


def comparable_key(value: Json) -> Any:
    """A hashable stand-in for ``value`` under Go's ``==`` on interface values.

    Strings stand for themselves; other scalars are tagged with their Go type, so that
    ``1``, ``1.0``, ``True`` and ``"1"`` all differ. Integers beyond int64 are floats in
    Go. Maps and lists have no stand-in: Go panics hashing them.
    """
    kind = type(value)
    if kind is str:
        return value
    if kind is int:
        return ("i", value) if value in INT64 else ("f", float(value))
    if kind is float:
        return ("f", value)
    if kind is bool:
        return ("b", value)
    if value is None:
        return ("n",)
    if kind is dict or kind is list:
        raise TypeMismatch(f"runtime error: hash of unhashable type {go_type(value)}")
    return comparable_key(plain(value))


def uncomparable(value: Json) -> TypeMismatch:
    """The panic of ``==`` on two values of ``value``'s (map or slice) type."""
    return TypeMismatch(f"runtime error: comparing uncomparable type {go_type(value)}")


def go_equal(left: Json, right: Json) -> bool:
    """Go's ``==`` on two interface values holding decoded JSON (it panics on two maps or two slices)."""
    left_kind, right_kind = type(left), type(right)
    if left_kind is str and right_kind is str:
        return left == right
    if left_kind in (dict, list) or right_kind in (dict, list):
        if left_kind is right_kind:
            raise uncomparable(left)
        return False
    return comparable_key(left) == comparable_key(right)


def deep_equal(left: Json, right: Json) -> bool:
    """``reflect.DeepEqual`` of two decoded JSON values (``1`` and ``1.0`` differ)."""
    left_kind = type(left)
    if left_kind is str and type(right) is str:
        return left == right
    if left_kind is dict:
        return (
            type(right) is dict
            and left.keys() == right.keys()
            and all(deep_equal(value, right[key]) for key, value in left.items())
        )
    if left_kind is list:
        return type(right) is list and len(left) == len(right) and all(map(deep_equal, left, right))
    if type(right) in (dict, list):
        return False
    return comparable_key(left) == comparable_key(right)


def float64_numbers(value: Json) -> Json:
    """``value`` as ``encoding/json`` decodes it into ``interface{}``: every number a float64.

    (kube-openapi reads a schema's extensions so.) A number beyond float64 stays as it is:
    Go refuses to decode it at all.
    """
    kind = type(value)
    if kind is int:
        try:
            return float(value)
        except OverflowError:
            return value
    if kind is dict:
        return {key: float64_numbers(member) for key, member in value.items()}
    if kind is list:
        return [float64_numbers(item) for item in value]
    return value
