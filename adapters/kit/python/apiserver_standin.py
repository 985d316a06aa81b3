"""The API server behind a Python tool's client-side apply, for patchconf adapters of tools.

Ansible's ``kubernetes.core`` (``k8s_apply``) and the OpenShift client
(``openshift.dynamic.apply.apply``) compute what to send themselves and send it through a
``kubernetes.dynamic`` Resource: ``get`` the live object, then one ``create`` or one
``patch`` (or nothing). :class:`RecordingResource` stands in for that Resource: it answers
``get`` with the case's live object and records the write, so the adapter can answer with
what the tool sent. Applying that write is the server's part: :func:`apply_merge_patch`
is RFC 7396, which a kube-apiserver implements for ``application/merge-patch+json``, and
:func:`stored` drops the null members the server does not store (a built-in kind's null
decodes to its Go zero value, omitted; a custom resource's null is pruned unless its schema
says ``nullable``), since RFC 7396 keeps nulls inside arrays and a POST body keeps its own,
and writes a whole float as Go's encoder does, as an integer.

Standard library only; the adapter passes in what the tool's client returns and raises
(``ResourceInstance``, ``NotFoundError``), so the tool sees the client's own types.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
MERGE_PATCH = "application/merge-patch+json"


@dataclass(frozen=True)
class Write:
    method: str  # POST or PATCH
    content_type: str | None
    body: Any


class RecordingResource:
    """What a tool's apply calls on a ``kubernetes.dynamic`` Resource, for one object."""

    def __init__(self, live: dict | None, instance: Callable[[dict], Any], not_found: Callable[[], Exception]):
        self.live = live  # None: the object does not exist
        self.instance = instance  # a dict as the client's get returns it (a ResourceInstance)
        self.not_found = not_found  # the exception the client raises for a 404
        self.writes: list[Write] = []

    def get(self, name=None, namespace=None, **kwargs):
        if self.live is None:
            raise self.not_found()
        return self.instance(copy.deepcopy(self.live))

    def create(self, body=None, namespace=None, **kwargs):
        self.writes.append(Write("POST", None, _as_sent(body)))
        return self.instance(_as_sent(body))

    def patch(self, body=None, name=None, namespace=None, content_type=None, **kwargs):
        self.writes.append(Write("PATCH", content_type, _as_sent(body)))
        return self.instance(apply_merge_patch(self.live, _as_sent(body)))

    def apply_answer(self) -> dict[str, Any]:
        """The protocol's ``apply`` answer: the patch sent and the object the server holds after it.

        A create (POST) stores its body and has no patch; no write at all leaves the live
        object as it was, with the empty patch (kubectl sends nothing for ``{}`` either).
        """
        if len(self.writes) > 1:
            raise RuntimeError(f"the tool sent {len(self.writes)} writes: " + ", ".join(w.method for w in self.writes))
        if not self.writes:
            return {"patch": {}, "document": copy.deepcopy(self.live)}
        write = self.writes[0]
        if write.method == "POST":
            return {"document": stored(write.body)}
        if write.method == "PATCH" and write.content_type == MERGE_PATCH:
            return {"patch": write.body, "document": stored(apply_merge_patch(self.live, write.body))}
        raise RuntimeError(f"the tool sent a {write.method} ({write.content_type}) this stand-in does not apply")


def _as_sent(body: Any) -> Any:
    """The body as the server receives it: the tool's JSON, not the tool's objects."""
    return json.loads(json.dumps(body))


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7396 MergePatch(target, patch), without touching either."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for name, value in patch.items():
        if value is None:
            result.pop(name, None)
        else:
            result[name] = apply_merge_patch(result.get(name), value)
    return result


def stored(document: Any) -> Any:
    """``document`` as the server stores and returns it: without null object members, at
    any depth (inside arrays too), and a whole float as the integer Go's encoder writes
    (``1.0`` is written ``1`` below 1e21, so a client reads it back as an integer)."""
    if isinstance(document, dict):
        return {name: stored(value) for name, value in document.items() if value is not None}
    if isinstance(document, list):
        return [stored(item) for item in document]
    if isinstance(document, float) and document.is_integer() and abs(document) < 1e21:
        return int(document)
    return document


def live_object(case: dict[str, Any], annotate: Callable[[Any], dict]) -> dict | None:
    """The case's ``current`` as the tool finds it: carrying ``original`` as its last-applied
    annotation, written as the tool itself writes it (``annotate``), as if the tool had
    applied ``original`` before; ``original: null`` means the object has no annotation."""
    current = case.get("current")
    if current is None:
        return None
    live = copy.deepcopy(current)
    if "original" not in case:
        return live
    metadata = live.setdefault("metadata", {})
    annotations = metadata.get("annotations")
    if case["original"] is None:
        if isinstance(annotations, dict) and LAST_APPLIED in annotations:
            del annotations[LAST_APPLIED]
            if not annotations:
                del metadata["annotations"]
        return live
    if not isinstance(annotations, dict):
        annotations = metadata["annotations"] = {}
    annotations[LAST_APPLIED] = annotate(case["original"])["metadata"]["annotations"][LAST_APPLIED]
    return live
