"""Differential test: the reference's patch creation against Kubernetes' own Go code.

Generated input pairs and triples (Deployments, Pods, Services, the named schemas of
cases/schemas, arbitrary nested values; fixed seeds) are run through the reference target
and the ``upstream`` target (apimachinery's ``CreateTwoWayMergePatch`` /
``CreateThreeWayMergePatch`` and kubectl's apply helpers, built from the Go modules) and
must give the same patch and document, or errors of the same class.

Skips (with the reason) where Go is missing or the upstream target cannot be built, and
skips the ``strategic-3way`` cases where the upstream program of this checkout does not
serve that type yet. ``PATCHCONF_UPSTREAM_COMMAND`` runs another upstream program instead
(any command speaking harness/PROTOCOL.md).
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from harness.cases import Case, Outcome, SchemaRef
from harness.compare import json_equal, show
from harness.targets.base import Actual, TargetUnavailable
from harness.targets.reference import ReferenceTarget

Json = Any
PAIRS_PER_SHAPE = 40
DIRECTIVE_PAIRS_PER_SHAPE = 50

# Upstream panics (a Go runtime error the upstream program reports as "unclassified")
# where the reference raises a typed error with Go's runtime message.
GO_PANIC = "panic: "
MAP_ORDER_RETRIES = 100


@pytest.fixture(scope="module")
def upstream():
    command = os.environ.get("PATCHCONF_UPSTREAM_COMMAND")
    try:
        if command:
            from harness.targets.command import CommandTarget

            target = CommandTarget(command, timeout=30.0, family="upstream")
        else:
            from harness.targets.upstream import UpstreamTarget

            target = UpstreamTarget()
    except TargetUnavailable as exc:
        pytest.skip(f"upstream target unavailable: {exc}")
    yield target
    target.close()


@pytest.fixture(scope="module")
def reference():
    return ReferenceTarget()


# --------------------------------------------------------------------------------------
# Generators.
# --------------------------------------------------------------------------------------


def _pick(rng: random.Random, items: list, low: int = 0, high: int | None = None) -> list:
    count = rng.randint(low, len(items) if high is None else high)
    chosen = rng.sample(items, count)
    return chosen


def _container(rng: random.Random, name: str) -> dict:
    container: dict = {"name": name, "image": rng.choice(["nginx", "busybox", "redis:7"])}
    if rng.random() < 0.5:
        container["args"] = _pick(rng, ["-v", "--port=80", "serve", "-v"])
    if rng.random() < 0.6:
        container["env"] = [
            {"name": env, "value": rng.choice(["1", "2", "x"])} for env in _pick(rng, ["A", "B", "C", "D"])
        ]
    if rng.random() < 0.5:
        container["ports"] = [
            {"containerPort": port, "protocol": rng.choice(["TCP", "UDP"])} for port in _pick(rng, [80, 443, 8080])
        ]
    if rng.random() < 0.3:
        container["resources"] = {"limits": {"cpu": rng.choice(["1", "500m", 2])}}
    return container


def _volume(rng: random.Random, name: str) -> dict:
    source = rng.choice(
        [
            {"emptyDir": {}},
            {"emptyDir": {"medium": "Memory"}},
            {"hostPath": {"path": rng.choice(["/a", "/b"])}},
            {"configMap": {"name": rng.choice(["c1", "c2"])}},
        ]
    )
    return {"name": name, **copy.deepcopy(source)}


def _pod_spec(rng: random.Random) -> dict:
    spec: dict = {"containers": [_container(rng, name) for name in _pick(rng, ["a", "b", "c", "d"], 1)]}
    if rng.random() < 0.5:
        spec["volumes"] = [_volume(rng, name) for name in _pick(rng, ["v1", "v2", "v3"])]
    if rng.random() < 0.3:
        spec["imagePullSecrets"] = [{"name": name} for name in _pick(rng, ["s1", "s2"])]
    if rng.random() < 0.3:
        spec["tolerations"] = [{"key": key, "operator": "Exists"} for key in _pick(rng, ["k1", "k2"])]
    if rng.random() < 0.3:
        spec["nodeSelector"] = {key: "yes" for key in _pick(rng, ["disk", "zone"])}
    if rng.random() < 0.2:
        spec["terminationGracePeriodSeconds"] = rng.choice([30, 30.0, 60, 2.5])
    return spec


def _metadata(rng: random.Random, name: str) -> dict:
    metadata: dict = {"name": name}
    if rng.random() < 0.6:
        metadata["labels"] = {key: rng.choice(["x", "y"]) for key in _pick(rng, ["app", "tier", "env"])}
    if rng.random() < 0.4:
        metadata["finalizers"] = _pick(rng, ["f/a", "f/b", "f/c", "f/a"])
    if rng.random() < 0.2:
        metadata["annotations"] = {"note": rng.choice(["<b>&", "plain", "ünïcode\u2028"])}
    return metadata


def deployment(rng: random.Random) -> dict:
    spec: dict = {
        "selector": {"matchLabels": {"app": "x"}},
        "template": {"metadata": {"labels": {"app": "x"}}, "spec": _pod_spec(rng)},
    }
    if rng.random() < 0.6:
        spec["replicas"] = rng.choice([1, 2, 3, 2.0])
    if rng.random() < 0.5:
        spec["strategy"] = rng.choice(
            [
                {"type": "Recreate"},
                {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": rng.choice([1, "25%"])}},
                {"rollingUpdate": {"maxUnavailable": 0}},
            ]
        )
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _metadata(rng, "web"), "spec": spec}


def pod(rng: random.Random) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _metadata(rng, "p"), "spec": _pod_spec(rng)}


def service(rng: random.Random) -> dict:
    spec: dict = {
        "ports": [
            {"port": port, "targetPort": rng.choice([port, "http", 8080]), "name": f"p{port}"}
            for port in _pick(rng, [80, 443, 8443], 1)
        ],
        "selector": {key: "x" for key in _pick(rng, ["app", "tier"], 1)},
    }
    if rng.random() < 0.5:
        spec["type"] = rng.choice(["ClusterIP", "NodePort"])
    return {"apiVersion": "v1", "kind": "Service", "metadata": _metadata(rng, "s"), "spec": spec}


def widget(rng: random.Random) -> dict:
    spec: dict = {}
    if rng.random() < 0.7:
        spec["tags"] = _pick(rng, ["a", "b", "c", "b", "1"])
    if rng.random() < 0.5:
        spec["ports"] = _pick(rng, [80, 443, 8080, 80, 80.0, 1, "1"])
    if rng.random() < 0.7:
        spec["parts"] = [
            {"id": part, "label": rng.choice(["x", "y"]), "aliases": _pick(rng, ["p", "q"])}
            for part in _pick(rng, [1, 2, 3, 1000000, 1000000.0, 2.5e6])
        ]
    if rng.random() < 0.6:
        spec["groups"] = [
            {
                "name": group,
                "members": [{"uid": uid, "role": rng.choice(["r", "w"])} for uid in _pick(rng, ["u1", "u2", "u3"])],
            }
            for group in _pick(rng, ["g1", "g2"])
        ]
    if rng.random() < 0.2:
        spec["grid"] = [[1, 2], [3]] if rng.random() < 0.5 else [[1]]
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": _metadata(rng, "w"), "spec": spec}


def _arbitrary(rng: random.Random, depth: int = 0) -> Json:
    roll = rng.random()
    if depth < 3 and roll < 0.35:
        return {key: _arbitrary(rng, depth + 1) for key in _pick(rng, ["a", "b", "c", "d"])}
    if depth < 3 and roll < 0.55:
        return [_arbitrary(rng, depth + 2) for _ in range(rng.randint(0, 3))]
    return rng.choice([0, 1, 1.5, "1", "x", True, None, 2**63, -7])


def gadget(rng: random.Random) -> dict:
    spec: dict = {}
    if rng.random() < 0.6:
        spec["mode"] = rng.choice([{"type": "fast", "fast": {"level": 2}}, {"type": "safe", "safe": {"checks": 1}}])
    if rng.random() < 0.5:
        spec["settings"] = {key: rng.choice(["1", "2"]) for key in _pick(rng, ["s", "t"])}
    if rng.random() < 0.5:
        spec["env"] = {key: rng.choice(["1", "2"]) for key in _pick(rng, ["E", "F"])}
    if rng.random() < 0.7:
        spec["blob"] = _arbitrary(rng)
    return {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": _metadata(rng, "g"), "spec": spec}


def _mutate(rng: random.Random, value: Json, make: Callable[[random.Random], dict], depth: int = 0) -> Json:
    """A changed copy of ``value``: members dropped, added, changed, list items reordered."""
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            roll = rng.random()
            if roll < 0.1 and depth > 0:
                continue  # dropped
            result[key] = _mutate(rng, item, make, depth + 1) if roll < 0.6 else copy.deepcopy(item)
        if depth > 0 and rng.random() < 0.15:
            result[rng.choice(["extra", "zz", "name"])] = rng.choice(["v", 3, {"k": "v"}])
        return result
    if isinstance(value, list):
        items = [_mutate(rng, item, make, depth + 1) for item in value if rng.random() > 0.2]
        if rng.random() < 0.3:
            rng.shuffle(items)
        if items and rng.random() < 0.2:
            items.append(copy.deepcopy(rng.choice(items)))
        return items
    if rng.random() < 0.25:
        return rng.choice([value, "changed", 7, 7.0, None, True, "7", 2**64])
    return value


def _variant(rng: random.Random, document: dict, make: Callable[[random.Random], dict]) -> dict:
    """Another version of a document: mostly the same, sometimes a fresh one of its kind."""
    if rng.random() < 0.15:
        fresh = make(rng)
        fresh["metadata"]["name"] = document["metadata"]["name"]
        return fresh
    changed = _mutate(rng, document, make)
    # Keep the identity (changing it is refused by the preconditions), except now and then.
    changed["apiVersion"], changed["kind"] = document["apiVersion"], document["kind"]
    if not isinstance(changed.get("metadata"), dict):
        changed["metadata"] = {}
    changed["metadata"]["name"] = "renamed" if rng.random() < 0.04 else document["metadata"]["name"]
    return changed


def _live(rng: random.Random, document: dict, make: Callable[[random.Random], dict]) -> dict:
    """The live object: a variant of the configuration plus what the server and others added."""
    live = _variant(rng, document, make)
    if rng.random() < 0.5:
        live["status"] = {"observedGeneration": rng.choice([1, 2]), "conditions": [{"type": "Ready"}]}
    if rng.random() < 0.4:
        live["metadata"]["uid"] = "0c9f"
        live["metadata"].setdefault("labels", {})["added-by"] = "someone"
    if rng.random() < 0.3 and isinstance(live["metadata"].get("finalizers"), list):
        live["metadata"]["finalizers"].append("server/f")
    return live


# Patch directives appearing as data in documents: upstream diffs them like any key, and
# the two patches of a three-way merge then carry them into each other.
DIRECTIVE_LOOKALIKES = [
    {"$patch": "delete"},
    {"$patch": "replace", "x": 1},
    {"$patch": "merge"},
    {"$patch": 3},
    {"$retainKeys": ["a"]},
    {"$setElementOrder/x": [1]},
    {"$deleteFromPrimitiveList/x": ["a"]},
    None,
    [],
    {},
]


def _with_directives(rng: random.Random, value: Json) -> Json:
    if isinstance(value, dict):
        result = {key: _with_directives(rng, item) for key, item in value.items()}
        if rng.random() < 0.15:
            extra = copy.deepcopy(rng.choice(DIRECTIVE_LOOKALIKES))
            if isinstance(extra, dict):
                result.update(extra)
            else:
                result[rng.choice(["a", "name", "image"])] = extra
        return result
    if isinstance(value, list):
        result_list = [_with_directives(rng, item) for item in value]
        maps = [item for item in result_list if isinstance(item, dict)]
        if maps and rng.random() < 0.15:
            directive = rng.choice(["delete", "replace", "merge"])
            result_list.append({**copy.deepcopy(rng.choice(maps)), "$patch": directive})
        return result_list
    return value


SHAPES: dict[str, tuple[Callable[[random.Random], dict], str | None]] = {
    "deployment": (deployment, None),
    "pod": (pod, None),
    "service": (service, None),
    "widget": (widget, "widget"),
    "gadget": (gadget, "gadget"),
}


def _case(kind: str, number: int, case_type: str, named: str | None, options: dict | None = None, **inputs) -> Case:
    return Case(
        file="tests/differential",
        name=f"{kind}-{case_type}-{number}",
        description="generated",
        type=case_type,
        tags=(),
        inputs=inputs,
        outcome=Outcome(),
        provenance=(),
        schema=SchemaRef(named=named) if named else None,
        options=options or {},
    )


def two_way_cases(seed: int) -> Iterator[Case]:
    rng = random.Random(seed)
    for kind, (make, named) in SHAPES.items():
        for number in range(PAIRS_PER_SHAPE):
            original = make(rng)
            yield _case(
                kind, number, "strategic-2way", named, original=original, modified=_variant(rng, original, make)
            )


def three_way_cases(seed: int) -> Iterator[Case]:
    rng = random.Random(seed)
    for kind, (make, named) in SHAPES.items():
        for number in range(PAIRS_PER_SHAPE):
            last_applied = make(rng)
            yield _case(
                kind,
                number,
                "strategic-3way",
                named,
                {"overwrite": rng.random() < 0.5},
                original=None if rng.random() < 0.1 else last_applied,
                modified=_variant(rng, last_applied, make),
                current=_live(rng, last_applied, make),
            )


def directive_cases(seed: int) -> Iterator[Case]:
    rng = random.Random(seed)
    for kind, (make, named) in SHAPES.items():
        for number in range(DIRECTIVE_PAIRS_PER_SHAPE):
            original = make(rng)
            modified, current = _variant(rng, original, make), _live(rng, original, make)
            original, modified, current = (
                _with_directives(rng, document) if rng.random() < chance else document
                for document, chance in ((original, 0.5), (modified, 0.7), (current, 0.5))
            )
            yield _case(kind, number, "strategic-2way", named, original=original, modified=modified)
            yield _case(
                kind,
                number,
                "strategic-3way",
                named,
                {"overwrite": rng.random() < 0.5},
                original=original,
                modified=modified,
                current=current,
            )


def apply_cases(seed: int) -> Iterator[Case]:
    rng = random.Random(seed)
    for kind, (make, named) in SHAPES.items():
        if named:
            continue  # kubectl apply looks kinds up in its scheme; named schemas are not kinds
        for number in range(PAIRS_PER_SHAPE // 2):
            last_applied = make(rng)
            live = _live(rng, last_applied, make)
            roll = rng.random()
            inputs: dict = {"modified": _variant(rng, last_applied, make), "current": live}
            if roll < 0.1:
                inputs["current"] = None  # first apply: kubectl creates the object
            elif roll < 0.2:
                inputs["original"] = None  # live object without the annotation
            else:
                inputs["original"] = last_applied
            yield _case(kind, number, "apply", None, **inputs)
    for number in range(PAIRS_PER_SHAPE // 2):
        # A kind kubectl has no Go type for: a three-way JSON merge patch.
        last_applied = widget(rng)
        last_applied["apiVersion"] = "example.com/v1"
        yield _case(
            "custom",
            number,
            "apply",
            None,
            original=last_applied,
            modified=_variant(rng, last_applied, widget),
            current=_live(rng, last_applied, widget),
        )


# --------------------------------------------------------------------------------------
# Comparison.
# --------------------------------------------------------------------------------------


def _difference(reference: Actual, upstream: Actual) -> str | None:
    """Why the reference's answer differs from upstream's, or None when they agree."""
    if upstream.error is not None:
        message = upstream.error.message
        if message.startswith(GO_PANIC):
            # Upstream crashed; the reference must report the same runtime error, as its
            # error or as the reason it could not apply the created patch.
            runtime_error = message.removeprefix(GO_PANIC)
            said = [reference.error.message] if reference.error else list(reference.notes)
            if any(runtime_error in text for text in said):
                return None
            return f"upstream panicked ({runtime_error}), reference: {show(reference.to_json())}"
        if reference.error is None:
            return f"upstream failed ({upstream.error.error_class}: {message}), reference gave {show(reference.patch)}"
        # (The upstream program classifies some errors by their wording; the same wording
        # quoting another directive, e.g. "$retainKeys" in a "$setElementOrder" error, can
        # put it in another class. The same message is the same error.)
        if reference.error.error_class != upstream.error.error_class and reference.error.message != message:
            return (
                f"error class {reference.error.error_class} ({reference.error.message}) "
                f"!= upstream {upstream.error.error_class} ({message})"
            )
        return None
    if reference.error is not None:
        return f"reference failed ({reference.error.error_class}: {reference.error.message})"
    for label in ("patch", "document"):
        mine, theirs = getattr(reference, label), getattr(upstream, label)
        if not json_equal(mine, theirs):
            return f"{label}: reference {show(mine)} != upstream {show(theirs)}"
    return None


def _compare(cases: list[Case], reference, upstream) -> None:
    failures = []
    for case in cases:
        mine = reference.run(case)
        difference = _difference(mine, upstream.run(case))
        # Which of several errors upstream meets first depends on Go's random map order: ask again.
        for _ in range(MAP_ORDER_RETRIES):
            if not difference:
                break
            difference = _difference(mine, upstream.run(case))
        if difference:
            failures.append(f"{case.name}: {difference}\n    inputs: {show(dict(case.inputs))}")
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:10])


def test_two_way_matches_upstream(reference, upstream) -> None:
    _compare(list(two_way_cases(seed=20241)), reference, upstream)


def test_three_way_matches_upstream(reference, upstream) -> None:
    if "strategic-3way" not in upstream.info.patch_types:
        pytest.skip("the upstream program of this checkout does not serve strategic-3way")
    _compare(list(three_way_cases(seed=20242)), reference, upstream)


def test_directive_lookalikes_match_upstream(reference, upstream) -> None:
    cases = list(directive_cases(seed=20244))
    if "strategic-3way" not in upstream.info.patch_types:
        cases = [case for case in cases if case.type != "strategic-3way"]
    _compare(cases, reference, upstream)


def test_apply_flow_matches_upstream(reference, upstream) -> None:
    _compare(list(apply_cases(seed=20243)), reference, upstream)


def test_generators_are_deterministic() -> None:
    first = [dict(case.inputs) for case in two_way_cases(seed=7)]
    second = [dict(case.inputs) for case in two_way_cases(seed=7)]
    assert first == second
    assert len(first) == PAIRS_PER_SHAPE * len(SHAPES)
