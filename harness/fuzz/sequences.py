"""Request sequences on valid objects of built-in kinds: what ``patchconf fuzz --truth live`` sends.

A server stores what it decoded, defaulted and validated, and who owns a field depends on that
pipeline; so every input here is a ``server-side-apply`` case — a sequence of requests on one
object, each judged by its error and conflicts, every managedFields entry and the stored object:

- :func:`server_side_apply`: 2–5 requests by 2–3 managers, the first an apply that creates the
  object. Applies (forced or not, some with nulls) of the whole manifest or of one manager's
  facet (replicas, an image, a sidecar, a port keyed by port and protocol, a label);
  read-modify-write updates (a PUT of the object as the client read it, with a change: a
  client that round-trips the server's defaults, one that drops them such as
  ``spec.strategy``, one sending ``metadata.labels: {}`` or ``annotations: null``); merge,
  strategic and JSON patches; applies and updates of ``status`` through its subresource; applies,
  updates and patches of an autoscaling/v1 Scale through ``scale`` (kinds whose registry serves
  it); some applies, updates and patches of the object sent as dry runs (``dry_run``: answered, not
  stored).
- :func:`patch_flow`: a JSON, merge or strategic patch (one or two, by one or two managers) on
  a stored object (``current``, created by the server, no managedFields): the patch types'
  own flows, judged as a server runs them.

The client's picture of the object (``model``) is the generator's own bookkeeping, an input:
what a client last read is approximated by what was sent (applies merged in), never computed
by the reference. Where it differs from what the server holds, the request is still one a
client could send.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ...reference_impl import jsonpointer
from .choices import Choices, pick
from .kinds import KINDS, LABEL_VALUES, Kind, labels_of, read_back

Json = Any
Members = dict[str, Any]

MANAGERS = ["alice", "bob", "carol"]
KIND_ORDER = ["ConfigMap", "Deployment", "Service", "StatefulSet", "DaemonSet", "Job", "CronJob", "Pod", "Secret",
              "ServiceAccount", "Ingress", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "Role",
              "RoleBinding", "PersistentVolumeClaim", "Database"]
PATCH_TYPES = ["merge-patch", "strategic", "json-patch"]  # the PATCH request types, in the order seeds pick
# Kinds whose registry serves the scale subresource (ScaleREST).
SCALED_KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController")
DRY_RUN_CHANCE = 0.1
# Fields the server defaults that a patch may delete (it comes back defaulted) or a client may drop.
DEFAULTED = {
    "Deployment": [("spec", "strategy"), ("spec", "revisionHistoryLimit"), ("spec", "replicas"),
                   ("spec", "progressDeadlineSeconds")],
    "StatefulSet": [("spec", "updateStrategy"), ("spec", "revisionHistoryLimit"), ("spec", "replicas")],
    "DaemonSet": [("spec", "updateStrategy"), ("spec", "revisionHistoryLimit")],
    "Job": [("spec", "backoffLimit"), ("spec", "parallelism")],
    "CronJob": [("spec", "concurrencyPolicy"), ("spec", "successfulJobsHistoryLimit"), ("spec", "suspend")],
    "Service": [("spec", "sessionAffinity"), ("spec", "type")],
    "ConfigMap": [],
    "Pod": [],
    "Secret": [("type",)],
    "ServiceAccount": [],
    "Ingress": [],
    "HorizontalPodAutoscaler": [("spec", "minReplicas"), ("spec", "metrics"), ("spec", "behavior", "scaleDown")],
    "PodDisruptionBudget": [],
    "NetworkPolicy": [("spec", "policyTypes")],
    "Role": [],
    "RoleBinding": [("roleRef", "apiGroup")],
    "PersistentVolumeClaim": [("spec", "volumeMode")],
    # a custom kind's structural defaults
    "Database": [("spec", "replicas"), ("spec", "port"), ("spec", "storage"), ("spec", "storage", "size")],
}
# Merge keys of the strategic patches generated here (the built-in kinds' patchMergeKey).
MERGE_KEYS = {"containers": "name", "env": "name", "volumes": "name", "volumeMounts": "mountPath",
              "ports": None, "conditions": "type", "secrets": "name"}


def _kind(c: Choices, strategic: bool = False) -> Kind:
    """A kind; for a strategic patch, a built-in one (a custom resource takes none: 415)."""
    return KINDS[pick(c, [name for name in KIND_ORDER if not (strategic and KINDS[name].schema)])]


def _with_schema(kind: Kind, members: Members) -> Members:
    """A custom kind's sequence names its schema (the live target makes the CRD from it)."""
    return {**members, "schema": {"named": kind.schema}} if kind.schema else members


