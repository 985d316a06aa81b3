"""Where the time of `patchconf run` (reference target, whole corpus) goes, and the whole of it.

    python benchmarks/corpus_load.py [--rounds 5] [--baseline DIR]

Stages, each the median CPU time of ``--rounds`` in this process (CPU rather than wall time:
on a busy machine it is what stays comparable):

- ``yaml``: every case file parsed by patchconf's loader (libyaml's parser, bounded event
  builder), and by PyYAML's pure-Python SafeLoader with the same YAML 1.2 core resolvers
  (the loader before);
- ``validation``: every file and every case (defaults filled in) checked by jsonschema-rs
  (what the loader uses), and by jsonschema (Python; the loader's validator before a compiled
  check, harness/corpus/fastschema.py, and then jsonschema-rs replaced it);
- ``load``: load_corpus with the cache of loaded files (harness/corpus/casecache.py) turned off,
  cold (an empty cache: every file parsed, checked and stored) and warm (every file from it);
- ``run``: run_cases on the reference target in this one process (``--jobs 1``);
- ``reports``: write_reports.

Then ``end to end``: `patchconf run --quiet` in a fresh interpreter (imports included), wall
and CPU seconds (CPU of the forked copies included): as run by default (cases in one process
per CPU, case cache warm), with ``--jobs 1``, with a cold case cache (a new, empty one each
round), and without bytecode for patchconf's modules (compiled every run, as where
PYTHONDONTWRITEBYTECODE is set and nothing wrote them before). Otherwise Python's bytecode is
written to a scratch directory and warmed by one run first, as an installation has it, even
where PYTHONDONTWRITEBYTECODE is set. The command is what the installed ``patchconf`` runs
(``patchconf.harness.cli:console_main``). With ``--baseline DIR``
(a checkout of another commit, e.g. made with ``git archive <commit> | tar -x -C DIR``) the
same command runs from there too, in alternating rounds, so that load from other processes
hits all alike.
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
from dataclasses import dataclass
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent
if str(SOURCE_ROOT) not in sys.path:  # runnable from a clean clone without installing
    sys.path.insert(0, str(SOURCE_ROOT))

import yaml  # noqa: E402

from patchconf.harness.corpus import yamlio  # noqa: E402
from patchconf.harness.corpus.casecache import ENVIRONMENT_VARIABLE  # noqa: E402
from patchconf.harness.corpus.cases import iter_case_files, load_corpus  # noqa: E402
from patchconf.harness.corpus.caseschema import case_schema  # noqa: E402

# What the installed `patchconf` command runs (console_main; a tree from before it has only main).
# The command run from a tree: its own code, whatever patchconf is installed. A tree whose root is
# the package (its __init__.py beside harness/) is loaded as `patchconf` from there. A tree with the
# earlier mapped layout (patchconf/ beside harness/ and reference_impl/) has its packages mapped as
# an installation mapped them, all three before any runs (its patchconf/__init__ imports
# patchconf.harness, which would otherwise be the installed one); an older tree (harness/ a
# top-level package) is imported as it is.
RUN = """
import importlib.util, pathlib, sys
tree = pathlib.Path.cwd()
if (tree / "__init__.py").is_file() and (tree / "harness").is_dir():
    spec = importlib.util.spec_from_file_location("patchconf", tree / "__init__.py",
                                                  submodule_search_locations=[str(tree)])
    module = sys.modules["patchconf"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from patchconf.harness import cli
elif (tree / "patchconf" / "__init__.py").is_file():
    specs = [importlib.util.spec_from_file_location(name, tree / folder / "__init__.py",
                                                    submodule_search_locations=[str(tree / folder)])
             for name, folder in (("patchconf", "patchconf"), ("patchconf.reference_impl", "reference_impl"),
                                  ("patchconf.harness", "harness"))]
    modules = [sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec)) for spec in specs]
    for spec, module in reversed(list(zip(specs, modules))):
        spec.loader.exec_module(module)
    from patchconf.harness import cli
else:
    from harness import cli
