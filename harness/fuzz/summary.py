"""What a fuzz run prints: progress while it runs, and the summary at the end."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .engine import (
    AGREE,
    DISAGREE,
    DIVERGES,
    NONDETERMINISTIC,
    REFUSED,
    SKIP,
    UNJUDGED,
    FuzzRun,
    Progress,
    describe,
)

# Outcomes shown beside agreement, neither agreement nor disagreement.
ASIDE = ((DIVERGES, "known divergences"), (REFUSED, "refused by validation"), (SKIP, "skipped"),
         (UNJUDGED, "not judgeable"), (NONDETERMINISTIC, "nondeterministic"))


def progress_printer(count: int | None, budget: float | None, stream=sys.stderr) -> Progress:
    """A progress bar on a terminal; a line per tenth of the run in logs."""
    started = time.perf_counter()
    shown = {"tenth": 0}

    def show(run: FuzzRun, done: int) -> None:
        elapsed = time.perf_counter() - started
        fraction = done / count if count else min(1.0, elapsed / budget) if budget else 0.0
        rate = done / elapsed if elapsed else 0.0
        text = f"{done} inputs, {rate:.0f}/s, {run.count(DISAGREE)} disagreements"
        if stream.isatty():
            bar = "#" * int(fraction * 30)
            stream.write(f"\r[{bar:<30}] {text}   ")
            if fraction >= 1.0:
                stream.write("\n")
        elif int(fraction * 10) > shown["tenth"]:
            shown["tenth"] = int(fraction * 10)
            stream.write(f"[{shown['tenth'] * 10}%] {text}\n")
        stream.flush()

    return show


def summary_text(run: FuzzRun, written: list[tuple[Path, int]], shrunk: bool = True) -> str:
    rate = run.judged / run.seconds if run.seconds else 0.0
    tried = sum(run.tried.values())
    lines = [f"patchconf fuzz: {run.target} against {run.truth} {run.truth_version}, seed {run.seed}"
             + (f" ({run.interrupted})" if run.interrupted else ""),
             f"inputs tried: {tried} in {run.seconds:.1f} s ({rate:.0f} judged inputs/s); judged {run.judged}, "
             f"skipped {run.count(SKIP)}, not judgeable {run.count(UNJUDGED)}, "
             f"nondeterministic in {run.truth} {run.count(NONDETERMINISTIC)}"
             + "".join(f", {label} {run.count(status)}" for status, label in ASIDE[:2] if run.count(status)),
             "agreement per type:"]
    for case_type in run.types:
        lines.append(f"  {case_type:<17} " + _agreement(lambda status, t=case_type: run.count(status, t)))
    kinds = sorted({(t, kind) for t, kind, _ in run.by_kind})
    if run.truth.startswith("live"):
        lines.append("agreement per type and kind:")
        for case_type, kind in kinds:
            counted = lambda status, t=case_type, k=kind: run.by_kind[(t, k, status)]  # noqa: E731
            lines.append(f"  {case_type:<17} {kind:<12} " + _agreement(counted))
        lines.append("  (refused by validation: the server's validation refused a step (422 Invalid) and the steps "
                     "before it agree; the server's to make, the reference does not validate, so neither "
                     "agreement nor disagreement)")
    for divergence, times in run.divergences.most_common():
        lines.append(f"  known divergence {divergence}: {times} inputs (harness/fuzz/divergences.yaml)")
    for reason, times in run.skip_reasons.most_common(5):
        lines.append(f"  skipped {times}x: {reason}")
    lines.append(f"distinct disagreements: {len(run.findings)}"
                 + (f" (shrunk in {run.shrink_seconds:.1f} s)" if run.findings and shrunk else ""))
    for number, finding in enumerate(run.findings, start=1):
        tags = ", ".join(finding.tags)
        lines.append(f"  {number}. {describe(finding.signature)} [{tags}]: {finding.occurrences} inputs, first "
                     f"input {finding.first_index}" + ("" if finding.shrunk else " (not shrunk)"))
        lines.append(f"     {finding.verdict.reason[:200]}")
    for path, cases in written:
        lines.append(f"written: {path} ({cases} cases)")
    if run.full_agreement and run.judged:
        lines.append(f"full agreement with {run.truth} on {run.judged} judged inputs")
    return "\n".join(lines)


def _agreement(count) -> str:
    """``agreed/judged agree (share)`` and the inputs set aside, from ``count(status)``."""
    agreed, disagreed = count(AGREE), count(DISAGREE)
    judged = agreed + disagreed
    share = f"{100 * agreed / judged:.1f}%" if judged else "-"
    extra = [f"{count(status)} {label}" for status, label in ASIDE if count(status)]
    return f"{agreed}/{judged} agree ({share})" + (f"; {', '.join(extra)}" if extra else "")