# --- the client's picture ------------------------------------------------------------------------


def _item_key(item: Json) -> Json:
    if not isinstance(item, dict):
        return None
    for key in ("name", "type", "mountPath"):
        if key in item:
            return (key, item[key])
    if "containerPort" in item:
        return ("containerPort", item["containerPort"], item.get("protocol", "TCP"))
    if "port" in item:
        return ("port", item["port"], item.get("protocol", "TCP"))
    return None


def merged(model: Json, config: Json) -> Json:
    """``config`` merged into ``model`` as a client would picture an apply or a patch: maps member by
    member (null deletes), lists of keyed items item by item, other lists replaced."""
    if isinstance(model, dict) and isinstance(config, dict):
        result = copy.deepcopy(model)
        for key, value in config.items():
            if value is None:
                result.pop(key, None)
            elif key in result:
                result[key] = merged(result[key], value)
            else:
                result[key] = copy.deepcopy(value)
        return result
    if isinstance(model, list) and isinstance(config, list) and all(_item_key(i) for i in model + config):
        result = [copy.deepcopy(item) for item in model]
        for item in config:
            at = next((n for n, old in enumerate(result) if _item_key(old) == _item_key(item)), None)
            if at is None:
                result.append(copy.deepcopy(item))
            else:
                result[at] = merged(result[at], item)
        return result
    return copy.deepcopy(config)


def _drop(document: dict, path: tuple[str, ...]) -> None:
    here: Json = document
    for key in path[:-1]:
        here = here.get(key) if isinstance(here, dict) else None
    if isinstance(here, dict):
        here.pop(path[-1], None)


def _set(document: dict, path: tuple[str, ...], value: Json) -> None:
    here = document
    for key in path[:-1]:
        here = here.setdefault(key, {})
    here[path[-1]] = value


# --- patches ---------------------------------------------------------------------------------------


