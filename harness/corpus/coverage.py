"""Behaviour coverage: how many cases exercise each behaviour id of BEHAVIOURS.md."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from .cases import Case, behaviour_ids

MINIMUM_CASES = 3
# Families held to more: server-side apply's behaviours only show over several requests.
FAMILY_MINIMUMS = {"SSA-": 5}


def minimum_for(behaviour: str) -> int:
    return next((n for prefix, n in FAMILY_MINIMUMS.items() if behaviour.startswith(prefix)), MINIMUM_CASES)


def coverage(cases: Iterable[Case], root: Path) -> dict[str, int]:
    counts = Counter(tag for case in cases for tag in case.tags)
    return {behaviour: counts.get(behaviour, 0) for behaviour in sorted(behaviour_ids(root), key=_order(root))}


def _order(root: Path):
    text = (root / "BEHAVIOURS.md").read_text(encoding="utf-8") if (root / "BEHAVIOURS.md").is_file() else ""
    return lambda behaviour: (text.find(f"- {behaviour}:"), behaviour)


def coverage_text(table: dict[str, int], prefixes: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """The report, and the ids (within ``prefixes``) that have fewer cases than their minimum."""
    lines = []
    short = []
    for behaviour, count in table.items():
        if prefixes and not behaviour.startswith(prefixes):
            continue
        mark = ""
        if count < minimum_for(behaviour):
            mark = f"  <-- below {minimum_for(behaviour)}"
            short.append(behaviour)
        lines.append(f"{behaviour:<24} {count:>4}{mark}")
    return "\n".join(lines), short
