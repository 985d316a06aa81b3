"""Where the reference's server-side apply spends its time, per request stage.

    python benchmarks/ssa_stages.py [--containers 100] [--repeat 3]

Runs `server_side_apply.py`'s case (apply, update, forced apply) through the reference target
with a timer around each stage's function; a stage's CPU time excludes the stages it calls (a
field set built while pruning counts as a field set). cProfile's own overhead (it makes
the run some fifteen times slower) skews such small functions; these timers only wrap a few
calls per request.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent
if str(SOURCE_ROOT) not in sys.path:
    sys.path.insert(0, str(SOURCE_ROOT))

from patchconf.harness.targets.reference import ReferenceTarget  # noqa: E402
from patchconf.reference_impl.ssa import apiserver, codec, managedfields, merge, typed  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import server_side_apply  # noqa: E402

# (owner, function, stage): the innermost stage running is charged.
STAGES = [
    (apiserver.Store, "request", "apiserver: copies, strategies, timestamps"),
    (apiserver.Store, "_stored", "apiserver: copies, strategies, timestamps"),
    (codec, "decode", "decode into the Go type, default, encode"),
    (managedfields.FieldManager, "apply", "field manager: copies, chain"),
    (managedfields.FieldManager, "update", "field manager: copies, chain"),
    (managedfields, "decode_managed_fields", "managedFields decoding (FieldsV1 -> sets)"),
    (managedfields, "encode_managed_fields", "managedFields encoding (sets -> FieldsV1)"),
    (managedfields.FieldManager, "_typed", "typed conversion + validation"),
    (merge.Updater, "apply", "updater: set algebra, no-op check"),
    (merge.Updater, "update", "updater: set algebra, no-op check"),
    (merge.Updater, "_prune", "prune: set algebra"),
    (typed.TypedValue, "remove_items", "prune: removal"),
    (typed.TypedValue, "to_field_set", "field sets (to_field_set)"),
    (typed.TypedValue, "merge", "merge"),
    (typed.TypedValue, "compare", "compare"),
]


class StageClock:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._running: list[list] = []  # [stage, started]

    def wrap(self, owner, name: str, stage: str) -> None:
        original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        static = isinstance(original, staticmethod)
        function = original.__func__ if static else original

        @functools.wraps(function)
        def timed(*args, **kwargs):
            now = time.process_time()
            if self._running:
                outer = self._running[-1]
                self.seconds[outer[0]] = self.seconds.get(outer[0], 0.0) + now - outer[1]
            self._running.append([stage, now])
            try:
                return function(*args, **kwargs)
            finally:
                end = time.process_time()
                resumed = self._running.pop()[1]  # when its last inner stage returned
                self.seconds[stage] = self.seconds.get(stage, 0.0) + end - resumed
                if self._running:
                    self._running[-1][1] = end

        setattr(owner, name, staticmethod(timed) if static else timed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--containers", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    clock = StageClock()
    for owner, name, stage in STAGES:
        clock.wrap(owner, name, stage)
    case = server_side_apply.case(args.containers)
    target = ReferenceTarget()
    target.run(case)  # warm-up: schemas converted, modules loaded
    clock.seconds.clear()
    started = time.process_time()
    for _ in range(args.repeat):
        target.run(case)
    total = (time.process_time() - started) / args.repeat
    load = " / ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"# N = {args.containers}: {total * 1000:.0f} ms CPU per sequence (mean of {args.repeat}), "
          f"load average {load}")
    rows = sorted(clock.seconds.items(), key=lambda row: -row[1])
    outside = total - sum(clock.seconds.values()) / args.repeat
    for stage, seconds in [*rows, ("outside the requests (the target: case in, answer out)", outside * args.repeat)]:
        per_sequence = seconds / args.repeat
        print(f"{per_sequence * 1000:8.0f} ms {100 * per_sequence / total:5.1f}%  {stage}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
