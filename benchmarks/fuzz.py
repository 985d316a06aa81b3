"""patchconf fuzz's speed: judged inputs per second, the reference against upstream.

    python benchmarks/fuzz.py [--count 3000] [--seed 1]

Runs the differential loop without shrinking (the part whose speed the issue asks for: at
least 500 judged inputs per second on the reference) for each patch type alone and for all
of them taken in turn, and prints inputs, seconds, judged inputs per second, and the load
average (other work on the machine slows the long-lived upstream process's answers).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from patchconf.harness.fuzz.engine import fuzz
from patchconf.harness.fuzz.generators import GENERATORS
from patchconf.harness.targets.reference import ReferenceTarget
from patchconf.harness.targets.upstream import UpstreamTarget


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    upstream, reference = UpstreamTarget(), ReferenceTarget()
    try:
        print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        print(f"{'types':<20} {'inputs':>7} {'seconds':>8} {'judged/s':>9}")
        for label, types in [*((t, [t]) for t in GENERATORS), ("all, in turn", list(GENERATORS))]:
            count = args.count // 10 if types == ["server-side-apply"] else args.count
            run = fuzz(reference, upstream, types, args.seed, count=count, shrink=False)
            print(f"{label:<20} {count:>7} {run.seconds:>8.2f} {run.judged / run.seconds:>9.0f}")
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    finally:
        upstream.close()


if __name__ == "__main__":
    main()
