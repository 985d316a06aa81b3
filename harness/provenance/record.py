"""``patchconf record``: ask Kubernetes what a case's inputs produce, and write it into the case.

For every case that states its inputs but no expectation, the first judge that can run it
(``upstream``, unless ``--judges`` says otherwise) answers. Its answer becomes the case's
expectation: the result document, the created patch, or the error's class with a short
fragment of its message; for a server-side apply case, each step's object, managedFields,
whether it wrote, or its error with the conflicts. That candidate is then verified as
``patchconf verify`` would, on every judge: if any judge contradicts it, nothing is written
for the case and both answers are shown; otherwise the expectation is written, with a
provenance entry for every judge that confirmed it (see :mod:`patchconf.harness.corpus.caseedit` for how
the file keeps its comments and layout).

``patchconf verify --write`` records here too (:func:`write_confirmations`): the judges that
confirmed a case's own expectation join its provenance.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...reference_impl.patch_types import patch_type
from ..corpus.caseedit import CaseAddition, EditError, Quoted, add_to_cases
from ..corpus.cases import ABSENT, Case, Purpose, load_file
from ..corpus.compare import show
from ..corpus.yamlio import load_text
from ..running.runner import UNCLASSIFIED
from ..targets.base import Actual, ActualError, Target, TargetCrash, TargetDeclined
from .verify import VIA, Confirmation, Judgement, judge_name, verify

RECORDED, DISAGREED, UNANSWERED = "recorded", "disagreed", "unanswered"
FRAGMENT_LENGTH = 60


class Unrecordable(Exception):
    """The answer cannot be written as an expectation (e.g. an error without a class)."""


@dataclass(frozen=True)
class Recording:
    """What record found for one case, and what it writes (only when ``status`` is RECORDED)."""

    case: Case
    status: str
    members: dict[str, Any] = field(default_factory=dict)
    step_members: tuple[dict[str, Any], ...] = ()
    provenance: tuple[dict[str, str], ...] = ()
    answered_by: str = ""
    answer: dict[str, Any] = field(default_factory=dict)
    dissent: tuple[Judgement, ...] = ()
    reasons: tuple[str, ...] = ()
    confirmed_by: tuple[str, ...] = ()  # judges and versions, e.g. "kubectl-apply 1.32.4"

    def addition(self) -> CaseAddition:
        return CaseAddition(self.case.name, {**self.members, "provenance": [quoted(e) for e in self.provenance]},
                            self.step_members)

    def lines(self) -> list[str]:
        """What to tell the contributor about this case (the diff is shown separately)."""
        case_id = self.case.id
        if self.status == RECORDED:
            return [f"RECORDED {case_id}: answered by {self.answered_by}, confirmed by {', '.join(self.confirmed_by)}"]
        if self.status == DISAGREED:
            lines = [f"DISAGREED {case_id}: the judges disagree; nothing written for it",
                     f"  {self.answered_by} answered: {show(self.answer)}"]
            for judgement in self.dissent:
                lines.append(f"  {judgement.by} answered: {show(judgement.result.actual)}")
                lines += [f"    {line}" for line in (judgement.result.diff or (judgement.reason,))]
            return lines
        lines = [f"UNANSWERED {case_id}: nothing written for it"]
        if self.answered_by:
            lines.append(f"  {self.answered_by} answered: {show(self.answer)}")
        return lines + [f"  {reason}" for reason in self.reasons]


@dataclass(frozen=True)
class FileChange:
    """One file's edit; with ``error``, why it was left as it was."""

    path: Path
    shown: str
    before: str
    after: str
    error: str = ""

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True),
                                            self.after.splitlines(keepends=True),
                                            fromfile=f"a/{self.shown}", tofile=f"b/{self.shown}"))


def provenance_entry(confirmation: Confirmation) -> dict[str, str]:
    """The provenance entry of a confirmation, its version as the corpus writes it ("1.33.13", not a
    server's "v1.33.13")."""
    via = confirmation.via or VIA.get(confirmation.implementation, confirmation.implementation)
    return {"implementation": confirmation.implementation, "version": confirmation.version.removeprefix("v"),
            "via": via}


