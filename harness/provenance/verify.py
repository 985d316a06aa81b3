"""``patchconf verify``: confirm the corpus against real Kubernetes code and record who did.

Every case runs on the judges (the ``upstream`` target and, where they apply, kubectl,
kubectl apply and a live server). A judge that agrees with the case's own expectation is
recorded in the case's ``provenance`` (``--write``); a judge that contradicts a case
without a declared divergence fails verification. Every verdict names its judge and the
judge's version. Provenance is added by a small textual edit, checked by reloading the
file, so comments, quoting and layout survive.
"""

from __future__ import annotations

import copy
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from patchconf.harness.corpus.cases import Case
from patchconf.harness.corpus.yamlio import load_text
from patchconf.harness.running.runner import ERROR, FAIL, PASS, SKIP, UNCLASSIFIED, Result, run_cases
from patchconf.harness.targets.base import Target

# How each judge ran Kubernetes' code, keyed by target name (without its ``:PATH``/``@1.MINOR``).
VIA = {
    "upstream": "patchconf upstream target (Kubernetes' Go modules)",
    "kubectl": "kubectl patch --local",
    "kubectl-apply": "kubectl apply against patchconf's recording endpoint",
    "live": "patchconf live target, local kube-apiserver",
}
# provenance names the implementation; a target names its family
IMPLEMENTATION_OF_FAMILY = {"live": "apiserver"}
# the implementations provenance may name (case.schema.json): Kubernetes' own code
KUBERNETES_IMPLEMENTATIONS = ("kubectl", "upstream", "apiserver")


def implementation_of(judge: Target) -> str:
    return IMPLEMENTATION_OF_FAMILY.get(judge.info.family, judge.info.family)


def via_of(judge: Target, case: Case | None = None) -> str:
    name = re.split(r"[:@]", judge.name, maxsplit=1)[0]
    via = VIA.get(name, VIA.get(judge.info.family, judge.info.family))
    # a target that also ran a program of its own for the case (live: kubectl) says so
    helper = getattr(judge, "helper_for", None)
    used = helper(case) if helper is not None and case is not None else None
    return f"{via}, with {used}" if used else via


@dataclass(frozen=True)
class Confirmation:
    case: Case
    implementation: str
    version: str
    via: str = ""
    judge: str = ""  # the target that confirmed, e.g. kubectl-apply (implementation: kubectl)

    @property
    def by(self) -> str:
        return f"{self.judge or self.implementation} {self.version}"


@dataclass(frozen=True)
class Judgement:
    """One judge's result on one case, naming the judge and its version."""

    result: Result
    judge: str
    version: str

    @property
    def case(self) -> Case:
        return self.result.case

    @property
    def reason(self) -> str:
        return self.result.reason

    @property
    def by(self) -> str:
        return f"{self.judge} {self.version}"


@dataclass
class Verification:
    confirmations: list[Confirmation]
    contradictions: list[Judgement]  # a failed case, or a judge that crashed on it
    judges: list[str]
    abstentions: list[Judgement] = field(default_factory=list)  # neither confirmed nor contradicted

    @property
    def ok(self) -> bool:
        return not self.contradictions

    def unconfirmed(self, cases: Iterable[Case]) -> list[Case]:
        confirmed = {c.case.id for c in self.confirmations}
        return [case for case in cases if case.id not in confirmed]

    def report_lines(self, cases: Sequence[Case]) -> list[str]:
        """One line per case and verdict, each naming the judges and their versions."""
        by_case: dict[str, list[Confirmation]] = defaultdict(list)
        for confirmation in self.confirmations:
            by_case[confirmation.case.id].append(confirmation)
        lines = []
        for case in cases:
            if by_case[case.id]:
                lines.append(f"CONFIRMED {case.id} by {', '.join(c.by for c in by_case[case.id])}")
        for judgement in self.contradictions:
            if judgement.result.status == ERROR:
                lines.append(f"ERROR {judgement.case.id} on {judgement.by}: {judgement.reason}")
            else:
                lines.append(f"CONTRADICTED {judgement.case.id} by {judgement.by}: {judgement.reason}")
        abstained: dict[str, list[str]] = defaultdict(list)
        for judgement in self.abstentions:
            abstained[judgement.case.id].append(f"{judgement.by}: {_abstention(judgement.result)}")
        contradicted = {judgement.case.id for judgement in self.contradictions}
        for case in self.unconfirmed(cases):
            if case.id in contradicted:
                continue
            why = "; ".join(abstained[case.id]) or "no judge ran it"
            lines.append(f"UNCONFIRMED {case.id}: no judge reproduced its expectation ({why})")
        return lines


def _abstention(result: Result) -> str:
    if result.status == SKIP:
        return f"skipped: {result.reason}"
    if result.judged_by.startswith("case"):
        return "rejected it without naming an error class"
    return f"judged by {result.judged_by}"


def _confirms(result: Result) -> bool:
    # A judge that rejected without naming the class did not confirm an expected class.
    error = result.actual.get("error") or {}
    return result.status == PASS and result.judged_by.startswith("case") and error.get("class") != UNCLASSIFIED


def judge_name(judge: Target) -> str:
    """How verdicts name a judge: its target name (``kubectl-apply``, ``upstream@1.27``)."""
    return judge.name


def verify(cases: Sequence[Case], judges: Iterable[Target]) -> Verification:
    verification = Verification([], [], [])
    for judge in judges:
        verification.judges.append(f"{judge_name(judge)} {judge.info.version}")
        for result in run_cases(cases, judge):
            if _confirms(result):
                implementation = implementation_of(judge)
                verification.confirmations.append(
                    Confirmation(result.case, implementation, judge.info.version, via_of(judge, result.case),
                                 judge_name(judge)))
            elif result.status in (FAIL, ERROR):
                verification.contradictions.append(Judgement(result, judge_name(judge), judge.info.version))
            else:
                verification.abstentions.append(Judgement(result, judge_name(judge), judge.info.version))
    return verification


