"""What happens around the patch libraries when Kubernetes patches an object.

kubectl and the apiserver do not patch JSON text as it was written: the object is first
read into Go's JSON data model and the patched result is read back as a Kubernetes
object. Three things are observable, and the corpus records them (kubectl 1.32):

- Numbers: integers within int64 stay exact; any other number is a float64, and Go
  writes a float64 without a fraction as an integer (``2.0`` → ``2``, ``2.5e3`` →
  ``2500``) and an integer beyond int64 by its shortest float digits
  (``12345678901234567890`` → ``12345678901234567000``).
- kubectl reads a JSON Patch through YAML, so its values get the same float treatment
  (``{"op": "test", "value": 3.0}`` tests for ``3``); integers keep their digits.
- The result must still be an object with a ``kind``: an array or scalar result fails to
  decode, and a result without ``kind`` is refused.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from .errors import InvalidDocument
from .govalue import encoding_json
from .govalue.decoded import INT64_MAX, INT64_MIN


def is_custom_group(group: str) -> bool:
    """Whether an API group is a custom resource's: Kubernetes' own have no dot or end in
    ``.k8s.io`` / ``.kubernetes.io``."""
    return "." in group and not group.endswith((".k8s.io", ".kubernetes.io"))


# Kinds whose resource the guess below gets wrong.
IRREGULAR_PLURALS = {"Endpoints": "endpoints"}


def resource_plural(kind: str) -> str:
    """The resource serving a kind (``Deployment`` -> ``deployments``), as discovery names it:
    the guess of apimachinery's ``meta.UnsafeGuessKindToResource`` and a few exceptions."""
    if kind in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[kind]
    lower = kind.lower()
    if lower.endswith("y") and lower[-2:-1] not in tuple("aeiou"):
        return lower[:-1] + "ies"
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return lower + "es"
    return lower + "s"


def go_float(value: float) -> int | float:
    """A float64 as Go's encoding/json writes it, read back as JSON."""
    if value.is_integer() and abs(value) < 1e21:
        return int(Decimal(repr(value)))  # shortest round-trip digits, as Go prints them
    return value


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


def as_written(value: Any) -> Any:
    """A value through Go's JSON model (:func:`through_go_json`) as Go writes it and reads it
    back (a new structure): the same values, every map's keys in the order Go writes them.

    Go sorts keys by their UTF-8 bytes, which is the order of their code points: Python's.
    What Go's encoder refuses (NaN, ±Inf) is refused as :func:`encoding_json.encode` refuses it.
    """
    kind = value.__class__
    if kind is dict:
        keys = sorted(value)  # (strings do not compare with other keys: all are strings, or none is)
        if keys and not isinstance(keys[0], str):
            encoding_json.string(keys[0])  # raises for a key that is no string, as the encoder does
        written = {}
        for key in keys:  # (a loop: see through_go_json)
            written[key] = as_written(value[key])
        return written
    if kind is list:
        return [as_written(item) for item in value]
    if kind not in _WRITTEN_AS_THEY_ARE:
        encoding_json.encode(value)  # raises for a value it cannot write
    return value


# Leaves Go always writes (not floats: it refuses NaN and ±Inf).
_WRITTEN_AS_THEY_ARE = frozenset({str, int, bool, type(None)})


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


def through_float64(value: Any) -> Any:
    """``value`` decoded with Go's plain encoding/json, where every number is a float64."""
    if isinstance(value, dict):
        return {key: through_float64(child) for key, child in value.items()}
    if isinstance(value, list):
        return [through_float64(child) for child in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return go_float(float(value))
    return value


def through_yaml(value: Any) -> Any:
    """A patch as kubectl reads it (YAML to JSON): floats as float64, integers kept."""
    if isinstance(value, dict):
        return {key: through_yaml(child) for key, child in value.items()}
    if isinstance(value, list):
        return [through_yaml(child) for child in value]
    if isinstance(value, float):
        return go_float(value)
    return value


def is_object(document: Any) -> bool:
    return isinstance(document, dict) and "kind" in document and "apiVersion" in document


def read_back(result: Any) -> Any:
    """The patched document decoded as a Kubernetes object, or InvalidDocument."""
    if not isinstance(result, dict):
        kind = encoding_json.json_kind(result)
        raise InvalidDocument(f"json: cannot unmarshal {kind} into Go value of type unstructured.detector")
    if not isinstance(result.get("kind"), str) or not result["kind"]:
        text = json.dumps(result, separators=(",", ":"), sort_keys=True)
        raise InvalidDocument(f"Object 'Kind' is missing in '{text}'")
    return through_go_json(result)
