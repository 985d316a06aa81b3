"""Judging a target's answer against a case's expectation, and explaining the difference."""

from __future__ import annotations

import json
from typing import Any

from ...reference_impl import jsonpointer
from .cases import ABSENT

# Characters of JSON per side beyond which a difference is told in one line: deepdiff's
# member-by-member report of a huge answer would cost more memory than the answer itself.
EXPLAIN_LIMIT = 1024 * 1024


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it, but strict about types: 1 != 1.0 != true."""
    if type(a) is not type(b):
        return False
    # map() rather than generator expressions: the same pairs, without a generator frame each
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(map(json_equal, a.values(), map(b.__getitem__, a)))
    if isinstance(a, list):
        return len(a) == len(b) and all(map(json_equal, a, b))
    return a == b


def show(value: Any) -> str:
    if value is ABSENT:
        return "absent"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def _pointer(path: list[Any]) -> str:
    return jsonpointer.build(path) or "(root)"


def explain(expected: Any, actual: Any) -> list[str]:
    """One readable line per difference, e.g. ``/spec/replicas: expected absent, got 0``."""
    if expected is ABSENT or actual is ABSENT:
        return [f"(root): expected {show(expected)}, got {show(actual)}"]
    sizes = [len(json.dumps(value, ensure_ascii=False)) for value in (expected, actual)]
    if max(sizes) > EXPLAIN_LIMIT:
        return [f"(root): expected {show(expected)}, got {show(actual)} ({sizes[1]:,} characters of JSON against "
                f"{sizes[0]:,}: too large to compare member by member)"]
    from deepdiff import DeepDiff  # imported by the first difference: a passing run never needs it

    diff = DeepDiff(expected, actual, view="tree", ignore_order=False, verbose_level=2)
    lines: list[str] = []
    for report_type, levels in diff.items():
        for level in levels:
            where = _pointer(level.path(output_format="list"))
            before = ABSENT if report_type.endswith("_added") else level.t1
            after = ABSENT if report_type.endswith("_removed") else level.t2
            detail = ""
            if report_type == "type_changes":
                detail = f" ({type(level.t1).__name__} vs {type(level.t2).__name__})"
            lines.append(f"{where}: expected {show(before)}, got {show(after)}{detail}")
    return sorted(lines) or ["values differ only in a way deepdiff does not show"]
