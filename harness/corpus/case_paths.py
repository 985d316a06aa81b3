"""The paths a command is given for its cases: each must exist and hold case files.

A mistyped path used to pass in silence (``validate /nope.yaml``: "0 cases valid", exit 0; a run
with a good and a missing ``--cases`` ran the good one), and in CI a typo dropped cases from the
check. Each path is checked before anything is loaded or started, every problem named at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .cases import iter_case_files
from .corpus_layout import CASE_SUFFIXES

SUFFIXES = ", ".join(CASE_SUFFIXES)


def case_path_problems(paths: Iterable[Path]) -> list[str]:
    """One line per path that is missing, not a case file, or a directory without case files."""
    problems = []
    for path in paths:
        if not path.exists():
            problems.append(f"{path}: no such file or directory")
        elif path.is_file():
            if path.suffix not in CASE_SUFFIXES:
                problems.append(f"{path}: not a case file (those end in {SUFFIXES})")
        elif next(iter(iter_case_files([path])), None) is None:
            problems.append(f"{path}: holds no case files ({SUFFIXES})")
    return problems
