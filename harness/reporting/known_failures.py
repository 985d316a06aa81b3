"""``--expect-failures FILE``: an implementation's known failures, so its CI fails only on news.

The file lists case ids (``<file>::<name>``), one per line; ``#`` starts a comment, blank
lines are ignored. A run checked against it fails on a failure the file does not list, and
on a listed case that now passes (the entry is stale: remove it, and the fix stays fixed).
Ids are matched through cases' aliases, so a renamed case keeps its entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..corpus.cases import Case
from ..running.runner import FAILING, PASS
from .report import Run


class KnownFailuresError(ValueError):
    """The file cannot be read or states something that is not a case id."""


@dataclass(frozen=True)
class KnownFailures:
    path: Path
    ids: tuple[str, ...]

    @classmethod
    def read(cls, path: Path) -> KnownFailures:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise KnownFailuresError(f"{path}: cannot read: {exc}") from None
        ids: list[str] = []
        for number, line in enumerate(text.splitlines(), start=1):
            entry = line.split("#", 1)[0].strip()
            if not entry:
                continue
            if "::" not in entry or " " in entry:
                raise KnownFailuresError(f"{path}:{number}: {entry!r} is not a case id (<file>::<name>)")
            ids.append(entry)
        return cls(path, tuple(ids))


@dataclass
class Verdict:
    """A run measured against its known failures."""

    new_failures: list[str] = field(default_factory=list)  # failing, not listed
    now_passing: list[str] = field(default_factory=list)  # listed, passing: remove the entry
    still_failing: list[str] = field(default_factory=list)  # listed and failing, as expected
    not_run: list[str] = field(default_factory=list)  # listed, skipped or not selected in this run
    unknown: list[str] = field(default_factory=list)  # listed, but no case of the corpus has that id

    @property
    def ok(self) -> bool:
        return not self.new_failures and not self.now_passing

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "new_failures": self.new_failures, "now_passing": self.now_passing,
                "still_failing": self.still_failing, "not_run": self.not_run, "unknown": self.unknown}

    def text(self, path: Path) -> str:
        lines = [f"known failures ({path}): {len(self.still_failing)} still failing, "
                 f"{len(self.new_failures)} new, {len(self.now_passing)} now passing"]
        lines += [f"NEW FAILURE {case_id}" for case_id in self.new_failures]
        lines += [f"NOW PASSING {case_id} (listed as a known failure: remove it from {path})"
                  for case_id in self.now_passing]
        lines += [f"UNKNOWN {case_id} (no case has this id or alias)" for case_id in self.unknown]
        return "\n".join(lines)


def check(run: Run, known: KnownFailures, corpus: list[Case] | None = None) -> Verdict:
    """``corpus``: every case loaded (selected or not), to tell a listed id not run from a typo."""
    verdict = Verdict()
    listed = set(known.ids)
    claimed: set[str] = set()
    for result in run.results:
        names = {result.case.id, *result.case.former_ids}
        entry = names & listed
        claimed |= entry
        if result.status in FAILING:
            (verdict.still_failing if entry else verdict.new_failures).append(result.case.id)
        elif entry and result.status == PASS:
            verdict.now_passing.append(result.case.id)
        elif entry:
            verdict.not_run.append(result.case.id)
    known_ids = {i for case in corpus or () for i in (case.id, *case.former_ids)}
    for case_id in known.ids:
        if case_id in claimed:
            continue
        (verdict.not_run if corpus is None or case_id in known_ids else verdict.unknown).append(case_id)
    return verdict