def _merge_diff(before: Json, after: Json) -> Json:
    """The JSON merge patch from ``before`` to ``after`` (lists whole)."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return copy.deepcopy(after)
    patch: dict = {}
    for key in before:
        if key not in after:
            patch[key] = None
        elif before[key] != after[key]:
            patch[key] = _merge_diff(before[key], after[key])
    for key in after:
        if key not in before:
            patch[key] = copy.deepcopy(after[key])
    return patch


def _strategic_diff(before: Json, after: Json, field: str | None = None) -> Json:
    """A strategic merge patch from ``before`` to ``after``: lists of keyed items item by item
    (a dropped item as ``$patch: delete``), other lists whole."""
    if isinstance(before, dict) and isinstance(after, dict):
        patch: dict = {}
        for key in before:
            if key not in after:
                patch[key] = None
            elif before[key] != after[key]:
                patch[key] = _strategic_diff(before[key], after[key], key)
        for key in after:
            if key not in before:
                patch[key] = copy.deepcopy(after[key])
        return patch
    merge_key = MERGE_KEYS.get(field or "")
    if isinstance(before, list) and isinstance(after, list) and merge_key:
        keyed = {item.get(merge_key): item for item in before if isinstance(item, dict)}
        items = []
        for item in after:
            old = keyed.get(item.get(merge_key)) if isinstance(item, dict) else None
            if old is None:
                items.append(copy.deepcopy(item))
            elif old != item:
                items.append({merge_key: item[merge_key], **_strategic_diff(old, item)})
        wanted = {item.get(merge_key) for item in after if isinstance(item, dict)}
        items += [{merge_key: key, "$patch": "delete"} for key in keyed if key not in wanted]
        return items
    return copy.deepcopy(after)


def _json_patch_diff(before: Json, after: Json, path: tuple = ()) -> list[dict]:
    """JSON patch operations from ``before`` to ``after``: members replaced, added, removed; lists
    of the same length item by item, others whole."""
    if isinstance(before, dict) and isinstance(after, dict):
        ops: list[dict] = []
        for key in before:
            if key not in after:
                ops.append({"op": "remove", "path": jsonpointer.build((*path, key))})
            elif before[key] != after[key]:
                ops += _json_patch_diff(before[key], after[key], (*path, key))
        for key in after:
            if key not in before:
                ops.append({"op": "add", "path": jsonpointer.build((*path, key)), "value": copy.deepcopy(after[key])})
        return ops
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        ops = []
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            if old != new:
                ops += _json_patch_diff(old, new, (*path, str(index)))
        return ops
    return [{"op": "replace", "path": jsonpointer.build(path), "value": copy.deepcopy(after)}]


def _changed(c: Choices, kind: Kind, model: dict) -> dict:
    """What a patching client wants the object to become: a label, a deleted defaulted field, or a
    varied object."""
    roll = c.integer(0, 5)
    target = copy.deepcopy(model)
    if roll == 1:
        labels_of(target)[pick(c, ["team", "env"])] = pick(c, LABEL_VALUES)
    elif roll == 2 and target["metadata"].get("labels"):
        del target["metadata"]["labels"][pick(c, sorted(target["metadata"]["labels"]))]
    elif roll == 3 and DEFAULTED[kind.name]:
        _drop(target, pick(c, DEFAULTED[kind.name]))
    else:
        target = kind.vary(c, target)
    return target


def patch_for(c: Choices, kind: Kind, model: dict, patch_type: str) -> Json:
    """A patch of ``patch_type`` that a client picturing ``model`` sends."""
    if patch_type == "merge-patch" and c.chance(0.1):
        return {"metadata": {pick(c, ["annotations", "labels"]): None}}
    if patch_type == "json-patch" and DEFAULTED[kind.name] and c.chance(0.15):
        # a defaulted field the client never saw, which the server holds
        return [{"op": "remove", "path": jsonpointer.build(pick(c, DEFAULTED[kind.name]))}]
    if patch_type == "strategic" and kind.name == "Deployment" and c.chance(0.1):
        return {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}
    target = _changed(c, kind, model)
    if patch_type == "merge-patch":
        return _merge_diff(model, target)
    if patch_type == "strategic":
        return _strategic_diff(model, target)
    ops = _json_patch_diff(model, target)
    if ops and c.chance(0.15):
        first = ops[0]
        pointer = first["path"]
        tokens = jsonpointer.parse(pointer)
        value: Json = model
        for token in tokens:
            value = value[int(token)] if isinstance(value, list) else value.get(token) if isinstance(value, dict) \
                else None
        if first["op"] != "add" and value is not None:
            ops.insert(0, {"op": "test", "path": pointer, "value": copy.deepcopy(value)})
    return ops or [{"op": "add", "path": "/metadata/labels", "value": {"team": "x"}}]


def _patched(model: dict, patch: Json, patch_type: str) -> dict:
    """The client's picture after its patch (an approximation: directives and JSON patch ops read as merges)."""
    if patch_type == "json-patch":
        result = copy.deepcopy(model)
        for op in patch:
            tokens = jsonpointer.parse(op["path"])
            if not tokens or any(token.isdigit() for token in tokens):
                continue
            if op["op"] == "remove":
                _drop(result, tuple(tokens))
            elif op["op"] in ("add", "replace"):
                _set(result, tuple(tokens), copy.deepcopy(op["value"]))
        return result
    return merged(model, _without_directives(patch))


def _without_directives(patch: Json) -> Json:
    if isinstance(patch, dict):
        return {k: _without_directives(v) for k, v in patch.items() if not k.startswith("$")}
    if isinstance(patch, list):
        return [_without_directives(item) for item in patch if not (isinstance(item, dict) and "$patch" in item)]
    return patch


# --- server-side apply sequences ------------------------------------------------------------------


def _apply_step(c: Choices, kind: Kind, manager: str, creator: str, manifest: dict, model: dict) -> tuple[dict, dict]:
    """An apply: the creator's manifest (varied), or another manager's facet; some with a null."""
    whole = manager == creator or c.chance(0.15)
    config = kind.vary(c, manifest) if whole else pick(c, kind.facets)(c, model)
    if c.chance(0.1):
        path = pick(c, [("metadata", "labels"), *DEFAULTED[kind.name]])
        _set(config, path, None)  # a null: "I have no opinion", or a deletion, as the server reads it
    step: dict = {"op": "apply", "manager": manager, "object": config}
    if c.chance(0.3):
        step["force"] = True
    return step, config


def _update_step(c: Choices, kind: Kind, manager: str, model: dict) -> tuple[dict, dict]:
    """A read-modify-write PUT: the object as the client read it, with its change."""
    body = read_back(model) if c.chance(0.5) else copy.deepcopy(model)
    if c.chance(0.6):
        body = kind.vary(c, body)
    if DEFAULTED[kind.name] and c.chance(0.2):
        _drop(body, pick(c, DEFAULTED[kind.name]))  # a client whose type lacks the field drops it
    roll = c.integer(0, 9)
    if roll == 1:
        body["metadata"]["labels"] = {}
    elif roll == 2:
        body["metadata"]["annotations"] = None
    elif roll == 3:
        labels_of(body)[pick(c, ["team", "env"])] = pick(c, LABEL_VALUES)
    return {"op": "update", "manager": manager, "object": body}, body


