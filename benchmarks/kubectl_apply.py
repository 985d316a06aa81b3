"""The apply corpus through the real kubectl apply (`kubectl-apply` target), end to end.

    python benchmarks/kubectl_apply.py [--rounds 3] [--baseline DIR] [--target kubectl-apply[:PATH]]

Each round runs `patchconf run --target kubectl-apply --type apply --quiet` in a fresh
interpreter: wall seconds, and CPU seconds of it and of every kubectl it started. With
``--baseline DIR`` (a checkout of another commit, e.g. made with ``git archive <commit> |
tar -x -C DIR``) the same command runs from there too, in alternating rounds, so that load
from other processes hits both alike; ``same`` then says whether every case got the same
status, reason and actual answer from both trees (the script exits 1 if not).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent
RUN = "import sys; from patchconf.harness.cli import main; sys.exit(main())"
JUDGED = ("status", "reason", "actual")  # what a run decided about a case; seconds aside


def run_once(tree: Path, target: str, report: Path) -> tuple[float, float, float, dict[str, dict]]:
    """Load average at the start, wall and CPU seconds, and each case's judged fields of one run from ``tree``."""
    load = os.getloadavg()[0]
    before = os.times()
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-c", RUN, "run", "--target", target, "--type", "apply", "--quiet",
                                "--report", str(report)], cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                               capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = os.times()
    if completed.returncode != 0:
        raise SystemExit(f"patchconf run failed in {tree}:\n{completed.stdout[-2000:]}{completed.stderr[-2000:]}")
    results = json.loads((report / "results.json").read_text(encoding="utf-8"))["results"]
    judged = {result["id"]: {key: result.get(key) for key in JUDGED} for result in results}
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return load, wall, cpu, judged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout to run from, alternately")
    parser.add_argument("--target", default="kubectl-apply", help="kubectl-apply or kubectl-apply:PATH")
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, target {args.target}")
    trees = [("this tree", SOURCE_ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    timings: dict[str, list[tuple[float, float, float]]] = {label: [] for label, _ in trees}
    judged: dict[str, list[dict[str, dict]]] = {label: [] for label, _ in trees}
    with tempfile.TemporaryDirectory(prefix="patchconf-bench-") as scratch:
        for round_number in range(args.rounds):
            for label, tree in trees:
                load, wall, cpu, outcomes = run_once(tree, args.target, Path(scratch) / f"{label}-{round_number}")
                print(f"  round {round_number + 1}, {label}: {wall:.1f} s wall, {cpu:.1f} s CPU "
                      f"(load average {load:.1f} at the start)")
                timings[label].append((load, wall, cpu))
                judged[label].append(outcomes)
    for label, tree in trees:
        loads, walls, cpus = zip(*timings[label], strict=True)
        print(f"{label} ({tree}): median {statistics.median(walls):.1f} s wall, {statistics.median(cpus):.1f} s CPU "
              f"(best {min(walls):.1f} s wall; load average {min(loads):.1f}-{max(loads):.1f})")
    runs = [outcomes for label, _ in trees for outcomes in judged[label]]
    same = all(outcomes == runs[0] for outcomes in runs)
    print(f"{len(runs[0])} cases; same status, reason and actual in every run: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
