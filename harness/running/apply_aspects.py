"""A client-side apply answer judged apart on what it is made of: the object a server would keep,
the request (the patch sent, where a tool exposes it), and the last-applied annotation, its
content (the configuration it records, parsed) and, apart, its text (kubectl's encoding of it).

A tool that writes the annotation in another encoding leaves the same object, and kubectl reads
its annotation as data: judged whole, every one of its `apply` results would fail on that text
alone. So a tool's or library's `apply` result passes or fails on the object; the other aspects
are verdicts of their own, counted apart (the matrix). Kubernetes' own targets, which the
expectations come from, are still judged whole.
"""

from __future__ import annotations

import json
from typing import Any

from ..corpus.cases import ABSENT, Outcome
from ..corpus.compare import explain, json_equal

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
OBJECT, REQUEST, ANNOTATION, ANNOTATION_TEXT = "object", "request", "annotation", "annotation_text"
ASPECTS = (OBJECT, REQUEST, ANNOTATION, ANNOTATION_TEXT)
SAME, DIFFERENT, MISSING = "same", "different", "missing"  # an aspect's verdict; missing: the tool wrote none


def without_last_applied(value: Any) -> Any:
    """An object or patch without the last-applied annotation, and without the annotations (then
    metadata) it leaves empty; the value itself when it holds none."""
    if not isinstance(value, dict) or not isinstance(value.get("metadata"), dict):
        return value
    annotations = value["metadata"].get("annotations")
    if not isinstance(annotations, dict) or LAST_APPLIED not in annotations:
        return value
    rest = {key: item for key, item in annotations.items() if key != LAST_APPLIED}
    metadata = {key: item for key, item in value["metadata"].items() if key != "annotations"}
    if rest:
        metadata["annotations"] = rest
    stripped = {key: item for key, item in value.items() if key != "metadata"}
    if metadata:
        stripped["metadata"] = metadata
    return stripped


def last_applied(value: Any) -> str | None:
    """The last-applied annotation's text, None where there is none."""
    metadata = value.get("metadata") if isinstance(value, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    text = annotations.get(LAST_APPLIED) if isinstance(annotations, dict) else None
    return text if isinstance(text, str) else None


def object_outcome(outcome: Outcome) -> Outcome:
    """What an object-only verdict compares: the document without the annotation, no patch."""
    return Outcome(document=without_last_applied(outcome.document), error=outcome.error)


def judged_apart(outcome: Outcome) -> bool:
    """Whether an outcome states an object to judge apart (an expected error is judged as it stands)."""
    return outcome.error is None and outcome.document is not ABSENT


def aspects(expected: Outcome, document: Any, patch: Any) -> tuple[dict[str, str], list[str]]:
    """Each aspect's verdict (``same``, ``different``, ``missing``) of a successful answer, and a line per
    difference outside the object; the request only where both the expectation and the answer have one."""
    verdicts = {OBJECT: SAME if json_equal(without_last_applied(expected.document),
                                           without_last_applied(document)) else DIFFERENT}
    notes: list[str] = []
    if expected.patch is not ABSENT and patch is not ABSENT:
        want, got = without_last_applied(expected.patch), without_last_applied(patch)
        verdicts[REQUEST] = SAME if json_equal(want, got) else DIFFERENT
        if verdicts[REQUEST] == DIFFERENT:
            notes += [f"request {line}" for line in explain(want, got)]
    wanted_text, text = last_applied(expected.document), last_applied(document)
    if wanted_text is None and text is None:
        return verdicts, notes
    if text is None:
        verdicts[ANNOTATION] = verdicts[ANNOTATION_TEXT] = MISSING
        notes.append("last-applied annotation: none written")
        return verdicts, notes
    if wanted_text is None:
        verdicts[ANNOTATION] = verdicts[ANNOTATION_TEXT] = DIFFERENT
        notes.append("last-applied annotation: written where kubectl writes none")
        return verdicts, notes
    verdicts[ANNOTATION_TEXT] = SAME if text == wanted_text else DIFFERENT
    wanted_content, content = _parsed(wanted_text), _parsed(text)
    same_content = content is not ABSENT and json_equal(wanted_content, content)
    verdicts[ANNOTATION] = SAME if same_content else DIFFERENT
    if not same_content:
        notes += [f"last-applied annotation content {line}" for line in explain(wanted_content, content)]
    elif verdicts[ANNOTATION_TEXT] == DIFFERENT:
        notes.append("last-applied annotation text differs (same content)")
    return verdicts, notes


def _parsed(text: str | None) -> Any:
    """The configuration an annotation records, as kubectl reads it: every number a float64 (Go's JSON
    into interface{}: 1 and 1.0 are one value), and without an empty ``metadata.annotations``, which
    kubectl records (what its annotating left) and which, as the original of a three-way merge,
    deletes nothing, as none does."""
    if text is None:
        return ABSENT
    try:
        content = json.loads(text, parse_int=float)
    except ValueError:
        return ABSENT
    metadata = content.get("metadata") if isinstance(content, dict) else None
    if isinstance(metadata, dict) and metadata.get("annotations") == {}:
        metadata = {key: value for key, value in metadata.items() if key != "annotations"}
        content = {**content, "metadata": metadata}
    return content