def quoted(entry: dict[str, str]) -> dict[str, str]:
    """A provenance entry as the corpus writes it: its version and via in double quotes."""
    return {key: Quoted(value) if key != "implementation" and isinstance(value, str) else value
            for key, value in entry.items()}


# --- asking ---------------------------------------------------------------------------------


def record_cases(cases: Sequence[Case], judges: Sequence[Target]) -> list[Recording]:
    """Ask the judges about each case (all of which need an expectation) and verify the answer."""
    pending: list[tuple[Case, Case, str, Actual, dict, tuple]] = []
    recordings: dict[str, Recording] = {}
    for case in cases:
        answer, judge, reasons = _first_answer(case, judges)
        if judge is None:
            recordings[case.id] = Recording(case, UNANSWERED, reasons=(*reasons, "no judge could run it"))
            continue
        by = f"{judge_name(judge)} {judge.info.version}"
        try:
            members, step_members = expectation_members(case, answer, judge)
        except Unrecordable as exc:
            recordings[case.id] = Recording(case, UNANSWERED, answered_by=by, answer=answer.to_json(),
                                            reasons=(*reasons, str(exc)))
            continue
        candidate = _candidate(case, members, step_members)
        pending.append((case, candidate, by, answer, members, step_members))
    verification = verify([candidate for _, candidate, *_ in pending], judges)
    for case, _candidate_case, by, answer, members, step_members in pending:
        dissent = tuple(j for j in verification.contradictions if j.case.id == case.id)
        confirmations = [c for c in verification.confirmations if c.case.id == case.id]
        if dissent:
            recordings[case.id] = Recording(case, DISAGREED, members, step_members, answered_by=by,
                                            answer=answer.to_json(), dissent=dissent)
        elif not confirmations:
            recordings[case.id] = Recording(case, UNANSWERED, answered_by=by, answer=answer.to_json(),
                                            reasons=("no judge confirmed the answer when asked again",))
        else:
            provenance = tuple({(c.implementation, c.version, c.via): provenance_entry(c)
                                for c in confirmations}.values())
            recordings[case.id] = Recording(case, RECORDED, members, step_members, provenance, by,
                                            answer.to_json(), confirmed_by=tuple(c.by for c in confirmations))
    return [recordings[case.id] for case in cases]


def _first_answer(case: Case, judges: Sequence[Target]) -> tuple[Actual | None, Target | None, list[str]]:
    """The answer of the first judge that runs the case, and why the ones before it did not."""
    reasons = []
    for judge in judges:
        by = f"{judge_name(judge)} {judge.info.version}"
        skip = judge.skip_reason(case)
        if skip:
            reasons.append(f"{by} skipped it: {skip}")
            continue
        try:
            return judge.run(case), judge, reasons
        except TargetDeclined as exc:
            reasons.append(f"{by} declined it: {exc}")
        except TargetCrash as exc:
            reasons.append(f"{by} failed on it: {exc}")
        except Exception as exc:  # a judge's bug must not stop the others
            reasons.append(f"{by} raised {type(exc).__name__}: {exc}")
    return None, None, reasons


def _candidate(case: Case, members: dict[str, Any], step_members: tuple[dict[str, Any], ...]) -> Case:
    if step_members:
        steps = [{**step, **added} for step, added in zip(case.inputs["steps"], step_members, strict=True)]
        return case.with_members({"steps": steps})
    return case.with_members(members)


# --- answers as expectations ------------------------------------------------------------------