def _status_step(c: Choices, kind: Kind, manager: str, model: dict) -> dict:
    status = kind.status(c)
    if c.chance(0.6):
        step: dict = {"op": "apply", "manager": manager, "subresource": "status",
                      "object": {**_identity(model), "status": status}}
        if c.chance(0.3):
            step["force"] = True
        return step
    return {"op": "update", "manager": manager, "subresource": "status", "object": {**copy.deepcopy(model),
                                                                                    "status": status}}


def _scale_step(c: Choices, manager: str, model: dict) -> tuple[dict, int]:
    """A write of the replicas through /scale, as an autoscaler or ``kubectl scale`` sends it: an
    apply or update of a Scale, or a patch of one."""
    replicas = pick(c, [0, 1, 2, 3, 5])
    scale = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": model["metadata"]["name"]},
             "spec": {"replicas": replicas}}
    form = pick(c, ["apply", "update", *PATCH_TYPES])
    step: dict = {"op": form, "manager": manager, "subresource": "scale"}
    if form == "apply":
        step["object"] = scale
        if c.chance(0.3):
            step["force"] = True
    elif form == "update":
        step["object"] = scale
    elif form == "json-patch":
        step.update(op="patch", patch_type=form, patch=[{"op": "replace", "path": "/spec/replicas", "value": replicas}])
    else:
        step.update(op="patch", patch_type=form, patch={"spec": {"replicas": replicas}})
    return step, replicas


def _identity(obj: dict) -> dict:
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": {"name": obj["metadata"]["name"]}}


def server_side_apply(c: Choices) -> Members:
    """2–5 requests by 2–3 managers on one valid object of a built-in kind; the first creates it by an apply."""
    kind = _kind(c)
    manifest = kind.make(c)
    managers = MANAGERS[:c.integer(2, 3)]
    creator = managers[0]
    steps: list[dict] = [{"op": "apply", "manager": creator, "object": manifest}]
    model = copy.deepcopy(manifest)
    ops = ["apply", "update", "patch", *(["status"] if kind.status else []),
           *(["scale"] if kind.name in SCALED_KINDS else [])]
    for _ in range(c.integer(1, 4)):
        manager = pick(c, managers)
        op = pick(c, ops)
        before = (manifest, model)
        if op == "apply":
            step, config = _apply_step(c, kind, manager, creator, manifest, model)
            if manager == creator:
                manifest = config
            model = merged(model, config)
        elif op == "update":
            step, model = _update_step(c, kind, manager, model)
        elif op == "patch":
            patch_type = pick(c, [t for t in PATCH_TYPES if not (kind.schema and t == "strategic")])
            patch = patch_for(c, kind, model, patch_type)
            step = {"op": "patch", "manager": manager, "patch_type": patch_type, "patch": patch}
            model = _patched(model, patch, patch_type)
        elif op == "scale":
            step, replicas = _scale_step(c, manager, model)
            model = copy.deepcopy(model)
            _set(model, ("spec", "replicas"), replicas)
        else:
            step = _status_step(c, kind, manager, model)
        if op not in ("status", "scale") and c.chance(DRY_RUN_CHANCE):
            step["dry_run"] = True  # answered, not stored: the client's picture stays
            manifest, model = before
        steps.append(step)
    return _with_schema(kind, {"steps": steps})


def patch_flow(patch_type: str) -> Callable[[Choices], Members]:
    """Patches of ``patch_type`` (one or two, by one or two managers) on a stored valid object."""

    def generate(c: Choices) -> Members:
        kind = _kind(c, strategic=patch_type == "strategic")
        current = kind.make(c)
        model = copy.deepcopy(current)
        steps = []
        for _ in range(c.integer(1, 2)):
            patch = patch_for(c, kind, model, patch_type)
            steps.append({"op": "patch", "manager": pick(c, MANAGERS), "patch_type": patch_type, "patch": patch})
            model = _patched(model, patch, patch_type)
        return _with_schema(kind, {"current": current, "steps": steps})

    generate.__name__ = f"{patch_type.replace('-', '_')}_flow"
    generate.__doc__ = f"{patch_type} requests on a stored valid object of a built-in kind"
    return generate


# flow -> generator; every input is a server-side-apply case (a request sequence)
LIVE_GENERATORS: dict[str, Callable[[Choices], Members]] = {
    "server-side-apply": server_side_apply,
    "json-patch": patch_flow("json-patch"),
    "merge-patch": patch_flow("merge-patch"),
    "strategic": patch_flow("strategic"),
}
