"""Summaries and report files, all rendered from the same list of results."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from ...reference_impl.patch_types import names_where
from .. import counted
from ..corpus.cases import LoadError
from ..running.runner import ERROR, FAIL, PASS, SKIP, Result
from ..targets.base import TargetInfo
from .severity import worst_departures_markdown

STATUSES = (PASS, FAIL, ERROR, SKIP)


class Tally(NamedTuple):  # not a dataclass: making one costs every command 1 ms at import
    """A run's counts: by status, of the results the server changed, by patch type and by behaviour
    (each table sorted by its key; each counter's statuses in the order they first occur)."""

    counts: Counter
    server_changed: Counter
    by_type: dict[str, Counter]
    by_tag: dict[str, Counter]

    @classmethod
    def of(cls, results: Sequence[Result]) -> Tally:
        # Results are counted by what the tables need of them (type, behaviours, status, whether the
        # server changed them), a few hundred kinds for a corpus, and the tables are filled per kind.
        # Kinds come in the order they first occur, so each counter's statuses do too.
        kinds = Counter([(case.type, case.tags, result.status, bool(result.server_changes))
                         for result in results for case in [result.case]])
        counts, server_changed = Counter(), Counter()
        by_type: dict[str, Counter] = {}
        by_tag: dict[str, Counter] = {}
        for (kind, tags, status, changed), count in kinds.items():
            counts[status] += count
            if changed:
                server_changed[status] += count
            _count(by_type, kind, status, count)
            for tag in tags:
                _count(by_tag, tag, status, count)
        return cls(counts, server_changed, dict(sorted(by_type.items())), dict(sorted(by_tag.items())))


def _count(table: dict[str, Counter], value: str, status: str, count: int) -> None:
    counter = table.get(value)
    if counter is None:
        counter = table[value] = Counter()
    counter[status] += count


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
    judges: list[dict[str, Any]] = field(default_factory=list)  # the judge binaries it used (controlplane.judges)
    _tally: tuple[tuple[Result, ...], Tally] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return (not self.interrupted and not self.load_errors
                and not any(r.status in (FAIL, ERROR) for r in self.results))

    def stopped_early(self) -> str:
        """'' for a run that finished; else a sentence saying why and how far it came."""
        if not self.interrupted:
            return ""
        of = f" of {self.planned}" if self.planned is not None else ""
        return (f"INTERRUPTED ({self.interrupted}) after {len(self.results)}{of} case"
                + ("" if (self.planned if self.planned is not None else len(self.results)) == 1 else "s") + ": "
                "these results are those of the cases that finished")

    def tally(self) -> Tally:
        """Every count of the results, worked out once for as long as the results stay the same ones
        (results and cases are frozen: the same objects count the same)."""
        results = tuple(self.results)
        if self._tally is None or self._tally[0] != results:
            self._tally = (results, Tally.of(results))
        return self._tally[1]

    def counts(self) -> Counter:
        return self.tally().counts.copy()

    def server_changed_counts(self) -> Counter:
        """Statuses of the results whose objects the server changed beyond the request (admission, policy)."""
        return self.tally().server_changed.copy()

    def counts_by(self, key: str) -> dict[str, Counter]:
        tally = self.tally()
        return {value: counter.copy() for value, counter in (tally.by_tag if key == "tag" else tally.by_type).items()}

    def to_json(self) -> dict[str, Any]:
        return {**self.summary_json(), "results": [r.to_json() for r in self.results]}

    def summary_json(self) -> dict[str, Any]:
        """:meth:`to_json` without the results."""
        tally = self.tally()
        return {
            "patchconf_results": 1,
            "target": {"name": self.target_name, **self.target.to_json()},
            "started": self.started.isoformat(),
            "seconds": round(self.seconds, 3),
            "python": python_version(),
            "patchconf": self.patchconf,
            "corpus": self.corpus,
            "judges": self.judges,
            "arguments": self.arguments,
            "planned": self.planned if self.planned is not None else len(self.results),
            "interrupted": self.interrupted,
            "summary": dict(tally.counts),
            **({"server_changed": dict(tally.server_changed)} if tally.server_changed else {}),
            "by_type": {k: dict(v) for k, v in tally.by_type.items()},
            "by_tag": {k: dict(v) for k, v in tally.by_tag.items()},
            "load_errors": [
                {"file": e.file, "case": e.case, "pointer": e.pointer, "line": e.line, "column": e.column,
                 "message": e.message}
                for e in self.load_errors
            ],
        }


def python_version() -> str:
    """``platform.python_version()`` (the version at the head of ``sys.version``, with a patch level)
    without importing :mod:`platform`, some 3 ms of every run."""
    version = sys.version.split(maxsplit=1)[0]
    return version + ".0" if version.count(".") == 1 else version


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


# What each input of a case is, by flow: a reader of a failure sees what was asked.
_THREE_WAY_INPUTS = {"original": "original: the configuration last applied",
                     "modified": "modified: the configuration applied now", "current": "current: the live object"}
_INPUT_TITLES: dict[str, dict[str, str]] = {
    **dict.fromkeys(names_where(lambda patch_type: patch_type.three_way), _THREE_WAY_INPUTS),
    "apply": {**_THREE_WAY_INPUTS, "current": "current: the live object (null: none, a create)"},
    "server-side-apply": {"current": "current: the object before step 1",
                          "steps": "steps: the requests, in order"},
    "update": {"original": "original: the stored object", "modified": "modified: the object PUT over it"},
}
SHOWN_JSON_CHARS = 20_000  # per value shown in a report; results themselves cap members at 64 KiB


def input_title(case_type: str, key: str) -> str:
    """The heading of a case's input in a report: its member name and, where it helps, what it is."""
    return _INPUT_TITLES.get(case_type, {}).get(key, key)


def shown_json(value: Any) -> str:
    """A value as a report shows it: indented JSON, cut after SHOWN_JSON_CHARS characters."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if len(text) > SHOWN_JSON_CHARS:
        text = text[:SHOWN_JSON_CHARS] + f"\n… {len(text) - SHOWN_JSON_CHARS:,} more characters"
    return text


def difference_lines(result: Result) -> tuple[str, ...]:
    """How a failure's answer differs from the expectation (its reason where there is no diff), and what
    the server changed beyond the request."""
    return (*(result.diff or ((result.reason,) if result.reason else ())), *server_changes_lines(result))


def failure_inputs(result: Result) -> list[tuple[str, str]]:
    """The case's inputs as a failure's result recorded them, as (heading, JSON) pairs in the case's order,
    then its options and schema where it states them."""
    case = result.case
    sections = [(input_title(case.type, key), shown_json(value)) for key, value in case.inputs.items()]
    if case.options:
        sections.append(("options", shown_json(dict(case.options))))
    if case.schema is not None:
        sections.append(("schema", case.schema.describe()))
    return sections


def failure_sections(result: Result) -> list[tuple[str, str]]:
    """Everything a report shows of a failed or errored case, as (heading, text) pairs in reading order: the
    differences, where the case is, its inputs, the expected and the actual outcome. report.md, report.html
    and junit.xml each render these."""
    differences = difference_lines(result)
    sections = [("differences", "\n".join(differences))] if differences else []
    if location := result.location:
        sections.append(("case file", location))
    sections += failure_inputs(result)
    sections += [("expected", shown_json(result.expected)), ("actual", shown_json(result.actual))]
    return sections


def failure_text(result: Result) -> str:
    """:func:`failure_sections` as plain text (junit.xml): the differences first, the rest under headings."""
    return "\n\n".join(text if heading == "differences" else f"--- {heading} ---\n{text}"
                       for heading, text in failure_sections(result))


def _server_changed_sentence(run: Run) -> str:
    """How many results ran on objects the server changed, apart from the rest, or '' when none did."""
    tally = run.tally()
    changed = tally.server_changed
    if not changed:
        return ""
    failing = changed.get(FAIL, 0) + changed.get(ERROR, 0)
    return (f"server changes (admission, defaulting, policy): {failing} of "
            f"{tally.counts.get(FAIL, 0) + tally.counts.get(ERROR, 0)} failures and {changed.get(PASS, 0)} passes "
            "ran on objects the server changed beyond the request")


def _count_cells(counter: Counter) -> list[str]:
    return [str(counter.get(status, 0)) for status in STATUSES]


def judge_lines(judges: list[dict[str, Any]]) -> list[str]:
    """A header line per judge binary a run used: which, from where (prebuilt wheel or local build), built from what."""
    if not judges:
        return []
    from ..controlplane.judges import describe

    return [f"judge {describe(judge)}" for judge in judges]


def summary_text(run: Run, verbose_failures: bool = True) -> str:
    lines = [f"patchconf: {counted(len(run.results), 'case')} on {run.target_name} "
             f"({run.target.family} {run.target.version}, profile {run.target.profile})"]
    if run.corpus:
        lines.append(f"corpus: {run.corpus.get('path')} ({run.corpus.get('version')}); patchconf {run.patchconf}")
    lines += judge_lines(run.judges)
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
    tally = run.tally()
    lines.append(_text_table("type", tally.by_type))
    lines.append("")
    lines.append(_text_table("behaviour", tally.by_tag))
    counts = tally.counts
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


# junit.xml is written as text, byte for byte as ElementTree wrote it (ET.indent, then ET.tostring with
# its declaration): building and serializing the tree took five times as long.
JUNIT_DECLARATION = "<?xml version='1.0' encoding='utf-8'?>\n"


_XML_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# line ends and tabs as character references, as ElementTree writes them in attributes
_XML_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;", "\n": "&#10;",
                                "\t": "&#09;"})


# Most text has nothing to escape; finding that out is some ten times quicker than translating it
# (a translation with replacements of several characters looks each character up).
_XML_TEXT_SPECIAL = re.compile("[" + re.escape("".join(map(chr, _XML_TEXT))) + "]")
_XML_ATTRIBUTE_SPECIAL = re.compile("[" + re.escape("".join(map(chr, _XML_ATTRIBUTE))) + "]")


def _xml_text(text: str) -> str:
    """Character data escaped as ElementTree escapes it."""
    return text.translate(_XML_TEXT) if _XML_TEXT_SPECIAL.search(text) else text


def _xml_attribute(text: str) -> str:
    """An attribute value escaped as ElementTree escapes it."""
    return text.translate(_XML_ATTRIBUTE) if _XML_ATTRIBUTE_SPECIAL.search(text) else text


def _junit_outcome(tag: str, message: str, text: str | None, indent: str) -> str:
    """A testcase's one child element at ``indent``, empty when it holds no text."""
    body = f">{_xml_text(text)}</{tag}>" if text else " />"
    return f'{indent}<{tag} message="{_xml_attribute(message)}"{body}'


def _junit_case(classname: str, name: str, time: str, outcome: str) -> str:
    timing = f' time="{time}"' if time else ""
    head = f'\n    <testcase classname="{classname}" name="{_xml_attribute(name)}"{timing}'
    return f"{head}>{outcome}\n    </testcase>" if outcome else f"{head} />"


def junit_xml(run: Run) -> str:
    by_file: dict[str, list[Result]] = defaultdict(list)
    for result in run.results:
        by_file[result.case.file].append(result)
    for error in run.load_errors:
        by_file.setdefault(error.file, [])
    suites = []
    if run.interrupted:  # an error a CI system shows: the run is incomplete
        suites.append('\n  <testsuite name="patchconf run" tests="1" failures="0" errors="1" skipped="0">'
                      + _junit_case("patchconf", "(run)", "",
                                    _junit_outcome("error", "interrupted", run.stopped_early(), "\n      "))
                      + "\n  </testsuite>")
    for file, results in sorted(by_file.items()):
        counts = Counter(r.status for r in results)
        file_errors = [e for e in run.load_errors if e.file == file]
        classname = _xml_attribute(file)
        cases = [_junit_case(classname, error.case or "(file)", "",
                             _junit_outcome("error", "load error", str(error), "\n      "))
                 for error in file_errors]
        for result in results:
            status = result.status
            if status == FAIL:
                outcome = _junit_outcome("failure", result.reason[:200], failure_text(result), "\n      ")
            elif status == ERROR:
                outcome = _junit_outcome("error", result.reason[:200], failure_text(result), "\n      ")
            elif status == SKIP:
                outcome = _junit_outcome("skipped", result.reason, None, "\n      ")
            else:
                outcome = ""
            cases.append(_junit_case(classname, result.case.name, f"{result.seconds:.4f}", outcome))
        head = (f'\n  <testsuite name="{classname}" tests="{len(results) + len(file_errors)}" '
                f'failures="{counts[FAIL]}" errors="{counts[ERROR] + len(file_errors)}" skipped="{counts[SKIP]}"')
        suites.append(f"{head}>{''.join(cases)}\n  </testsuite>" if cases else f"{head} />")
    head = f'{JUNIT_DECLARATION}<testsuites name="{_xml_attribute(f"patchconf {run.target_name}")}"'
    return (f"{head}>{''.join(suites)}\n</testsuites>" if suites else f"{head} />") + "\n"


def _md(text: str) -> str:
    return re.sub(r"([|\\`*_])", r"\\\1", text)


def target_text(target: TargetInfo) -> str:
    """'x 0.0.1 (python)': family and version, and what the description adds to them."""
    named = f"{target.family} {target.version}"
    if not target.description or target.description == named:
        return named
    return target.description if target.description.startswith(named) else f"{named} ({target.description})"


def markdown(run: Run) -> str:
    tally = run.tally()
    counts = tally.counts
    out = [
        f"# patchconf report: {run.target_name}",
        "",
        f"- target: {target_text(run.target)}",
        f"- profile: {run.target.profile}",
        *(f"- {_md(line)}" for line in judge_lines(run.judges)),
        f"- started: {run.started.isoformat(timespec='seconds')}, {run.seconds:.1f}s",
        "- totals: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
        + f", {len(run.load_errors)} load errors",
        "",
    ]
    if sentence := _server_changed_sentence(run):
        out[-1:-1] = [f"- {sentence}"]
    if run.interrupted:
        out[-1:-1] = [f"- **{_md(run.stopped_early())}**"]
    out += ["## Worst departures", "", "Each failure's severity is its worst difference from Kubernetes' answer "
            "(security, data loss, drift, cosmetic: harness/reporting/severity.py).", "",
            *worst_departures_markdown(run.results), ""]
    if run.load_errors:
        out += ["## Files that could not be loaded", ""]
        out += [f"- `{e}`" for e in run.load_errors]
        out.append("")
    for title, key, table in (("By patch type", "type", tally.by_type), ("By behaviour", "tag", tally.by_tag)):
        out += [f"## {title}", "", f"| {key} | " + " | ".join(STATUSES) + " |",
                "|---|" + "---:|" * len(STATUSES)]
        out += [f"| {k} | " + " | ".join(_count_cells(c)) + " |" for k, c in table.items()]
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
        out += _markdown_failure(result)
    if changed:
        out += ["## Failures on objects the server changed (admission, defaulting, policy)", "",
                "The server added, took out, rewrote or refused something beyond the request and its defaults "
                "(a mutating webhook, a policy): the differences may be its doing, not the patch's. "
                "The cases still fail.", ""]
        for result in changed:
            out += _markdown_failure(result)
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


def _markdown_failure(result: Result) -> list[str]:
    """A failure's section of report.md: its differences, then where the case is and what it asked, what was
    expected and what came."""
    out = [f"### {_md(result.case.id)} ({result.status})", "", _md(result.case.description), ""]
    for heading, text in failure_sections(result):
        if heading == "case file":
            out += [f"case file: `{text}`", ""]
        else:
            out += [f"**{_md(heading)}**", "", *_fenced(text), ""]
    return out


def _fenced(text: str) -> list[str]:
    """A code block holding ``text`` whatever it holds: its fence is longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, text, fence]


def load_errors_text(errors: Sequence[LoadError]) -> str:
    return "\n".join(f"LOAD ERROR {e}" for e in errors)