sys.exit(getattr(cli, "console_main", cli.main)())
"""


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


def stages(rounds: int, scratch: Path) -> list[tuple[str, float]]:
    from patchconf.harness.reporting.report import Run
    from patchconf.harness.reporting.run_reports import write_reports
    from patchconf.harness.running.runner import run_cases
    from patchconf.harness.targets import make_target

    paths = list(iter_case_files([SOURCE_ROOT / "cases"]))
    texts = [(path.read_text(encoding="utf-8"), path.suffix) for path in paths]
    yaml_texts = [text for text, suffix in texts if suffix != ".json"]
    schema = case_schema((SOURCE_ROOT / "cases" / "case.schema.json").resolve())
    files = [yamlio.load_text(text, suffix) for text, suffix in texts]
    cases = [{**data.get("defaults", {}), **case} for data in files for case in data["cases"]]
    import jsonschema  # only here: the loader does not use it

    python_validator = jsonschema.validators.validator_for(schema.schema)
    file_validator, case_validator = python_validator(schema.schema), python_validator(schema.case_schema)
    target = make_target("reference")
    warm = str(scratch / "case-cache-warm")
    corpus = load_with_cache(warm)
    results = run_cases(corpus.cases, target, workers=1)
    out = scratch / "reports"
    return [
        (f"yaml: {len(yaml_texts)} files, patchconf's loader (libyaml)",
         median_seconds(lambda: [yamlio.load_text(t) for t in yaml_texts], rounds)),
        ("yaml: PyYAML's pure-Python SafeLoader (before)",
         median_seconds(lambda: [yaml.load(t, Loader=PurePythonLoader) for t in yaml_texts], max(1, rounds // 2))),
        (f"validation: {len(files)} files and {len(cases)} cases, jsonschema-rs",
         median_seconds(lambda: ([schema.file_validator.is_valid(d) for d in files],
                                 [schema.case_validator.is_valid(c) for c in cases]), rounds)),
        ("validation: jsonschema (before)",
         median_seconds(lambda: ([file_validator.is_valid(d) for d in files],
                                 [case_validator.is_valid(c) for c in cases]), max(1, rounds // 2))),
        ("load_corpus, case cache off", median_seconds(lambda: load_with_cache("off"), rounds)),
        ("load_corpus, case cache cold (every file stored)",
         median_seconds(lambda: load_with_cache(tempfile.mkdtemp(prefix="case-cache-cold-", dir=scratch)), rounds)),
        ("load_corpus, case cache warm (every file from it)", median_seconds(lambda: load_with_cache(warm), rounds)),
        (f"run_cases: {len(corpus.cases)} cases on the reference target, one process",
         median_seconds(lambda: run_cases(corpus.cases, target, workers=1), rounds)),
        ("write_reports", median_seconds(lambda: write_reports(Run("reference", target.info, results), out), rounds)),
    ]


def load_with_cache(setting: str):
    """load_corpus with PATCHCONF_CASE_CACHE set to ``setting`` (a directory, or off)."""
    previous = os.environ.get(ENVIRONMENT_VARIABLE)
    os.environ[ENVIRONMENT_VARIABLE] = setting
    try:
        return load_corpus([SOURCE_ROOT / "cases"])
    finally:
        if previous is None:
            del os.environ[ENVIRONMENT_VARIABLE]
        else:
            os.environ[ENVIRONMENT_VARIABLE] = previous


@dataclass(frozen=True)
class Variant:
    label: str
    tree: Path
    arguments: tuple[str, ...] = ()
    case_cache: str | None = None  # a directory; None: a new, empty one each time
    bytecode: bool = True  # False: every module compiled again, as under PYTHONDONTWRITEBYTECODE


def end_to_end(variant: Variant, report: Path, bytecode: Path) -> tuple[float, float]:
    """Wall and CPU seconds of `patchconf run --quiet` from a tree (its own harness and cases)."""
    case_cache = variant.case_cache or tempfile.mkdtemp(prefix="case-cache-cold-", dir=bytecode.parent)
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    environment.update(PYTHONPATH=str(variant.tree), **{ENVIRONMENT_VARIABLE: case_cache})
    if variant.bytecode:
        environment["PYTHONPYCACHEPREFIX"] = str(bytecode)
    else:  # as this sandbox runs: Python's own modules from their bytecode, patchconf's compiled every time
        # (unless the tree has a __pycache__ of its own from a run without the variable)
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
    before = os.times()
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-c", RUN, "run", "--quiet", "--report", str(report),
                                *variant.arguments], cwd=variant.tree, env=environment, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = os.times()
    if completed.returncode != 0:
        raise SystemExit(f"patchconf run failed in {variant.tree}:\n{completed.stdout[-2000:]}"
                         f"{completed.stderr[-2000:]}")
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
    with tempfile.TemporaryDirectory(prefix="patchconf-bench-") as scratch:
        for label, seconds in stages(args.rounds, Path(scratch)):
            print(f"{label:<62} {seconds * 1000:9.1f} ms CPU", flush=True)
        print()
        warm = Path(scratch) / "case-cache"
        variants = [Variant("this tree, default", SOURCE_ROOT, case_cache=str(warm)),
                    Variant("this tree, --jobs 1", SOURCE_ROOT, ("--jobs", "1"), case_cache=str(warm)),
                    Variant("this tree, case cache cold", SOURCE_ROOT),
                    Variant("this tree, no bytecode cache", SOURCE_ROOT, case_cache=str(warm), bytecode=False)]
        if args.baseline:
            # its own warm case cache, as "default" has: a cold one made the baseline look slower
            baseline_cache = str(Path(scratch) / "case-cache-baseline")
            variants.append(Variant("baseline", args.baseline.resolve(), case_cache=baseline_cache))
        bytecode = Path(scratch) / "pycache"
        timings: dict[str, list[tuple[float, float]]] = {variant.label: [] for variant in variants}
        for variant in variants:  # bytecode compiled, case cache filled
            end_to_end(variant, Path(scratch) / "report", bytecode)
        for _ in range(args.rounds):
            for variant in variants:
                timings[variant.label].append(end_to_end(variant, Path(scratch) / "report", bytecode))
    for variant in variants:
        walls, cpus = zip(*timings[variant.label], strict=True)
        print(f"end to end, patchconf run --quiet ({variant.label}): median {statistics.median(walls):.2f} s wall, "
              f"{statistics.median(cpus):.2f} s CPU (best {min(walls):.2f} s wall)")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
