"""Writes through the ``scale`` subresource: an autoscaling/v1 Scale in, the object's replicas out.

Go twins: k8s.io/apimachinery/pkg/util/managedfields/scalehandler.go (``ScaleHandler``:
``ToSubresource``, ``ToParent``); the registries' ``ScaleREST`` and
``scaleUpdatedObjectInfo.UpdatedObject`` (k8s.io/kubernetes pkg/registry/apps/deployment,
replicaset, statefulset and core/replicationcontroller ``storage/storage.go``;
apiextensions-apiserver pkg/registry/customresource/etcd.go for a custom resource);
``autoscalingvalidation.ValidateScale``.

A request to /scale runs the handler's field manager on a Scale, never on the object: the old
Scale is made from the object (name, namespace, uid, spec.replicas, status replicas and selector),
carrying the object's entries that own spec.replicas, rewritten to autoscaling/v1 and the Scale's
spec.replicas (``to_subresource``). The request (apply, update or patch) changes that Scale with
the Scale's own field manager (subresource ``scale``), then spec.replicas goes back into the object
and the Scale's entries are folded into the object's (``to_parent``): an object entry whose manager
lost spec.replicas on the Scale loses it (the entry goes if nothing is left); a Scale manager new to
the object gets an entry owning spec.replicas at the object's apiVersion, with subresource ``scale``
and the time its identifier had among the object's entries — none for an Update manager, whose
identifier names autoscaling/v1. The object is then stored as an update of the main resource
(its strategy keeps status), without its own field manager.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..govalue.decoded import json_copy
from .fieldpath import KEY, VALUE, FieldSet, PathElement, VersionedSet, make_path
from .managedfields import (
    Managed,
    RequestError,
    decode_managed_fields,
    encode_managed_fields,
)

SCALE_API_VERSION = "autoscaling/v1"
SCALE_KIND = "Scale"
SUBRESOURCE = "scale"
REPLICAS_IN_SCALE = make_path("spec", "replicas")
# apiextensions' ScaleREST marks a custom resource without spec replicas with the smallest int32
INVALID_SPEC_REPLICAS = -2147483648


class ScalePaths(NamedTuple):
    """Where a kind keeps what its Scale shows (a CRD's ``subresources.scale``, or a registry's)."""

    spec_replicas: tuple[str, ...]
    status_replicas: tuple[str, ...]
    label_selector: tuple[str, ...] | None = None  # a custom resource's selector string
    api_versions: tuple[str, ...] = ()  # ResourcePathMappings: the versions whose entries are read
    custom: bool = False


_REPLICAS = ("spec", "replicas")
_STATUS_REPLICAS = ("status", "replicas")
# replicasPathIn<Kind>: every version of the group the registry serves the kind at
BUILTIN: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps", "Deployment"): ("apps/v1beta1", "apps/v1beta2", "apps/v1"),
    ("apps", "StatefulSet"): ("apps/v1beta1", "apps/v1beta2", "apps/v1"),
    ("apps", "ReplicaSet"): ("apps/v1beta2", "apps/v1"),
    ("", "ReplicationController"): ("v1",),
}


def builtin(api_version: str, kind: str) -> ScalePaths | None:
    """The scale subresource of a built-in kind, or None where its registry has none."""
    versions = BUILTIN.get((api_version.rpartition("/")[0], kind))
    return ScalePaths(_REPLICAS, _STATUS_REPLICAS, None, versions) if versions else None


def custom(declared: Any, api_version: str) -> ScalePaths:
    """A custom resource's scale subresource from its CRD's ``subresources.scale`` (JSON paths
    ``.spec.replicas``; ``labelSelectorPath`` optional). ValueError: a declaration a CRD refuses."""
    if not isinstance(declared, dict):
        raise ValueError("scale must be a mapping of specReplicasPath, statusReplicasPath, labelSelectorPath")

    def path(name: str, required: bool = True) -> tuple[str, ...] | None:
        text = declared.get(name)
        if text is None and not required:
            return None
        if not isinstance(text, str) or not text.startswith(".") or len(text) < 2:
            raise ValueError(f"scale.{name} must be a path such as .spec.replicas, not {text!r}")
        return tuple(text[1:].split("."))

    return ScalePaths(path("specReplicasPath"), path("statusReplicasPath"), path("labelSelectorPath", False),
                      (api_version,), custom=True)


class ScaleHandler:
    """managedfields.ScaleHandler: the object's entries for the Scale, and back."""

    def __init__(self, parent_entries: Any, group_version: str, paths: ScalePaths) -> None:
        self.parent_entries = parent_entries
        self.group_version = group_version
        self.replicas_path = make_path(*paths.spec_replicas)
        self.api_versions = paths.api_versions

    def _path(self, api_version: str):
        return self.replicas_path if api_version in self.api_versions else None

    def to_subresource(self) -> list[dict[str, Any]] | None:
        """The object's entries owning spec.replicas, as owners of the Scale's spec.replicas."""
        managed = decode_managed_fields(self.parent_entries)
        fields, times = {}, {}
        for identifier, versioned in managed.fields.items():
            path = self._path(versioned.api_version)
            if path is not None and versioned.set.has(path):
                fields[identifier] = VersionedSet(FieldSet.of(REPLICAS_IN_SCALE), SCALE_API_VERSION, versioned.applied)
                times[identifier] = managed.times.get(identifier)
        return encode_managed_fields(Managed(fields, times))

    def to_parent(self, scale_entries: Any) -> list[dict[str, Any]] | None:
        """The object's entries after the Scale's manager ran (ToParent, in its order of rules)."""
        parent = decode_managed_fields(self.parent_entries)
        scale_fields = dict(decode_managed_fields(scale_entries).fields)
        fields, times = {}, {}
        for identifier, versioned in parent.fields.items():
            if versioned.api_version not in self.api_versions:
                continue  # an entry of a version the registry does not map is dropped
            path = self._path(versioned.api_version)
            if not versioned.set.has(path):
                fields[identifier] = versioned
                times[identifier] = parent.times.get(identifier)
            elif identifier not in scale_fields:  # the Scale's manager took spec.replicas from it
                rest = versioned.set.difference(FieldSet.of(path))
                if not rest.empty():
                    fields[identifier] = VersionedSet(rest, versioned.api_version, versioned.applied)
                    times[identifier] = parent.times.get(identifier)
            else:
                fields[identifier] = versioned
                times[identifier] = parent.times.get(identifier)
                del scale_fields[identifier]
        for identifier, versioned in scale_fields.items():
            if not versioned.set.has(REPLICAS_IN_SCALE):
                continue
            fields[identifier] = VersionedSet(FieldSet.of(self.replicas_path), self.group_version, versioned.applied)
            times[identifier] = parent.times.get(identifier)  # an Update manager's identifier is not there: no time
        return encode_managed_fields(Managed(fields, times))


