"""Running cases on a target: one Result per case, whatever the target does."""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import gc
import json
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..corpus import stored_objects
from ..corpus.caselines import case_source
from ..corpus.cases import ABSENT, Case, ExpectedError, Outcome, SchemaRef, result_json_text
from ..corpus.compare import explain, json_equal, show
from ..targets.base import (
    KUBERNETES,
    RFC_PROFILE,
    Actual,
    ActualError,
    Target,
    TargetCrash,
    TargetDeclined,
)
from . import apply_aspects

PASS, FAIL, ERROR, SKIP = "pass", "fail", "error", "skip"
FAILING = (FAIL, ERROR)  # the statuses that fail a run
UNCLASSIFIED = "unclassified"
# What a result keeps of an answer (and of an expectation): members whose JSON is longer are
# stored as a note with their beginning, so results and reports stay small whatever a target printed.
STORED_CHARS = 64 * 1024
STORED_HEAD_CHARS = 2000
STORED_DIFF_LINES = 100
STORED_LINE_CHARS = 2000


@dataclass(frozen=True)
class Filters:
    """Which cases to run; every given criterion must match (repeats of one are ORed)."""

    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    referenced: bool = False  # only cases answering a public issue (their ``references``)

    def accepts(self, case: Case) -> bool:
        if self.referenced and not case.references:
            return False
        if self.types and case.type not in self.types:
            return False
        if self.tags and not any(_tag_matches(t, case.tags) for t in self.tags):
            return False
        if self.paths and not any(_path_matches(p, case.file) for p in self.paths):
            return False
        if self.ids and not any(case.answers_to(i) for i in self.ids):
            return False
        # a renamed case still answers to its former names (aliases)
        return not self.names or any(n in name for n in self.names for name in (case.name, *case.aliases))


def _tag_matches(wanted: str, tags: Sequence[str]) -> bool:
    # "SMP" selects every SMP-* id; "SMP-MAP" exactly that id.
    return any(tag == wanted or tag.startswith(wanted + "-") for tag in tags)


def _path_matches(pattern: str, file: str) -> bool:
    return file.startswith(pattern.rstrip("/")) or fnmatch.fnmatch(file, pattern)


