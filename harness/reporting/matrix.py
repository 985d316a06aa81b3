"""Compliance matrix: several targets over the same cases, side by side.

Rendered from the runs' results, never recomputed: a summary per target, the pass rate per
behaviour id, the cases whose answer differs between targets (for releases of one
implementation: where behaviour changed), every failure with its first reason, and one row
per case. This module holds the matrix's model (columns, changes) and its Markdown; its HTML,
the site's and the page beside the Markdown alike, is :mod:`patchconf.harness.reporting.site`'s.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from ...reference_impl import jsonpointer
from .. import cache_root
from ..running.apply_aspects import (
    ANNOTATION,
    ANNOTATION_TEXT,
    DIFFERENT,
    MISSING,
    OBJECT,
    REQUEST,
    SAME,
)
from ..running.runner import ERROR, FAIL, PASS, SKIP, Result
from ..targets.base import CATEGORIES, KUBERNETES, LIBRARY, TOOL
from .report import Run
from .severity import SEVERITIES, severity_counts

# A changed case: its id and its runs of equal answers, as (first target, last target, a result).
Change = tuple[str, list[tuple[str, str, Result]]]

SYMBOLS = {PASS: "✓", FAIL: "✗", ERROR: "!", SKIP: "·"}
REASON_LIMIT = 200
FUZZ_COLUMN = "fuzzed: agree with upstream"
FUZZ_NOTE = (f"*{FUZZ_COLUMN}*: the inputs `patchconf fuzz --seed 1` generates for the patch types the target "
             "and upstream both run, each judged against upstream's answer as `patchconf run` judges a case "
             "(inputs upstream answers inconsistently, or with no expectation, are not counted); `–`: not fuzzed.")


def portable(text: str) -> str:
    """``text`` (a target's name, a command, a path) without this machine's own directories, so a
    committed page reads the same wherever it was made: a path in patchconf's cache spelled from
    its default place, ``~/.cache/patchconf/…``; one in the working directory (the checkout, where
    tox runs the matrix) relative to it, as the command's other paths are; one in the home
    directory from ``~``. The innermost of these wins; any other path is left as it is."""
    roots = [(cache_root(), "~/.cache/patchconf"), (Path.cwd(), "."), (Path.home(), "~")]
    spellings: dict[str, str] = {}
    for root, spelled in roots:
        for form in (str(root), str(root.resolve())):
            if form != root.anchor:  # a working directory of / would make every path relative
                spellings.setdefault(form, spelled)
    for form in sorted(spellings, key=len, reverse=True):
        spelled = spellings[form]
        # the directory itself, or a path below it (``./x`` written ``x``); not /a/bc for /a/b
        text = re.sub(rf"(?<![\w.~/-]){re.escape(form)}(?:(/)(?=[\w.~-])|(?![\w.~-]))",
                      lambda match, spelled=spelled: ("" if spelled == "." else spelled + "/") if match[1] else spelled,
                      text)
    return text


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
    """Short, unique column names: a command target is named by the implementation it reports,
    and by its version too when the same implementation runs at several (a library's history);
    another by its name, without this machine's directories (``kubectl:PATH``)."""
    labels = [run.target.family if run.target_name.startswith("cmd:") else portable(run.target_name) for run in runs]
    versions: dict[str, set[str]] = {}
    for label, run in zip(labels, runs, strict=True):
        versions.setdefault(label, set()).add(run.target.version)
    labels = [f"{label} {run.target.version}" if len(versions[label]) > 1 else label
              for label, run in zip(labels, runs, strict=True)]
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


def _outcome(result: Result) -> str:
    """What a target did with a case, as a comparable key: its status and its exact answer
    (for an error, its class; without the target's notes).

    A case whose upstream answer depends on Go map order compares by status alone: its
    answer may differ between two runs of one release.
    """
    if result.case.nondeterministic:
        return result.status
    error = result.actual.get("error")
    if error is not None:  # libraries word their messages differently: the class is the answer
        return f"{result.status} error {error.get('class')}"
    return result.status + json.dumps(_comparable(result), sort_keys=True, ensure_ascii=False)


def _comparable(result: Result) -> dict:
    # Notes say how the answer was made (a live server names its release in them), not what it was.
    answer = {key: value for key, value in result.actual.items() if key != "notes"}
    document = answer.get("document")
    if isinstance(document, dict) and isinstance(document.get("steps"), list):
        answer["document"] = {**document, "steps": [_comparable_step(step) for step in document["steps"]]}
    return answer


def _differences(old: object, new: object, pointer: str = "", limit: int = 3) -> list[str]:
    """JSON pointers (the first ``limit``) where two answers differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = sorted(set(old) | set(new), key=str)
        pairs = [(key, old.get(key, _MISSING), new.get(key, _MISSING)) for key in keys]
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        pairs = [(index, a, b) for index, (a, b) in enumerate(zip(old, new, strict=True))]
    else:
        return [] if old == new else [pointer or "/"]
    found: list[str] = []
    for key, a, b in pairs:
        if len(found) >= limit:
            break
        below = jsonpointer.join(pointer, key)
        found += [below] if _MISSING in (a, b) else _differences(a, b, below, limit - len(found))
    return found


_MISSING = object()


def change_texts(segments: Sequence[tuple[str, str, Result]]) -> list[str]:
    """Each segment of a change in a few words; where two in a row read alike (both pass as the
    case expects, say), where their answers differ."""
    texts = []
    for index, (_, _, result) in enumerate(segments):
        text = describe(result)
        previous = segments[index - 1][2] if index else None
        if previous is not None and describe(previous) == text and not result.case.nondeterministic:
            where = _differences(_comparable(previous), _comparable(result))
            if where:
                text += f"; the answer differs at {', '.join(where)}"
        texts.append(text)
    return texts


def _comparable_step(step: object) -> object:
    """A server-side apply step as the runner judges it: an error by its class and its set of
    conflicts (a live server lists conflicting managers in Go map order, and its messages name the
    run's namespace); managedFields without times (``None``: a live server's clock) in no order."""
    if not isinstance(step, dict):
        return step
    step = dict(step)
    error = step.get("error")
    if isinstance(error, dict):
        step["error"] = {"class": error.get("class")}
        if isinstance(error.get("conflicts"), list):
            step["error"]["conflicts"] = sorted(json.dumps(c, sort_keys=True) for c in error["conflicts"])
    entries = step.get("managed_fields")
    if isinstance(entries, list) and any(isinstance(e, dict) and e.get("time", 0) is None for e in entries):
        step["managed_fields"] = sorted(json.dumps(e, sort_keys=True) for e in entries)
    return step


def _shorten(text: str, limit: int = 140) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(result: Result) -> str:
    """The answer in a few words: how it was judged when it passed, why it failed otherwise."""
    if result.status == PASS:
        if result.judged_by.startswith("divergence:"):
            return f"{SYMBOLS[PASS]} declared {_shorten(result.judged_by)}"
        if result.judged_by.startswith("profile"):
            return f"{SYMBOLS[PASS]} as its {result.judged_by} expects"
        return f"{SYMBOLS[PASS]} as the case expects"
    return f"{SYMBOLS.get(result.status, '?')} {_shorten(result.reason)}"


def changes(runs: Sequence[Run], labels: Sequence[str] | None = None) -> list[Change]:
    """Cases whose answer differs between the targets that ran them (skips are ignored).

    Each comes with its runs of equal answers in target order, as (first target, last
    target, a result of that run): for releases of one implementation, where it changed.
    ``labels``: the targets' names (default: their column labels).
    """
    by_case: dict[str, list[tuple[str, Result]]] = defaultdict(list)
    order: list[str] = []
    for label, run in zip(column_labels(runs) if labels is None else labels, runs, strict=True):
        for result in run.results:
            if result.status == SKIP:
                continue
            if result.case.id not in by_case:
                order.append(result.case.id)
            by_case[result.case.id].append((label, result))
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


def release_changes(runs: Sequence[Run]) -> list[tuple[str, list[Run], list[Change]]]:
    """A library's history: per implementation the matrix holds at several versions, in column
    order, its runs and the cases whose answer differs between them (as ``changes`` gives them,
    each target named by its column)."""
    labels = dict(zip(map(id, runs), column_labels(runs), strict=True))
    by_family: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        by_family[run.target.family].append(run)
    return [(family, releases, changes(releases, [labels[id(run)] for run in releases]))
            for family, releases in by_family.items() if len({run.target.version for run in releases}) > 1]


def status_path(segments: Sequence[tuple[str, str, Result]]) -> str:
    """The statuses a changed case went through, release after release: ``✗ → ✓``, or ``""``
    when its status stayed (only its exact answer changed)."""
    statuses = [result.status for _, _, result in segments]
    steps = [status for index, status in enumerate(statuses) if not index or status != statuses[index - 1]]
    return " → ".join(SYMBOLS.get(status, "?") for status in steps) if len(steps) > 1 else ""


def _release_changes_markdown(runs: Sequence[Run]) -> list[str]:
    out = ["", "## Changed between releases", "",
           "Per library, in column order: the cases whose status changed between its releases (`✗ → ✓`: "
           "failed at the older, passes at the newer), those whose exact answer changed with the same status, "
           "and each one's answers, the columns that answered alike together. Cases a release skipped are not "
           "compared."]
    for family, releases, changed in release_changes(runs):
        versions = " → ".join(run.target.version for run in releases)
        out += ["", f"### {family}: {versions}", ""]
        if not changed:
            out.append("No case changed.")
            continue
        moved = [(case_id, status_path(segments)) for case_id, segments in changed if status_path(segments)]
        same = [case_id for case_id, segments in changed if not status_path(segments)]
        if moved:
            out.append(f"Status changed ({len(moved)}): " + ", ".join(f"`{case_id}` {path}" for case_id, path in moved)
                       + ".")
        if same:
            out += [""] if moved else []
            out.append(f"Same status, another answer ({len(same)}): " + ", ".join(f"`{case_id}`" for case_id in same)
                       + ".")
        out += ["", "| case | answers |", "|---|---|"]
        out += [_change_row(case_id, segments) for case_id, segments in changed]
    return out


def _change_row(case_id: str, segments: Sequence[tuple[str, str, Result]]) -> str:
    spans = [f"`{first}`" + ("" if first == last else f" … `{last}`") + ": " + _cell(text)
             for (first, last, _), text in zip(segments, change_texts(segments), strict=True)]
    return f"| `{case_id}` | " + "<br>".join(spans) + " |"


def _failures(run: Run) -> list[Result]:
    return [r for r in run.results if r.status in (FAIL, ERROR)]


def matrix_markdown(runs: Sequence[Run], title: str = "Compliance matrix", command: str = "",
                    fuzzed: Mapping[str, str] | None = None, history: bool = False, notes: str = "") -> str:
    """The whole matrix: its summary tables, then the per-case detail (what changed between the
    targets, every failure with its reason, every case's status by target).

    ``fuzzed``: per target name, its agreement with upstream on fuzzed inputs (``patchconf matrix --fuzz``).
    ``history``: the targets are releases of libraries; what changed is given per library, between
    its releases, instead of between all targets. ``notes``: Markdown put after the introduction."""
    labels = column_labels(runs)
    out = _head_markdown(runs, labels, title, command, fuzzed, notes)
    out += _changed_markdown(runs, history, listed=True)
    out += _failures_markdown(runs, labels)
    out += _every_case_markdown(runs, labels)
    return "\n".join(out) + "\n"


def matrix_summary_markdown(runs: Sequence[Run], title: str = "Compliance matrix", command: str = "",
                            fuzzed: Mapping[str, str] | None = None, history: bool = False, notes: str = "",
                            detail_at: Sequence[str] = (), published: str = "",
                            tool_pages: Mapping[str, str] | None = None) -> str:
    """The matrix's summary tables alone, a page whose diff a person reads (``patchconf matrix --summary``):
    the targets with their counts and the pass rate per behaviour. Its cases are listed only where
    they are what the page is about: what changed between a library's releases (``history``), or
    between the targets when all are releases of one implementation (an upstream or live history).

    ``detail_at``: where the same command wrote the per-case detail (said on the page);
    ``published``: where that detail is published, in Markdown (said too when given); ``tool_pages``:
    a tool's page (its family → a link), where its maintainers read where it departs."""
    labels = column_labels(runs)
    one_implementation = len({run.target.family for run in runs}) == 1
    out = _head_markdown(runs, labels, title, command, fuzzed, notes, _detail_line(detail_at, published),
                         tool_pages)
    out += _changed_markdown(runs, history, listed=history or one_implementation)
    return "\n".join(out).rstrip("\n") + "\n"


def _detail_line(detail_at: Sequence[str], published: str) -> str:
    what = "The per-case detail (every failure with its reason, every case's status by target) is not on this page"
    where = (": the command above writes it to " + " and ".join(f"`{portable(path)}`" for path in detail_at)
             if detail_at else "; `patchconf matrix --out FILE` or `--html DIR` writes it")
    return what + where + (f", published {published}" if published else "") + "."


GROUP_TITLES = {KUBERNETES: "Kubernetes, and patchconf's reference judged by it",
                TOOL: "Tools users' objects pass through", LIBRARY: "Libraries"}


def matrix_groups(labels: Sequence[str], runs: Sequence[Run]) -> list[tuple[str, list[tuple[str, Run]]]]:
    """The columns by what they are (Kubernetes, tools, libraries), each group in column order."""
    return [(category, members) for category in CATEGORIES
            if (members := [(label, run) for label, run in zip(labels, runs, strict=True)
                            if run.target.category == category])]


def _head_markdown(runs: Sequence[Run], labels: Sequence[str], title: str, command: str,
                   fuzzed: Mapping[str, str] | None, notes: str, detail_line: str = "",
                   tool_pages: Mapping[str, str] | None = None) -> list[str]:
    """Title, introduction, notes, a row per target, the pass rate per behaviour."""
    tool_pages = tool_pages or {}
    tags = sorted({tag for run in runs for result in run.results for tag in result.case.tags})
    per_run = [_by_tag(run) for run in runs]
    produced = f"Produced by `patchconf matrix`; regenerate with `{portable(command)}`." if command else \
        "Produced by `patchconf matrix`."
    out = [f"# {title}", "", f"{produced} Skipped cases (a target declares what it can run) are "
           "not counted in pass rates; `–`: the target ran none.", ""]
    out += [detail_line, ""] if detail_line else []
    out += [notes, ""] if notes else []
    fuzz_head, fuzz_rule = (f" {FUZZ_COLUMN} |", "---:|") if fuzzed else ("", "")
    groups = matrix_groups(labels, runs)
    for category, members in groups:
        if len(groups) > 1:
            out += [f"### {GROUP_TITLES[category]}", ""]
        out += ["| column | target | implementation | profile | pass | fail | error | skip |" + fuzz_head,
                "|---|---|---|---|---:|---:|---:|---:|" + fuzz_rule]
        for label, run in members:
            counts = run.counts()
            fuzz_cell = f" {fuzzed.get(run.target_name, '–')} |" if fuzzed else ""
            implementation = f"{run.target.family} {run.target.version}"
            if run.target.family in tool_pages:
                implementation = f"[{implementation}]({tool_pages[run.target.family]})"
            out.append(f"| {label} | `{_cell(portable(run.target_name))}` | {implementation} | {run.target.profile} | "
                       + " | ".join(str(counts.get(s, 0)) for s in (PASS, FAIL, ERROR, SKIP)) + " |" + fuzz_cell)
        out.append("")
    out.pop()
    if fuzzed:
        out += ["", FUZZ_NOTE]
    out += severity_markdown(runs, labels)
    out += apply_aspects_markdown(runs, labels)
    out += ["", "## Pass rate by behaviour", "", "| behaviour | " + " | ".join(labels) + " |",
            "|---|" + "---|" * len(runs)]
    for tag in tags:
        out.append(f"| {tag} | " + " | ".join(_rate(table.get(tag, Counter())) for table in per_run) + " |")
    return out


def severity_markdown(runs: Sequence[Run], labels: Sequence[str]) -> list[str]:
    """A row per target, how many of each severity (harness/reporting/severity.py); nothing where no
    target departs."""
    counted = [(label, severity_counts(run.results)) for label, run in zip(labels, runs, strict=True)]
    if not any(any(counts.values()) for _, counts in counted):
        return []
    rows = [f"| {label} | " + " | ".join(str(counts[level]) for level in SEVERITIES) + " |"
            for label, counts in counted]
    return ["", "## Departures by severity", "",
            "Each failed case counted once, by its worst difference from Kubernetes' answer, decided from the "
            "difference itself: *security* (access widened or closed: NetworkPolicy rules, RBAC, a Service's "
            "exposure, pod security), *data loss* (an element or field someone owns removed), *drift* (what "
            "should go stays, what should change does not), *cosmetic* (order, the annotation's text, a "
            "default spelled out). Errors (no answer) are not departures.", "",
            "| column | " + " | ".join(SEVERITIES) + " |", "|---|" + "---:|" * len(SEVERITIES), *rows]


APPLY_ASPECTS_NOTE = (
    "Each `apply` answer is judged apart on the object a server would keep (a tool's or library's "
    "pass or fail is this one; Kubernetes' own targets are judged whole), the request (the patch sent, "
    "where the target shows it), and the last-applied annotation: its content (the configuration it "
    "records, as kubectl reads it) and its text (kubectl's encoding). Cells: agreeing of judged. "
    "*next kubectl apply*: what the annotation the target writes does to a later `kubectl apply` over it.")


def apply_aspects_markdown(runs: Sequence[Run], labels: Sequence[str]) -> list[str]:
    """A row per target that ran `apply` cases: each aspect's agreement, and the annotation's consequence."""
    rows = []
    for label, run in zip(labels, runs, strict=True):
        judged = [result.aspects for result in run.results if result.case.type == "apply" and result.aspects]
        if not judged:
            continue
        cells = [aspect_cell(judged, aspect) for aspect in (OBJECT, REQUEST, ANNOTATION, ANNOTATION_TEXT)]
        rows.append(f"| {label} | {len(judged)} | " + " | ".join(cells) + f" | {next_apply(judged)} |")
    if not rows:
        return []
    return ["", "## Client-side apply, judged apart", "", APPLY_ASPECTS_NOTE, "",
            "| column | apply answers | object | request | annotation content | annotation text | next kubectl apply |",
            "|---|---:|---:|---:|---:|---:|---|", *rows]


def aspect_cell(judged: Sequence[Mapping[str, object]], aspect: str) -> str:
    verdicts = [aspects[aspect] for aspects in judged if aspect in aspects]
    return f"{verdicts.count(SAME)}/{len(verdicts)}" if verdicts else "–"


def next_apply(judged: Sequence[Mapping[str, object]]) -> str:
    """What the annotations a target wrote do to the next `kubectl apply`: none (kubectl's own), a one-time
    rewrite (another text of the same configuration, which kubectl reads as data and rewrites in its own),
    nothing deleted the first time (no annotation: kubectl has no original to delete from), or another
    configuration recorded (its deletions are worked out from that)."""
    annotated = [aspects for aspects in judged if ANNOTATION in aspects]
    if not annotated:
        return "none (no annotation expected)"
    missing = sum(aspects[ANNOTATION] == MISSING for aspects in annotated)
    other = sum(aspects[ANNOTATION] == DIFFERENT for aspects in annotated)
    rewritten = sum(aspects[ANNOTATION] == SAME and aspects.get(ANNOTATION_TEXT) == DIFFERENT
                    for aspects in annotated)
    parts = []
    if missing:
        parts.append(f"nothing deleted the first time ({missing} of {len(annotated)}: no annotation written)")
    if rewritten:
        parts.append(f"a one-time rewrite ({rewritten} of {len(annotated)}: the same configuration, another text)")
    if other:
        parts.append(f"works from another configuration ({other} of {len(annotated)}: the annotation records "
                     "another)")
    return "; ".join(parts) or "none (kubectl's own annotation)"


def _changed_markdown(runs: Sequence[Run], history: bool, listed: bool) -> list[str]:
    """What changed between releases (``history``) or between targets; ``listed``: case by case,
    else only how many."""
    if history:
        return _release_changes_markdown(runs)
    if len(runs) < 2:
        return []
    changed = changes(runs)
    out = ["", "## Changed between targets", ""]
    if not listed:
        return [*out, f"{len(changed)} case(s) got a different answer (status or exact result) from different "
                      "targets: listed in the per-case detail."]
    out += [f"{len(changed)} case(s) got a different answer (status or exact result) from different targets; "
            "each line gives the targets, in column order, that answered alike.", ""]
    if changed:
        out += ["| case | answers |", "|---|---|"]
    return out + [_change_row(case_id, segments) for case_id, segments in changed]


def _failures_markdown(runs: Sequence[Run], labels: Sequence[str]) -> list[str]:
    out = ["", "## Failures by target", ""]
    for label, run in zip(labels, runs, strict=True):
        failures = _failures(run)
        if not failures:
            out += [f"### {label}: none", ""]
            continue
        out += [f"### {label}: {len(failures)}", "", "| case | why |", "|---|---|"]
        out += [f"| `{r.case.id}` | {_cell(_short(r.reason))} |" for r in failures]
        out.append("")
    return out


def _every_case_markdown(runs: Sequence[Run], labels: Sequence[str]) -> list[str]:
    order, statuses = _case_statuses(runs)
    out = ["## Every case", "", "| case | " + " | ".join(labels) + " |", "|---|" + ":---:|" * len(runs)]
    return out + [f"| `{case_id}` | " + " | ".join(SYMBOLS.get(s, " ") for s in statuses[case_id]) + " |"
                  for case_id in order]
