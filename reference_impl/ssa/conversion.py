"""Fields a built-in kind keeps in its internal version and writes as annotations of the versioned one.

Go twin: k8s.io/kubernetes pkg/apis/apps/v1/conversion.go. The apiserver converts every
request into the internal version and the field manager sees the object converted back, so
these annotations take part in ownership even when no client sent them:

- a DaemonSet's ``spec.templateGeneration`` (internal only) is written as the annotation
  ``deprecated.daemonset.template.generation`` whatever its value: a body without the
  annotation reads as generation 0 and is seen with ``"0"``
  (``Convert_apps_DaemonSet_To_v1_DaemonSet`` and its inverse). The strategy sets the stored
  value (:mod:`.strategies`);
- fields the internal version holds as values where the versioned one has pointers come back
  from it set even when no request set them: a rolling update's ``maxUnavailable`` and
  ``maxSurge`` (internal ``intstr.IntOrString``) and a StatefulSet's ``partition`` (internal
  ``int32``) are written as 0 wherever their ``rollingUpdate`` exists — a DaemonSet with
  ``type: OnDelete``, which its defaulting leaves alone, included
  (``metav1.Convert_intstr_IntOrString_To_Pointer_intstr_IntOrString``,
  ``Convert_int32_To_Pointer_int32`` in zz_generated.conversion.go). The other such fields
  (``replicas``, a projected token's ``expirationSeconds``) are always defaulted before.
"""

from __future__ import annotations

from typing import Any

TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"
# kind -> (where a struct sits, its members that are values in the internal version)
ZERO_WHEN_PRESENT: dict[tuple[str, str], tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {
    ("apps/v1", "DaemonSet"): ((("spec", "updateStrategy", "rollingUpdate"), ("maxUnavailable", "maxSurge")),),
    ("apps/v1", "Deployment"): ((("spec", "strategy", "rollingUpdate"), ("maxUnavailable", "maxSurge")),),
    ("apps/v1", "StatefulSet"): ((("spec", "updateStrategy", "rollingUpdate"), ("partition",)),),
}


def through_internal_version(obj: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """``obj`` (a new dict) as it comes back from the kind's internal version."""
    for path, members in ZERO_WHEN_PRESENT.get((api_version, kind), ()):
        obj = _with_zeros(obj, path, members)
    if (api_version, kind) == ("apps/v1", "DaemonSet"):
        return with_template_generation(obj, template_generation(obj))
    return obj


def _with_zeros(obj: dict[str, Any], path: tuple[str, ...], members: tuple[str, ...]) -> dict[str, Any]:
    """``obj`` with each of ``members`` of the struct at ``path`` 0 where absent, if the struct exists."""
    node: Any = obj
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict) or all(member in node for member in members):
        return obj
    filled = {**node, **{member: 0 for member in members if member not in node}}
    for depth in range(len(path) - 1, -1, -1):  # rebuild the parents: obj is never changed in place
        parent: Any = obj
        for key in path[:depth]:
            parent = parent[key]
        filled = {**parent, path[depth]: filled}
    return filled


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
