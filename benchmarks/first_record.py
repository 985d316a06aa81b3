"""Time from an empty PATCHCONF_CACHE to the first recorded strategic case (issue 38).

CONTRIBUTING.md's example case file (two strategic cases stating only their inputs) is written
into a scratch corpus and `patchconf record --judges upstream` answers it, in a fresh process
with a PATCHCONF_CACHE of its own (never the user's), once per way of getting the judge:

  wheel        the installed patchconf-judges wheel's upstream (no build, no Go needed)
  go           built locally (PATCHCONF_JUDGES=local) with this machine's GOCACHE (warm)
  go-cold      built locally with an empty GOCACHE of its own: a new machine with the module cache

    python benchmarks/first_record.py wheel go go-cold
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = "cases/strategic/env-vars.yaml"
WAYS = ("wheel", "go", "go-cold")


def example_case_file() -> str:
    page = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    return re.search(r"<!-- the case file -->\n```yaml\n(.*?)```", page, re.DOTALL).group(1)


def first_record(way: str) -> tuple[float, int, str]:
    """Seconds to record the example with the judge got ``way``; the exit code and the output's judge lines."""
    with tempfile.TemporaryDirectory(prefix="patchconf-first-record-") as scratch:
        root = Path(scratch)
        (root / "cases" / "strategic").mkdir(parents=True)
        for name in ("case.schema.json", "BEHAVIOURS.md"):
            shutil.copy(REPO / "cases" / name, root / "cases" / name)
        (root / EXAMPLE).write_text(example_case_file(), encoding="utf-8")
        env = {**os.environ, "PATCHCONF_CACHE": str(root / "cache"), "PATCHCONF_CASE_CACHE": "off",
               "PYTHONPATH": str(REPO)}
        if way != "wheel":
            env["PATCHCONF_JUDGES"] = "local"
        if way == "go-cold":
            env["GOCACHE"] = str(root / "gocache")
        began = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "patchconf.harness.cli", "record", "--cases", EXAMPLE,
                               "--judges", "upstream"], cwd=root, env=env, capture_output=True, text=True,
                              check=False)
        seconds = time.perf_counter() - began
        if way == "go-cold":  # the Go build cache holds read-only files
            subprocess.run(["chmod", "-R", "u+w", str(root / "gocache")], check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith(("judge ", "judges: "))]
    return seconds, done.returncode, "\n".join(lines) or done.stderr[-2000:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ways", nargs="+", choices=WAYS)
    args = parser.parse_args()
    status = 0
    for way in args.ways:
        seconds, code, said = first_record(way)
        print(f"{way:8} {seconds:7.1f} s  exit {code}\n{said}\n", flush=True)
        status = status or code
    return status


if __name__ == "__main__":
    sys.exit(main())
