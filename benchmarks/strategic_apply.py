"""Strategic merge patch apply on large objects, reference vs upstream, side by side.

A Deployment whose pod template has N containers with 20 env vars each; the patch changes
the image and one env var of every 10th container. One operation = JSON parse of object
and patch, apply, JSON dump of the result — what a server or a client library does.

    python benchmarks/strategic_apply.py [--sizes 100,1000,10000] [--upstream PATH | --no-upstream]

The upstream figure is Kubernetes' own Go code on the same bytes: the `upstream` target
binary's `bench` mode times strategicpatch.StrategicMergePatch (which takes and returns
JSON bytes, so parse and dump are included). The binary is built (or reused from
~/.cache/patchconf) by harness.targets.upstream.build() unless --upstream names one. The two
run in alternating rounds so that load from other processes hits both alike, and their
results are compared: `same` says whether both produced the same document.
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
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # runnable from a clean clone without installing
    sys.path.insert(0, str(REPO_ROOT))

from harness.compare import json_equal  # noqa: E402
from reference_impl import strategic  # noqa: E402

ENV_PER_CONTAINER = 20
DEFAULT_SIZES = "100,1000,10000"


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


def reference_run(object_text: str, patch_text: str, repeat: int) -> tuple[list[float], str]:
    """Milliseconds of each of ``repeat`` operations (after one untimed warm-up, as upstream's
    bench mode does), and the last result's JSON text."""
    meta = strategic.builtin_patch_meta("apps/v1", "Deployment")
    timings, text = [], ""
    json.dumps(strategic.apply(json.loads(object_text), json.loads(patch_text), meta))
    for _ in range(repeat):
        started = time.perf_counter()
        result = strategic.apply(json.loads(object_text), json.loads(patch_text), meta)
        text = json.dumps(result)
        timings.append((time.perf_counter() - started) * 1000)
    return timings, text


def upstream_run(binary: Path, workdir: Path, repeat: int) -> tuple[list[float], dict]:
    """Milliseconds of each of ``repeat`` timed upstream operations (after its untimed warm-up),
    and the bench mode's report; the patched document is left in ``workdir/upstream.json``."""
    completed = subprocess.run(
        [str(binary), "bench", "--object", str(workdir / "object.json"), "--patch", str(workdir / "patch.json"),
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


def rounds_for(containers: int) -> tuple[int, int, int]:
    """(rounds, reference operations per round, upstream timed operations per round).

    Upstream's time grows faster than N² (normalizeSliceOrder sorts with a linear index()
    lookup in its comparator), so at 10,000 containers it gets one timed operation.
    """
    if containers <= 100:
        return 5, 10, 10
    if containers <= 1000:
        return 3, 5, 2
    return 1, 3, 1


def measure(containers: int, binary: Path | None) -> tuple[Row, str]:
    """One table row for ``containers``, the two implementations alternating round by round."""
    object_text, patch_text = json.dumps(deployment(containers)), json.dumps(patch(containers))
    rounds, reference_per_round, upstream_per_round = rounds_for(containers)
    ours: list[float] = []
    theirs: list[float] = []
    kubernetes = ""
    with tempfile.TemporaryDirectory(prefix="patchconf-bench-") as tmp:
        workdir = Path(tmp)
        (workdir / "object.json").write_text(object_text, encoding="utf-8")
        (workdir / "patch.json").write_text(patch_text, encoding="utf-8")
        reference_text = ""
        for _ in range(rounds):
            timings, reference_text = reference_run(object_text, patch_text, reference_per_round)
            ours += timings
            if binary is not None:
                timings, report = upstream_run(binary, workdir, upstream_per_round)
                theirs += timings
                kubernetes = report["kubernetes"]
        same = None
        if binary is not None:
            upstream_document = json.loads((workdir / "upstream.json").read_text(encoding="utf-8"))
            same = json_equal(json.loads(reference_text), upstream_document)
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
    from harness.targets.base import TargetUnavailable
    from harness.targets.upstream import build

    try:
        return build()
    except TargetUnavailable as exc:
        print(f"upstream figures unavailable: {exc}", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"container counts (default {DEFAULT_SIZES})")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--upstream", help="path of an upstream target binary (default: build targets/upstream)")
    source.add_argument("--no-upstream", action="store_true", help="time the reference implementation only")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    binary = upstream_binary(args)
    rows, kubernetes = [], ""
    for size in sizes:
        row, version = measure(size, binary)
        rows.append(row)
        kubernetes = version or kubernetes
    load = " / ".join(f"{value:.1f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, "
          f"load average {load}, Python {platform.python_version()}, "
          f"upstream: {'Kubernetes ' + kubernetes if kubernetes else 'not run'}")
    print("# ms per operation (JSON parse of object and patch + apply + JSON dump), median; ratio = reference/upstream")
    print(format_table(rows))
    if any(row.same_result is False for row in rows):
        print("reference and upstream produced different documents", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
