"""The server's error answers in patchconf's terms: error classes, field conflicts, full messages."""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from ...controlplane.live_cluster import Response
from ..kubectl import classify_error

_CONFLICT_WITH = re.compile(r'^conflict with "((?:[^"\\]|\\.)*)"')


def field_conflicts(answer: Response) -> list[dict[str, str]] | None:
    """A 409's field conflicts (Status causes ``FieldManagerConflict``, message ``conflict with "mgr"…``);
    ``[]`` for a 409 without them (a stale resourceVersion), None for other answers."""
    if answer.status != 409:
        return None
    return status_conflicts(answer.body)


def status_conflicts(status: Any) -> list[dict[str, str]]:
    """The field conflicts of a Status (causes ``FieldManagerConflict``)."""
    causes = (status.get("details") or {}).get("causes") or [] if isinstance(status, dict) else []
    conflicts = []
    for cause in causes:
        if not isinstance(cause, dict) or cause.get("reason") != "FieldManagerConflict":
            continue
        match = _CONFLICT_WITH.match(str(cause.get("message", "")))
        manager = match.group(1) if match else ""
        with contextlib.suppress(json.JSONDecodeError):  # Go's %q quoting, as JSON reads it
            manager = json.loads(f'"{manager}"')
        conflicts.append({"manager": manager, "field": str(cause.get("field", ""))})
    return conflicts


def ssa_error_class(answer: Response) -> str:
    """An apply request's failure: 409 conflict, 422 a request the server refuses (PatchOptions,
    validation), 400/500 an apply body it cannot take (another apiVersion, managedFields, a
    configuration the schema cannot type)."""
    return status_error_class(answer.status, full_message(answer))


def status_error_class(code: int | None, message: str) -> str:
    if code == 409:
        return "conflict"
    if code == 422:
        return "invalid"
    if code == 415:
        return "unsupported-media-type"
    if code in (400, 500):
        return "invalid-patch"
    return classify_error(message)


def validation_failure(answer: Response) -> bool:
    """422 Invalid with field causes: the server's validation, not the patch library.

    A patched document that does not convert to the Go type is reported against the field
    "patch"; that is the patch's fault, not validation.
    """
    if answer.status != 422 or answer.reason() != "Invalid" or not isinstance(answer.body, dict):
        return False
    causes = (answer.body.get("details") or {}).get("causes") or []
    return any(cause.get("field") not in (None, "", "patch") for cause in causes if isinstance(cause, dict))


def result_not_of_the_kind(answer: Response) -> bool:
    """A 422 against the field "patch": the patch applied, but its result does not convert to the
    URL's kind (an array, another kind, a value of the wrong Go type)."""
    if answer.status != 422 or not isinstance(answer.body, dict):
        return False
    causes = (answer.body.get("details") or {}).get("causes") or []
    return any(isinstance(cause, dict) and cause.get("field") == "patch" for cause in causes)


def update_rule(answer: Response) -> bool:
    """A 422 for what may not change after creation (immutable fields, Pod spec), not for an invalid object."""
    if not validation_failure(answer):
        return False
    causes = answer.body.get("details", {}).get("causes") or []
    return any(cause.get("reason") == "FieldValueForbidden" or "immutable" in str(cause.get("message", ""))
               or "may not change" in str(cause.get("message", "")) for cause in causes if isinstance(cause, dict))


def bare_json_patch_rejection(patch_type: str, answer: Response) -> bool:
    """A JSON patch that did not apply: the server drops the library's message (422, no details)."""
    if patch_type != "json-patch" or answer.status != 422 or not isinstance(answer.body, dict):
        return False
    return not (answer.body.get("details") or {}).get("causes")


def classify_response(patch_type: str, answer: Response) -> str:
    """patchconf's error class for an API server's error answer."""
    if answer.status == 415:
        return "no-strategic-schema" if patch_type == "strategic" else "unsupported-media-type"
    if answer.status == 409:
        return "conflict"
    if validation_failure(answer):
        return "invalid"
    if result_not_of_the_kind(answer):
        return "invalid-document"
    if bare_json_patch_rejection(patch_type, answer):
        return "unclassified"
    if "name must be provided" in answer.message():
        return "invalid-document"  # the patch left no object (e.g. `$patch: delete` at the root)
    return classify_error(full_message(answer))


def full_message(answer: Response) -> str:
    """The Status message with its causes' messages (where a patch library's own error travels),
    each cause once and only when the message does not already say it."""
    causes = (answer.body.get("details") or {}).get("causes") or [] if isinstance(answer.body, dict) else []
    parts = [answer.message()]
    for cause in causes:
        text = str(cause.get("message", "")) if isinstance(cause, dict) else ""
        if text and not any(text in part for part in parts):
            parts.append(text)
    return "; ".join(part for part in parts if part)