def custom_apply_error(applied: Any, owned: bool) -> RequestError:
    """An apply to a custom resource's /scale: apiextensions-apiserver's scale scope keeps the
    custom resource's convertor, which refuses to convert the unstructured Scales of an apply to
    autoscaling/v1 — the applied one, or, when no entry owns the replicas, the creater's empty Scale
    that skipNonApplied would record ``before-first-apply`` from. The server answers 500."""
    refusal = "to proper version: request to convert CR to an invalid group/version: autoscaling/v1"
    if not owned:
        return RequestError("invalid-patch", "failed to create manager for existing fields: failed to convert live "
                            f"object (/; autoscaling/v1, Kind=Scale) {refusal}", 500, "InternalError")
    metadata = applied.get("metadata") if isinstance(applied, dict) else None
    metadata = metadata if isinstance(metadata, dict) else {}
    where = f"{metadata.get('namespace') or ''}/{metadata.get('name') or ''}"
    message = f"failed to convert new object ({where}; autoscaling/v1, Kind=Scale) {refusal}"
    return RequestError("invalid-patch", message, 500, "InternalError")


def scale_of(obj: dict[str, Any], paths: ScalePaths) -> dict[str, Any]:
    """scaleFrom<Kind> / scaleFromCustomResource: the object's Scale (without managedFields)."""
    metadata = obj.get("metadata") or {}
    scale_metadata = {key: metadata[key] for key in ("name", "namespace", "uid", "resourceVersion",
                                                      "creationTimestamp") if metadata.get(key)}
    spec_replicas = _nested(obj, paths.spec_replicas)
    if paths.custom:
        replicas = spec_replicas if isinstance(spec_replicas, int) else INVALID_SPEC_REPLICAS
        selector = _nested(obj, paths.label_selector) if paths.label_selector else ""
    else:
        replicas = spec_replicas if isinstance(spec_replicas, int) else 0
        selector = label_selector_string(_nested(obj, ("spec", "selector")), obj.get("kind"))
    status_replicas = _nested(obj, paths.status_replicas)
    status: dict[str, Any] = {"replicas": status_replicas if isinstance(status_replicas, int) else 0}
    if isinstance(selector, str) and selector:
        status["selector"] = selector
    return {"kind": SCALE_KIND, "apiVersion": SCALE_API_VERSION, "metadata": scale_metadata,
            "spec": {"replicas": replicas}, "status": status}