def missing_provenance(verification: Verification) -> list[Confirmation]:
    """Confirmations the cases do not record yet (same implementation and version)."""
    missing = []
    for confirmation in verification.confirmations:
        recorded = {(p["implementation"], str(p["version"]).lstrip("v")) for p in confirmation.case.provenance}
        if (confirmation.implementation, confirmation.version.lstrip("v")) not in recorded:
            missing.append(confirmation)
    return missing


def record(confirmations: Sequence[Confirmation], repo_root: Path) -> list[Path]:
    """Add the confirmations to the case files' provenance; returns the files changed.

    A confirmation shared by every case that takes the file's default provenance goes into
    ``defaults``; otherwise the case gets (a copy of the default and) its own entry. The
    edit is textual, so layout and comments stay as written, and it is checked: the file
    must load back to exactly the old data plus the new entries, or it is left untouched.
    """
    by_file: dict[str, list[Confirmation]] = defaultdict(list)
    for confirmation in confirmations:
        by_file[confirmation.case.file].append(confirmation)
    changed = []
    for file, entries in sorted(by_file.items()):
        path = entries[0].case.path or repo_root / file
        before = path.read_text(encoding="utf-8")
        after, expected = _edited(before, entries)
        if load_text(after) != expected:
            raise RecordError(f"{file}: its layout is not one the provenance editor understands; edit it by hand")
        path.write_text(after, encoding="utf-8")
        changed.append(path)
    return changed


class RecordError(Exception):
    pass


def _entry_text(implementation: str, version: str, via: str) -> str:
    escaped = via.replace('"', '\\"')
    return f'{{implementation: {implementation}, version: "{version.removeprefix("v")}", via: "{escaped}"}}'


def _entry(implementation: str, version: str, via: str) -> dict[str, str]:
    # one form for every judge ("1.33.13"): a server says "v1.33.13", record writes it without the "v"
    return {"implementation": implementation, "version": version.removeprefix("v"), "via": via}


def _edited(text: str, entries: Sequence[Confirmation]) -> tuple[str, dict]:
    data = load_text(text)
    expected = copy.deepcopy(data)
    defaults = expected.get("defaults") or {}
    inheriting = {case["name"] for case in data["cases"] if "provenance" not in case}
    by_judge: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for confirmation in entries:
        via = confirmation.via or VIA.get(confirmation.implementation, confirmation.implementation)
        by_judge[(confirmation.implementation, confirmation.version, via)].add(confirmation.case.name)
    lines = text.splitlines(keepends=True)
    for (implementation, version, via), names in sorted(by_judge.items()):
        line = _entry_text(implementation, version, via)
        if "provenance" in defaults and inheriting and inheriting <= names:
            _append_to_list(lines, _defaults_span(lines), line)
            defaults["provenance"].append(_entry(implementation, version, via))
            names = names - inheriting
        for name in sorted(names):
            case = next(c for c in expected["cases"] if c["name"] == name)
            span = _case_span(lines, name)
            if "provenance" not in case:
                inherited = [_flow(item) for item in defaults.get("provenance", [])]
                _insert_block(lines, span, ["provenance:", *(f"  - {item}" for item in [*inherited, line])])
                entry = _entry(implementation, version, via)
                case["provenance"] = [*copy.deepcopy(defaults.get("provenance", [])), entry]
            else:
                _append_to_list(lines, span, line)
                case["provenance"].append(_entry(implementation, version, via))
    return "".join(lines), expected


def _flow(item: dict) -> str:
    parts = []
    for key, value in item.items():
        parts.append(f"{key}: " + json.dumps(str(value), ensure_ascii=False))
    return "{" + ", ".join(parts) + "}"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _defaults_span(lines: list[str]) -> tuple[int, int]:
    start = next(i for i, line in enumerate(lines) if line.rstrip() == "defaults:")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() and _indent(lines[i]) == 0), len(lines))
    return start, end


def _case_span(lines: list[str], name: str) -> tuple[int, int]:
    pattern = re.compile(rf"^(\s*)- name: ['\"]?{re.escape(name)}['\"]?\s*$")
    for start, line in enumerate(lines):
        match = pattern.match(line)
        if match:
            depth = len(match.group(1))
            end = next(
                (i for i in range(start + 1, len(lines)) if lines[i].strip() and _indent(lines[i]) <= depth),
                len(lines),
            )
            return start, end
    raise RecordError(f"case {name!r} not found")


def _append_to_list(lines: list[str], span: tuple[int, int], entry: str) -> None:
    start, end = span
    header = next(i for i in range(start, end) if lines[i].strip() == "provenance:")
    depth = _indent(lines[header])
    last = header
    for i in range(header + 1, end):
        if lines[i].strip() and _indent(lines[i]) <= depth and not lines[i].lstrip().startswith("- "):
            break
        if lines[i].strip() and _indent(lines[i]) <= depth:
            break
        if lines[i].strip():
            last = i
    item_indent = _indent(lines[header + 1]) if header + 1 < end else depth + 2
    lines.insert(last + 1, " " * item_indent + f"- {entry}\n")


def _insert_block(lines: list[str], span: tuple[int, int], block: list[str]) -> None:
    start, end = span
    depth = _indent(lines[start]) + 2
    last = max(i for i in range(start, end) if lines[i].strip())
    lines[last + 1:last + 1] = [" " * depth + text + "\n" for text in block]
