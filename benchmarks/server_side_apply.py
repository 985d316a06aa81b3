"""Server-side apply on a large object, reference vs upstream, side by side.

A Deployment with N containers of 20 env vars each, in three requests: a GitOps applier
creates it by apply; a controller updates the image of every 10th container (an Update
manager takes those fields); the applier applies again with force, changing one env var of
every 10th container. One operation = the whole sequence: typed conversion, merge, field
sets, conflicts and managedFields encoding, three times.

    python benchmarks/server_side_apply.py [--sizes 100,1000] [--no-upstream]
    python benchmarks/server_side_apply.py --sizes 100,1000,10000 --shapes all

Two list-heavy shapes go with ``--shapes``, in the same three requests (the controller
changes every 10th item; the applier's forced apply takes those back and changes other
fields): a ConfigMap of 10,000 keys (the applier changes the key after each 10th) and a
Service of 1,000 ports, a list keyed by port and protocol (the controller changes
targetPorts, the applier names).

The upstream figure is Kubernetes' own field manager (apimachinery's managedfields chain in
the `upstream` target) answering the same case over its long-lived JSON-lines process, so
it includes JSON encoding both ways, as the reference's includes its own. The two run in
alternating rounds; `same` says whether every step's managedFields, write and error agree (the
objects differ by the empty structs Go's types add to a built-in kind, which the reference
does not reproduce).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent
if str(SOURCE_ROOT) not in sys.path:  # runnable from a clean clone without installing
    sys.path.insert(0, str(SOURCE_ROOT))

from patchconf.harness.corpus.cases import Case, Outcome  # noqa: E402
from patchconf.harness.corpus.compare import json_equal  # noqa: E402
from patchconf.harness.targets.base import TargetCrash  # noqa: E402
from patchconf.harness.targets.reference import ReferenceTarget  # noqa: E402

ENV_PER_CONTAINER = 20
DEFAULT_SIZES = "100,1000"


def deployment(containers: int, image_tag: str = "1.0", changed_env: bool = False) -> dict:
    def env(i: int, j: int) -> str:
        return "changed" if changed_env and i % 10 == 0 and j == 7 else f"value-{i}-{j}"

    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "big", "namespace": "default", "labels": {"app": "big"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "big"}},
            "template": {
                "metadata": {"labels": {"app": "big"}},
                "spec": {"containers": [
                    {"name": f"c{i}", "image": f"registry.example/app{i}:{image_tag}",
                     "env": [{"name": f"VAR_{j}", "value": env(i, j)} for j in range(ENV_PER_CONTAINER)]}
                    for i in range(containers)
                ]},
            },
        },
    }


def controller_update(containers: int) -> dict:
    updated = deployment(containers)
    for container in updated["spec"]["template"]["spec"]["containers"][::10]:
        container["image"] = container["image"].replace(":1.0", ":2.0")
    return updated


def steps(containers: int) -> list[dict]:
    return [
        {"op": "apply", "manager": "gitops", "object": deployment(containers)},
        {"op": "update", "manager": "controller", "object": controller_update(containers)},
        {"op": "apply", "manager": "gitops", "force": True, "object": deployment(containers, changed_env=True)},
    ]


def configmap(keys: int, changed: bool = False) -> dict:
    def value(i: int) -> str:
        return "changed" if changed and i % 10 == 1 else f"value-{i}"

    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big", "namespace": "default"},
            "data": {f"key-{i:05d}": value(i) for i in range(keys)}}


def configmap_steps(keys: int) -> list[dict]:
    updated = configmap(keys)
    for name in list(updated["data"])[::10]:
        updated["data"][name] = "controller"
    return [
        {"op": "apply", "manager": "gitops", "object": configmap(keys)},
        {"op": "update", "manager": "controller", "object": updated},
        {"op": "apply", "manager": "gitops", "force": True, "object": configmap(keys, changed=True)},
    ]


def service(ports: int, renamed: bool = False, target_changed: bool = False) -> dict:
    def port(i: int) -> dict:
        return {"name": f"{'renamed' if renamed and i % 10 == 0 else 'port'}-{i}", "port": 10000 + i // 2,
                "protocol": ("TCP", "UDP")[i % 2],
                "targetPort": 20000 + i // 2 + (1 if target_changed and i % 10 == 0 else 0)}

    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "big", "namespace": "default"},
            "spec": {"selector": {"app": "big"}, "ports": [port(i) for i in range(ports)]}}


def service_steps(ports: int) -> list[dict]:
    return [
        {"op": "apply", "manager": "gitops", "object": service(ports)},
        {"op": "update", "manager": "controller", "object": service(ports, target_changed=True)},
        {"op": "apply", "manager": "gitops", "force": True, "object": service(ports, renamed=True)},
    ]


# shape -> its three requests at a size
SHAPES = {
    "deployment": steps,
    "configmap": configmap_steps,
    "service": service_steps,
}
LIST_HEAVY_SIZES = {"configmap": 10_000, "service": 1_000}


def case(size: int, shape: str = "deployment") -> Case:
    return Case(file="benchmarks/server_side_apply.py", name=f"{shape}-{size}", description="benchmark",
                type="server-side-apply", tags=("SSA-OWNERSHIP",), inputs={"steps": SHAPES[shape](size)},
                outcome=Outcome(), provenance=())


def timed(target, benchmark_case: Case, repeat: int, warm_up: bool = True) -> tuple[list[float], object]:
    """Milliseconds of each of ``repeat`` runs after one untimed warm-up (if ``warm_up``), and the last answer."""
    answer = target.run(benchmark_case) if warm_up else None
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        answer = target.run(benchmark_case)
        timings.append((time.perf_counter() - started) * 1000)
    return timings, answer


def ownership(answer) -> list:
    """What each step decided: managedFields, whether it wrote, or its error. (The objects
    differ where the reference lacks Go's empty structs of a built-in kind, e.g. `resources: {}`.)"""
    return [{key: step.get(key) for key in ("managed_fields", "changed", "error")}
            for step in answer.document["steps"]]


@dataclass(frozen=True)
class Row:
    shape: str
    size: int
    reference_ms: float
    upstream_ms: float | None
    same_result: bool | None
    upstream_failed: str = ""  # why upstream has no figure (it did not finish in time)

    @property
    def ratio(self) -> float | None:
        return self.reference_ms / self.upstream_ms if self.upstream_ms else None


def measure(size: int, upstream, shape: str = "deployment") -> Row:
    """Alternating rounds; above 1,000 items one timed operation each, without a warm-up (the
    sequence itself takes seconds; the warm-up would double it). Upstream's figure is left out
    if it does not answer within its timeout."""
    benchmark_case = case(size, shape)
    reference = ReferenceTarget()
    rounds, per_round = (5, 5) if size <= 100 else (3, 2) if size <= 1000 else (1, 1)
    warm_up = size <= 1000
    ours: list[float] = []
    theirs: list[float] = []
    reference_answer = upstream_answer = None
    failed = ""  # why upstream has no figure
    for _ in range(rounds):
        timings, reference_answer = timed(reference, benchmark_case, per_round, warm_up)
        ours += timings
        if upstream is not None and not failed:
            try:
                timings, upstream_answer = timed(upstream, benchmark_case, per_round, warm_up)
            except TargetCrash as exc:  # e.g. no answer within its timeout
                failed = str(exc).split("; stderr")[0]
                continue
            theirs += timings
    same = None
    if upstream_answer is not None:
        same = json_equal(ownership(reference_answer), ownership(upstream_answer))
    return Row(shape, size, statistics.median(ours), statistics.median(theirs) if theirs else None, same, failed)


def format_table(rows: list[Row]) -> str:
    lines = [f"{'shape':<11} {'size':>6} {'reference ms/op':>16} {'upstream ms/op':>15} {'ratio':>7} {'same':>5}"]
    for row in rows:
        upstream = f"{row.upstream_ms:15.1f}" if row.upstream_ms is not None else f"{'n/a':>15}"
        ratio = f"{row.ratio:7.2f}" if row.ratio is not None else f"{'':>7}"
        same = {True: "yes", False: "NO", None: ""}[row.same_result]
        lines.append(f"{row.shape:<11} {row.size:>6} {row.reference_ms:16.1f} {upstream} {ratio} {same:>5}")
    lines += [f"# upstream, {row.shape} {row.size}: {row.upstream_failed}" for row in rows if row.upstream_failed]
    return "\n".join(lines)


def upstream_target(no_upstream: bool, timeout: float = 600):
    if no_upstream:
        return None
    from patchconf.harness.targets.base import TargetUnavailable
    from patchconf.harness.targets.upstream import UpstreamTarget

    try:
        return UpstreamTarget(timeout=timeout)
    except TargetUnavailable as exc:
        print(f"upstream figures unavailable: {exc}", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"container counts (default {DEFAULT_SIZES})")
    parser.add_argument("--no-upstream", action="store_true", help="time the reference implementation only")
    parser.add_argument("--upstream-timeout", type=float, default=600,
                        help="seconds upstream gets per sequence before its figure is left out (default 600)")
    parser.add_argument("--shapes", default="deployment",
                        help="deployment (N containers, --sizes), configmap (10,000 keys), service (1,000 ports); "
                             "comma-separated, or all")
    args = parser.parse_args(argv)
    shapes = list(SHAPES) if args.shapes == "all" else args.shapes.split(",")
    upstream = upstream_target(args.no_upstream, args.upstream_timeout)
    try:
        rows = [measure(int(size), upstream) for size in args.sizes.split(",")] if "deployment" in shapes else []
        rows += [measure(LIST_HEAVY_SIZES[shape], upstream, shape) for shape in shapes if shape != "deployment"]
    finally:
        if upstream is not None:
            upstream.close()
    load = " / ".join(f"{value:.1f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    version = upstream.info.version if upstream is not None else None
    print(f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, "
          f"load average {load}, Python {platform.python_version()}, "
          f"upstream: {'Kubernetes ' + version if version else 'not run'}")
    print("# ms per three-request server-side apply sequence (apply, update, forced apply), median; "
          "ratio = reference/upstream")
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