def parent_of(obj: dict[str, Any], scale: dict[str, Any], paths: ScalePaths, name: str) -> dict[str, Any]:
    """UpdatedObject's end: the Scale's spec.replicas set into a copy of the object. RequestError:
    what ValidateScale refuses (a built-in kind), or a custom resource's Scale still without replicas."""
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    if paths.custom:
        field = "." + ".".join(paths.spec_replicas)
        if replicas == INVALID_SPEC_REPLICAS:
            raise RequestError("invalid", f'the spec replicas field "{field}" cannot be empty', 400, "BadRequest")
        if isinstance(replicas, int) and replicas < 0:  # the custom resource's ValidateScaleSpec, on the object
            kind, group = obj.get("kind", ""), str(obj.get("apiVersion", "")).rpartition("/")[0]
            raise RequestError("invalid", f'{kind}.{group} "{name}" is invalid: {field}: Invalid value: {replicas}: '
                               "should be a non-negative integer", 422, "Invalid")
    elif isinstance(replicas, int) and replicas < 0:
        raise RequestError("invalid", f'Scale.autoscaling "{name}" is invalid: spec.replicas: Invalid value: '
                           f"{replicas}: must be greater than or equal to 0", 422, "Invalid")
    parent = json_copy(obj)
    target = parent
    for key in paths.spec_replicas[:-1]:
        child = target.get(key)
        if not isinstance(child, dict):
            child = target[key] = {}
        target = child
    target[paths.spec_replicas[-1]] = replicas
    return parent


def _nested(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def label_selector_string(selector: Any, kind: Any) -> str:
    """metav1.LabelSelectorAsSelector(...).String() (a ReplicationController's selector is a plain
    map: labels.SelectorFromSet): requirements sorted by key, values sorted."""
    if not isinstance(selector, dict) or not selector:
        return ""
    if kind == "ReplicationController":
        return ",".join(f"{key}={value}" for key, value in sorted(selector.items()))
    requirements = [(key, f"{key}={value}") for key, value in (selector.get("matchLabels") or {}).items()]
    for expression in selector.get("matchExpressions") or ():
        key, operator = expression.get("key", ""), expression.get("operator", "")
        values = ",".join(sorted(expression.get("values") or ()))
        text = {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key,
                "DoesNotExist": f"!{key}"}.get(operator, "")
        requirements.append((key, text))
    return ",".join(text for _, text in sorted(requirements, key=lambda pair: pair[0]))


def orders_differ(entries: Any) -> bool:
    """Whether some entry's FieldsV1 reads differently as structured-merge-diff writes a set (its
    elements in PathElement.Compare's order: key and set values compared as values, numbers by
    size) and as ToParent leaves it. ToParent's managedFieldsEntries sets the entries on an
    unstructured object and reads them back, so each FieldsV1 is encoded again from a map, its
    keys sorted as text (``k:{"port":443}`` before ``k:{"port":80}``). Storage compares bytes: a
    write from one order to the other is a write even where nothing else changed."""
    return any(isinstance(entry, dict) and isinstance(entry.get("fieldsV1"), dict)
               and not _written_alike(entry["fieldsV1"]) for entry in entries or ())


def _written_alike(fields: dict[str, Any]) -> bool:
    keys = [key for key in fields if key != "."]
    if sorted(keys) != sorted(keys, key=_element_order):
        return False
    return all(_written_alike(child) for child in fields.values() if isinstance(child, dict) and child)


def _element_order(text: str) -> tuple:
    element = PathElement.from_json_key(text)
    if element.kind == KEY:
        return element.kind, tuple((name, _value_order(value)) for name, value in element.payload)
    if element.kind == VALUE:
        return element.kind, _value_order(element.payload)
    return element.kind, element.payload


def _value_order(value: Any) -> tuple:
    """value.Compare's order: numbers (ints and floats by size), strings, booleans, lists, maps, null."""
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, (int, float)):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, list):
        return (3, tuple(_value_order(item) for item in value))
    if isinstance(value, dict):
        return (4, tuple(sorted((key, _value_order(item)) for key, item in value.items())))
    return (5,)
