"""A live kube-apiserver as the fuzz truth: what is compared, what is not, and why.

Every input is a request sequence (:mod:`patchconf.harness.fuzz.sequences`). Each step is judged on

- its error class and, for a conflict, the conflicting fields and managers;
- every managedFields entry — manager, operation, apiVersion, subresource, fieldsV1 — in the
  server's order. Times are left aside. The order is the server's (operation, then time, then
  manager): the live target starts each step in a later second of the server's clock, so the
  server orders the entries as the steps happened (harness/targets/live/ssa_flow.py, StepTimes);
- the stored object with its defaults, without :data:`NOT_COMPARED` (what the server
  allocates per object) and without what the live target leaves out of every answer
  (uid, resourceVersion, creationTimestamp, generation, managedFields: SERVER_OWNED_METADATA).

**Refused by validation.** A step the server refuses with 422 Invalid (its validation, e.g. a
Deployment left without containers) is the server's to make: the reference does not validate,
and neither does upstream's field manager. Such an input is not a disagreement: the steps
before the refusal are judged; if they agree, the input counts as *refused by validation*,
apart from agreement and disagreement.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import threading
from typing import Any

from ..corpus.cases import Case
from ..corpus.stored_objects import about_status, drop_null_template_timestamps
from ..targets.base import Actual, Target
from ..targets.live.conventions import ALLOCATED, JSON_PATCH_APPLY_CLASSES, SERVER_ANNOTATIONS
from ..targets.live.placement import case_subject

# What the stored objects of both sides are compared without (managedFields keep whatever owns
# them), each for a reason that is not the request pipeline the reference and upstream model
# (decoding, defaulting, the field manager):
NOT_COMPARED: dict[str, tuple[tuple[str, ...], ...]] = {
    # allocated per object (harness/targets/live/conventions.py ALLOCATED): a Service's
    # clusterIP(s) and healthCheckNodePort; a Job's generated selector
    **ALLOCATED,
    "Service": (*ALLOCATED["Service"],
                # chosen by the Service IP allocator with the cluster IP (the cluster's IP families)
                ("spec", "ipFamilies"), ("spec", "ipFamilyPolicy")),
    # set by admission plugins of this server (Priority: from the default priority class), which
    # a cluster configures; never set by the generated requests
    "Pod": (("spec", "priority"), ("spec", "preemptionPolicy")),
}
# in every Service port: the node port the allocator picks for a NodePort Service
SERVICE_PORT_ALLOCATED = ("nodePort",)
# a Pod's tolerations that the DefaultTolerationSeconds admission plugin adds on creation
ADMITTED_TOLERATIONS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
# annotations a registry strategy maintains per object (as it does generation):
# harness/targets/live/conventions.py SERVER_ANNOTATIONS
MAINTAINED_ANNOTATIONS = SERVER_ANNOTATIONS
# What the live target leaves out of every answer is left out of the target's too:
# ``status`` unless a step is about status, and an embedded object's ``creationTimestamp: null``
# (servers before 1.34 write Go's zero time so): harness/corpus/stored_objects.py.


def subject_kind(case: Case) -> str:
    subject = case_subject(case)
    return str(subject.get("kind")) if isinstance(subject, dict) else "(document)"


# --- what is compared -------------------------------------------------------------------------------


def _comparable_document(document: Any, keep_status: bool) -> Any:
    if not isinstance(document, dict):
        return document
    document = copy.deepcopy(document)
    if not keep_status:
        document.pop("status", None)
    drop_null_template_timestamps(document, {})
    metadata = document.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict):
        for key in MAINTAINED_ANNOTATIONS:
            annotations.pop(key, None)
        if not annotations:
            del metadata["annotations"]
    spec = document.get("spec")
    if document.get("kind") == "Pod" and isinstance(spec, dict) and isinstance(spec.get("tolerations"), list):
        kept = [t for t in spec["tolerations"] if not (isinstance(t, dict) and t.get("key") in ADMITTED_TOLERATIONS
                                                        and t.get("tolerationSeconds") == 300)]
        if kept:
            spec["tolerations"] = kept
        else:
            del spec["tolerations"]
    for path in NOT_COMPARED.get(str(document.get("kind")), ()):
        here: Any = document
        for key in path[:-1]:
            here = here.get(key) if isinstance(here, dict) else None
        if isinstance(here, dict):
            here.pop(path[-1], None)
    if document.get("kind") == "Service":
        for port in (document.get("spec") or {}).get("ports") or ():
            if isinstance(port, dict):
                for key in SERVICE_PORT_ALLOCATED:
                    port.pop(key, None)
    return document


def _untimed(entries: Any) -> Any:
    if not isinstance(entries, list):
        return entries
    return [{k: v for k, v in entry.items() if k != "time"} if isinstance(entry, dict) else entry
            for entry in entries]


def comparable(answer: Actual | Exception, case: Case | None = None) -> Actual | Exception:
    """A step sequence's answer as it is compared: managedFields without times (kept in order),
    stored objects without :data:`NOT_COMPARED` and what the live target leaves out."""
    if not isinstance(answer, Actual) or not isinstance(answer.document, dict) \
            or not isinstance(answer.document.get("steps"), list):
        return answer
    keep_status = case is not None and about_status(case)
    requests = case.raw.get("steps") if case is not None else None
    steps = []
    for index, result in enumerate(answer.document["steps"]):
        if isinstance(result, dict):
            result = dict(result)
            request = requests[index] if isinstance(requests, list) and index < len(requests) else {}
            if _json_patch_not_applied(request, result.get("error")):
                result["error"] = {**result["error"], "class": JSON_PATCH_NOT_APPLIED}
            if "document" in result:
                result["document"] = _comparable_document(result["document"], keep_status)
            if "managed_fields" in result:
                result["managed_fields"] = _untimed(result["managed_fields"])
        steps.append(result)
    return dataclasses.replace(answer, document={**answer.document, "steps": steps})


# A server answers every JSON patch that does not apply (a failed test, a missing path, a bad
# index) with a bare 422 that does not say which (harness/targets/live/conventions.py
# JSON_PATCH_APPLY_CLASSES): on both sides such an error of a JSON patch step is this one class.
JSON_PATCH_NOT_APPLIED = "json-patch-not-applied"
_NOT_APPLIED_CLASSES = frozenset({"unclassified", *JSON_PATCH_APPLY_CLASSES})


def _json_patch_not_applied(request: Any, error: Any) -> bool:
    return isinstance(request, dict) and request.get("op") == "patch" and request.get("patch_type") == "json-patch" \
        and isinstance(error, dict) and error.get("class") in _NOT_APPLIED_CLASSES


# --- refused by validation ------------------------------------------------------------------------


def refused_by_validation(error: Any) -> bool:
    """A step error that is the server's validation: 422 Invalid, class ``invalid``."""
    return isinstance(error, dict) and error.get("status") == 422 and error.get("reason") == "Invalid" \
        and error.get("class") == "invalid"


