"""Summaries and report files, all rendered from the same list of results."""

from __future__ import annotations

import json
import platform
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from xml.etree import ElementTree as ET

from patchconf.harness.corpus.cases import LoadError
from patchconf.harness.running.runner import ERROR, FAIL, PASS, SKIP, Result
from patchconf.harness.targets.base import TargetInfo

STATUSES = (PASS, FAIL, ERROR, SKIP)


@dataclass
class Run:
    target_name: str
    target: TargetInfo
    results: list[Result]
    load_errors: list[LoadError] = field(default_factory=list)
    started: datetime = field(default_factory=lambda: datetime.now(UTC))
    seconds: float = 0.0
    arguments: dict[str, Any] = field(default_factory=dict)
    planned: int | None = None  # cases selected; more than the results when the run stopped early
    interrupted: str | None = None  # why the run stopped early (SIGINT, SIGTERM, killed, harness error)
    corpus: dict[str, str] = field(default_factory=dict)  # {"path", "version"} of the case files it read
    patchconf: str = ""  # the version of patchconf that ran it

    @property
    def ok(self) -> bool:
        return (not self.interrupted and not self.load_errors
                and not any(r.status in (FAIL, ERROR) for r in self.results))

    def stopped_early(self) -> str:
        """'' for a run that finished; else a sentence saying why and how far it came."""
        if not self.interrupted:
            return ""
        of = f" of {self.planned}" if self.planned is not None else ""
        return (f"INTERRUPTED ({self.interrupted}) after {len(self.results)}{of} cases: "
                "these results are those of the cases that finished")

    def counts(self) -> Counter:
        return Counter(r.status for r in self.results)

    def server_changed_counts(self) -> Counter:
        """Statuses of the results whose objects the server changed beyond the request (admission, policy)."""
        return Counter(r.status for r in self.results if r.server_changes)

    def counts_by(self, key: str) -> dict[str, Counter]:
        table: dict[str, Counter] = defaultdict(Counter)
        for result in self.results:
            keys = result.case.tags if key == "tag" else (result.case.type,)
            for value in keys:
                table[value][result.status] += 1
        return dict(sorted(table.items()))

    def to_json(self) -> dict[str, Any]:
        return {**self.summary_json(), "results": [r.to_json() for r in self.results]}

    def summary_json(self) -> dict[str, Any]:
        """:meth:`to_json` without the results."""
        return {
            "patchconf_results": 1,
            "target": {"name": self.target_name, **self.target.to_json()},
            "started": self.started.isoformat(),
            "seconds": round(self.seconds, 3),
            "python": platform.python_version(),
            "patchconf": self.patchconf,
            "corpus": self.corpus,
            "arguments": self.arguments,
            "planned": self.planned if self.planned is not None else len(self.results),
            "interrupted": self.interrupted,
            "summary": dict(self.counts()),
            **({"server_changed": dict(changed)} if (changed := self.server_changed_counts()) else {}),
            "by_type": {k: dict(v) for k, v in self.counts_by("type").items()},
            "by_tag": {k: dict(v) for k, v in self.counts_by("tag").items()},
            "load_errors": [
                {"file": e.file, "case": e.case, "pointer": e.pointer, "message": e.message}
                for e in self.load_errors
            ],
        }


SERVER_CHANGES_HEADING = "the server changed or refused the object beyond the request (admission, defaulting, policy):"


def server_change_text(fact: dict[str, Any]) -> str:
    """One fact of a result's server_changes as a line: ``+/spec/containers/1 = {...} (where seen)``;
    ``-`` taken out, ``~`` rewritten (its value says what was sent), ``!`` refused."""
    seen = f" ({', '.join(fact.get('seen_in', ()))})" if fact.get("seen_in") else ""
    if fact.get("change") == "refused":
        return f"! refused: {fact.get('value', '')}{seen}"
    mark = {"added": "+", "removed": "-", "changed": "~"}.get(fact.get("change", ""), "?")
    value = f" = {fact['value']}" if "value" in fact else ""
    return f"{mark}{fact.get('pointer', '')}{value}{seen}"


