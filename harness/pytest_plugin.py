"""pytest plugin: ``pytest cases/ [--target NAME]`` turns every case into a test item.

Items are named ``<file>::<case>``; a failing item shows the readable diff of expected
versus actual; a case the target cannot run is skipped with the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .corpus.cases import Case, LoadError, load_file
from .corpus.corpus_layout import CASE_SUFFIXES, SCHEMA_FILE, SCHEMAS_DIR
from .running.runner import ERROR, FAIL, SKIP, Result, run_case
from .targets import Target, TargetUnavailable, make_target

_TARGET_KEY = pytest.StashKey[Target | None]()
_TARGET_ERROR_KEY = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("patchconf")
    group.addoption("--target", default="reference", help="patchconf target for case files (default: reference)")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_TARGET_KEY] = None
    config.stash[_TARGET_ERROR_KEY] = ""
    config.addinivalue_line("markers", "behaviour(id): the BEHAVIOURS.md id a case exercises")


def pytest_unconfigure(config: pytest.Config) -> None:
    target = config.stash.get(_TARGET_KEY, None)
    if target is not None:
        target.close()


def _target(config: pytest.Config) -> Target:
    target = config.stash[_TARGET_KEY]
    if target is None:
        if config.stash[_TARGET_ERROR_KEY]:
            pytest.skip(config.stash[_TARGET_ERROR_KEY])
        try:
            target = make_target(config.getoption("--target"))
        except TargetUnavailable as exc:
            config.stash[_TARGET_ERROR_KEY] = f"target unavailable: {exc}"
            pytest.skip(config.stash[_TARGET_ERROR_KEY])
        config.stash[_TARGET_KEY] = target
    return target


def _is_case_file(path: Path) -> bool:
    if path.suffix not in CASE_SUFFIXES or path.name == SCHEMA_FILE:
        return False
    for parent in path.parents:
        if (parent / SCHEMA_FILE).is_file():
            return SCHEMAS_DIR not in path.relative_to(parent).parts[:-1]
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if _is_case_file(file_path):
        return CaseFile.from_parent(parent, path=file_path)
    return None


class CaseFile(pytest.File):
    def collect(self):
        cases, errors = load_file(self.path)
        for error in errors:
            yield BrokenCaseItem.from_parent(self, name=error.case or "(file)", error=error)
        for case in cases:
            yield CaseItem.from_parent(self, name=case.name, case=case)


class CaseFailure(Exception):
    def __init__(self, result: Result) -> None:
        super().__init__(result.reason)
        self.result = result


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, **kwargs) -> None:
        super().__init__(**kwargs)
        self.case = case
        for tag in case.tags:
            self.add_marker(pytest.mark.behaviour(tag))
        # `pytest -k OLD-NAME` still selects a renamed case
        self.extra_keyword_matches.update(case.aliases)

    def runtest(self) -> None:
        result = run_case(self.case, _target(self.config))
        if result.status == SKIP:
            pytest.skip(result.reason)
        if result.status in (FAIL, ERROR):
            raise CaseFailure(result)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseFailure):
            result = excinfo.value.result
            lines = [f"{result.case.id}: {result.status}", result.case.description]
            lines += [f"  {line}" for line in (result.diff or (result.reason,))]
            lines.append(f"  judged by: {result.judged_by}")
            return "\n".join(lines)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, self.case.name


class BrokenCaseItem(pytest.Item):
    """A case (or file) that failed to load: always fails, naming file, case and pointer."""

    def __init__(self, *, error: LoadError, **kwargs) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise CaseLoadFailure(str(self.error))

    def repr_failure(self, excinfo, style=None):
        return f"load error: {self.error}"

    def reportinfo(self):
        return self.path, None, self.name


class CaseLoadFailure(Exception):
    pass


