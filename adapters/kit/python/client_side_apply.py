"""A Python tool's client-side apply behind the protocol, for patchconf adapters of tools.

Ansible's ``kubernetes.core`` and the OpenShift client apply an object the same way (the
collection grew out of the client's module): ``apply(resource, definition)`` GETs the live
object through a ``kubernetes.dynamic`` Resource, computes its own three-way patch
(``apply_object`` -> ``apply_patch`` -> ``merge(last_applied, desired, actual)``) and sends
it as ``application/merge-patch+json``, or creates the object. An adapter names the module
those functions come from and the client types they use (a :class:`Tool`), what it declines
and why, and gets its protocol adapter from :func:`adapter`, which answers:

- ``apply``: ``tool.apply(resource, modified)`` with a stand-in Resource
  (apiserver_standin.py) that serves the case's live object, carrying ``original`` as its
  last-applied annotation written by the tool's own ``annotate``, and records the write; the
  answer is the patch sent and the live object with it applied (RFC 7396, the server's
  part), or the object created.
- ``merge-patch-3way``: ``tool.merge(original, modified, current)``, the tool's three-way
  patch on its own (the JSON merge patch it would send, before it adds its annotation).

The tool's ``ApplyException`` ("Expected key ... not found in position ...": a list element
without the merge key its table names) is ``merge-key-missing``; anything else it raises is
``unclassified``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import apiserver_standin as standin
import patchconf_adapter as kit

Case = dict[str, Any]
Declined = tuple[Callable[[Case], bool], str]  # which cases the tool cannot be asked, and why


@dataclass(frozen=True)
class Tool:
    """The tool's own functions, and the client's types they take and raise."""

    apply: Callable[[Any, dict], Any]  # apply(resource, definition): GET, then one create or merge patch
    merge: Callable[[Any, Any, Any], Any]  # merge(last_applied, desired, actual): the patch apply sends
    annotate: Callable[[Any], dict]  # the object with its last-applied annotation, as the tool writes it
    merge_key_missing: type[BaseException]  # the tool's ApplyException
    resource_instance: Callable[[Any, dict], Any]  # ResourceInstance(client, instance): what get returns
    not_found_error: Callable[[Exception], Exception]  # what the client raises for a 404, around the ApiException
    api_exception: Callable[..., Exception]  # kubernetes.client's ApiException


def overwrite_false(case: Case) -> bool:
    return case.get("options", {}).get("overwrite", True) is False


def not_an_object(case: Case) -> bool:
    modified = case.get("modified")
    return not isinstance(modified, dict) or "kind" not in modified


def three_way_without_last_applied(case: Case) -> bool:
    return case["type"] == "merge-patch-3way" and not isinstance(case.get("original"), dict)


def answer(tool: Callable[[], Tool], declined: Sequence[Declined], case: Case) -> dict[str, Any] | kit.Skip:
    """The first reason in ``declined`` that applies to the case, or the tool's answer."""
    for applies, reason in declined:
        if applies(case):
            return kit.Skip(reason)
    return apply(tool(), case) if case["type"] == "apply" else three_way(tool(), case)


def apply(tool: Tool, case: Case) -> dict[str, Any]:
    live = standin.live_object(case, tool.annotate)
    resource = standin.RecordingResource(
        live, lambda obj: tool.resource_instance(None, obj),
        lambda: tool.not_found_error(tool.api_exception(status=404, reason="Not Found")))
    tool.apply(resource, copy.deepcopy(case["modified"]))
    return resource.apply_answer()


def three_way(tool: Tool, case: Case) -> dict[str, Any]:
    patch = tool.merge(copy.deepcopy(case["original"]), copy.deepcopy(case["modified"]),
                       copy.deepcopy(case["current"]))
    return {"patch": json.loads(json.dumps(patch))}


def error_class(tool: Tool, exc: BaseException) -> str:
    return "merge-key-missing" if isinstance(exc, tool.merge_key_missing) else "unclassified"


@dataclass(frozen=True)
class ToolAdapter(kit.Adapter):
    """The kit's adapter, reporting ``version()`` when the tool's version is not its distribution's."""

    version: Callable[[], str] | None = None

    def handshake(self) -> dict[str, Any]:
        reply = super().handshake()
        if reply.get("ready") and self.version is not None:
            reply["implementation"]["version"] = self.version()
        return reply


def adapter(tool: Callable[[], Tool], declined: Sequence[Declined], *, name: str, distribution: str,
            homepage: str, version: Callable[[], str] | None = None) -> ToolAdapter:
    """The protocol adapter of one tool. ``tool()`` is called for each case, never before, so a
    module that did not import makes the handshake "not ready" (``kit.library``) rather than
    ending the program."""
    return ToolAdapter(
        name=name, distribution=distribution, homepage=homepage, version=version, category="tool",
        patch_types=["apply", "merge-patch-3way"], schemas=["builtin", "none"], profile="kubernetes",
        answer=lambda case: answer(tool, declined, case), error_class=lambda exc: error_class(tool(), exc))
