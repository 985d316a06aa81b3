"""harness/__init__.py: which corpus a run read, and its version (git describe, started early or not)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import patchconf.harness as harness
from patchconf.harness import corpus_description, corpus_version, describe_corpus_soon, patchconf_version

PACKAGE_VERSION = f"patchconf {patchconf_version()}"


@pytest.fixture(autouse=True)
def fresh_process_state(monkeypatch):
    monkeypatch.setattr(harness, "_versions", {})
    monkeypatch.setattr(harness, "_describing", {})


def corpus_in(directory: Path) -> Path:
    cases = directory / "cases"
    cases.mkdir(parents=True)
    (cases / "case.schema.json").write_text("{}", encoding="utf-8")
    return cases


def git(directory: Path, *arguments: str) -> str:
    return subprocess.run(["git", "-C", str(directory), "-c", "user.name=t", "-c", "user.email=t@example.com",
                           *arguments], check=True, capture_output=True, text=True).stdout.strip()


def test_a_corpus_outside_a_checkout_has_the_packages_version(tmp_path):
    cases = corpus_in(tmp_path)
    describe_corpus_soon([cases])
    assert harness._describing == {cases: None}
    assert corpus_description([cases]) == {"path": str(cases), "version": PACKAGE_VERSION}


@pytest.mark.parametrize("early", [True, False], ids=["started-early", "started-when-asked"])
def test_a_checkouts_corpus_has_its_commit_and_dirty_with_edits(tmp_path, early):
    cases = corpus_in(tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "corpus")
    commit = git(tmp_path, "rev-parse", "--short", "HEAD")
    if early:
        describe_corpus_soon([cases / "case.schema.json"])
        assert list(harness._describing) == [cases]
    assert corpus_description([cases]) == {"path": str(cases), "version": f"git {commit}"}
    assert harness._describing == {}
    (cases / "case.schema.json").write_text('{"edited": true}', encoding="utf-8")
    assert corpus_version(cases) == f"git {commit}"  # once per process, as before
    harness._versions.clear()
    if early:
        describe_corpus_soon([cases])
    assert corpus_version(cases) == f"git {commit}-dirty"


def test_a_git_that_fails_is_missing_or_hangs_gives_the_packages_version(tmp_path, monkeypatch):
    not_a_repository = corpus_in(tmp_path / "broken")
    (tmp_path / "broken" / ".git").mkdir()
    assert corpus_version(not_a_repository) == PACKAGE_VERSION

    without_git = corpus_in(tmp_path / "no-git")
    (tmp_path / "no-git" / ".git").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    describe_corpus_soon([without_git])
    assert corpus_version(without_git) == PACKAGE_VERSION

    hanging = corpus_in(tmp_path / "hanging")
    (tmp_path / "hanging" / ".git").mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text("#!/bin/sh\nexec sleep 30\n", encoding="utf-8")
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setattr(harness, "GIT_DESCRIBE_TIMEOUT", 0.3)
    describe_corpus_soon([hanging])
    (process, _), = harness._describing.values()
    assert corpus_version(hanging) == PACKAGE_VERSION
    assert process.returncode is not None  # killed and waited for, as subprocess.run's timeout does