@dataclass(frozen=True)
class Result:
    case: Case
    status: str
    reason: str = ""
    diff: tuple[str, ...] = ()
    expected: dict[str, Any] = field(default_factory=dict)
    actual: dict[str, Any] = field(default_factory=dict)
    judged_by: str = "case"
    seconds: float = 0.0
    # what the server did to the case's objects beyond the request and its defaults (admission,
    # policy): shown beside the judgement, never part of it
    server_changes: tuple[dict[str, Any], ...] = ()
    # a failure's case file and line, as read back from results (a fresh result works it out: location)
    source: str = ""
    # an apply answer's verdict per aspect (apply_aspects: object, request, annotation content and text),
    # and a line per difference outside the object
    aspects: dict[str, Any] = field(default_factory=dict)

    @property
    def location(self) -> str:
        """``path:line`` of the case in the corpus the run read, '' where not known."""
        return self.source or case_source(self.case)

    def to_json(self) -> dict[str, Any]:
        data = {
            "id": self.case.id,
            "file": self.case.file,
            "name": self.case.name,
            "description": self.case.description,
            "type": self.case.type,
            "tags": list(self.case.tags),
            "status": self.status,
            "reason": self.reason,
            "diff": list(self.diff),
            "judged_by": self.judged_by,
            "expected": self.expected,
            "actual": self.actual,
            "seconds": round(self.seconds, 6),
        }
        if self.server_changes:
            data["server_changes"] = list(self.server_changes)
        if self.aspects:
            data["aspects"] = self.aspects
        if self.status in FAILING:  # what a reader needs to act on a failure, so that reports need no corpus
            case = self.case
            data["source"] = self.location
            data["inputs"] = stored(dict(case.inputs))
            if case.options:
                data["options"] = dict(case.options)
            if case.schema is not None:
                data["schema"] = _schema_json(case.schema)
        if self.case.aliases:  # so a later run is matched with this one across a rename
            data["former_ids"] = list(self.case.former_ids)
        return data

    @functools.cached_property
    def json_text(self) -> str:
        """:meth:`to_json` as JSON text, encoded once for results.jsonl and results.json alike."""
        return result_json_text(self.to_json())

    def __getattr__(self, name: str) -> Any:
        # A result a forked copy sent (_with_case) came as its JSON text: its expected and actual
        # values, which only a failure's report shows, are read from that text when first asked for.
        fields = self.__dict__
        if name in _SENT_AS_TEXT and "json_text" in fields and "case" in fields:
            data = json.loads(fields["json_text"])
            for member in _SENT_AS_TEXT:
                fields[member] = data[member]
            return fields[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def _schema_json(schema: SchemaRef) -> dict[str, str]:
    """A case's schema as case files state it (SchemaRef.from_json's inverse)."""
    members = {"apiVersion": schema.api_version, "kind": schema.kind, "version": schema.version, "named": schema.named}
    return {key: value for key, value in members.items() if value is not None}


def expectations(case: Case, target: Target) -> tuple[list[Outcome], str]:
    """The outcomes this target is judged by, and where they come from."""
    info = target.info
    for divergence in case.divergences:
        if divergence.applies_to(info.family, info.release):
            return [divergence.outcome, *divergence.alternatives], f"divergence: {divergence.reason}"
    if info.profile in case.profiles:
        return [case.profiles[info.profile].outcome], f"profile {info.profile}"
    outcomes = [case.outcome]
    if case.nondeterministic:
        outcomes.extend(case.alternatives)
        return outcomes, "case (nondeterministic upstream: any listed outcome)"
    return outcomes, "case"


def judge(case: Case, target: Target, actual: Actual, seconds: float = 0.0) -> Result:
    """The result of ``actual`` against the case's expectations, with what the target's server changed
    on the way (admission, policy) attached: an explanation, never a verdict."""
    result = _judged(case, target, actual, seconds)
    changes = target.server_changes(case, actual)
    return replace(result, server_changes=tuple(changes)) if changes else result


def _judged(case: Case, target: Target, actual: Actual, seconds: float) -> Result:
    outcomes, judged_by = expectations(case, target)
    rendered = [target.rendered(case, outcome) for outcome in outcomes]
    if any(new is not old for new, old in zip(rendered, outcomes, strict=True)):
        judged_by += "; expectation as the target renders it"
    outcomes = rendered
    if "patch" not in target.info.answers:
        outcomes = [replace(outcome, patch=ABSENT) for outcome in outcomes]
        judged_by += "; without the created patch (the target answers the resulting document only)"
    if case.type == "apply" and actual.error is None and actual.document is not ABSENT:
        return _judged_apply(case, target, outcomes, actual, judged_by, seconds)
    matched = next((outcome for outcome in outcomes if _same_success(outcome, actual)), None)
    if matched is not None and case.type != "server-side-apply":
        # The usual pass, found without explaining how the other outcomes differ (deepdiff is slow to load).
        return _result(case, PASS, "", (), matched, actual.to_json(), judged_by, seconds)
    if case.type == "server-side-apply":
        drop_status = not stored_objects.about_status(case)
        attempts = [_steps_attempt(case, outcome, actual, target.compares_messages(case), drop_status)
                    for outcome in outcomes]
    else:
        attempts = [_mismatches(outcome, actual, target.compares_messages(case)) for outcome in outcomes]
        if target.info.profile == RFC_PROFILE and actual.error is not None and all(attempts):
            # RFC 6902 and 7396 name no error classes: a library judged by them is judged on refusing alone
            lenient = [_mismatches(outcome, actual, target.compares_messages(case), compare_classes=False)
                       for outcome in outcomes]
            if min(map(len, lenient)) < min(map(len, attempts)):
                attempts = lenient
                judged_by += "; a refusal whatever its class (the RFCs name none)"
    best = min(attempts, key=len)
    status = PASS if not best else FAIL
    diff = stored_lines(best)
    reason = "" if status == PASS else "; ".join(diff[:3])
    return _result(case, status, reason, diff, outcomes[attempts.index(best)], actual.to_json(), judged_by, seconds)


def _judged_apply(case: Case, target: Target, outcomes: list[Outcome], actual: Actual, judged_by: str,
                  seconds: float) -> Result:
    """A successful apply answer: a tool's or library's passes or fails on the object alone, Kubernetes'
    own on everything; either way each aspect's verdict is kept (apply_aspects)."""
    compare_messages = target.compares_messages(case)
    whole = [_mismatches(outcome, actual, compare_messages) for outcome in outcomes]
    if target.info.category == KUBERNETES:
        judged = whole
    else:
        judged = [_mismatches(apply_aspects.object_outcome(outcome),
                              replace(actual, document=apply_aspects.without_last_applied(actual.document),
                                      patch=ABSENT), compare_messages)
                  if apply_aspects.judged_apart(outcome) else problems
                  for outcome, problems in zip(outcomes, whole, strict=True)]
        if any(apply_aspects.judged_apart(outcome) for outcome in outcomes):
            judged_by += "; apply: on the object, the request and last-applied annotation apart"
    best = min(range(len(outcomes)), key=lambda index: (len(judged[index]), len(whole[index])))
    outcome = outcomes[best]
    status = FAIL if judged[best] else PASS
    diff = stored_lines(judged[best])
    result = _result(case, status, "; ".join(diff[:3]), diff, outcome, actual.to_json(), judged_by, seconds)
    if not apply_aspects.judged_apart(outcome):
        return result
    verdicts, notes = apply_aspects.aspects(outcome, actual.document, actual.patch)
    return replace(result, aspects={**verdicts, **({"notes": list(stored_lines(notes))} if notes else {})})


def _result(case: Case, status: str, reason: str, diff: tuple[str, ...], outcome: Outcome,
            actual: dict[str, Any], judged_by: str, seconds: float) -> Result:
    """The result, the outcome it was judged by and the answer as it keeps them; their JSON text,
    which telling their size took, is kept for the result's own (json_text) instead of being written
    again. A case's own outcome comes with its text from the corpus."""
    expected, expected_text = _outcome_stored_and_text(outcome)
    actual, actual_text = _stored_and_text(actual)
    result = Result(case, status, reason, diff, expected, actual, judged_by, seconds)
    if expected_text is not None and actual_text is not None:
        # The result's JSON text written around the two: encoded with 0 in their places, which the
        # members before them (strings and lists of strings) cannot hold as JSON outside a string.
        text = result_json_text({**result.to_json(), "expected": 0, "actual": 0})
        head, found, tail = text.partition(_PLACES_OF_EXPECTED_AND_ACTUAL)
        if found:
            result.__dict__["json_text"] = f'{head}"expected": {expected_text}, "actual": {actual_text}{tail}'
    return result


_PLACES_OF_EXPECTED_AND_ACTUAL = '"expected": 0, "actual": 0'


def _steps_attempt(case: Case, outcome: Outcome, actual: Actual, compare_messages: bool,
                   drop_status: bool) -> list[str]:
    """_steps_mismatches of the steps as stated. Most answers match: their objects are compared as
    stated without making the judged copy first; only a mismatch is told on that copy."""
    def as_stated_equal(stated: Any, document: Any) -> bool:
        return stored_objects.stated_equal(stated, document, drop_status)

    if not _steps_mismatches(outcome, actual, compare_messages, as_stated_equal):
        return []
    return _steps_mismatches(outcome, _as_stated(case, outcome, actual), compare_messages)


def _as_stated(case: Case, outcome: Outcome, actual: Actual) -> Actual:
    """Step objects without the server-set fields the outcome does not state (harness/corpus/stored_objects.py)."""
    steps = actual.document.get("steps") if isinstance(actual.document, dict) else None
    stated = outcome.document.get("steps") if isinstance(outcome.document, dict) else None
    if actual.error is not None or not isinstance(steps, list) or not isinstance(stated, list):
        return actual
    return replace(actual, document={**actual.document, "steps": stored_objects.as_stated(case, steps, stated)})


def _same_success(expected: Outcome, actual: Actual) -> bool:
    """Whether _mismatches would find nothing for a successful outcome, without explaining differences."""
    if expected.error is not None or actual.error is not None:
        return False
    return all(want is ABSENT or (got is not ABSENT and json_equal(want, got))
               for want, got in ((expected.document, actual.document), (expected.patch, actual.patch)))


def stored(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as a result keeps it: a member over STORED_CHARS of JSON becomes a note with its beginning."""
    return _stored_and_text(data)[0]


def _outcome_stored_and_text(outcome: Outcome) -> tuple[dict[str, Any], str | None]:
    """:func:`_stored_and_text` of the outcome's JSON, told from the text it keeps."""
    try:
        text = outcome.json_text
    except (RecursionError, ValueError, TypeError):
        text = None
    if text is not None and len(text) <= STORED_CHARS:
        return outcome.to_json(), text
    return _stored_and_text(outcome.to_json())


def _stored_and_text(data: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """:func:`stored`, and the JSON text of ``data`` where it is kept whole."""
    try:
        text = result_json_text(data)
        if len(text) <= STORED_CHARS:
            return data, text  # no member can be over: one encoding instead of one per member
    except (RecursionError, ValueError, TypeError):
        pass  # told member by member below
    kept: dict[str, Any] = {}
    for key, value in data.items():
        try:
            text = result_json_text(value)
        except (RecursionError, ValueError, TypeError) as exc:
            kept[key] = f"<not stored by patchconf: {type(exc).__name__}>"
            continue
        if len(text) <= STORED_CHARS:
            kept[key] = value
        elif key == "error" and isinstance(value, dict):
            kept[key] = {k: clip(v, STORED_HEAD_CHARS) if isinstance(v, str) else v for k, v in value.items()}
        else:
            kept[key] = (f"<truncated by patchconf: {len(text):,} characters of JSON, over the {STORED_CHARS:,} "
                         f"a result keeps; they begin: {text[:STORED_HEAD_CHARS]}>")
    return kept, None


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]} …({len(text) - limit:,} more characters)"


def stored_lines(lines: Sequence[str]) -> tuple[str, ...]:
    """Difference lines as a result keeps them: at most STORED_DIFF_LINES, each cut to STORED_LINE_CHARS."""
    kept = [clip(line, STORED_LINE_CHARS) for line in lines[:STORED_DIFF_LINES]]
    if len(lines) > STORED_DIFF_LINES:
        kept.append(f"…and {len(lines) - STORED_DIFF_LINES:,} more differences")
    return tuple(kept)


def _mismatches(expected: Outcome, actual: Actual, compare_messages: bool, compare_classes: bool = True) -> list[str]:
    if expected.error is not None:
        if actual.error is None:
            got = show(actual.document if actual.document is not ABSENT else actual.patch)
            return [f"expected error {expected.error.error_class!r}, got success: {got}"]
        problems = []
        # A program that cannot name the class ("unclassified") is judged on rejecting alone.
        if (compare_classes and actual.error.error_class != UNCLASSIFIED
                and not actual.error.matches(expected.error.error_class)):
            problems.append(
                f"expected error {expected.error.error_class!r}, got {actual.error.error_class!r}: "
                f"{actual.error.message}"
            )
        fragment = expected.error.message
        if compare_messages and fragment and fragment.lower() not in actual.error.message.lower():
            problems.append(f"error message {actual.error.message!r} lacks {fragment!r}")
        problems.extend(_http_mismatches(expected.error, actual))
        return problems
    if actual.error is not None:
        return [f"expected success, got error {actual.error.error_class!r}: {actual.error.message}"]
    problems = []
    for label, want, got in (
        ("document", expected.document, actual.document),
        ("patch", expected.patch, actual.patch),
    ):
        if want is ABSENT:
            continue
        if got is ABSENT:
            problems.append(f"expected a {label}, the target gave none")
        elif not json_equal(want, got):
            problems.extend(f"{label} {line}" for line in explain(want, got))
    return problems


def _steps_mismatches(expected: Outcome, actual: Actual, compare_messages: bool,
                      document_equal: Callable[[Any, Any], bool] | None = None) -> list[str]:
    """A step sequence, step by step: each step's object, managedFields, change and error. With
    ``document_equal``, objects are compared by it and a difference is only said, not explained."""
    if actual.error is not None:
        return [f"expected step results, got error {actual.error.error_class!r}: {actual.error.message}"]
    want_steps = expected.document["steps"]
    got_steps = actual.document.get("steps") if isinstance(actual.document, dict) else None
    if not isinstance(got_steps, list) or len(got_steps) != len(want_steps):
        return [f"expected {len(want_steps)} step results, got {show(actual.document)}"]
    problems: list[str] = []
    for number, (want, got) in enumerate(zip(want_steps, got_steps, strict=True), start=1):
        problems.extend(f"step {number}: {line}"
                        for line in _step_mismatches(want, got, compare_messages, document_equal))
    return problems


def _step_mismatches(want: dict[str, Any], got: dict[str, Any], compare_messages: bool,
                     document_equal: Callable[[Any, Any], bool] | None = None) -> list[str]:
    error = got.get("error")
    warned = _warnings_mismatches(want, got)
    if "expected_error" in want:
        if error is None:
            return [*warned, f"expected error {want['expected_error']['class']!r}, got success"]
        expected_error = ExpectedError.from_json(want["expected_error"])
        step_actual = Actual(error=ActualError(error["class"], error.get("message", ""), error.get("status"),
                                               error.get("reason")), unchanged=got.get("unchanged"))
        problems = _mismatches(Outcome(error=expected_error), step_actual, compare_messages)
        conflicts = want["expected_error"].get("conflicts")
        if conflicts is not None and error.get("conflicts") is not None:
            key = lambda c: (c["field"], c["manager"])  # noqa: E731 - a sort key
            wanted, found = sorted(map(key, conflicts)), sorted(map(key, error["conflicts"]))
            if wanted != found:
                problems.append(f"expected conflicts {wanted}, got {found}")
        return [*warned, *problems]
    if error is not None:
        return [*warned, f"expected success, got error {error['class']!r}: {error.get('message', '')}"]
    problems = warned
    if "expected" in want:
        document = got.get("document", ABSENT)
        if document_equal is not None:
            if not document_equal(want["expected"], document):
                problems.append("object differs")
        elif not json_equal(want["expected"], document):
            problems.extend(f"object {line}" for line in explain(want["expected"], document))
    if "expected_managed_fields" in want:
        problems.extend(_managed_fields_mismatches(want["expected_managed_fields"], got.get("managed_fields")))
    if "expected_changed" in want and got.get("changed") is not None and got["changed"] != want["expected_changed"]:
        problems.append(f"expected changed={want['expected_changed']}, got changed={got['changed']}")
    return problems


def _warnings_mismatches(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """kubectl's warnings, in order: judged only where the target reports them (``warnings``)."""
    found = got.get("warnings")
    if "expected_warnings" not in want or not isinstance(found, list) or found == want["expected_warnings"]:
        return []
    return [f"expected warnings {show(want['expected_warnings'])}, got {show(found)}"]


def _managed_fields_mismatches(want: list[dict[str, Any]], got: Any) -> list[str]:
    """Entries compared in order; a target that cannot tell times (a live server's wall clock)
    reports ``time: null``, and its entries are then compared without times or order."""
    if not isinstance(got, list):
        return [f"managedFields: expected {show(want)}, got {show(got)}"]
    if any(isinstance(entry, dict) and entry.get("time", 0) is None for entry in got):
        def untimed(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
            stripped = [{k: v for k, v in entry.items() if k != "time"} for entry in entries]
            return sorted(stripped, key=lambda e: json.dumps(e, sort_keys=True))
        want, got = untimed(want), untimed(got)
    if json_equal(want, got):
        return []
    return [f"managedFields {line}" for line in explain(want, got)]


def _http_mismatches(expected: ExpectedError, actual: Actual) -> list[str]:
    """Status, reason and "object unchanged": checked only where the target reports them."""
    problems = []
    error = actual.error
    if expected.status is not None and error.status is not None and error.status != expected.status:
        problems.append(f"expected HTTP status {expected.status}, got {error.status}")
    if expected.reason is not None and error.reason is not None and error.reason != expected.reason:
        problems.append(f"expected reason {expected.reason!r}, got {error.reason!r}")
    if expected.unchanged and actual.unchanged is False:
        problems.append("expected the object unchanged after the error, but it changed")
    return problems


def run_case(case: Case, target: Target) -> Result:
    reason = target.skip_reason(case)
    if reason:
        return Result(case, SKIP, reason)
    started = time.perf_counter()
    try:
        actual = target.run(case)
    except TargetDeclined as exc:
        return Result(case, SKIP, f"declined by the target: {exc}")
    except TargetCrash as exc:
        return _error(case, target, f"target failed: {exc}", time.perf_counter() - started)
    except Exception as exc:  # a target bug must fail its case, never the run
        return _error(case, target, f"target raised {type(exc).__name__}: {exc}", time.perf_counter() - started)
    seconds = time.perf_counter() - started
    try:
        return judge(case, target, actual, seconds)
    except Exception as exc:  # an answer too deep or too odd to compare fails its case, never the run
        return _error(case, target, f"could not judge the answer: {type(exc).__name__}: {exc}", seconds,
                      actual)


def _error(case: Case, target: Target, message: str, seconds: float, actual: Actual | None = None) -> Result:
    """An errored case's result, with the outcome it would have been judged by (and the answer, where one
    came), so that its report shows what was expected."""
    try:
        outcomes, judged_by = expectations(case, target)
        expected = stored(outcomes[0].to_json())
    except Exception:  # the error is reported whatever trouble its expectation has
        expected, judged_by = {}, "case"
    answer = {}
    if actual is not None:
        try:
            answer = stored(actual.to_json())
        except Exception:  # an answer that could not be judged may not encode either
            answer = {}
    return Result(case, ERROR, clip(message, STORED_LINE_CHARS), expected=expected, actual=answer,
                  judged_by=judged_by, seconds=seconds)


ProgressCallback = Callable[[int, int, Result], None]
ResultCallback = Callable[[int, Result], None]


def run_cases(
    cases: Iterable[Case],
    target: Target,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    on_result: ResultCallback | None = None,
) -> list[Result]:
    """Run every case, in parallel up to the target's worker count; the results in case order.

    ``on_result(index, result)`` is called in this thread as each case finishes (in the order
    they finish), so a caller can write it down before the next one. On an interrupt
    (KeyboardInterrupt) cases not yet started are cancelled and the interrupt propagates.
    """
    selected = list(cases)
    count = max(1, workers or target.workers)
    results: list[Result | None] = [None] * len(selected)
    done = 0

    def finish(index: int, result: Result) -> None:
        nonlocal done
        results[index] = result
        done += 1
        if on_result:
            on_result(index, result)
        if progress:
            progress(done, len(selected), result)

    forking = target.forks and _can_fork()
    if forking:
        count = min(count, len(selected) // CASES_PER_PROCESS)
    if count <= 1:
        for index, case in enumerate(selected):
            finish(index, run_case(case, target))
        return results  # type: ignore[return-value]
    if forking:
        _run_in_processes(selected, target, count, finish)
        return results  # type: ignore[return-value]
    # imported here: concurrent.futures (and the logging it loads) is for threaded targets only
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    pool = ThreadPoolExecutor(max_workers=count)
    try:
        futures = {pool.submit(run_case, case, target): index for index, case in enumerate(selected)}
        pending = set(futures)
        while pending:
            # Woken at least every SIGNAL_CHECK seconds: a SIGINT or SIGTERM the kernel gives to one of
            # the workers' threads is only handled here, and would wait for the next case to end.
            ended, pending = wait(pending, timeout=SIGNAL_CHECK, return_when=FIRST_COMPLETED)
            for future in sorted(ended, key=futures.__getitem__):
                finish(futures[future], future.result())
    finally:
        # Not waiting: on an interrupt the cases in flight end when the caller closes the target.
        pool.shutdown(wait=False, cancel_futures=True)
    return results  # type: ignore[return-value]


SIGNAL_CHECK = 0.2  # seconds: how long an interrupt may wait while only threads are running cases
# A forked process pays for itself (its own start, the schemas it converts again) from about this many cases.
CASES_PER_PROCESS = 100
_FRAME_LENGTH = struct.Struct("!Q")
_TICKET = struct.Struct("!I")
# Tickets are written at once before any process runs a case: this many fit any pipe's buffer, so the
# write never waits for a reader.
_MAX_TICKETS = 1024


def _can_fork() -> bool:
    # A copy of a process with other threads may inherit a lock one of them held, held forever.
    return hasattr(os, "fork") and threading.active_count() == 1


def _run_in_processes(selected: list[Case], target: Target, processes: int,
                      finish: Callable[[int, Result], None]) -> None:
    """Run the cases of an in-process target in ``processes`` processes: this one and forked copies.

    The cases are dealt out as tickets (a few consecutive cases each). Each process has a pipe of
    tickets for one stretch of the cases, in order, and takes those first: it meets fewer kinds of
    case, each of which it sets up for on first meeting (modules, schemas, memos). Then it takes
    the others' tickets, whoever is free taking the next: this process also writes every result
    down, and costly cases come in runs. Copies send each result over a pipe of their own as it
    finishes; this process hands them on between its own cases, so ``finish`` runs here only.
    Cases nobody answered (a copy died holding them) run here after all.
    """
    children: dict[int, _Child] = {}
    # Objects that exist now (the cases, the target's schemas) outlive the run: frozen, the
    # collector no longer walks them here, and a copy's collections do not write to (and so
    # duplicate) the memory pages it shares with this process. A caller that froze the heap
    # before (patchconf run, its corpus) unfreezes it itself.
    frozen_here = gc.get_freeze_count() == 0
    gc.freeze()
    answered: set[int] = set()

    def finish_once(index: int, result: Result) -> None:
        answered.add(index)
        finish(index, result)

    per_ticket = -(-len(selected) // _MAX_TICKETS)
    starts = range(0, len(selected), per_ticket)
    stretch = -(-len(starts) // processes)
    pipes = [os.pipe() for _ in range(processes)]
    try:
        for number, (_, write_end) in enumerate(pipes):
            os.write(write_end, b"".join(map(_TICKET.pack, starts[number * stretch:(number + 1) * stretch])))
            os.close(write_end)
        ticket_pipes = [read_end for read_end, _ in pipes]
        for number in range(1, processes):
            child = _Child.start(selected, target, _own_first(ticket_pipes, number), per_ticket)
            children[child.fd] = child
        for start in _tickets(ticket_pipes):
            for index in range(start, min(start + per_ticket, len(selected))):
                finish_once(index, run_case(selected[index], target))
                _receive(children, selected, finish_once, wait=False)
        while any(not child.ended for child in children.values()):
            _receive(children, selected, finish_once, wait=True)
        for index in range(len(selected)):
            if index not in answered:
                finish_once(index, run_case(selected[index], target))
    finally:
        for read_end, _ in pipes:
            os.close(read_end)
        if frozen_here:
            gc.unfreeze()
        for child in children.values():
            child.stop()


def _own_first(pipes: list[int], number: int) -> list[int]:
    """Process ``number``'s order of the ticket pipes: its own, then the others' after it."""
    return pipes[number:] + pipes[:number]


def _tickets(pipes: list[int]) -> Iterator[int]:
    """The first case of each ticket this process takes from ``pipes`` in turn, until none is left."""
    for fd in pipes:
        while True:
            data = os.read(fd, _TICKET.size)  # a whole ticket: all were written before anyone read
            if len(data) < _TICKET.size:
                break
            yield _TICKET.unpack(data)[0]


@dataclass
class _Child:
    """A forked copy of this process running the cases of the tickets it takes."""

    pid: int
    fd: int
    buffer: bytearray = field(default_factory=bytearray)
    ended: bool = False

    @classmethod
    def start(cls, selected: list[Case], target: Target, tickets: list[int], per_ticket: int) -> _Child:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the copy: answer its tickets, then leave without running this process's exit code
            code = 1
            try:
                os.close(read_end)
                with open(write_end, "wb") as stream:
                    for start in _tickets(tickets):
                        for index in range(start, min(start + per_ticket, len(selected))):
                            result = run_case(selected[index], target)
                            payload = pickle.dumps((index, _without_case(result)), pickle.HIGHEST_PROTOCOL)
                            stream.write(_FRAME_LENGTH.pack(len(payload)) + payload)
                            stream.flush()
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)
        return cls(pid, read_end)

    def stop(self) -> None:
        if not self.ended:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)


def _receive(children: dict[int, _Child], selected: list[Case], finish: Callable[[int, Result], None],
             wait: bool) -> None:
    """Hand on every whole result the copies have sent (waiting for one if ``wait``)."""
    open_fds = [fd for fd, child in children.items() if not child.ended]
    if not open_fds:
        return
    ready, _, _ = select.select(open_fds, [], [], None if wait else 0)
    for fd in ready:
        child = children[fd]
        data = os.read(fd, 1 << 20)
        if not data:
            child.ended = True
        child.buffer += data
        while len(child.buffer) >= _FRAME_LENGTH.size:
            (length,) = _FRAME_LENGTH.unpack_from(child.buffer)
            if len(child.buffer) < _FRAME_LENGTH.size + length:
                break
            payload = bytes(child.buffer[_FRAME_LENGTH.size:_FRAME_LENGTH.size + length])
            del child.buffer[:_FRAME_LENGTH.size + length]
            index, fields = pickle.loads(payload)
            finish(index, _with_case(fields, selected[index]))


# What a copy sends of a result only inside its JSON text: the largest members, and the slowest to unpickle.
_SENT_AS_TEXT = ("expected", "actual")


def _without_case(result: Result) -> dict[str, Any]:
    """A result as a copy sends it: the case is known by its index; the JSON text once encoded, which
    also carries the expected and actual values (read from it only if asked for: Result.__getattr__)."""
    fields = {name: getattr(result, name) for name in Result.__dataclass_fields__
              if name != "case" and name not in _SENT_AS_TEXT}
    fields["json_text"] = result.json_text
    return fields


def _with_case(fields: dict[str, Any], case: Case) -> Result:
    result = object.__new__(Result)  # every field but those sent as text, and the cached json_text
    result.__dict__.update(fields, case=case)
    return result


PROGRESS_INTERVAL = 0.1  # seconds between two progress lines on a terminal


def terminal_progress(stream=sys.stderr) -> ProgressCallback | None:
    """A one-line progress counter on a terminal; a line per tenth of a long run in logs."""
    if not stream.isatty():

        def log_progress(done: int, total: int, result: Result) -> None:
            step = max(1, total // 10)
            if total >= 200 and (done % step == 0 or done == total):
                stream.write(f"[{done}/{total}] cases run\n")
                stream.flush()

        return log_progress

    shown_at = -PROGRESS_INTERVAL

    def show_progress(done: int, total: int, result: Result) -> None:
        # At most one line per PROGRESS_INTERVAL, and the last: drawing every case of a fast target
        # costs the process that also runs cases a write and a flush each.
        nonlocal shown_at
        now = time.monotonic()
        if done < total and now - shown_at < PROGRESS_INTERVAL:
            return
        shown_at = now
        end = "\n" if done == total else ""
        stream.write(f"\r[{done}/{total}] {result.case.id[:90]:<90}{end}")
        stream.flush()

    return show_progress