def server_changes_lines(result: Result) -> list[str]:
    """A result's server changes under their heading, or nothing when the server changed nothing."""
    if not result.server_changes:
        return []
    return [SERVER_CHANGES_HEADING, *(f"  {server_change_text(fact)}" for fact in result.server_changes)]


def _server_changed_sentence(run: Run) -> str:
    """How many results ran on objects the server changed, apart from the rest, or '' when none did."""
    changed = run.server_changed_counts()
    if not changed:
        return ""
    failing = changed.get(FAIL, 0) + changed.get(ERROR, 0)
    return (f"server changes (admission, defaulting, policy): {failing} of "
            f"{run.counts().get(FAIL, 0) + run.counts().get(ERROR, 0)} failures and {changed.get(PASS, 0)} passes "
            "ran on objects the server changed beyond the request")


def _count_cells(counter: Counter) -> list[str]:
    return [str(counter.get(status, 0)) for status in STATUSES]


def summary_text(run: Run, verbose_failures: bool = True) -> str:
    lines = [f"patchconf: {len(run.results)} cases on {run.target_name} "
             f"({run.target.family} {run.target.version}, profile {run.target.profile})"]
    if run.corpus:
        lines.append(f"corpus: {run.corpus.get('path')} ({run.corpus.get('version')}); patchconf {run.patchconf}")
    if run.interrupted:
        lines.append(run.stopped_early())
    for error in run.load_errors:
        lines.append(f"LOAD ERROR {error}")
    if verbose_failures:
        for result in run.results:
            if result.status in (FAIL, ERROR):
                lines.append(f"{result.status.upper()} {result.case.id}")
                details = result.diff or (result.reason,)
                lines.extend(f"    {line}" for line in details)
                lines.extend(f"    {line}" for line in server_changes_lines(result))
    lines.append("")
    lines.append(_text_table("type", run.counts_by("type")))
    lines.append("")
    lines.append(_text_table("behaviour", run.counts_by("tag")))
    counts = run.counts()
    lines.append("")
    skipped_reasons = Counter(r.reason for r in run.results if r.status == SKIP)
    for reason, count in skipped_reasons.most_common():
        lines.append(f"skipped {count}: {reason}")
    if sentence := _server_changed_sentence(run):
        lines.append(sentence)
    lines.append(
        "total: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
        + f", {len(run.load_errors)} load errors in {run.seconds:.1f}s"
    )
    return "\n".join(lines)


def _text_table(label: str, rows: dict[str, Counter]) -> str:
    width = max([len(label), *(len(k) for k in rows)])
    header = f"{label:<{width}}  " + "  ".join(f"{s:>5}" for s in STATUSES)
    body = [f"{key:<{width}}  " + "  ".join(f"{c:>5}" for c in _count_cells(counter)) for key, counter in rows.items()]
    return "\n".join([header, *body])


def results_json(run: Run) -> str:
    """results.json: the run indented, each result on one line (Python's indenting encoder is ten
    times slower than its compact one, and a result per line reads and diffs well)."""
    head = json.dumps(run.summary_json(), indent=2, ensure_ascii=False)
    lines = ",\n    ".join(result.json_text for result in run.results)
    body = f"[\n    {lines}\n  ]" if run.results else "[]"
    return f'{head[:-2]},\n  "results": {body}\n}}\n'


