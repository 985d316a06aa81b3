"""What changed between two runs: cases that started or stopped passing, by stable case id.

Both runs are read from what ``patchconf run`` wrote (``results.jsonl``, or the
``results.json`` beside it; :func:`patchconf.harness.reporting.results.read_run`), never
re-run. A case renamed or moved between them is matched through the aliases the newer run
records (cases keep their former ids as ``aliases``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import counted
from ..running.runner import FAILING, PASS, SKIP, Result
from .report import Run


@dataclass(frozen=True)
class Change:
    """One case whose status differs between the runs (``None``: not in that run)."""

    id: str
    old: str | None
    new: str | None
    reason: str = ""  # the newer run's reason, for a case that does not pass there
    former_id: str | None = None  # its id in the older run, when it was renamed since

    @property
    def kind(self) -> str:
        if self.old == PASS and self.new in FAILING:
            return "stopped passing"
        if self.old in FAILING and self.new == PASS:
            return "started passing"
        if self.old is None:
            return "new"
        if self.new is None:
            return "gone"
        if self.new == SKIP:
            return "now skipped"
        if self.old == SKIP:
            return "now run"
        return "still failing, differently"

    def to_json(self) -> dict[str, Any]:
        data = {"id": self.id, "change": self.kind, "old": self.old, "new": self.new}
        if self.reason:
            data["reason"] = self.reason
        if self.former_id:
            data["former_id"] = self.former_id
        return data


# Headings in the order a reader wants them: what broke first.
KINDS = ("stopped passing", "started passing", "still failing, differently", "new", "gone", "now skipped", "now run")


@dataclass
class RunDiff:
    old: Run
    new: Run
    changes: list[Change]

    @property
    def regressions(self) -> list[Change]:
        """Cases that passed and now fail, and new cases that fail."""
        return [c for c in self.changes if c.kind == "stopped passing" or (c.kind == "new" and c.new in FAILING)]

    def by_kind(self) -> dict[str, list[Change]]:
        return {kind: [c for c in self.changes if c.kind == kind] for kind in KINDS
                if any(c.kind == kind for c in self.changes)}

    def to_json(self) -> dict[str, Any]:
        return {
            "old": _run_label(self.old), "new": _run_label(self.new),
            "counts": {kind: len(changes) for kind, changes in self.by_kind().items()},
            "regressions": len(self.regressions),
            "changes": [c.to_json() for c in self.changes],
        }


def diff_runs(old: Run, new: Run) -> RunDiff:
    old_by_id = {r.case.id: r for r in old.results}
    changes: list[Change] = []
    matched: set[str] = set()
    for result in new.results:
        before, former = _find_before(result, old_by_id)
        if before is not None:
            matched.add(before.case.id)
        old_status = before.status if before else None
        if old_status == result.status:
            continue
        reason = result.reason if result.status != PASS else ""
        changes.append(Change(result.case.id, old_status, result.status, reason, former))
    changes.extend(Change(case_id, r.status, None) for case_id, r in old_by_id.items() if case_id not in matched)
    return RunDiff(old, new, sorted(changes, key=lambda c: (KINDS.index(c.kind), c.id)))


def _find_before(result: Result, old_by_id: dict[str, Result]) -> tuple[Result | None, str | None]:
    if result.case.id in old_by_id:
        return old_by_id[result.case.id], None
    for former in result.case.former_ids:
        if former in old_by_id:
            return old_by_id[former], former
    return None, None


def _run_label(run: Run) -> dict[str, Any]:
    return {"target": run.target_name, "implementation": f"{run.target.family} {run.target.version}",
            "started": run.started.isoformat(), "cases": len(run.results)}


def diff_text(diff: RunDiff) -> str:
    old, new = _run_label(diff.old), _run_label(diff.new)
    lines = [f"patchconf diff: {old['target']} ({old['implementation']}, {counted(old['cases'], 'case')}) -> "
             f"{new['target']} ({new['implementation']}, {counted(new['cases'], 'case')})"]
    for kind, changes in diff.by_kind().items():
        lines.append("")
        lines.append(f"{kind}: {len(changes)}")
        for change in changes:
            lines.append(f"  {change.id}  {change.old or '-'} -> {change.new or '-'}" + _renamed(change))
            if change.reason and change.new in FAILING:
                lines.append(f"      {change.reason}")
    if not diff.changes:
        lines.append("no case changed status")
    lines.append("")
    lines.append(f"{len(diff.regressions)} regression(s)")
    return "\n".join(lines)


def diff_markdown(diff: RunDiff) -> str:
    old, new = _run_label(diff.old), _run_label(diff.new)
    lines = [f"### patchconf: `{old['target']}` → `{new['target']}`", "",
             f"{old['implementation']} ({counted(old['cases'], 'case')}) → {new['implementation']} "
             f"({counted(new['cases'], 'case')}): "
             f"**{len(diff.regressions)} regression(s)**", ""]
    if not diff.changes:
        lines.append("No case changed status.")
    for kind, changes in diff.by_kind().items():
        lines += [f"#### {kind} ({len(changes)})", "", "| case | before | after | reason |", "|---|---|---|---|"]
        for change in changes:
            reason = change.reason.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| `{change.id}`{_renamed(change)} | {change.old or '–'} | {change.new or '–'} | {reason} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _renamed(change: Change) -> str:
    return f" (was {change.former_id})" if change.former_id else ""
