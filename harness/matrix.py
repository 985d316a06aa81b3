"""Compliance matrix: several targets over the same cases, side by side."""

from __future__ import annotations

import html
import json
from collections import Counter, defaultdict
from collections.abc import Sequence

from harness.report import Run
from harness.runner import ERROR, FAIL, PASS, SKIP, Result

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


def _outcome(result: Result) -> str:
    """What a target did with a case, as a comparable key: its status and its exact answer.

    A case whose upstream answer depends on Go map order compares by status alone: its
    answer may differ between two runs of one release.
    """
    if result.case.nondeterministic:
        return result.status
    return result.status + json.dumps(result.actual, sort_keys=True, ensure_ascii=False)


def _shorten(text: str, limit: int = 140) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(result: Result) -> str:
    """The answer in a few words: how it was judged when it passed, why it failed otherwise."""
    if result.status == PASS:
        if result.judged_by.startswith("divergence:"):
            return f"{SYMBOLS[PASS]} declared {_shorten(result.judged_by)}"
        if result.judged_by.startswith("profile"):
            return f"{SYMBOLS[PASS]} as its {result.judged_by} expects"
        return f"{SYMBOLS[PASS]} as the case expects"
    return f"{SYMBOLS.get(result.status, '?')} {_shorten(result.reason)}"


def changes(runs: Sequence[Run]) -> list[tuple[str, list[tuple[str, str, Result]]]]:
    """Cases whose answer differs between the targets that ran them (skips are ignored).

    Each comes with its runs of equal answers in target order, as (first target, last
    target, a result of that run): for releases of one implementation, where it changed.
    """
    by_case: dict[str, list[tuple[str, Result]]] = defaultdict(list)
    order: list[str] = []
    for run in runs:
        for result in run.results:
            if result.status == SKIP:
                continue
            if result.case.id not in by_case:
                order.append(result.case.id)
            by_case[result.case.id].append((run.target_name, result))
    changed = []
    for case_id in order:
        segments: list[tuple[str, str, Result]] = []
        for target_name, result in by_case[case_id]:
            if segments and _outcome(segments[-1][2]) == _outcome(result):
                segments[-1] = (segments[-1][0], target_name, segments[-1][2])
            else:
                segments.append((target_name, target_name, result))
        if len(segments) > 1:
            changed.append((case_id, segments))
    return changed


def _changes_markdown(runs: Sequence[Run]) -> list[str]:
    changed = changes(runs)
    out = ["", "## Changed between targets", "",
           f"{len(changed)} case(s) got a different answer (status or exact result) from different targets; "
           "each line gives the targets, in matrix order, that answered alike.", ""]
    if changed:
        out += ["| case | answers |", "|---|---|"]
    for case_id, segments in changed:
        spans = [f"`{first}`" + ("" if first == last else f" … `{last}`") + ": " + _describe(result).replace("|", "\\|")
                 for first, last, result in segments]
        out.append(f"| `{case_id}` | " + "<br>".join(spans) + " |")
    return out


def matrix_markdown(runs: Sequence[Run], title: str = "Compliance matrix", command: str | None = None) -> str:
    tags = sorted({tag for run in runs for result in run.results for tag in result.case.tags})
    per_run = [_by_tag(run) for run in runs]
    out = [f"# {title}", "", "Pass rate per behaviour id among the cases each target ran "
           "(skipped cases are not counted; `–`: ran none). Produced by `patchconf matrix`.", ""]
    if command:
        out += [f"Regenerate with `{command}`.", ""]
    out += ["| target | pass | fail | error | skip |", "|---|---:|---:|---:|---:|"]
    for run in runs:
        counts = run.counts()
        out.append(f"| {_label(run)} | " + " | ".join(str(counts.get(s, 0)) for s in (PASS, FAIL, ERROR, SKIP)) + " |")
    if len(runs) > 1:
        out += _changes_markdown(runs)
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
    changed = "".join(
        f"<tr><td>{esc(case_id)}</td><td>" + "<br>".join(
            esc(first + ("" if first == last else f" … {last}") + ": " + _describe(result))
            for first, last, result in segments) + "</td></tr>"
        for case_id, segments in (changes(runs) if len(runs) > 1 else [])
    )
    if changed:
        rows += "</table><h2>Changed between targets</h2><table><tr><th>case</th><th>answers</th></tr>" + changed
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
            "<style>body{font-family:system-ui,sans-serif;margin:2em}td,th{border:1px solid #ccc;padding:4px 8px}"
            "table{border-collapse:collapse}</style></head><body>"
            f"<h1>{esc(title)}</h1><table><tr><th>behaviour</th>{head}</tr>{rows}</table></body></html>\n")
