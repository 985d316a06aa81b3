"""Compliance matrix: several targets over the same cases, side by side.

Rendered from the runs' results, never recomputed: a summary per target, the pass rate per
behaviour id, the cases on which the targets' outcomes differ, every failure with its first
reason, and one row per case.
"""

from __future__ import annotations

import html
from collections import Counter, defaultdict
from collections.abc import Sequence

from harness.report import Run
from harness.runner import ERROR, FAIL, PASS, SKIP, Result

SYMBOLS = {PASS: "✓", FAIL: "✗", ERROR: "!", SKIP: "·"}
REASON_LIMIT = 200


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


def column_labels(runs: Sequence[Run]) -> list[str]:
    """Short, unique column names: a command target is named by the implementation it reports."""
    labels = []
    for run in runs:
        label = run.target.family if run.target_name.startswith("cmd:") else run.target_name
        labels.append(label)
    counts = Counter(labels)
    seen: Counter = Counter()
    unique = []
    for label in labels:
        seen[label] += 1
        unique.append(f"{label} #{seen[label]}" if counts[label] > 1 else label)
    return unique


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 1] + "…"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _case_statuses(runs: Sequence[Run]) -> tuple[list[str], dict[str, list[str]]]:
    order: list[str] = []
    statuses: dict[str, list[str]] = {}
    for index, run in enumerate(runs):
        for result in run.results:
            if result.case.id not in statuses:
                order.append(result.case.id)
                statuses[result.case.id] = [""] * len(runs)
            statuses[result.case.id][index] = result.status
    return order, statuses


def differing_cases(runs: Sequence[Run]) -> list[str]:
    """Cases that ran on at least two targets with different outcomes (skips do not count)."""
    order, statuses = _case_statuses(runs)
    return [case_id for case_id in order
            if len({s for s in statuses[case_id] if s and s != SKIP}) > 1]


def _failures(run: Run) -> list[Result]:
    return [r for r in run.results if r.status in (FAIL, ERROR)]


def matrix_markdown(runs: Sequence[Run], title: str = "Compliance matrix", command: str = "") -> str:
    labels = column_labels(runs)
    tags = sorted({tag for run in runs for result in run.results for tag in result.case.tags})
    per_run = [_by_tag(run) for run in runs]
    produced = f"Produced by `{command}`." if command else "Produced by `patchconf matrix`."
    out = [f"# {title}", "", f"{produced} Skipped cases (a target declares what it can run) are "
           "not counted in pass rates; `–`: the target ran none.", ""]
    out += ["| column | target | implementation | profile | pass | fail | error | skip |",
            "|---|---|---|---|---:|---:|---:|---:|"]
    for label, run in zip(labels, runs, strict=True):
        counts = run.counts()
        out.append(f"| {label} | `{_cell(run.target_name)}` | {run.target.family} {run.target.version} | "
                   f"{run.target.profile} | " + " | ".join(str(counts.get(s, 0)) for s in (PASS, FAIL, ERROR, SKIP))
                   + " |")
    out += ["", "## Pass rate by behaviour", "", "| behaviour | " + " | ".join(labels) + " |",
            "|---|" + "---|" * len(runs)]
    for tag in tags:
        out.append(f"| {tag} | " + " | ".join(_rate(table.get(tag, Counter())) for table in per_run) + " |")

    order, statuses = _case_statuses(runs)
    differing = differing_cases(runs)
    out += ["", "## Cases on which the targets differ", "",
            f"{len(differing)} of {len(order)} cases. {SYMBOLS[PASS]} pass, {SYMBOLS[FAIL]} fail, "
            f"{SYMBOLS[ERROR]} error, {SYMBOLS[SKIP]} skip.", ""]
    if differing:
        out += ["| case | " + " | ".join(labels) + " |", "|---|" + ":---:|" * len(runs)]
        out += [f"| `{case_id}` | " + " | ".join(SYMBOLS.get(s, " ") for s in statuses[case_id]) + " |"
                for case_id in differing]

    out += ["", "## Failures by target", ""]
    for label, run in zip(labels, runs, strict=True):
        failures = _failures(run)
        if not failures:
            out += [f"### {label}: none", ""]
            continue
        out += [f"### {label}: {len(failures)}", "", "| case | why |", "|---|---|"]
        out += [f"| `{r.case.id}` | {_cell(_short(r.reason))} |" for r in failures]
        out.append("")

    out += ["## Every case", "", "| case | " + " | ".join(labels) + " |", "|---|" + ":---:|" * len(runs)]
    out += [f"| `{case_id}` | " + " | ".join(SYMBOLS.get(s, " ") for s in statuses[case_id]) + " |"
            for case_id in order]
    return "\n".join(out) + "\n"


def matrix_html(runs: Sequence[Run], title: str = "Compliance matrix", command: str = "") -> str:
    esc = html.escape
    labels = column_labels(runs)
    tags = sorted({tag for run in runs for result in run.results for tag in result.case.tags})
    per_run = [_by_tag(run) for run in runs]
    head = "".join(f"<th>{esc(label)}</th>" for label in labels)
    summary = "".join(
        f"<tr><td>{esc(label)}</td><td><code>{esc(run.target_name)}</code></td>"
        f"<td>{esc(run.target.family)} {esc(run.target.version)}</td><td>{esc(run.target.profile)}</td>"
        + "".join(f"<td>{run.counts().get(s, 0)}</td>" for s in (PASS, FAIL, ERROR, SKIP)) + "</tr>"
        for label, run in zip(labels, runs, strict=True)
    )
    rates = "".join(
        f"<tr><td>{esc(tag)}</td>" + "".join(f"<td>{esc(_rate(t.get(tag, Counter())))}</td>" for t in per_run) + "</tr>"
        for tag in tags
    )
    _, statuses = _case_statuses(runs)
    differing = "".join(
        f"<tr><td><code>{esc(case_id)}</code></td>"
        + "".join(f"<td class='{s}'>{SYMBOLS.get(s, '')}</td>" for s in statuses[case_id]) + "</tr>"
        for case_id in differing_cases(runs)
    )
    failures = "".join(
        f"<h3>{esc(label)}: {len(_failures(run))}</h3><table>"
        + "".join(f"<tr><td><code>{esc(r.case.id)}</code></td><td>{esc(_short(r.reason))}</td></tr>"
                  for r in _failures(run)) + "</table>"
        for label, run in zip(labels, runs, strict=True) if _failures(run)
    )
    produced = f"Produced by <code>{esc(command)}</code>." if command else "Produced by <code>patchconf matrix</code>."
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
            "<style>body{font-family:system-ui,sans-serif;margin:2em}td,th{border:1px solid #ccc;padding:4px 8px}"
            "table{border-collapse:collapse;margin-bottom:1em}.fail,.error{background:#fdd}.pass{background:#dfd}"
            "</style></head><body>"
            f"<h1>{esc(title)}</h1><p>{produced}</p>"
            "<table><tr><th>column</th><th>target</th><th>implementation</th><th>profile</th><th>pass</th>"
            f"<th>fail</th><th>error</th><th>skip</th></tr>{summary}</table>"
            f"<h2>Pass rate by behaviour</h2><table><tr><th>behaviour</th>{head}</tr>{rates}</table>"
            f"<h2>Cases on which the targets differ</h2><table><tr><th>case</th>{head}</tr>{differing}</table>"
            f"<h2>Failures by target</h2>{failures}</body></html>\n")
