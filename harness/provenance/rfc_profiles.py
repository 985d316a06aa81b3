"""``patchconf verify --rfc``: the ``rfc`` profile checked against RFC 6902 / RFC 7396 libraries, not trusted.

A JSON Patch, merge patch or merge patch creation (``merge-patch-2way``) case's ``profiles.rfc``
says what the RFCs prescribe where Kubernetes departs from them; a case without one claims that
Kubernetes' answer is the RFCs' too. Both claims are put to libraries that implement the RFCs (the
adapters of the compliance matrix). Where two of them written in different languages give the same
answer (the same document, or both an error, whatever its class) and the case claims another, the
case is wrong: its ``profiles.rfc`` is, or it lacks one. Libraries of one language are not
independent witnesses (JavaScript's numbers are doubles in every JavaScript library), so a verdict
needs two languages. A profile's answer comes from those libraries agreeing and the RFC text, never
from patchconf's reference.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...reference_impl.patch_types import patch_type
from .. import SOURCE_ROOT, counted
from ..corpus.cases import ABSENT, Case, Outcome
from ..corpus.compare import json_equal, show
from ..running.runner import FAIL, PASS, Result, run_cases
from ..targets import TargetUnavailable, make_target

# merge-patch-2way: RFC 7396 defines no creation, but any patch it creates must apply (section 2) to the
# modified document, which the libraries' creators do
ADAPTERS = SOURCE_ROOT / "adapters"


@dataclass(frozen=True)
class RfcLibrary:
    """A library of the compliance matrix that implements an RFC, run through its adapter."""

    name: str
    language: str
    patch_types: tuple[str, ...]
    interpreter: str  # python (this Python) or node
    adapter: str  # the adapter's path in the adapters directory

    def spec(self, adapters: Path = ADAPTERS) -> str:
        """The ``cmd:`` target that runs it."""
        interpreter = sys.executable if self.interpreter == "python" else self.interpreter
        return "cmd:" + shlex.join([interpreter, str(adapters / self.adapter)])


# Those a CI machine installs quickly: two Python packages (pip) and three npm packages. The others
# of the matrix (Rust, Java, Ruby, more JavaScript) would take minutes to build; any two languages do.
RFC_LIBRARIES = (
    RfcLibrary("python-jsonpatch", "Python", ("json-patch",), "python", "python-jsonpatch/adapter.py"),
    RfcLibrary("js-fast-json-patch", "JavaScript", ("json-patch",), "node", "js-fast-json-patch/adapter.js"),
    RfcLibrary("js-rfc6902", "JavaScript", ("json-patch",), "node", "js-rfc6902/adapter.js"),
    RfcLibrary("python-json-merge-patch", "Python", ("merge-patch", "merge-patch-2way"), "python",
               "python-json-merge-patch/adapter.py"),
    RfcLibrary("js-json-merge-patch", "JavaScript", ("merge-patch", "merge-patch-2way"), "node",
               "js-json-merge-patch/adapter.js"),
)


@dataclass(frozen=True)
class Answer:
    """One library's answer to a case: a document, or an error (its class and message only said)."""

    library: str  # name and version
    language: str
    actual: dict[str, Any]
    creates: bool = False  # a created patch is the answer (merge-patch-2way), not the document

    @property
    def failed(self) -> bool:
        return "error" in self.actual

    @property
    def value(self) -> Any:
        """The patch it created (merge-patch-2way), else the document it answered."""
        return self.actual.get("patch") if self.creates else self.actual.get("document")

    def same(self, other: Answer) -> bool:
        if self.failed or other.failed:
            return self.failed and other.failed
        return json_equal(self.value, other.value)

    def meets(self, outcome: Outcome) -> bool:
        """Whether the answer is the outcome's: an error for an expected error (any class), else its document
        (its created patch where it states no document)."""
        if outcome.error is not None or self.failed:
            return outcome.error is not None and self.failed
        wanted = outcome.patch if self.creates else outcome.document
        return wanted is ABSENT or json_equal(wanted, self.value)

    def describe(self) -> str:
        if self.failed:
            error = self.actual["error"]
            return f"an error ({error.get('class')}: {error.get('message', '')})"
        return f"the {'patch' if self.creates else 'document'} {show(self.value)}"


@dataclass(frozen=True)
class Departure:
    """A case whose RFC claim libraries of two languages contradict."""

    case: Case
    answers: tuple[Answer, ...]  # the agreeing answers, one per library

    @property
    def claim(self) -> str:
        return "profiles.rfc" if "rfc" in self.case.profiles else "the case (no profiles.rfc)"

    def line(self) -> str:
        names = " and ".join(f"{answer.library} ({answer.language})" for answer in self.answers)
        if "rfc" in self.case.profiles:
            claimed = _outcome_text(self.case.profiles["rfc"].outcome)
            return (f"RFC-PROFILE {self.case.id}: profiles.rfc says {claimed}, but {names} agree on "
                    f"{self.answers[0].describe()}")
        return (f"RFC-PROFILE {self.case.id}: no profiles.rfc, though Kubernetes' answer "
                f"({_outcome_text(self.case.outcome)}) is not the RFC libraries': {names} agree on "
                f"{self.answers[0].describe()}")


