"""The walk that calls each type's defaulters over a whole object, and fills ``+default`` literals.

Go twin: the ``zz_generated.defaults.go`` of each API group version (written by defaulter-gen,
k8s.io/code-generator cmd/defaulter-gen/generators/defaulter.go ``callTreeForType.build`` and
``callNode.WriteMethod``). The generated code is one unrolled walk per kind; here it is one walk
driven by data: the Go shapes of go-types.json, the defaulting functions registered per Go
definition by the group modules (core_v1.py...), and the literal defaults of literal-defaults.json.

The order is the generated code's, pre-order:
- at a struct, first its own defaulting function, then its fields in Go declaration order;
- at a field, first its literal default (when the field is zero: "", 0, false, nil), then the
  walk of its value: so a parent's defaulter runs before its children's and sees them
  undefaulted, and a child sees what the parent's defaulter set (a new emptyDir, a rolling update);
- a pointer is followed when not nil, a slice element by element;
- a named map type (core/v1 ResourceList) gets its own defaulting function, even when nil;
- the walk does not enter a map's values: Go map values are not addressable, so the generated
  code only sets literal defaults there, and no map of the covered kinds holds a defaulted type.

Not defaulting but done on the way, since the walk meets every value: each resource.Quantity
outside a ResourceList is written as the server writes it (quantity.canonical), as decoding
and encoding through the Go type would.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.resources
import json
from typing import Any

from ..govalue.gotypes import GoStruct, fields, is_zero
from . import (
    apps_v1,
    autoscaling_v2,
    batch_v1,
    core_v1,
    networking_v1,
    policy_v1,
    quantity,
    rbac_v1,
    storage_v1,
)
from .core_v1 import Defaulter
from .features import Release

# The group versions whose defaulting is modelled; any other apiVersion is left as it is.
GROUP_VERSIONS = {
    "v1": core_v1,
    "apps/v1": apps_v1,
    "batch/v1": batch_v1,
    "networking.k8s.io/v1": networking_v1,
    "policy/v1": policy_v1,
    "rbac.authorization.k8s.io/v1": rbac_v1,
    "autoscaling/v2": autoscaling_v2,
    "storage.k8s.io/v1": storage_v1,
}
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
# Every defaulter a walk may meet: a kind of apps/v1 reaches core/v1's (its pod template).
DEFAULTERS: dict[str, Defaulter] = {
    definition: defaulter
    for module in GROUP_VERSIONS.values()
    for definition, defaulter in module.DEFAULTERS.items()
}


@functools.cache
def _literal_defaults_by_release() -> dict[str, Any]:
    source = importlib.resources.files("patchconf.reference_impl.defaults") / "literal-defaults.json"
    return json.loads(source.read_text(encoding="utf-8"))["releases"]


def supported_releases() -> list[Release]:
    return sorted(tuple(int(part) for part in minor.split(".")) for minor in _literal_defaults_by_release())


def literal_defaults(release: Release) -> dict[str, dict[str, Any]]:
    """definition -> field -> the ``+default`` value of that release."""
    by_release = _literal_defaults_by_release()
    minor = f"{release[0]}.{release[1]}"
    if minor not in by_release:
        raise ValueError(f"defaulting of release {minor} is not modelled (have {', '.join(sorted(by_release))})")
    return by_release[minor]["defaults"]


def walk_struct(value: GoStruct, definition: str, release: Release) -> None:
    """SetObjectDefaults_<Kind> and the nested calls: ``value`` (a Go struct) defaulted in place."""
    defaulter = DEFAULTERS.get(definition)
    if defaulter is not None:
        defaulter(value, release)
    for name, field, literal, walked in _walk_plan(definition, release):
        if literal is not _NO_LITERAL:
            unset = value[name] is None if field["shape"] == "pointer" else is_zero(value[name])
            if unset:
                value[name] = json.loads(json.dumps(literal))  # a fresh copy for each object
        if walked:
            value[name] = _walk(value[name], field, release)


_NO_LITERAL = object()


@functools.cache
def _walk_plan(definition: str, release: Release) -> tuple[tuple[str, dict[str, Any], Any, bool], ...]:
    """The fields of ``definition`` the walk has something to do at: (name, shape, its literal default
    or _NO_LITERAL, whether its value is walked), in declaration order. Defaulter-gen's call tree
    likewise leaves out every field whose type has no defaulter below it; here that is most fields
    (strings, numbers, lists of them), which the walk used to visit on every object."""
    literals = literal_defaults(release).get(definition, {})
    plan = []
    for field in fields(definition):
        name = field["name"]
        literal = literals.get(name, _NO_LITERAL)
        walked = _reaches_a_defaulter(field, release)
        if literal is not _NO_LITERAL or walked:
            plan.append((name, field, literal, walked))
    return tuple(plan)


_PLANNING: set[tuple[str, Release]] = set()


def _reaches_a_defaulter(shape: dict[str, Any], release: Release) -> bool:
    """Whether walking a value of ``shape`` can do anything: a defaulting function, a literal default
    or a Quantity to rewrite at or below it."""
    kind = shape["shape"]
    if kind in ("pointer", "slice"):
        return _reaches_a_defaulter(shape["elem"], release)
    if kind == "map":
        return shape.get("named") in DEFAULTERS
    if kind == "opaque":
        return shape.get("named") == QUANTITY
    if kind != "struct":
        return False
    key = (shape["definition"], release)
    if key in _PLANNING:
        return True  # a type within itself: assume so (walking more is never wrong)
    _PLANNING.add(key)
    try:
        return shape["definition"] in DEFAULTERS or bool(_walk_plan(*key))
    finally:
        _PLANNING.discard(key)


def _walk(value: Any, shape: dict[str, Any], release: Release) -> Any:
    """The walk of ``value``; returns it, or its replacement for a value held by its parent (a quantity)."""
    kind = shape["shape"]
    if kind == "map" and shape.get("named") in DEFAULTERS:
        DEFAULTERS[shape["named"]](value, release)
    if value is None:
        return value
    if kind == "opaque" and shape.get("named") == QUANTITY:
        return _quantity_text(value)
    if kind == "struct":
        walk_struct(value, shape["definition"], release)
    elif kind == "pointer":
        return _walk(value, shape["elem"], release)
    elif kind == "slice" and isinstance(value, list):
        value[:] = [_walk(item, shape["elem"], release) for item in value]
    return value


def _quantity_text(value: Any) -> Any:
    """A resource.Quantity as the server writes it (the decoder parsed it; MarshalJSON writes it)."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        with contextlib.suppress(quantity.QuantityError):
            return quantity.canonical(value)
    return value
