"""Time from an empty PATCHCONF_CACHE to the first answer of Kubernetes' own code (issue 38).

Two first answers, each in fresh processes with a PATCHCONF_CACHE of their own (a temporary
directory; the user's cache is never touched):

  record  CONTRIBUTING.md's example case file (two strategic cases stating only their inputs),
          written into a scratch corpus and answered by `patchconf record --judges upstream`;
  live    `patchconf apiserver start` of a local control plane, then `patchconf run --target live`
          of one case on it (the plane is stopped afterwards, and on an interrupt).

and three ways of getting the judge binaries:

  wheel    the installed patchconf-judges wheel's (no build; run with no `go` on PATH)
  go       built locally (PATCHCONF_JUDGES=local) with this machine's GOCACHE (warm)
  go-cold  built locally with an empty GOCACHE of its own: a new machine with the module cache

    python benchmarks/first_answer.py record:wheel record:go record:go-cold live:wheel live:go
"""

from __future__ import annotations

import argparse
import hashlib
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
LIVE_CASE = "cases/live/apply.yaml::replicas-removed-from-config-defaults-to-one"
WAYS = ("wheel", "go", "go-cold")
BINARIES = ("upstream", "kube-apiserver", "etcd")
MEASURES = tuple(f"{what}:{way}" for what in ("record", "live") for way in WAYS)


def example_case_file() -> str:
    page = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    return re.search(r"<!-- the case file -->\n```yaml\n(.*?)```", page, re.DOTALL).group(1)


def environment(root: Path, way: str) -> dict[str, str]:
    env = {**os.environ, "PATCHCONF_CACHE": str(root / "cache"), "PATCHCONF_CASE_CACHE": "off",
           "PYTHONPATH": str(REPO)}
    if way == "wheel":  # and no `go` on PATH, to show none is needed
        env["PATH"] = os.pathsep.join(part for part in env.get("PATH", "").split(os.pathsep)
                                      if part and not (Path(part) / "go").exists())
    else:
        env["PATCHCONF_JUDGES"] = "local"
    if way == "go-cold":
        env["GOCACHE"] = str(root / "gocache")
    return env


def patchconf(*arguments: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "patchconf.harness.cli", *arguments], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)


def first_record(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    (root / "cases" / "strategic").mkdir(parents=True)
    for name in ("case.schema.json", "BEHAVIOURS.md"):
        shutil.copy(REPO / "cases" / name, root / "cases" / name)
    (root / EXAMPLE).write_text(example_case_file(), encoding="utf-8")
    return patchconf("record", "--cases", EXAMPLE, "--judges", "upstream", cwd=root, env=env)


def first_live(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    kubeconfig = str(root / "kubeconfig")
    try:
        started = patchconf("apiserver", "start", "--kubeconfig", kubeconfig, cwd=REPO, env=env)
        if started.returncode != 0:
            return started
        return patchconf("run", "--target", "live", "--kubeconfig", kubeconfig, "--id", LIVE_CASE,
                         "--report", str(root / "report"), cwd=REPO, env=env)
    finally:
        patchconf("apiserver", "stop", "--kubeconfig", kubeconfig, cwd=REPO, env=env)


def measure(name: str) -> tuple[float, int, str]:
    """Seconds to the first answer, the exit code, and what the output says of the judges."""
    what, way = name.split(":")
    with tempfile.TemporaryDirectory(prefix=f"patchconf-first-{what}-") as scratch:
        root = Path(scratch)
        env = environment(root, way)
        began = time.perf_counter()
        done = (first_record if what == "record" else first_live)(root, env)
        seconds = time.perf_counter() - began
        # What was built, by SHA-256: the same sources and flags give the same bytes (-trimpath),
        # whichever build cache compiled them; compare with the wheel's manifests.
        built = [f"built {path.relative_to(root / 'cache')}: sha256 {file_sha256(path)}"
                 for path in sorted((root / "cache").glob("*/*/*")) if path.name in BINARIES and path.is_file()]
        if way == "go-cold":  # the Go build cache holds read-only files
            subprocess.run(["chmod", "-R", "u+w", str(root / "gocache")], check=False)
    lines = [line for line in done.stdout.splitlines()
             if line.startswith(("judge ", "judges: ", "total: ")) or line.endswith(" pass, 0 fail, 0 error, 0 skip")]
    return seconds, done.returncode, "\n".join(lines + built) or done.stderr[-2000:]


def file_sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("measures", nargs="+", choices=MEASURES, metavar="WHAT:WAY",
                        help=f"one of {', '.join(MEASURES)}")
    args = parser.parse_args()
    status = 0
    for name in args.measures:
        seconds, code, said = measure(name)
        print(f"{name:14} {seconds:7.1f} s  exit {code}\n{said}\n", flush=True)
        status = status or code
    return status


if __name__ == "__main__":
    sys.exit(main())
