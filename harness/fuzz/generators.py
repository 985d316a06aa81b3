"""Random inputs for every flow, as functions of a :class:`~patchconf.harness.fuzz.choices.Choices`.

Each generator returns the members of one case: its inputs (``original``, ``patch``,
``modified``, ``current``, ``steps``), and ``schema`` and ``options`` where the flow takes
them. Decisions are arranged so that the smaller choice is the simpler input (leave a
member out, the first option), so that shrinking ends at small cases.

The shapes: arbitrary JSON with keys that need pointer escapes (JSON Patch, merge patch);
Deployments, Pods, Services and ConfigMaps (built-in kinds), and the made-up kinds of
``cases/schemas`` (named schemas: merge lists by a number or by name, nested merge lists,
retainKeys maps, replace strategies, lists of lists, a field of any type).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...reference_impl import jsonpointer
from ...reference_impl.govalue.decoded import json_copy
from ...reference_impl.govalue.utiljson import through_go_json
from .choices import Choices, pick, shuffled, some

Json = Any
Members = dict[str, Any]

# Keys a JSON pointer must escape or that look like something else ("-", "0").
KEYS = ["a", "b", "c", "", "a/b", "m~n", "~1", "ü", "0", "-"]
# Numbers every Kubernetes path spells alike. Applying a patch, kubectl reads the document's numbers
# as float64 and writes them again (2.0 becomes 2, 2**63 loses precision) where the patch libraries
# keep the bytes they did not touch: the corpus records that departure (SMP-NUMBERS, JP-K8S), and a
# fuzzed input would only find it again. Patch creation decodes every number as float64 on all paths.
SCALARS = [0, None, "", "x", 1, True, False, -1, 1.5, "1", 2**40, "a/b"]
CREATION_SCALARS = [*SCALARS, 2.0, 2**63]
ARRAY_TOKENS = ["-", "0", "1", "{length}", "{past}", "01", "-1", "x", ""]


# --- arbitrary JSON ---------------------------------------------------------------------------


def value(c: Choices, depth: int = 0, scalars: list = SCALARS) -> Json:
    kind = c.integer(0, 2) if depth < 3 else 0
    if kind == 0:
        return pick(c, scalars)
    if kind == 1:
        return obj(c, depth + 1, scalars)
    return [value(c, depth + 1, scalars) for _ in range(c.integer(0, 3))]


def obj(c: Choices, depth: int = 0, scalars: list = SCALARS) -> dict:
    return {pick(c, KEYS): value(c, depth + 1, scalars) for _ in range(c.integer(0, 3))}


def document(c: Choices, scalars: list = SCALARS) -> Json:
    """Mostly an object; now and then an array or a scalar."""
    roll = c.integer(0, 19)
    if roll == 18:
        return [value(c, 1, scalars) for _ in range(c.integer(0, 3))]
    if roll == 19:
        return pick(c, scalars)
    return obj(c, 0, scalars)


def mutated(c: Choices, original: Json, depth: int = 0, scalars: list = SCALARS) -> Json:
    """A changed copy: members dropped, added, changed (types too), list items dropped and reordered."""
    if isinstance(original, dict):
        result = {}
        for key, member in original.items():
            if c.chance(0.1):
                continue  # dropped
            result[key] = mutated(c, member, depth + 1, scalars) if c.chance(0.5) else json_copy(member)
        for _ in range(c.integer(0, 1) if c.chance(0.3) else 0):
            result[pick(c, KEYS)] = value(c, depth + 1, scalars)
        return result
    if isinstance(original, list):
        items = [mutated(c, item, depth + 1, scalars) for item in original if not c.chance(0.2)]
        if c.chance(0.2):
            items = shuffled(c, items)
        if c.chance(0.15):
            items.append(value(c, depth + 1, scalars))
        return items
    if c.chance(0.25):
        return value(c, depth, scalars)
    return original


# --- JSON Patch -------------------------------------------------------------------------------


def _nodes(document: Json, path: tuple = ()) -> list[tuple[tuple, Json]]:
    """Every node of the document with its path, the root first."""
    found = [(path, document)]
    if isinstance(document, dict):
        for key, member in document.items():
            found += _nodes(member, (*path, key))
    elif isinstance(document, list):
        for index, item in enumerate(document):
            found += _nodes(item, (*path, str(index)))
    return found


def _json_patch_path(c: Choices, nodes: list[tuple[tuple, Json]]) -> tuple[str, Json]:
    """A pointer (and the value there, or ABSENT-like None): an existing node, a new child of one, or a broken one."""
    mode = c.integer(0, 9)
    path, node = pick(c, nodes)
    if mode < 5:
        return jsonpointer.build(path), node
    if mode < 9:
        if isinstance(node, list):
            token = pick(c, ARRAY_TOKENS).format(length=len(node), past=len(node) + 1)
        else:
            token = pick(c, KEYS)
        return jsonpointer.build((*path, token)), None
    return pick(c, ["a", "/~2", "//", "/a~", "#/a"]), None


JSON_PATCH_OPS = ["add", "remove", "replace", "test", "move", "copy"]


def json_patch(c: Choices) -> Members:
    original = document(c)
    nodes = _nodes(original)
    patch = []
    for _ in range(c.integer(1, 4)):
        op = pick(c, [*JSON_PATCH_OPS, "bogus"])
        path, there = _json_patch_path(c, nodes)
        operation: dict[str, Any] = {"op": op, "path": path}
        if op in ("add", "replace", "test", "bogus"):
            same = op == "test" and there is not None and c.chance(0.5)
            operation["value"] = json_copy(there) if same else value(c, 1)
        if op in ("move", "copy"):
            operation["from"], _ = _json_patch_path(c, nodes)
        if c.chance(0.03):
            del operation[pick(c, list(operation))]  # a member missing: an invalid operation
        patch.append(operation)
    return {"original": original, "patch": patch}


# --- merge patch ------------------------------------------------------------------------------


def merge_patch_of(c: Choices, original: Json, depth: int = 0) -> Json:
    """A merge patch for ``original``: members deleted (null), merged into, replaced (types too), added."""
    if not isinstance(original, dict) or c.chance(0.1):
        return value(c, depth)
    patch: dict = {}
    for key, member in original.items():
        if not c.chance(0.4):
            continue
        how = c.integer(0, 2)
        patch[key] = None if how == 0 else merge_patch_of(c, member, depth + 1) if how == 1 else value(c, depth + 1)
    for _ in range(c.integer(0, 2)):
        key = pick(c, KEYS)
        patch[key] = None if c.chance(0.3) else value(c, depth + 1)
    return patch


def merge_patch(c: Choices) -> Members:
    original = document(c)
    return {"original": original, "patch": merge_patch_of(c, original)}


def merge_patch_2way(c: Choices) -> Members:
    original = document(c, CREATION_SCALARS)
    return {"original": original, "modified": mutated(c, original, 0, CREATION_SCALARS)}


def merge_patch_3way(c: Choices) -> Members:
    original = obj(c, 0, CREATION_SCALARS)
    return {"original": original, "modified": mutated(c, original, 0, CREATION_SCALARS),
            "current": mutated(c, original, 0, CREATION_SCALARS)}


# --- Kubernetes objects -----------------------------------------------------------------------


def _metadata(c: Choices, name: str) -> dict:
    metadata: dict = {"name": name}
    if c.chance(0.5):
        metadata["labels"] = {key: pick(c, ["x", "y"]) for key in some(c, ["app", "tier", "env"])}
    if c.chance(0.3):
        metadata["finalizers"] = some(c, ["f/a", "f/b", "f/c", "f/a"])
    if c.chance(0.15):
        metadata["annotations"] = {"note": pick(c, ["plain", "<b>&", "ünïcode\u2028"])}
    return metadata


def _container(c: Choices, name: str) -> dict:
    container: dict = {"name": name, "image": pick(c, ["nginx", "busybox", "redis:7"])}
    if c.chance(0.4):
        container["args"] = some(c, ["-v", "--port=80", "serve", "-v"])
    if c.chance(0.5):
        container["env"] = [{"name": env, "value": pick(c, ["1", "2", "x"])} for env in some(c, ["A", "B", "C"])]
    if c.chance(0.4):
        container["ports"] = [{"containerPort": port, "protocol": pick(c, ["TCP", "UDP"])}
                              for port in some(c, [80, 443, 8080])]
    if c.chance(0.2):
        container["resources"] = {"limits": {"cpu": pick(c, ["1", "500m", 2])}}
    if c.chance(0.15):
        container["livenessProbe"] = pick(c, [{"exec": {"command": ["true"]}},
                                              {"httpGet": {"path": "/", "port": 80}}])
    return container


def _pod_spec(c: Choices) -> dict:
    spec: dict = {"containers": [_container(c, name) for name in some(c, ["a", "b", "c"], 0.6) or ["a"]]}
    if c.chance(0.4):
        sources = [{"emptyDir": {}}, {"hostPath": {"path": "/a"}}, {"configMap": {"name": "c1"}},
                   {"emptyDir": {"medium": "Memory"}}]
        spec["volumes"] = [{"name": name, **json_copy(pick(c, sources))} for name in some(c, ["v1", "v2", "v3"])]
    if c.chance(0.2):
        spec["imagePullSecrets"] = [{"name": name} for name in some(c, ["s1", "s2"])]
    if c.chance(0.2):
        spec["tolerations"] = [{"key": key, "operator": "Exists"} for key in some(c, ["k1", "k2"])]
    if c.chance(0.2):
        spec["nodeSelector"] = {key: "yes" for key in some(c, ["disk", "zone"])}
    if c.chance(0.15):
        spec["terminationGracePeriodSeconds"] = pick(c, [30, 30.0, 60, 2.5])
    return spec


def deployment(c: Choices) -> dict:
    spec: dict = {"selector": {"matchLabels": {"app": "x"}},
                  "template": {"metadata": {"labels": {"app": "x"}}, "spec": _pod_spec(c)}}
    if c.chance(0.5):
        spec["replicas"] = pick(c, [1, 2, 3, 2.0])
    if c.chance(0.4):
        spec["strategy"] = pick(c, [{"type": "Recreate"},
                                    {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
                                    {"rollingUpdate": {"maxUnavailable": "25%"}}])
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _metadata(c, "web"), "spec": spec}


def pod(c: Choices) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _metadata(c, "p"), "spec": _pod_spec(c)}


def service(c: Choices) -> dict:
    spec: dict = {
        "ports": [{"port": port, "targetPort": pick(c, [port, "http", 8080]), "name": f"p{port}"}
                  for port in some(c, [80, 443, 8443], 0.6) or [80]],
        "selector": {key: "x" for key in some(c, ["app", "tier"])},
    }
    if c.chance(0.4):
        spec["type"] = pick(c, ["ClusterIP", "NodePort"])
    return {"apiVersion": "v1", "kind": "Service", "metadata": _metadata(c, "s"), "spec": spec}


def config_map(c: Choices) -> dict:
    data = {key: pick(c, ["1", "", "x"]) for key in some(c, ["a", "b", "c.txt"])}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _metadata(c, "cm"), "data": data}


def widget(c: Choices) -> dict:
    spec: dict = {}
    if c.chance(0.6):
        spec["tags"] = some(c, ["a", "b", "c", "b", "1"])
    if c.chance(0.4):
        spec["ports"] = some(c, [80, 443, 8080, 80, 80.0, 1, "1"])
    if c.chance(0.6):
        spec["parts"] = [{"id": part, "label": pick(c, ["x", "y"]), "aliases": some(c, ["p", "q"])}
                         for part in some(c, [1, 2, 3, 1000000, 1000000.0, 2.5e6])]
    if c.chance(0.5):
        spec["groups"] = [{"name": group, "members": [{"uid": uid, "role": pick(c, ["r", "w"])}
                                                      for uid in some(c, ["u1", "u2", "u3"])]}
                          for group in some(c, ["g1", "g2"])]
    if c.chance(0.15):
        spec["grid"] = pick(c, [[[1]], [[1, 2], [3]]])
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": _metadata(c, "w"), "spec": spec}


def gadget(c: Choices) -> dict:
    spec: dict = {}
    if c.chance(0.5):
        spec["mode"] = pick(c, [{"type": "fast", "fast": {"threads": 2}}, {"type": "safe", "safe": {"retries": 1}}])
    if c.chance(0.4):
        spec["settings"] = {key: pick(c, ["1", "2"]) for key in some(c, ["color", "extras"])}
    if c.chance(0.4):
        spec["env"] = {key: pick(c, ["1", "2"]) for key in some(c, ["E", "F"])}
    if c.chance(0.6):
        spec["blob"] = value(c, 1)
    return {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": _metadata(c, "g"), "spec": spec}


# (maker, named schema or None for a built-in kind)
KINDS: dict[str, tuple[Callable[[Choices], dict], str | None]] = {
    "configmap": (config_map, None),
    "deployment": (deployment, None),
    "pod": (pod, None),
    "service": (service, None),
    "widget": (widget, "widget"),
    "gadget": (gadget, "gadget"),
}


def variant(c: Choices, original: dict, make: Callable[[Choices], dict]) -> dict:
    """Another version of an object: mostly a mutation of it, sometimes a fresh one of its kind."""
    if c.chance(0.1):
        fresh = make(c)
        fresh["metadata"]["name"] = original["metadata"]["name"]
        return fresh
    changed = mutated(c, original)
    # Keep the identity (changing it is refused as a precondition), except now and then.
    changed["apiVersion"], changed["kind"] = original["apiVersion"], original["kind"]
    if not isinstance(changed.get("metadata"), dict):
        changed["metadata"] = {}
    changed["metadata"]["name"] = "renamed" if c.chance(0.03) else original["metadata"]["name"]
    return changed


def live(c: Choices, configuration: dict, make: Callable[[Choices], dict]) -> dict:
    """The live object: a variant of the configuration plus what the server and others added."""
    result = variant(c, configuration, make)
    if c.chance(0.4):
        result["status"] = {"observedGeneration": pick(c, [1, 2]), "conditions": [{"type": "Ready"}]}
    if c.chance(0.3):
        result["metadata"]["uid"] = "0c9f"
        result["metadata"].setdefault("labels", {})["added-by"] = "someone"
    if c.chance(0.2) and isinstance(result["metadata"].get("finalizers"), list):
        result["metadata"]["finalizers"].append("server/f")
    return result


# --- strategic merge patch --------------------------------------------------------------------

PATCH_DIRECTIVES = ["delete", "replace", "merge", "bogus"]


def _plain_patch(c: Choices, original: Json, modified: Json) -> Json:
    """A patch that takes ``original`` to ``modified`` as a merge patch would say it (lists whole)."""
    if not isinstance(original, dict) or not isinstance(modified, dict):
        return json_copy(modified)
    patch: dict = {}
    for key in original:
        if key not in modified:
            if c.chance(0.8):
                patch[key] = None
        elif original[key] != modified[key]:
            patch[key] = _plain_patch(c, original[key], modified[key])
    for key in modified:
        if key not in original:
            patch[key] = json_copy(modified[key])
    return patch


def _merge_key_of(item: Json) -> Json:
    if isinstance(item, dict):
        for key in ("name", "id", "containerPort", "port", "uid"):
            if key in item:
                return {key: item[key]}
    return None


def with_directives(c: Choices, patch: Json) -> Json:
    """``patch`` with strategic directives mixed in: ``$patch``, ``$retainKeys``,
    ``$setElementOrder/…``, ``$deleteFromPrimitiveList/…`` (sensible and not)."""
    if isinstance(patch, list):
        items = [with_directives(c, item) for item in patch]
        maps = [item for item in items if isinstance(item, dict)]
        if maps and c.chance(0.12):
            items.append({**json_copy(pick(c, maps)), "$patch": pick(c, PATCH_DIRECTIVES)})
        if c.chance(0.04):
            items.append({"$patch": pick(c, ["replace", "delete"])})
        return items
    if not isinstance(patch, dict):
        return patch
    result = {key: with_directives(c, member) for key, member in patch.items()}
    if c.chance(0.06):
        result["$patch"] = pick(c, PATCH_DIRECTIVES)
    if c.chance(0.06):
        result["$retainKeys"] = some(c, [key for key in result if not key.startswith("$")] + ["zz"])
    for key, member in patch.items():
        if not isinstance(member, list) or key.startswith("$"):
            continue
        if c.chance(0.15):
            order = [_merge_key_of(item) or item for item in member if not isinstance(item, (dict, list))
                     or _merge_key_of(item)]
            result[f"$setElementOrder/{key}"] = shuffled(c, [o for o in order if not c.chance(0.15)])
        if c.chance(0.1):
            primitives = [item for item in member if not isinstance(item, (dict, list))]
            result[f"$deleteFromPrimitiveList/{key}"] = some(c, [*primitives, "zz"])
    return result


def _kind(c: Choices) -> tuple[str, Callable[[Choices], dict], str | None]:
    name = pick(c, list(KINDS))
    make, named = KINDS[name]
    return name, make, named


def _schema_members(named: str | None) -> Members:
    return {"schema": {"named": named}} if named else {}


def strategic(c: Choices) -> Members:
    _, make, named = _kind(c)
    original = make(c)
    patch = with_directives(c, _plain_patch(c, original, variant(c, original, make)))
    if c.chance(0.03):
        patch = value(c, 1)  # not a map at all
    return {"original": original, "patch": patch, **_schema_members(named)}


def _lookalikes(c: Choices, document: dict, probability: float) -> dict:
    """Patch directives appearing as data in a document (upstream diffs them like any key)."""
    return with_directives(c, document) if c.chance(probability) else document


def strategic_2way(c: Choices) -> Members:
    _, make, named = _kind(c)
    original = make(c)
    modified = variant(c, original, make)
    original, modified = _lookalikes(c, original, 0.15), _lookalikes(c, modified, 0.2)
    return {"original": original, "modified": modified, **_schema_members(named)}


def strategic_3way(c: Choices) -> Members:
    _, make, named = _kind(c)
    last_applied = make(c)
    modified, current = variant(c, last_applied, make), live(c, last_applied, make)
    original = None if c.chance(0.08) else _lookalikes(c, last_applied, 0.1)
    members = {"original": original, "modified": _lookalikes(c, modified, 0.15),
               "current": _lookalikes(c, current, 0.1), **_schema_members(named)}
    if c.chance(0.4):
        members["options"] = {"overwrite": False}
    return members


# --- kubectl apply ----------------------------------------------------------------------------


def apply(c: Choices) -> Members:
    """kubectl's client-side apply: built-in kinds (a strategic three-way patch), and a custom kind
    without a Go type (a three-way JSON merge patch)."""
    name = pick(c, ["configmap", "deployment", "pod", "service", "custom"])
    make = widget if name == "custom" else KINDS[name][0]
    last_applied = make(c)
    members: Members = {"modified": variant(c, last_applied, make)}
    roll = c.integer(0, 9)
    if roll == 9:  # the first apply: kubectl creates the object (no live object, no last-applied)
        members["original"] = members["current"] = None
        return _namespaced(members)
    members["original"] = None if roll == 8 else last_applied  # 8: a live object without the annotation
    # kubectl GETs the live object from a server, which writes it with Go's encoder (2.0 as 2)
    members["current"] = through_go_json(live(c, last_applied, make))
    return _namespaced(members)


def _namespaced(members: Members) -> Members:
    """Every object with ``metadata.namespace`` spelt out, as kubectl fills it in before computing anything
    (cases/README.md, apply cases)."""
    for document in members.values():
        if isinstance(document, dict) and isinstance(document.get("metadata"), dict):
            document["metadata"].setdefault("namespace", "default")
    return members


# --- server-side apply -------------------------------------------------------------------------


def _ssa_widget_spec(c: Choices) -> dict:
    """A spec of cases/schemas/ssa-widget: every list and map type structured-merge-diff knows."""
    spec: dict = {}
    if c.chance(0.4):
        spec["replicas"] = pick(c, [1, 2, None])
    if c.chance(0.3):
        spec["mode"] = pick(c, ["a", "b", None])
    if c.chance(0.4):
        spec["settings"] = {key: pick(c, ["1", "2"]) for key in some(c, ["x", "y", "z"])}
    if c.chance(0.3):
        spec["selector"] = {key: "v" for key in some(c, ["app", "tier"])}
    if c.chance(0.3):
        spec["config"] = dict(some(c, [("size", 1), ("color", "red"), ("debug", True)]))
    if c.chance(0.2):
        spec["template"] = {"image": pick(c, ["i1", "i2"])}
    if c.chance(0.3):
        spec["args"] = some(c, ["a", "b", "c"])
    if c.chance(0.4):
        spec["tags"] = some(c, ["a", "b", "c"])
    if c.chance(0.5):
        containers = []
        for name in some(c, ["web", "side", "log"]):
            container: dict = {"name": name}
            if c.chance(0.7):
                container["image"] = pick(c, ["x", "y"])
            if c.chance(0.3):
                container["env"] = [{"name": env, "value": pick(c, ["1", "2"])} for env in some(c, ["A", "B"])]
            containers.append(container)
        spec["containers"] = containers
    if c.chance(0.3):
        ports = []
        for port in some(c, [80, 443]):
            ports.append({"port": port, **({"protocol": pick(c, ["TCP", "UDP"])} if c.chance(0.5) else {})})
        spec["ports"] = ports
    return spec


def _ssa_widget(c: Choices) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": _ssa_widget_spec(c)}


def _ssa_config_map(c: Choices) -> dict:
    document: dict = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
                      "data": {key: pick(c, ["1", "2"]) for key in some(c, ["a", "b", "c"])}}
    if c.chance(0.3):
        document["metadata"]["labels"] = {key: "x" for key in some(c, ["app", "tier"])}
    return document


def server_side_apply(c: Choices) -> Members:
    """A few requests on one object by named managers: applies (forced or not), updates, merge patches."""
    widget = c.chance(0.6)
    make = _ssa_widget if widget else _ssa_config_map
    steps = []
    for number in range(c.integer(1, 3)):
        # The first request creates the object (an update or patch of a missing object is refused).
        op = pick(c, ["apply", "update", "patch"]) if number else "apply"
        step: dict[str, Any] = {"op": op, "manager": pick(c, ["alice", "bob", "carol"])}
        if op == "patch":
            body = make(c)
            step["patch_type"] = "merge-patch"
            step["patch"] = {key: member for key, member in body.items() if key not in ("apiVersion", "kind")}
            step["patch"].pop("metadata", None)
        else:
            step["object"] = make(c)
        if op == "apply" and c.chance(0.3):
            step["force"] = True
        steps.append(step)
    return {"steps": steps, **({"schema": {"named": "ssa-widget"}} if widget else {})}


GENERATORS: dict[str, Callable[[Choices], Members]] = {
    "json-patch": json_patch,
    "merge-patch": merge_patch,
    "merge-patch-2way": merge_patch_2way,
    "merge-patch-3way": merge_patch_3way,
    "strategic": strategic,
    "strategic-2way": strategic_2way,
    "strategic-3way": strategic_3way,
    "apply": apply,
    "server-side-apply": server_side_apply,
}