def _outcome_text(outcome: Outcome) -> str:
    if outcome.error is not None:
        return f"error {outcome.error.error_class}"
    if outcome.patch is not ABSENT:
        return f"the patch {show(outcome.patch)}"
    return f"the document {show(outcome.document)}"


@dataclass
class RfcCheck:
    """What the libraries said of each case: departures, cases they settled, cases they left open."""

    libraries: list[str] = field(default_factory=list)  # name, version, language of each that ran
    unavailable: list[str] = field(default_factory=list)  # each library that could not run, and why
    departures: list[Departure] = field(default_factory=list)
    confirmed: int = 0  # cases whose claim libraries of two languages share
    undecided: list[Case] = field(default_factory=list)  # no two languages agreed (or no answer)
    unchecked_types: list[str] = field(default_factory=list)  # patch types without two languages running

    @property
    def ok(self) -> bool:
        return not self.departures and not self.unchecked_types

    def report_lines(self) -> list[str]:
        lines = [f"rfc: library unavailable, not used: {why}" for why in self.unavailable]
        lines += [departure.line() for departure in self.departures]
        lines += [f"rfc: {kind} cases not checked: fewer than two languages of RFC libraries ran"
                  for kind in self.unchecked_types]
        lines.append(f"rfc: {', '.join(self.libraries) or 'no library'}; {counted(self.confirmed, 'case')} confirmed, "
                     f"{counted(len(self.departures), 'departure')}, {len(self.undecided)} undecided "
                     "(no two libraries of different languages agreed)")
        return lines


def check_rfc_profiles(cases: Sequence[Case], libraries: Iterable[RfcLibrary] = RFC_LIBRARIES,
                       adapters: Path = ADAPTERS, timeout: float | None = None) -> RfcCheck:
    """Every JSON Patch and merge patch case of ``cases`` on the libraries of its patch type."""
    check = RfcCheck()
    answers: dict[str, list[Answer]] = {}
    languages: dict[str, set[str]] = {}
    for library in libraries:
        selected = [case for case in cases if case.type in library.patch_types]
        if not selected:
            continue
        try:
            target = make_target(library.spec(adapters), timeout=timeout)
        except TargetUnavailable as exc:
            check.unavailable.append(f"{library.name}: {exc}")
            continue
        label = f"{library.name} {target.info.version}"
        check.libraries.append(f"{label} ({library.language})")
        for kind in library.patch_types:
            languages.setdefault(kind, set()).add(library.language)
        try:
            for result in run_cases(selected, target):
                if _answered(result):
                    answers.setdefault(result.case.id, []).append(
                        Answer(label, library.language, result.actual, patch_type(result.case.type).creates_patch))
        finally:
            target.close()
    kinds = {case.type for case in cases if patch_type(case.type).rfc}
    check.unchecked_types = sorted(kind for kind in kinds if len(languages.get(kind, ())) < 2)
    for case in cases:
        if not patch_type(case.type).rfc or case.type in check.unchecked_types:
            continue
        agreed = consensus(answers.get(case.id, []))
        if agreed is None:
            check.undecided.append(case)
        elif any(agreed[0].meets(outcome) for outcome in rfc_claims(case)):
            check.confirmed += 1
        else:
            check.departures.append(Departure(case, agreed))
    return check


def _answered(result: Result) -> bool:
    """A library's result holds its answer (it ran the case and said something judgeable)."""
    return result.status in (PASS, FAIL) and any(key in result.actual for key in ("error", "document", "patch"))


def rfc_claims(case: Case) -> list[Outcome]:
    """The outcomes the case claims the RFCs prescribe: its ``rfc`` profile's, else Kubernetes' own."""
    if "rfc" in case.profiles:
        return [case.profiles["rfc"].outcome]
    return [case.outcome, *case.alternatives]


def consensus(answers: Sequence[Answer]) -> tuple[Answer, ...] | None:
    """The answers alike that come from at least two languages, when exactly one such group exists."""
    groups: list[list[Answer]] = []
    for answer in answers:
        group = next((g for g in groups if g[0].same(answer)), None)
        if group is None:
            groups.append([answer])
        else:
            group.append(answer)
    settled = [group for group in groups if len({answer.language for answer in group}) >= 2]
    return tuple(settled[0]) if len(settled) == 1 else None
