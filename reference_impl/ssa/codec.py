"""What the apiserver's codec makes of a built-in object: its Go value, defaulted.

Go twin: k8s.io/apimachinery/pkg/runtime/serializer/versioning (``codec.Decode``: the JSON
serializer fills the kind's versioned Go type, then ``Default`` runs the scheme's defaulting
functions, then the object is converted for the caller). The apiserver decodes every create
and update body, every object a JSON, merge or strategic patch produces, and every object it
reads back from storage this way; the field manager then sees the Go value as
``runtime.DefaultUnstructuredConverter.ToUnstructured`` writes it. Apply bodies are not
decoded: the field manager merges them as sent, and only its result is turned into the Go
type and defaulted. What the field manager sees has also been through the kind's internal
version (:mod:`.conversion`) (:meth:`.managedfields.FieldManager.apply`).

Custom resources have no Go type and pass through unchanged (their structural defaults are
the endpoint's business, :mod:`.apiserver`).
"""

from __future__ import annotations

import functools
from typing import Any

from ..defaults import default_go_value, default_object, defaults_known
from ..govalue import gotypes
from ..govalue.decoded import json_copy
from . import conversion


def has_go_type(api_version: str, kind: str) -> bool:
    return gotypes.definition_of(api_version, kind) is not None


def decode(obj: Any, api_version: str, kind: str, release: tuple[int, int]) -> Any:
    """``obj`` decoded into its kind's Go type and defaulted by Kubernetes ``release``, as the
    field manager and storage see it. Not an object, or no Go type: unchanged."""
    if not isinstance(obj, dict) or not has_go_type(api_version, kind):
        return obj
    definition = gotypes.definition_of(api_version, kind)
    # The defaulters see the body after a round trip through the Go type (an empty omitempty
    # slice or map is nil to them, as the reference has always had it: see issue 27's report),
    # read in one pass; then the Go value is encoded once (a second round trip of the encoding
    # changes nothing).
    go_value = gotypes.from_unstructured_after_round_trip(obj, definition)
    if (go_value["apiVersion"], go_value["kind"]) == (api_version, kind) and defaults_known(api_version, kind):
        default_go_value(go_value, definition, release)
    else:  # a body naming another kind is defaulted as that kind, if at all
        go_value = gotypes.from_unstructured(default_object(gotypes.to_unstructured(go_value, definition), release),
                                             definition)
    return conversion.through_internal_version(gotypes.to_unstructured(go_value, definition), api_version, kind,
                                               release)


def empty(api_version: str, kind: str) -> dict[str, Any]:
    """``creater.New(kind)`` as the field manager sees it: the kind's zero Go value, not defaulted
    (what a create by update or POST is compared against). A new value each call."""
    return json_copy(_empty(api_version, kind))


def decoded_empty(api_version: str, kind: str, release: tuple[int, int]) -> dict[str, Any]:
    """``decode(empty)``: the kind's zero Go value defaulted (what PrepareForCreate resets status to).
    A new value each call."""
    return json_copy(_decoded_empty(api_version, kind, release))


# Both are the same for every object of a kind: worked out once (a Deployment's zero value walks
# every field of its pod template), copied for each caller.
@functools.cache
def _empty(api_version: str, kind: str) -> dict[str, Any]:
    bare = {"apiVersion": api_version, "kind": kind}
    if not has_go_type(api_version, kind):
        return bare
    return conversion.through_internal_version(gotypes.round_trip(bare, api_version, kind), api_version, kind)


@functools.cache
def _decoded_empty(api_version: str, kind: str, release: tuple[int, int]) -> dict[str, Any]:
    return decode({"apiVersion": api_version, "kind": kind}, api_version, kind, release)