def junit_xml(run: Run) -> str:
    suites = ET.Element("testsuites", name=f"patchconf {run.target_name}")
    by_file: dict[str, list[Result]] = defaultdict(list)
    for result in run.results:
        by_file[result.case.file].append(result)
    for error in run.load_errors:
        by_file.setdefault(error.file, [])
    if run.interrupted:  # an error a CI system shows: the run is incomplete
        suite = ET.SubElement(suites, "testsuite", name="patchconf run", tests="1", failures="0", errors="1",
                              skipped="0")
        case = ET.SubElement(suite, "testcase", classname="patchconf", name="(run)")
        ET.SubElement(case, "error", message="interrupted").text = run.stopped_early()
    for file, results in sorted(by_file.items()):
        counts = Counter(r.status for r in results)
        file_errors = [e for e in run.load_errors if e.file == file]
        suite = ET.SubElement(
            suites, "testsuite", name=file, tests=str(len(results) + len(file_errors)),
            failures=str(counts[FAIL]), errors=str(counts[ERROR] + len(file_errors)),
            skipped=str(counts[SKIP]),
        )
        for error in file_errors:
            case = ET.SubElement(suite, "testcase", classname=file, name=error.case or "(file)")
            ET.SubElement(case, "error", message="load error").text = str(error)
        for result in results:
            case = ET.SubElement(
                suite, "testcase", classname=file, name=result.case.name, time=f"{result.seconds:.4f}"
            )
            if result.status == FAIL:
                text = "\n".join([*result.diff, *server_changes_lines(result)])
                ET.SubElement(case, "failure", message=result.reason[:200]).text = text
            elif result.status == ERROR:
                ET.SubElement(case, "error", message=result.reason[:200]).text = result.reason
            elif result.status == SKIP:
                ET.SubElement(case, "skipped", message=result.reason)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _md(text: str) -> str:
    return re.sub(r"([|\\`*_])", r"\\\1", text)


def markdown(run: Run) -> str:
    counts = run.counts()
    out = [
        f"# patchconf report: {run.target_name}",
        "",
        f"- target: {run.target.family} {run.target.version} ({run.target.description})",
        f"- profile: {run.target.profile}",
        f"- started: {run.started.isoformat(timespec='seconds')}, {run.seconds:.1f}s",
        "- totals: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
        + f", {len(run.load_errors)} load errors",
        "",
    ]
    if sentence := _server_changed_sentence(run):
        out[-1:-1] = [f"- {sentence}"]
    if run.interrupted:
        out[-1:-1] = [f"- **{_md(run.stopped_early())}**"]
    if run.load_errors:
        out += ["## Files that could not be loaded", ""]
        out += [f"- `{e}`" for e in run.load_errors]
        out.append("")
    for title, key in (("By patch type", "type"), ("By behaviour", "tag")):
        out += [f"## {title}", "", f"| {key} | " + " | ".join(STATUSES) + " |",
                "|---|" + "---:|" * len(STATUSES)]
        out += [f"| {k} | " + " | ".join(_count_cells(c)) + " |" for k, c in run.counts_by(key).items()]
        out.append("")
    bad = [r for r in run.results if r.status in (FAIL, ERROR)]
    # Failures where the server itself changed the objects (admission, policy) are shown apart:
    # their differences may be the server's doing rather than the patch's.
    semantic = [r for r in bad if not r.server_changes]
    changed = [r for r in bad if r.server_changes]
    out += ["## Divergences", ""]
    if not bad:
        out += ["None: every case that ran matched its expectation.", ""]
    elif not semantic:
        out += ["None on objects the server left as requested; see the failures below.", ""]
    for result in semantic:
        out += [f"### {_md(result.case.id)} ({result.status})", "", _md(result.case.description), ""]
        out += ["```", *(result.diff or (result.reason,)), "```", ""]
    if changed:
        out += ["## Failures on objects the server changed (admission, defaulting, policy)", "",
                "The server added, took out, rewrote or refused something beyond the request and its defaults "
                "(a mutating webhook, a policy): the differences may be its doing, not the patch's. "
                "The cases still fail.", ""]
        for result in changed:
            out += [f"### {_md(result.case.id)} ({result.status})", "", _md(result.case.description), ""]
            out += ["```", *(result.diff or (result.reason,)), *server_changes_lines(result), "```", ""]
    passed = [r for r in run.results if r.status == PASS and r.server_changes]
    if passed:
        out += ["## Passes on objects the server changed", ""]
        out += [f"- {_md(r.case.id)}: " + _md("; ".join(server_change_text(f) for f in r.server_changes))
                for r in passed]
        out.append("")
    skipped = Counter(r.reason for r in run.results if r.status == SKIP)
    if skipped:
        out += ["## Skipped", "", "| cases | reason |", "|---:|---|"]
        out += [f"| {n} | {_md(reason)} |" for reason, n in skipped.most_common()]
        out.append("")
    return "\n".join(out)


def load_errors_text(errors: Sequence[LoadError]) -> str:
    return "\n".join(f"LOAD ERROR {e}" for e in errors)
