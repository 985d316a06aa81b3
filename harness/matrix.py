"""Compliance matrix: several targets over the same cases, side by side."""

from __future__ import annotations

import html
from collections import Counter, defaultdict
from collections.abc import Sequence

from harness.report import Run
from harness.runner import ERROR, FAIL, PASS, SKIP

SYMBOLS = {PASS: "✓", FAIL: "✗", ERROR: "!", SKIP: "·"}


def _rate(counter: Counter) -> str:
    ran = counter[PASS] + counter[FAIL] + counter[ERROR]
    if not ran:
        return "–"
    return f"{100 * counter[PASS] / ran:.0f}% ({counter[PASS]}/{ran})"


def _by_tag(run: Run) -> dict[str, Counter]:
    table: dict[str, Counter] = defaultdict(Counter)
    for result in run.results:
        for tag in result.case.tags:
            table[tag][result.status] += 1
    return table


def _label(run: Run) -> str:
    return f"{run.target_name} ({run.target.family} {run.target.version}, {run.target.profile})"


def matrix_markdown(runs: Sequence[Run], title: str = "Compliance matrix") -> str:
    tags = sorted({tag for run in runs for result in run.results for tag in result.case.tags})
    per_run = [_by_tag(run) for run in runs]
    out = [f"# {title}", "", "Pass rate per behaviour id among the cases each target ran "
           "(skipped cases are not counted; `–`: ran none). Produced by `patchconf matrix`.", ""]
    out += ["| target | pass | fail | error | skip |", "|---|---:|---:|---:|---:|"]
    for run in runs:
        counts = run.counts()
        out.append(f"| {_label(run)} | " + " | ".join(str(counts.get(s, 0)) for s in (PASS, FAIL, ERROR, SKIP)) + " |")
    out += ["", "## By behaviour", "", "| behaviour | " + " | ".join(r.target_name for r in runs) + " |",
            "|---|" + "---|" * len(runs)]
    for tag in tags:
        out.append(f"| {tag} | " + " | ".join(_rate(table.get(tag, Counter())) for table in per_run) + " |")
    out += ["", "## By case", "", f"{SYMBOLS[PASS]} pass, {SYMBOLS[FAIL]} fail, {SYMBOLS[ERROR]} error, "
            f"{SYMBOLS[SKIP]} skip", "", "| case | " + " | ".join(r.target_name for r in runs) + " |",
            "|---|" + ":---:|" * len(runs)]
    statuses: dict[str, dict[str, str]] = defaultdict(dict)
    order: list[str] = []
    for run in runs:
        for result in run.results:
            if result.case.id not in statuses:
                order.append(result.case.id)
            statuses[result.case.id][run.target_name] = result.status
    for case_id in order:
        cells = [SYMBOLS.get(statuses[case_id].get(run.target_name, ""), " ") for run in runs]
        out.append(f"| `{case_id}` | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def matrix_html(runs: Sequence[Run], title: str = "Compliance matrix") -> str:
    esc = html.escape
    tags = sorted({tag for run in runs for result in run.results for tag in result.case.tags})
    per_run = [_by_tag(run) for run in runs]
    head = "".join(f"<th>{esc(r.target_name)}</th>" for r in runs)
    rows = "".join(
        f"<tr><td>{esc(tag)}</td>" + "".join(f"<td>{esc(_rate(t.get(tag, Counter())))}</td>" for t in per_run) + "</tr>"
        for tag in tags
    )
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
            "<style>body{font-family:system-ui,sans-serif;margin:2em}td,th{border:1px solid #ccc;padding:4px 8px}"
            "table{border-collapse:collapse}</style></head><body>"
            f"<h1>{esc(title)}</h1><table><tr><th>behaviour</th>{head}</tr>{rows}</table></body></html>\n")
