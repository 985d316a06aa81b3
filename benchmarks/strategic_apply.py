"""Strategic merge patch apply on large objects, reference vs upstream, side by side.

A Deployment whose pod template has N containers with 20 env vars each; the patch changes
the image and one env var of every 10th container. One operation = JSON parse of object
and patch, apply, JSON dump of the result — what a server or a client library does.

    python benchmarks/strategic_apply.py [--sizes 100,1000,10000] [--upstream PATH]

The upstream figure comes from Kubernetes' own Go code (the `upstream` target binary's
`bench` mode, timing strategicpatch.StrategicMergePatch on the same bytes) when available.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reference_impl import strategic

ENV_PER_CONTAINER = 20


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


def reference_ms(object_text: str, patch_text: str, repeat: int) -> float:
    meta = strategic.builtin_patch_meta("apps/v1", "Deployment")
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = strategic.apply(json.loads(object_text), json.loads(patch_text), meta)
        json.dumps(result)
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1000


def upstream_ms(binary: str, object_text: str, patch_text: str, repeat: int) -> float | None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "object.json").write_text(object_text)
        (Path(tmp) / "patch.json").write_text(patch_text)
        try:
            completed = subprocess.run(
                [binary, "bench", "--object", f"{tmp}/object.json", "--patch", f"{tmp}/patch.json",
                 "--repeat", str(repeat)],
                capture_output=True, text=True, timeout=600, check=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            print(f"upstream bench unavailable: {exc}", file=sys.stderr)
            return None
    return float(json.loads(completed.stdout)["median_ms"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--upstream", help="path of the upstream target binary (with a bench mode)")
    args = parser.parse_args()
    print(f"{'containers':>10} {'reference ms':>14} {'upstream ms':>13} {'ratio':>7}")
    for size in (int(s) for s in args.sizes.split(",")):
        object_text, patch_text = json.dumps(deployment(size)), json.dumps(patch(size))
        repeat = 20 if size <= 1000 else 3
        ours = reference_ms(object_text, patch_text, repeat)
        theirs = None
        if args.upstream:
            theirs = upstream_ms(args.upstream, object_text, patch_text, 1 if size > 1000 else repeat)
        theirs_text = f"{theirs:13.1f}" if theirs is not None else f"{'n/a':>13}"
        ratio = f"{ours / theirs:7.2f}" if theirs else f"{'':>7}"
        print(f"{size:>10} {ours:14.1f} {theirs_text} {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
