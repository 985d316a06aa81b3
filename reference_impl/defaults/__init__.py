"""Defaulting of built-in kinds, as a kube-apiserver does it between decoding and the field manager.

    from . import default_object
    stored = default_object(gotypes.round_trip(obj, api_version, kind), release=(1, 32))

Go twin: the scheme's defaulting (``runtime.Scheme.Default``) of k8s.io/kubernetes: per API group
version, ``pkg/apis/<group>/<version>/defaults.go`` (one module here each: core_v1.py,
apps_v1.py, batch_v1.py, networking_v1.py, policy_v1.py, rbac_v1.py, autoscaling_v2.py,
storage_v1.py) walked over each object by ``zz_generated.defaults.go`` (generated.py), with the
``+default=`` marker values as data (literal-defaults.json, from the OpenAPI spec of each release).
Rules that depend on a feature gate follow the gate's default in the release (features.py).
quantity.py is resource.Quantity's parsing and canonical form.

Releases 1.27 to 1.37 are modelled (``supported_releases()``): the rules that changed between
them were read from each release's Go code; 1.32 is checked against the upstream target built
from Kubernetes 1.32.4 and 1.33 against a kube-apiserver 1.33.13 (tests/test_defaults.py), the
others against no running Kubernetes yet. Fields added to the API after k8s.io/api 0.32 (the Go
model of go-types.json) are not decoded, so their rules have nothing to default.
"""

from __future__ import annotations

from typing import Any

from ..govalue import gotypes
from ..govalue.decoded import json_copy
from ..govalue.gotypes import GoStruct
from .features import Release
from .generated import (
    GROUP_VERSIONS,
    literal_defaults,
    supported_releases,
    walk_struct,
)

DEFAULT_RELEASE: Release = (1, 32)  # the corpus's release

__all__ = ["DEFAULT_RELEASE", "default_go_value", "default_object", "defaults_known", "supported_releases"]


def defaults_known(api_version: str, kind: str) -> bool:
    """Whether ``default_object`` models the defaulting of this kind (a built-in kind of a covered group)."""
    return api_version in GROUP_VERSIONS and gotypes.definition_of(api_version, kind) is not None


def default_object(obj: dict[str, Any], release: Release = DEFAULT_RELEASE) -> dict[str, Any]:
    """A new dict: ``obj`` (a built-in object as ``gotypes.round_trip`` gives it) defaulted as the
    apiserver of ``release`` defaults it, in the same form. Kinds not modelled (custom resources,
    groups not covered) come back as an unchanged copy; ``obj`` is never mutated."""
    literal_defaults(release)  # refuse a release that is not modelled, whatever the kind
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not defaults_known(api_version, kind):
        return json_copy(obj)
    definition = gotypes.definition_of(api_version, kind)
    value = gotypes.from_unstructured(obj, definition)
    default_go_value(value, definition, release)
    return gotypes.to_unstructured(value, definition)


def default_go_value(value: GoStruct, definition: str, release: Release = DEFAULT_RELEASE) -> None:
    """``value``, a decoded Go struct of ``definition`` (``gotypes.from_unstructured``), defaulted
    in place as the apiserver of ``release`` defaults it: for a caller that already holds the Go
    value, as the apiserver's codec does between decoding and conversion."""
    literal_defaults(release)  # refuse a release that is not modelled
    walk_struct(value, definition, release)
