"""JSON as k8s.io/apimachinery/pkg/util/json decodes it, the model kubectl and the apiserver patch
objects in: an integer within int64 stays one, any other number is a float64; written back by
encoding/json (a float64 without a fraction as an integer). Go twin: apimachinery's
pkg/util/json (``Unmarshal`` with ``convertMapNumbers``).
"""

from __future__ import annotations

from typing import Any

from .decoded import INT64_MAX, INT64_MIN
from .encoding_json import go_float


def go_number(value: Any) -> Any:
    """A number as it comes out of Go's JSON model (int64 or float64)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if INT64_MIN <= value <= INT64_MAX else go_float(float(value))
    if isinstance(value, float):
        return go_float(value)
    return value


# Values a trip through Go's JSON model leaves as they are: taken over without a call (most members are).
_UNCHANGED_BY_GO_JSON = frozenset({str, bool, type(None)})


def through_go_json(value: Any) -> Any:
    """``value`` after a trip through Go's JSON data model (a new structure)."""
    if isinstance(value, dict):
        # A loop, not a comprehension: on the small maps objects are made of, the
        # comprehension's own call costs more than the loop.
        copied = {}
        for key, child in value.items():
            copied[key] = child if child.__class__ in _UNCHANGED_BY_GO_JSON else through_go_json(child)
        return copied
    if isinstance(value, list):
        return [child if child.__class__ in _UNCHANGED_BY_GO_JSON else through_go_json(child) for child in value]
    return go_number(value)


def as_decoded(value: Any) -> Any:
    """JSON text as apimachinery's JSON decoding reads it (a new structure): an integer
    that fits int64 stays one, any other number is a float64 (``30.0`` stays a float)."""
    if isinstance(value, dict):
        return {key: as_decoded(child) for key, child in value.items()}
    if isinstance(value, list):
        return [as_decoded(child) for child in value]
    if isinstance(value, int) and not isinstance(value, bool) and not INT64_MIN <= value <= INT64_MAX:
        return float(value)
    return value
