"""What a fuzz run prints: progress while it runs, and the summary at the end."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from harness.fuzz.engine import AGREE, DISAGREE, NONDETERMINISTIC, SKIP, UNJUDGED, FuzzRun, Progress, describe


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
             f"nondeterministic in {run.truth} {run.count(NONDETERMINISTIC)}",
             "agreement per type:"]
    for case_type in run.types:
        agreed, disagreed = run.count(AGREE, case_type), run.count(DISAGREE, case_type)
        judged = agreed + disagreed
        share = f"{100 * agreed / judged:.1f}%" if judged else "-"
        extra = [f"{run.count(status, case_type)} {label}" for status, label in
                 ((SKIP, "skipped"), (UNJUDGED, "not judgeable"), (NONDETERMINISTIC, "nondeterministic"))
                 if run.count(status, case_type)]
        notes = f"; {', '.join(extra)}" if extra else ""
        lines.append(f"  {case_type:<17} {agreed}/{judged} agree ({share}){notes}")
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
