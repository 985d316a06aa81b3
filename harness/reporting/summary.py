"""A run's summary as a program or a CI page reads it: ``--format json`` or ``markdown``.

(``text``, for people at a terminal, is ``report.summary_text``.) The markdown is short
enough for a CI job summary (``$GITHUB_STEP_SUMMARY``) or a pull-request comment.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..running.runner import ERROR, FAIL
from .report import STATUSES, Run

if TYPE_CHECKING:
    from .known_failures import Verdict

FORMATS = ("text", "json", "markdown")


def summary_json(run: Run, verdict: Verdict | None = None) -> str:
    data: dict[str, Any] = {
        "target": {"name": run.target_name, **run.target.to_json()},
        "ok": run_ok(run, verdict),
        "interrupted": run.interrupted,
        "seconds": round(run.seconds, 3),
        "counts": {status: run.counts().get(status, 0) for status in STATUSES},
        "by_type": {k: dict(v) for k, v in run.counts_by("type").items()},
        "by_tag": {k: dict(v) for k, v in run.counts_by("tag").items()},
        "failures": [{"id": r.case.id, "status": r.status, "reason": r.reason,
                      **({"server_changed": True} if r.server_changes else {})}
                     for r in run.results if r.status in (FAIL, ERROR)],
        "load_errors": [str(e) for e in run.load_errors],
    }
    if changed := run.server_changed_counts():  # results on objects the server changed (admission, policy)
        data["server_changed"] = dict(changed)
    if verdict is not None:
        data["known_failures"] = verdict.to_json()
    return json.dumps(data, indent=2, ensure_ascii=False)


def summary_markdown(run: Run, verdict: Verdict | None = None) -> str:
    counts = run.counts()
    mark = "✅" if run_ok(run, verdict) else "❌"
    lines = [f"### {mark} patchconf on `{run.target_name}` ({run.target.family} {run.target.version})", ""]
    if run.interrupted:
        lines += [f"**{run.stopped_early()}**", ""]
    lines += ["| type | " + " | ".join(STATUSES) + " |", "|---|" + "---:|" * len(STATUSES)]
    for kind, counter in run.counts_by("type").items():
        lines.append(f"| {kind} | " + " | ".join(str(counter.get(s, 0)) for s in STATUSES) + " |")
    lines.append("| **total** | " + " | ".join(f"**{counts.get(s, 0)}**" for s in STATUSES) + " |")
    failures = [r for r in run.results if r.status in (FAIL, ERROR)]
    if verdict is not None:
        lines += ["", f"Known failures: {len(verdict.still_failing)} still failing, "
                      f"**{len(verdict.new_failures)} new**, **{len(verdict.now_passing)} now passing**."]
        lines += [f"- new failure `{case_id}`" for case_id in verdict.new_failures]
        lines += [f"- now passing `{case_id}`: remove it from the known failures" for case_id in verdict.now_passing]
    elif failures:
        lines += ["", "<details><summary>failures</summary>", ""]
        lines += [f"- {r.status} `{r.case.id}`: {_one_line(r.reason)}"
                  + (" (on an object the server changed: admission, policy)" if r.server_changes else "")
                  for r in failures]
        lines += ["", "</details>"]
    if run.load_errors:
        lines += ["", "Load errors:", *[f"- {_one_line(str(e))}" for e in run.load_errors]]
    return "\n".join(lines) + "\n"


def run_ok(run: Run, verdict: Verdict | None) -> bool:
    """The run's exit verdict: every case passes, or (with known failures) nothing is news."""
    if verdict is None:
        return run.ok
    return verdict.ok and not run.interrupted and not run.load_errors


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
