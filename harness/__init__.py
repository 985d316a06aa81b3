"""patchconf harness: loads the case corpus, runs it against targets, reports divergences.

Sub-packages by concern, each importing only those before it: ``corpus`` (loading and checking
case files, what their values mean), ``controlplane`` (the local kube-apiserver), ``targets`` (what
cases run against), ``running`` (the runner and its judging), ``reporting`` (reports, the matrix,
the site) and ``provenance`` (confirming expectations on real Kubernetes), ``fuzz`` (generated
inputs); ``cli`` is the command line, ``action`` (the GitHub Action's steps) and ``prcheck`` (the
pull-request check) are built on it.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

# The checkout, or the installed `patchconf` package: either way cases/ and targets/ sit beside
# harness/ (pyproject.toml installs them there), so inputs resolve the same from both. Outputs never go here.
SOURCE_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_CASES_DIR = SOURCE_ROOT / "cases"
CASE_SCHEMA_FILE = "case.schema.json"


def checkout_cases_dir(start: Path | None = None) -> Path | None:
    """The corpus of the patchconf checkout holding ``start`` (default: the working directory), so
    contributors run their edits wherever they are in it; ``None`` outside a checkout."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        cases = directory / "cases"
        if (cases / CASE_SCHEMA_FILE).is_file() and (directory / "pyproject.toml").is_file():
            return cases
    return None


def default_cases_dir() -> Path:
    """What a run reads when not told: the checkout's corpus inside one, else the installed one."""
    return checkout_cases_dir() or BUNDLED_CASES_DIR


def patchconf_version() -> str:
    from patchconf import __version__

    return __version__


@functools.cache
def corpus_version(cases_dir: Path) -> str:
    """A checkout's commit (``git describe``, ``-dirty`` with local edits), else the version of the
    patchconf that carries the corpus."""
    if (cases_dir.parent / ".git").exists():
        try:
            described = subprocess.run(["git", "-C", str(cases_dir), "describe", "--always", "--dirty", "--tags"],
                                       capture_output=True, text=True, timeout=10, check=False)
            if described.returncode == 0 and described.stdout.strip():
                return f"git {described.stdout.strip()}"
        except (OSError, subprocess.TimeoutExpired):
            pass  # no git here: the package's version still says which corpus
    return f"patchconf {patchconf_version()}"


def corpus_description(paths: list[Path]) -> dict[str, str]:
    """Which corpus a run read: the root of its case files and that corpus's version."""
    from patchconf.harness.corpus.cases import cases_root_for

    root = cases_root_for(paths[0].resolve()) if paths else default_cases_dir()
    return {"path": str(root), "version": corpus_version(root)}


def reports_directory() -> Path:
    """Where runs write when not told: ``./reports`` of the working directory, where the user is
    (not the installation, nor the checkout when run from elsewhere)."""
    return Path.cwd() / "reports"


def cache_root() -> Path:
    """Where patchconf builds and keeps what it builds (the upstream target, Go peers, the control plane)."""
    return Path(os.environ.get("PATCHCONF_CACHE", Path.home() / ".cache" / "patchconf"))
