"""Shared fixtures: small case files written on the fly, and a scripted fake target."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

# The root is the package `patchconf` (pyproject.toml) and pytest puts it on sys.path; a folder
# named patchconf left there by a checkout from before (its bytecode outlives `git pull`) would be
# imported in its place as an empty namespace package.
_STALE = Path(__file__).resolve().parent.parent / "patchconf"
if _STALE.is_dir():
    raise pytest.UsageError(f"{_STALE} is left from the old layout (the checkout's root is the package now): remove it")

from patchconf.harness.controlplane.pytest_apiserver import (  # noqa: E402, F401 - after the check above
    live_api_client,
    live_apiserver,
    live_kubeconfig,
)
from patchconf.harness.corpus.cases import Case  # noqa: E402
from patchconf.harness.targets.base import Actual, Target, TargetInfo  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def _case_cache_of_this_session(tmp_path_factory):
    """Loaded case files are cached in a directory of this session's, never in the user's cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATCHCONF_CASE_CACHE", str(tmp_path_factory.mktemp("case-cache")))
        yield


@pytest.fixture
def write_case_file(tmp_path: Path):
    """Write YAML text (dedented) to a file in a temporary corpus and return its path."""
    root = tmp_path / "cases"
    root.mkdir()
    shutil.copy(REPO / "cases" / "case.schema.json", root / "case.schema.json")
    shutil.copy(REPO / "cases" / "BEHAVIOURS.md", root / "BEHAVIOURS.md")

    def write(relative: str, text: str) -> Path:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


class ScriptedTarget(Target):
    """Answers each case by name from a table: an Actual, or an exception to raise."""

    def __init__(self, answers: dict, family: str = "scripted", version: str = "1.30.2",
                 profile: str = "kubernetes", messages: bool = True,
                 patch_types: frozenset[str] = frozenset({"json-patch", "merge-patch", "strategic"}),
                 name: str | None = None, kubernetes_version: str = "") -> None:
        self.name = name or family
        self.answers = answers
        self.info = TargetInfo(family, version, patch_types, profile=profile, messages=messages,
                               kubernetes_version=kubernetes_version)

    def run(self, case: Case) -> Actual:
        answer = self.answers[case.name]
        if isinstance(answer, BaseException):
            raise answer
        return answer


@pytest.fixture
def scripted():
    return ScriptedTarget