def expectation_members(case: Case, actual: Actual, judge: Target) -> tuple[dict[str, Any], tuple[dict, ...]]:
    """The case members (or, for a step sequence, each step's) that state what ``judge`` answered."""
    messages = judge.compares_messages(case)
    if case.type == "server-side-apply":
        return {}, _step_members(case, actual, messages)
    if actual.error is not None:
        return {"expected_error": _error_expectation(actual.error, messages, actual.unchanged)}, ()
    members: dict[str, Any] = {}
    creates = case.type == "apply" and case.inputs.get("current") is None  # kubectl apply creating: no patch
    if patch_type(case.type).states_patch and not creates:
        if actual.patch is ABSENT:
            raise Unrecordable("the answer has no created patch")
        members["expected_patch"] = in_order_of(actual.patch, case.inputs.get("modified"))
    if actual.document is not ABSENT:
        members["expected"] = in_order_of(actual.document, _document_input(case))
    if not members:
        raise Unrecordable("the answer has neither a document nor a patch")
    return members, ()


def _document_input(case: Case) -> Any:
    """The input the result document grows from (its key order is the one a reader expects)."""
    for key in ("current", "original", "modified"):
        if isinstance(case.inputs.get(key), dict):
            return case.inputs[key]
    return None


def in_order_of(value: Any, like: Any) -> Any:
    """``value`` with its mappings' keys in the order ``like`` has them (Go sorts them), the
    others after; equal as JSON, only easier to read beside the case's inputs."""
    if isinstance(value, dict):
        reference = like if isinstance(like, dict) else {}
        keys = [k for k in reference if k in value] + [k for k in value if k not in reference]
        return {k: in_order_of(value[k], reference.get(k)) for k in keys}
    if isinstance(value, list):
        reference = like if isinstance(like, list) else []
        return [in_order_of(item, _counterpart(item, reference, index)) for index, item in enumerate(value)]
    return value


def _counterpart(item: Any, reference: list, index: int) -> Any:
    # a merged list's element by its name, else by position
    if isinstance(item, dict) and "name" in item:
        for candidate in reference:
            if isinstance(candidate, dict) and candidate.get("name") == item["name"]:
                return candidate
    return reference[index] if index < len(reference) else None


def _error_expectation(error: ActualError, messages: bool, unchanged: bool | None = None) -> dict[str, Any]:
    if error.error_class == UNCLASSIFIED:
        raise Unrecordable(f"it was rejected without an error class ({error.message}); "
                           "state expected_error by hand, or teach the judge the class")
    if error.alternatives:
        classes = ", ".join((error.error_class, *error.alternatives))
        raise Unrecordable(f"the answer cannot tell which of {classes} the error is; state expected_error by hand")
    expectation: dict[str, Any] = {"class": error.error_class}
    if messages and error.message:
        expectation["message"] = message_fragment(error.message)
    if error.status is not None:
        expectation["status"] = error.status
    if error.reason:
        expectation["reason"] = error.reason
    if unchanged:
        expectation["unchanged"] = True
    return expectation


def _step_members(case: Case, actual: Actual, messages: bool) -> tuple[dict[str, Any], ...]:
    if actual.error is not None:
        raise Unrecordable(f"the step sequence failed as a whole: {actual.error.error_class}: {actual.error.message}")
    steps = actual.document.get("steps") if isinstance(actual.document, dict) else None
    wanted = len(case.inputs.get("steps", ()))
    if not isinstance(steps, list) or len(steps) != wanted:
        raise Unrecordable(f"the answer does not have one result for each of the {wanted} steps")
    return tuple(_one_step(result, messages) for result in steps)


def _one_step(result: Any, messages: bool) -> dict[str, Any]:
    if not isinstance(result, dict):
        raise Unrecordable(f"a step result is not an object: {show(result)}")
    error = result.get("error")
    if error:
        conflicts = [{"manager": c["manager"], "field": c["field"]} for c in error.get("conflicts") or ()]
        expectation = _error_expectation(ActualError(str(error.get("class", UNCLASSIFIED)),
                                                     str(error.get("message", ""))), messages=False)
        message = str(error.get("message", ""))
        if messages and message:
            expectation["message"] = conflict_fragment(message, conflicts) or message_fragment(message)
        if conflicts:
            expectation["conflicts"] = conflicts
        return {**_warnings(result), "expected_error": expectation}
    members: dict[str, Any] = {}
    if "document" in result:
        members["expected"] = result["document"]  # in the server's order, as its managedFields are
    entries = result.get("managed_fields")
    # Entries with unknown times (``time: null``: a judge that could not tell which step wrote an
    # entry) would not match a judge that knows them; an entry without ``time`` is one the server
    # wrote without a time. The live target maps its server's timestamps to steps (ssa_flow.StepTimes).
    if isinstance(entries, list) and all(isinstance(e, dict) and ("time" not in e or e["time"] is not None)
                                         for e in entries):
        members["expected_managed_fields"] = entries
    if isinstance(result.get("changed"), bool):
        members["expected_changed"] = result["changed"]
    members.update(_warnings(result))
    if not members:
        raise Unrecordable(f"a step result states nothing: {show(result)}")
    return members