def first_refusal(answer: Actual | Exception) -> int | None:
    """The index of the first step the server's validation refused, None if none was."""
    if not isinstance(answer, Actual) or not isinstance(answer.document, dict):
        return None
    for index, result in enumerate(answer.document.get("steps") or ()):
        if isinstance(result, dict) and refused_by_validation(result.get("error")):
            return index
    return None


def before_step(case: Case, answer: Actual | Exception, index: int) -> tuple[Case, Actual | Exception]:
    """The case's first ``index`` steps, and an answer's results for them."""
    steps = case.raw["steps"][:index]
    shorter = case.with_members({"steps": steps})
    if isinstance(answer, Actual) and isinstance(answer.document, dict) \
            and isinstance(answer.document.get("steps"), list):
        answer = dataclasses.replace(answer, document={**answer.document, "steps": answer.document["steps"][:index]})
    return shorter, answer


# --- signatures -------------------------------------------------------------------------------------

_STEP = re.compile(r"^step \d+: ")
_INDEX = re.compile(r"/\d+(?=/|:|$)")
_WHERE = re.compile(r"^(object|managedFields) (\S*): expected (.*), got (.*)$")


def _shape(text: str) -> str:
    if text == "absent":
        return "absent"
    return "value"


def problem_shape(line: str) -> str:
    """One judged difference without what varies between inputs alike: step numbers, list indices,
    values (kept: where, and whether a side lacks the member)."""
    line = _STEP.sub("", line)
    match = _WHERE.match(line)
    if match:
        where, pointer, want, got = match.groups()
        pointer = _INDEX.sub("/*", pointer)
        return f"{where} {pointer}: expected {_shape(want)}, got {_shape(got)}"
    if line.startswith("expected success, got error"):
        return line.split(":", 1)[0]
    if line.startswith("expected conflicts"):
        return "conflicts differ"
    return line.split(": ", 1)[0] if line.startswith("expected error") else line


def signature(flow: str, kind: str, diff: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Flow, kind, and the shapes of the first differing step's differences (later steps inherit them)."""
    first = next((m.group(0) for line in diff for m in [_STEP.match(line)] if m), None)
    lines = [line for line in diff if first is None or line.startswith(first)]
    return (LIVE_SIGNATURE, flow, kind, *sorted({problem_shape(line) for line in lines}))


LIVE_SIGNATURE = "live"  # the first member of a live truth's signatures


def describe(signature: tuple[str, ...]) -> str:
    _, flow, kind, *shapes = signature
    return f"{flow} on {kind}: " + "; ".join(shapes)


# --- one live answer for several targets ---------------------------------------------------------


class RememberingTruth(Target):
    """A truth that answers each input once: several targets are judged against the same answers
    (a live server's answer takes seconds). Asking again (``uncached``) asks the server."""

    def __init__(self, truth: Target) -> None:
        self.uncached = truth
        self.name = truth.name
        self.info = truth.info
        self.workers = truth.workers
        self._answers: dict[str, Any] = {}
        self._lock = threading.Lock()

    def skip_reason(self, case: Case) -> str | None:
        return self.uncached.skip_reason(case)

    def compares_messages(self, case: Case) -> bool:
        return self.uncached.compares_messages(case)

    def run(self, case: Case) -> Actual:
        key = json.dumps({k: case.raw.get(k) for k in ("type", "schema", "current", "steps", "original", "patch")},
                         sort_keys=True, default=repr)
        with self._lock:
            if key in self._answers:
                answer = self._answers[key]
                if isinstance(answer, Exception):
                    raise answer
                return answer
        try:
            answer = self.uncached.run(case)
        except Exception as exc:
            with self._lock:
                self._answers[key] = exc
            raise
        with self._lock:
            self._answers[key] = answer
        return answer

    def close(self) -> None:
        self.uncached.close()
