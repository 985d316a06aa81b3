"""What of a stored object a server-side apply case need not state, for every target alike.

A server writes things into every object that no request asked for and that a case about
ownership has no reason to spell out: the status a create sets (``{}``, a Pod's phase, a
DaemonSet's zero counters) and, before Kubernetes 1.34, ``creationTimestamp: null`` in an
embedded object's metadata (a pod template's: the Go zero time, which 1.34 stopped writing).
A step's object is judged without them unless the case states them; managedFields are always
judged whole, so who owns them is still asserted.
"""

from __future__ import annotations

from typing import Any

from ...reference_impl.govalue.decoded import json_copy
from .cases import Case
from .compare import json_equal


def drop_null_template_timestamps(actual: Any, expected: Any) -> None:
    """``creationTimestamp: null`` in an embedded object's metadata (a pod template's), which servers
    before 1.34 write for the Go zero time and later ones leave out, unless the case states it."""
    for metadata in _null_template_timestamps(actual, expected, top=True):
        metadata.pop("creationTimestamp", None)  # an answer holding one metadata object twice lists it twice


def _null_template_timestamps(actual: Any, expected: Any, top: bool) -> list[dict[str, Any]]:
    """Each embedded metadata of ``actual`` whose null creationTimestamp ``expected`` does not state."""
    found = []
    # a stack, not recursion: every answer is walked whole
    pending = [(actual, expected, top)] if isinstance(actual, (dict, list)) else []
    while pending:
        value, stated, at_top = pending.pop()
        if isinstance(value, list):
            stated_items = stated if isinstance(stated, list) else ()
            pending.extend((item, stated_items[index] if index < len(stated_items) else None, False)
                           for index, item in enumerate(value) if isinstance(item, (dict, list)))
            continue
        metadata = value.get("metadata")
        stated_members = stated if isinstance(stated, dict) else {}
        stated_metadata = stated_members.get("metadata")
        if (not at_top and isinstance(metadata, dict) and "creationTimestamp" in metadata
                and metadata["creationTimestamp"] is None
                and not (isinstance(stated_metadata, dict) and "creationTimestamp" in stated_metadata)):
            found.append(metadata)
        pending.extend((member, stated_members.get(key), False)
                       for key, member in value.items() if isinstance(member, (dict, list)))
    return found


def about_status(case: Case) -> bool:
    """Whether a server-side apply case is about status: a step on /status, or status stated anywhere."""
    current = case.inputs.get("current")
    if isinstance(current, dict) and "status" in current:
        return True
    for step in case.inputs.get("steps") or ():
        if not isinstance(step, dict):
            continue
        if step.get("subresource") == "status" or any(
                isinstance(step.get(key), dict) and "status" in step[key] for key in ("object", "expected", "patch")):
            return True
    return False



def as_stated(case: Case, steps: list[Any], stated_steps: list[Any]) -> list[Any]:
    """The answered steps without the server-set fields their expected objects do not state."""
    keep_status = about_status(case)
    judged = []
    for step, want in zip(steps, stated_steps, strict=False):
        document = step.get("document") if isinstance(step, dict) else None
        stated = want.get("expected") if isinstance(want, dict) else None
        if not isinstance(document, dict) or not isinstance(stated, dict):
            judged.append(step)
            continue
        if not keep_status and "status" not in stated and "status" in document:
            document = {key: value for key, value in document.items() if key != "status"}
        if _null_template_timestamps(document, stated, top=True):
            document = json_copy(document)  # copied only to be changed: most answers have none to drop
            drop_null_template_timestamps(document, stated)
        judged.append({**step, "document": document})
    return judged + list(steps[len(judged):])


def stated_equal(stated: Any, document: Any, drop_status: bool) -> bool:
    """``json_equal(stated, as_stated(document))`` without making the judged copy: ``document`` with
    its top-level status left out if ``drop_status`` and ``stated`` has none, and each embedded
    metadata's ``creationTimestamp: null`` that ``stated`` does not state."""
    if stated.__class__ is not document.__class__:
        return False
    if document.__class__ is not dict:
        return json_equal(stated, document)
    if drop_status and "status" in document and "status" not in stated:
        if stated.keys() != document.keys() - {"status"}:
            return False
    elif stated.keys() != document.keys():
        return False
    return all(_stated_equal_below(member, document[key]) for key, member in stated.items())


def _stated_equal_below(stated: Any, value: Any) -> bool:
    """As stated_equal, below the top: where embedded metadata may hold a null creationTimestamp."""
    cls = value.__class__
    if stated.__class__ is not cls:
        return False
    if cls is list:
        return len(stated) == len(value) and all(map(_stated_equal_below, stated, value))
    if cls is not dict:
        return stated == value
    if stated.keys() != value.keys():
        return False
    metadata = value.get("metadata")
    if metadata.__class__ is dict and metadata.get("creationTimestamp", 0) is None:
        stated_metadata = stated["metadata"]
        if stated_metadata.__class__ is dict and "creationTimestamp" not in stated_metadata:
            # an embedded object's null creationTimestamp the statement leaves out: compared as left out
            return (stated_metadata.keys() == metadata.keys() - {"creationTimestamp"}
                    and all(_stated_equal_below(member, metadata[key]) for key, member in stated_metadata.items())
                    and all(_stated_equal_below(member, value[key]) for key, member in stated.items()
                            if key != "metadata"))
    return all(map(_stated_equal_below, stated.values(), map(value.__getitem__, stated)))