def _warnings(result: dict[str, Any]) -> dict[str, Any]:
    """kubectl's warnings, where the judge reports them (kubectl-apply steps)."""
    warnings = result.get("warnings")
    return {"expected_warnings": list(warnings)} if isinstance(warnings, list) else {}


# --- message fragments ---------------------------------------------------------------------------

# What an error message quotes rather than says: Go maps, JSON, long or non-word quoted text.
_DATA = re.compile(r"""map\[|[\[{]|"[^"]*[^\w\s"][^"]*"|'[^']*[^\w\s'][^']*'""")
_TRAILING_WORDS = re.compile(r"(?:\s+(?:in|at|of|for|with|from|to|and|or|the|a|an|on|by|using))+$", re.IGNORECASE)


def message_fragment(message: str) -> str:
    """A short piece of Kubernetes' own wording in ``message``, without the data it quotes.

    ``map: map[image:b] does not contain declared merge key: name`` gives ``does not contain
    declared merge key``. The fragment is always a substring of the message.
    """
    segments = [_trim(segment) for segment in re.split(r":\s|;\s|\n", _blank_data(message))]
    candidates = [s for s in segments if len(re.findall(r"[A-Za-z]{2,}", s)) >= 2]
    if not candidates:
        return _shorten(message.strip())
    best = max(candidates, key=lambda s: (not re.search(r"[0-9/]", s), min(len(s), FRAGMENT_LENGTH)))
    return _shorten(best)


def conflict_fragment(message: str, conflicts: Sequence[dict[str, str]]) -> str | None:
    """For a server-side apply conflict: ``conflict with "<manager>"``, as the server words it."""
    for conflict in conflicts:
        fragment = f'conflict with "{conflict["manager"]}"'
        if fragment.lower() in message.lower():
            start = message.lower().index(fragment.lower())
            return message[start:start + len(fragment)]
    return None


def _blank_data(message: str) -> str:
    """The message with quoted data blanked out (as ``\\n``, a segment boundary); same length."""
    out = list(message)
    position = 0
    while match := _DATA.search(message, position):
        start = match.start()
        end = _data_end(message, start, match.group())
        out[start:end] = "\n" * (end - start)
        position = end
    return "".join(out)


def _data_end(message: str, start: int, token: str) -> int:
    if token[0] in "\"'":
        return start + len(token)
    depth, index = 0, start
    while index < len(message):
        char = message[index]
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(message)


def _trim(segment: str) -> str:
    segment = segment.strip().strip(",.;:").strip()
    # a ")" closing what an earlier segment opened (kubectl's "missing field (/b/-: missing value)")
    while segment.endswith(")") and segment.count(")") > segment.count("("):
        segment = segment[:-1].rstrip()
    return _TRAILING_WORDS.sub("", segment).strip()


def _shorten(text: str) -> str:
    if len(text) <= FRAGMENT_LENGTH:
        return text
    cut = text[:FRAGMENT_LENGTH].rsplit(" ", 1)[0]
    return _TRAILING_WORDS.sub("", cut).strip() or text[:FRAGMENT_LENGTH]


# --- writing ---------------------------------------------------------------------------------------


