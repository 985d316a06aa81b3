"""Strategic merge patch on large objects, reference vs upstream, side by side: apply, and
the two creations (two-way, as controllers and ``kubectl edit`` make a patch; three-way, as
``kubectl apply`` does).

A Deployment whose pod template has N containers with 20 env vars each; the change is the
image and one env var of every 10th container. One operation = JSON parse of its inputs,
the operation, JSON dump of its answer — what a server, a client library or kubectl does:

- apply: object and patch in, the patched object out;
- two-way: original and modified in, the patch out;
- three-way: original (the last-applied configuration), modified (the new configuration)
  and current (the live object, which carries a server-added sidecar container, server
  metadata and status) in, the patch out.

    python benchmarks/strategic_apply.py [--ops apply,two-way,three-way] [--sizes 100,1000,10000]
                                         [--upstream PATH | --no-upstream]

The upstream figure is Kubernetes' own Go code on the same bytes: the `upstream` target
binary's `bench` mode times strategicpatch.StrategicMergePatch, CreateTwoWayMergePatch or
CreateThreeWayMergePatch (each takes and returns JSON bytes, so parse and dump are included).
The binary is built (or reused from ~/.cache/patchconf) by patchconf.harness.targets.upstream.build()
unless --upstream names one. The two run in alternating rounds so that load from other
processes hits both alike, and their answers are compared: `same` says whether both produced
the same document or patch, compared as JSON values (objects regardless of key order, lists
in order).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent
if str(SOURCE_ROOT) not in sys.path:  # runnable from a clean clone without installing
    sys.path.insert(0, str(SOURCE_ROOT))

from patchconf.harness.corpus.compare import json_equal  # noqa: E402
from patchconf.reference_impl import strategic  # noqa: E402

ENV_PER_CONTAINER = 20
DEFAULT_SIZES = "100,1000,10000"
KIND = ("apps/v1", "Deployment")


def deployment(containers: int) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "big", "labels": {"app": "big"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "big"}},
            "template": {
                "metadata": {"labels": {"app": "big"}},
                "spec": {
                    "containers": [
                        {
                            "name": f"c{i}",
                            "image": f"registry.example/app{i}:1.0",
                            "env": [{"name": f"VAR_{j}", "value": f"value-{i}-{j}"} for j in range(ENV_PER_CONTAINER)],
                        }
                        for i in range(containers)
                    ]
                },
            },
        },
    }


def patch(containers: int) -> dict:
    changed = [
        {"name": f"c{i}", "image": f"registry.example/app{i}:2.0", "env": [{"name": "VAR_7", "value": "changed"}]}
        for i in range(0, containers, 10)
    ]
    return {"spec": {"template": {"spec": {"containers": changed}}}}


def changed_deployment(containers: int) -> dict:
    """The deployment with what :func:`patch` changes already changed: the new configuration."""
    document = deployment(containers)
    for container in document["spec"]["template"]["spec"]["containers"][::10]:
        container["image"] = container["image"].replace(":1.0", ":2.0")
        container["env"][7]["value"] = "changed"
    return document


def live_deployment(containers: int) -> dict:
    """The deployment as a server holds it: server metadata, an injected sidecar, status."""
    document = deployment(containers)
    document["metadata"].update({
        "uid": "6c1a0f7e-1d1b-4c53-9d0e-3f2d5c4b6a79", "resourceVersion": "48213",
        "generation": 4, "creationTimestamp": "2026-11-23T12:00:00Z",
    })
    document["spec"]["template"]["spec"]["containers"].append(
        {"name": "proxy-sidecar", "image": "registry.example/proxy:1.9", "args": ["--port", "15001"]})
    document["status"] = {"replicas": 3, "readyReplicas": 3, "observedGeneration": 4}
    return document


@dataclass(frozen=True)
class Operation:
    """One strategicpatch call: its inputs (named as upstream's bench flags, in the reference's
    argument order) and the reference function taking them decoded, then the patch metadata."""

    name: str
    title: str
    inputs: Callable[[int], dict[str, dict]]
    reference: Callable[..., dict]


OPERATIONS = {
    "apply": Operation(
        "apply", "apply: StrategicMergePatch(object, patch)",
        lambda n: {"object": deployment(n), "patch": patch(n)},
        strategic.apply,
    ),
    "two-way": Operation(
        "two-way", "two-way creation: CreateTwoWayMergePatch(original, modified)",
        lambda n: {"original": deployment(n), "modified": changed_deployment(n)},
        strategic.create_two_way,
    ),
    "three-way": Operation(
        "three-way", "three-way creation: CreateThreeWayMergePatch(original, modified, current, overwrite=true)",
        lambda n: {"original": deployment(n), "modified": changed_deployment(n), "current": live_deployment(n)},
        strategic.create_three_way,
    ),
}


def reference_run(operation: Operation, texts: list[str], repeat: int) -> tuple[list[float], str]:
    """Milliseconds of each of ``repeat`` operations on the JSON ``texts`` (after one untimed
    warm-up, as upstream's bench mode does), and the last answer's JSON text."""
    meta = strategic.builtin_patch_meta(*KIND)

    def once() -> str:
        return json.dumps(operation.reference(*[json.loads(text) for text in texts], meta))

    timings, text = [], once()
    for _ in range(repeat):
        started = time.perf_counter()
        text = once()
        timings.append((time.perf_counter() - started) * 1000)
    return timings, text


def upstream_run(binary: Path, operation: Operation, names: list[str], workdir: Path,
                 repeat: int) -> tuple[list[float], dict]:
    """Milliseconds of each of ``repeat`` timed upstream operations (after its untimed warm-up)
    on the inputs ``workdir/<name>.json``, and the bench mode's report; the answer is left in
    ``workdir/upstream.json``."""
    inputs = [arg for name in names for arg in (f"--{name}", str(workdir / f"{name}.json"))]
    completed = subprocess.run(
        [str(binary), "bench", "--op", operation.name, *inputs,
         "--repeat", str(repeat), "--out", str(workdir / "upstream.json")],
        capture_output=True, text=True, timeout=1800, check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{binary} bench failed (status {completed.returncode}): {completed.stderr.strip()[-500:]}")
    report = json.loads(completed.stdout)
    return [float(ms) for ms in report["timings_ms"]], report


@dataclass(frozen=True)
class Row:
    containers: int
    reference_ms: float
    upstream_ms: float | None
    same_result: bool | None

    @property
    def ratio(self) -> float | None:
        return self.reference_ms / self.upstream_ms if self.upstream_ms else None


def rounds_for(operation: Operation, containers: int) -> tuple[int, int, int]:
    """(rounds, reference operations per round, upstream timed operations per round).

    Upstream grows faster than N² (normalizeSliceOrder sorts with a linear index() lookup
    in its comparator; creation orders its patch lists so too), so at 10,000 containers it
    gets one timed operation per round.
    """
    if containers <= 100:
        return 5, 10, 10
    if operation.name == "apply":
        return (3, 5, 2) if containers <= 1000 else (1, 3, 1)
    return (5, 3, 3) if containers <= 1000 else (2, 1, 1)


def measure(operation: Operation, containers: int, binary: Path | None) -> tuple[Row, str]:
    """One table row for ``containers``, the two implementations alternating round by round."""
    documents = operation.inputs(containers)
    texts = [json.dumps(document) for document in documents.values()]
    rounds, reference_per_round, upstream_per_round = rounds_for(operation, containers)
    ours: list[float] = []
    theirs: list[float] = []
    kubernetes = ""
    with tempfile.TemporaryDirectory(prefix="patchconf-bench-") as tmp:
        workdir = Path(tmp)
        for name, text in zip(documents, texts, strict=True):
            (workdir / f"{name}.json").write_text(text, encoding="utf-8")
        reference_text = ""
        for _ in range(rounds):
            timings, reference_text = reference_run(operation, texts, reference_per_round)
            ours += timings
            if binary is not None:
                timings, report = upstream_run(binary, operation, list(documents), workdir, upstream_per_round)
                theirs += timings
                kubernetes = report["kubernetes"]
        same = None
        if binary is not None:
            upstream_answer = json.loads((workdir / "upstream.json").read_text(encoding="utf-8"))
            same = json_equal(json.loads(reference_text), upstream_answer)
    row = Row(containers, statistics.median(ours), statistics.median(theirs) if theirs else None, same)
    return row, kubernetes


def format_table(rows: list[Row]) -> str:
    lines = [f"{'containers':>10} {'reference ms/op':>16} {'upstream ms/op':>15} {'ratio':>7} {'same':>5}"]
    for row in rows:
        upstream = f"{row.upstream_ms:15.1f}" if row.upstream_ms is not None else f"{'n/a':>15}"
        ratio = f"{row.ratio:7.2f}" if row.ratio is not None else f"{'':>7}"
        same = {True: "yes", False: "NO", None: ""}[row.same_result]
        lines.append(f"{row.containers:>10} {row.reference_ms:16.1f} {upstream} {ratio} {same:>5}")
    return "\n".join(lines)


def upstream_binary(args: argparse.Namespace) -> Path | None:
    if args.no_upstream:
        return None
    if args.upstream:
        return Path(args.upstream)
    from patchconf.harness.targets.base import TargetUnavailable
    from patchconf.harness.targets.upstream import build

    try:
        return build()
    except TargetUnavailable as exc:
        print(f"upstream figures unavailable: {exc}", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", default=",".join(OPERATIONS),
                        help=f"operations to time, of {', '.join(OPERATIONS)} (default all)")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"container counts (default {DEFAULT_SIZES})")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--upstream", help="path of an upstream target binary (default: build targets/upstream)")
    source.add_argument("--no-upstream", action="store_true", help="time the reference implementation only")
    args = parser.parse_args(argv)
    unknown = [name for name in args.ops.split(",") if name not in OPERATIONS]
    if unknown:
        parser.error(f"unknown operation {unknown[0]!r} (choose from {', '.join(OPERATIONS)})")
    operations = [OPERATIONS[name] for name in args.ops.split(",")]
    sizes = [int(size) for size in args.sizes.split(",")]
    binary = upstream_binary(args)
    tables, kubernetes, differing = [], "", []
    for operation in operations:
        rows = []
        for size in sizes:
            row, version = measure(operation, size, binary)
            rows.append(row)
            kubernetes = version or kubernetes
            if row.same_result is False:
                differing.append(f"{operation.name} at {size}")
        tables.append(f"## {operation.title}\n{format_table(rows)}")
    load = " / ".join(f"{value:.1f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, "
          f"load average {load}, Python {platform.python_version()}, "
          f"upstream: {'Kubernetes ' + kubernetes if kubernetes else 'not run'}")
    print("# ms per operation (JSON parse of its inputs + the operation + JSON dump of its answer), median; "
          "ratio = reference/upstream")
    print("\n\n".join(tables))
    if differing:
        print(f"reference and upstream answered differently: {', '.join(differing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
