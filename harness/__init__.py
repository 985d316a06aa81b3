"""patchconf harness: loads the case corpus, runs it against targets, reports divergences.

Sub-packages by concern, each importing only those before it: ``corpus`` (loading and checking
case files, what their values mean), ``controlplane`` (the local kube-apiserver), ``targets`` (what
cases run against), ``running`` (the runner and its judging), ``reporting`` (reports, the matrix,
the site) and ``provenance`` (confirming expectations on real Kubernetes), ``fuzz`` (generated
inputs); ``cli`` is the command line, ``action`` (the GitHub Action's steps) and ``prcheck`` (the
pull-request check) are built on it.
"""

from __future__ import annotations

import os
import subprocess
import time
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
    from .. import __version__

    return __version__


def corpus_version(cases_dir: Path) -> str:
    """A checkout's commit (``git describe``, ``-dirty`` with local edits), else the version of the
    patchconf that carries the corpus; worked out once per process."""
    version = _versions.get(cases_dir)
    if version is None:
        started = _describing.pop(cases_dir) if cases_dir in _describing else _start_git_describe(cases_dir)
        described = _git_described(started)
        version = _versions[cases_dir] = f"git {described}" if described else f"patchconf {patchconf_version()}"
    return version


LOOSE_FILES = "case files outside a corpus"  # the version said of them: no corpus, so none of its


def corpus_description(paths: list[Path]) -> dict[str, str]:
    """Which corpus a run read: the root of its case files and that corpus's version; case files
    outside any corpus (a user's own good.yaml) are named themselves, not the corpus whose schema
    checks them."""
    root = _corpus_root(paths)
    if root is None:
        return {"path": ", ".join(str(path.resolve()) for path in paths), "version": LOOSE_FILES}
    return {"path": str(root), "version": corpus_version(root)}


def describe_corpus_soon(paths: list[Path]) -> None:
    """Start working out :func:`corpus_description` of ``paths``: ``git describe`` (~10 ms) runs on
    while the caller loads the corpus, instead of before the first case."""
    root = _corpus_root(paths)
    if root is not None and root not in _versions and root not in _describing:
        _describing[root] = _start_git_describe(root)


GIT_DESCRIBE_TIMEOUT = 10.0
_versions: dict[Path, str] = {}  # corpus_version's answers, by corpus root
_describing: dict[Path, tuple[subprocess.Popen[str], float] | None] = {}  # git describe started early, and when


def _corpus_root(paths: list[Path]) -> Path | None:
    """The corpus (a directory holding case.schema.json) the first path is in; None outside one."""
    if not paths:
        return default_cases_dir()
    first = paths[0].resolve()
    for candidate in (first, *first.parents):
        if (candidate / CASE_SCHEMA_FILE).is_file():
            return candidate
    return None


def _start_git_describe(cases_dir: Path) -> tuple[subprocess.Popen[str], float] | None:
    if not (cases_dir.parent / ".git").exists():
        return None
    try:
        process = subprocess.Popen(["git", "-C", str(cases_dir), "describe", "--always", "--dirty", "--tags"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError:  # no git here: the package's version still says which corpus
        return None
    return process, time.monotonic()


def _git_described(started: tuple[subprocess.Popen[str], float] | None) -> str | None:
    """What git describe printed, or None where it failed, timed out or did not run."""
    if started is None:
        return None
    process, since = started
    try:
        output, _ = process.communicate(timeout=max(0.0, since + GIT_DESCRIBE_TIMEOUT - time.monotonic()))
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return None
    except OSError:
        return None
    return output.strip() if process.returncode == 0 and output.strip() else None


def counted(count: int, noun: str) -> str:
    """'1 case', '2 cases', '0 cases' (nouns whose plural adds an s)."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def reports_directory() -> Path:
    """Where runs write when not told: ``./reports`` of the working directory, where the user is
    (not the installation, nor the checkout when run from elsewhere)."""
    return Path.cwd() / "reports"


def target_directory_name(spec: str) -> str:
    """The directory a target's run writes in unless told (``kubectl:/usr/bin/kubectl`` -> ``kubectl-kubectl``)."""
    name, _, argument = spec.partition(":")
    return name if not argument else f"{name}-{Path(argument).name}"


def cache_root() -> Path:
    """Where patchconf builds and keeps what it builds (the upstream target, Go peers, the control plane)."""
    return Path(os.environ.get("PATCHCONF_CACHE", Path.home() / ".cache" / "patchconf"))