def write_recordings(recordings: Sequence[Recording], dry_run: bool = False) -> list[FileChange]:
    """Write every recorded case into its file (unless ``dry_run``); returns each file's change.

    A file whose edit does not load back exactly, or whose recorded cases would not then be
    valid, is left as it was: its change carries the reason.
    """
    by_file: dict[Path, list[Recording]] = {}
    for recording in recordings:
        if recording.status == RECORDED and recording.case.path is not None:
            by_file.setdefault(recording.case.path, []).append(recording)
    changes = []
    for path, entries in by_file.items():
        shown = entries[0].case.file
        before = path.read_text(encoding="utf-8")
        try:
            after = add_to_cases(before, [entry.addition() for entry in entries], path.suffix)
        except EditError as exc:
            changes.append(FileChange(path, shown, before, before, f"{exc}; nothing written to it"))
            continue
        if not dry_run:
            path.write_text(after, encoding="utf-8")
            names = {entry.case.name for entry in entries}
            problems = [e for e in load_file(path, Purpose.VERIFY)[1] if e.case in names]
            if problems:
                path.write_text(before, encoding="utf-8")
                changes.append(FileChange(path, shown, before, before, "the recorded cases would not be valid ("
                                          + "; ".join(str(p) for p in problems) + "); nothing written to it"))
                continue
        changes.append(FileChange(path, shown, before, after))
    return changes


def write_confirmations(confirmations: Sequence[Confirmation], dry_run: bool = False) -> list[FileChange]:
    """Add the confirmations to their cases' provenance (unless ``dry_run``); returns each file's change.

    A confirmation shared by every case that takes the file's default provenance goes into
    ``defaults``; otherwise the case gets its own entry (a case that took the default gets its
    own list: the default's entries, then the new ones). A file the edit cannot be made in
    exactly is left as it was: its change carries the reason.
    """
    by_file: dict[Path, list[Confirmation]] = {}
    for confirmation in confirmations:
        if confirmation.case.path is not None:
            by_file.setdefault(confirmation.case.path, []).append(confirmation)
    changes = []
    for path, entries in by_file.items():
        shown = entries[0].case.file
        before = path.read_text(encoding="utf-8")
        try:
            additions, to_defaults = _provenance_additions(load_text(before, path.suffix), entries)
            after = add_to_cases(before, additions, path.suffix, defaults_appended=to_defaults)
        except EditError as exc:
            changes.append(FileChange(path, shown, before, before, f"{exc}; nothing written to it"))
            continue
        if not dry_run:
            path.write_text(after, encoding="utf-8")
        changes.append(FileChange(path, shown, before, after))
    return changes


def _provenance_additions(data: dict[str, Any], confirmations: Sequence[Confirmation]
                          ) -> tuple[list[CaseAddition], dict[str, list[Any]]]:
    defaults = data.get("defaults") or {}
    default_provenance = defaults.get("provenance") if isinstance(defaults, dict) else None
    cases = [case for case in data.get("cases") or () if isinstance(case, dict)]
    inheriting = {case.get("name") for case in cases if "provenance" not in case} if default_provenance else set()
    by_entry: dict[tuple[str, str, str], set[str]] = {}
    for confirmation in confirmations:
        entry = provenance_entry(confirmation)
        by_entry.setdefault((entry["implementation"], entry["version"], entry["via"]), set()).add(
            confirmation.case.name)
    to_defaults: list[dict[str, str]] = []
    by_case: dict[str, list[dict[str, str]]] = {}
    for (implementation, version, via), names in sorted(by_entry.items()):
        entry = quoted({"implementation": implementation, "version": version, "via": via})
        if inheriting and inheriting <= names:
            to_defaults.append(entry)
            names = names - inheriting
        for name in sorted(names):
            by_case.setdefault(name, []).append(entry)
    additions = []
    for case in cases:
        added = by_case.get(case.get("name"))
        if not added:
            continue
        if "provenance" in case:
            additions.append(CaseAddition(case["name"], appended={"provenance": added}))
        else:  # it took the default: its own list keeps what the default says, with what it says now
            own = [quoted(entry) if isinstance(entry, dict) else entry for entry in default_provenance or ()]
            own += to_defaults + added
            additions.append(CaseAddition(case["name"], {"provenance": own}))
    return additions, ({"provenance": to_defaults} if to_defaults else {})
