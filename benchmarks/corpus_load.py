"""Where the time of `patchconf run` (reference target, whole corpus) goes, and the whole of it.

    python benchmarks/corpus_load.py [--rounds 5] [--baseline DIR]

Stages, each the median CPU time of ``--rounds`` in this process (CPU rather than wall time:
on a busy machine it is what stays comparable):

- ``yaml``: every case file parsed by patchconf's loader (libyaml's parser, bounded event
  builder), and by PyYAML's pure-Python SafeLoader with the same YAML 1.2 core resolvers
  (the loader before);
- ``validation``: every file and every case (defaults filled in) checked by the compiled
  schema check, and by jsonschema (what the loader did before);
- ``load``, ``run``, ``reports``: load_corpus, run_cases on the reference target, write_reports.

Then ``end to end``: `patchconf run --quiet` in a fresh interpreter (imports included), wall
and CPU seconds. With ``--baseline DIR`` (a checkout of another commit, e.g. made with
``git archive <commit> | tar -x -C DIR``) the same command runs from there too, in
alternating rounds, so that load from other processes hits both alike.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # runnable from a clean clone without installing
    sys.path.insert(0, str(REPO_ROOT))

import yaml  # noqa: E402

from harness import yamlio  # noqa: E402
from harness.cases import case_schema, iter_case_files, load_corpus  # noqa: E402

RUN = "import sys; from harness.cli import main; sys.exit(main())"


def median_seconds(action, rounds: int) -> float:
    timings = []
    for _ in range(rounds):
        started = time.process_time()
        action()
        timings.append(time.process_time() - started)
    return statistics.median(timings)


class PurePythonLoader(yaml.SafeLoader):
    """PyYAML's pure-Python loader with patchconf's YAML 1.2 core resolvers: the loader before libyaml."""


PurePythonLoader.yaml_implicit_resolvers = yamlio.CoreResolver.yaml_implicit_resolvers
PurePythonLoader.add_constructor(yamlio.INT_TAG, lambda loader, node: yamlio._int(loader.construct_scalar(node)))


def stages(rounds: int) -> list[tuple[str, float]]:
    from harness.report import Run, write_reports
    from harness.runner import run_cases
    from harness.targets import make_target

    paths = list(iter_case_files([REPO_ROOT / "cases"]))
    texts = [(path.read_text(encoding="utf-8"), path.suffix) for path in paths]
    yaml_texts = [text for text, suffix in texts if suffix != ".json"]
    schema = case_schema((REPO_ROOT / "cases" / "case.schema.json").resolve())
    files = [yamlio.load_text(text, suffix) for text, suffix in texts]
    cases = [{**data.get("defaults", {}), **case} for data in files for case in data["cases"]]
    file_validator, case_validator = schema.validators()
    target = make_target("reference")
    corpus = load_corpus([REPO_ROOT / "cases"])
    results = run_cases(corpus.cases, target)
    out = Path(tempfile.mkdtemp(prefix="patchconf-bench-"))
    return [
        (f"yaml: {len(yaml_texts)} files, patchconf's loader (libyaml)",
         median_seconds(lambda: [yamlio.load_text(t) for t in yaml_texts], rounds)),
        ("yaml: PyYAML's pure-Python SafeLoader (before)",
         median_seconds(lambda: [yaml.load(t, Loader=PurePythonLoader) for t in yaml_texts], max(1, rounds // 2))),
        (f"validation: {len(files)} files and {len(cases)} cases, compiled check",
         median_seconds(lambda: ([schema._file_check(d) for d in files], [schema._case_check(c) for c in cases]),
                        rounds)),
        ("validation: jsonschema (before)",
         median_seconds(lambda: ([file_validator.is_valid(d) for d in files],
                                 [case_validator.is_valid(c) for c in cases]), max(1, rounds // 2))),
        ("load_corpus", median_seconds(lambda: load_corpus([REPO_ROOT / "cases"]), rounds)),
        (f"run_cases: {len(corpus.cases)} cases on the reference target",
         median_seconds(lambda: run_cases(corpus.cases, target), rounds)),
        ("write_reports", median_seconds(lambda: write_reports(Run("reference", target.info, results), out), rounds)),
    ]


def end_to_end(tree: Path, report: Path) -> tuple[float, float]:
    """Wall and CPU seconds of `patchconf run --quiet` from ``tree`` (its own harness and cases)."""
    before = os.times()
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-c", RUN, "run", "--quiet", "--report", str(report)], cwd=tree,
                               env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = os.times()
    if completed.returncode != 0:
        raise SystemExit(f"patchconf run failed in {tree}:\n{completed.stdout[-2000:]}{completed.stderr[-2000:]}")
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another checkout to time `patchconf run` from, alternately")
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}, "
          f"PyYAML {yaml.__version__} (libyaml: {yaml.__with_libyaml__}), {os.cpu_count()} CPUs, "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print()
    for label, seconds in stages(args.rounds):
        print(f"{label:<62} {seconds * 1000:9.1f} ms CPU")
    print()
    trees = [("this tree", REPO_ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    timings: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in trees}
    with tempfile.TemporaryDirectory(prefix="patchconf-bench-") as scratch:
        for _ in range(args.rounds):
            for label, tree in trees:
                timings[label].append(end_to_end(tree, Path(scratch) / label.replace(" ", "-")))
    for label, tree in trees:
        walls, cpus = zip(*timings[label], strict=True)
        print(f"end to end, patchconf run --quiet ({label}: {tree}): median {statistics.median(walls):.2f} s wall, "
              f"{statistics.median(cpus):.2f} s CPU (best {min(walls):.2f} s wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
