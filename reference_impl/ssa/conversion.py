"""Fields a built-in kind keeps in its internal version and writes as annotations of the versioned one.

Go twin: k8s.io/kubernetes pkg/apis/apps/v1/conversion.go. The apiserver converts every
request into the internal version and the field manager sees the object converted back, so
these annotations take part in ownership even when no client sent them:

- a DaemonSet's ``spec.templateGeneration`` (internal only) is written as the annotation
  ``deprecated.daemonset.template.generation`` whatever its value: a body without the
  annotation reads as generation 0 and is seen with ``"0"``
  (``Convert_apps_DaemonSet_To_v1_DaemonSet`` and its inverse). The strategy sets the stored
  value (:mod:`.strategies`).
"""

from __future__ import annotations

from typing import Any

TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


def through_internal_version(obj: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """``obj`` (a new dict) as it comes back from the kind's internal version."""
    if (api_version, kind) == ("apps/v1", "DaemonSet"):
        return with_template_generation(obj, template_generation(obj))
    return obj


def template_generation(daemon_set: dict[str, Any]) -> int:
    """The internal ``spec.templateGeneration``: the annotation's integer, 0 without one. A value
    that is not an integer fails the conversion on a server; it is read as 0 here (not modelled)."""
    annotations = (daemon_set.get("metadata") or {}).get("annotations") or {}
    try:
        return int(annotations.get(TEMPLATE_GENERATION, 0))
    except (TypeError, ValueError):
        return 0


def with_template_generation(daemon_set: dict[str, Any], generation: int) -> dict[str, Any]:
    metadata = dict(daemon_set.get("metadata") or {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), TEMPLATE_GENERATION: str(generation)}
    return {**daemon_set, "metadata": metadata}
