"""What happens around the patch libraries when Kubernetes patches an object.

kubectl and the apiserver do not patch JSON text as it was written: the object is first
read into Go's JSON data model and the patched result is read back as a Kubernetes
object. Three things are observable, and the corpus records them (kubectl 1.32); the
value layer has the rules (govalue.utiljson, encoding_json and goyaml), this module the object:

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
from typing import Any

from .errors import InvalidDocument
from .govalue import encoding_json
from .govalue.utiljson import through_go_json


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
