"""The behaviour ids (cases/BEHAVIOURS.md) a generated case exercises, read from its inputs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..corpus.cases import Case

JSON_PATCH_TAGS = {"add": "JP-ADD", "remove": "JP-REMOVE", "replace": "JP-REPLACE", "move": "JP-MOVE",
                   "copy": "JP-COPY", "test": "JP-TEST"}
DIRECTIVE_TAGS = {"delete": "SMP-DIRECTIVE-DELETE", "replace": "SMP-DIRECTIVE-REPLACE",
                  "merge": "SMP-DIRECTIVE-MERGE"}


def _walk(value: Any) -> Iterator[tuple[str | None, Any]]:
    """Every (key, value) below ``value``; list items have key None."""
    if isinstance(value, dict):
        for key, member in value.items():
            yield key, member
            yield from _walk(member)
    elif isinstance(value, list):
        for item in value:
            yield None, item
            yield from _walk(item)


def _json_patch(case: Case) -> list[str]:
    patch = case.inputs.get("patch")
    operations = patch if isinstance(patch, list) else []
    tags = []
    for operation in operations:
        op = operation.get("op") if isinstance(operation, dict) else None
        if op in JSON_PATCH_TAGS:
            tags.append(JSON_PATCH_TAGS[op])
        if not isinstance(operation, dict) or op not in JSON_PATCH_TAGS or "path" not in operation or (
                op in ("add", "replace", "test") and "value" not in operation) or (
                op in ("move", "copy") and "from" not in operation):
            tags.append("JP-INVALID")
        pointers = [operation.get(member) for member in ("path", "from")] if isinstance(operation, dict) else []
        if any(isinstance(p, str) and ("~" in p or "//" in p or p.endswith("/") or p == "") for p in pointers):
            tags.append("JP-POINTER")
    if len(operations) > 1:
        tags.append("JP-ATOMIC")
    return tags or ["JP-INVALID"]


def _merge_patch(case: Case) -> list[str]:
    patch = case.inputs.get("patch")
    if not isinstance(patch, dict):
        return ["MP-TYPE"]
    if not patch:
        return ["MP-EMPTY"]
    members = list(_walk(patch))
    tags = []
    if any(member is None for key, member in members if key is not None):
        tags.append("MP-NULL")
    if any(isinstance(member, list) for _, member in members):
        tags.append("MP-ARRAY")
    if any(isinstance(member, dict) for key, member in members if key is not None):
        tags.append("MP-NESTED")
    original = case.inputs.get("original")
    if not isinstance(original, dict) or any(
            key in original and type(original[key]) is not type(member) and member is not None
            for key, member in patch.items()):
        tags.append("MP-TYPE")
    return tags or ["MP-NESTED"]


def _directives(value: Any) -> list[str]:
    tags = []
    for key, member in _walk(value):
        if key == "$patch":
            tags.append(DIRECTIVE_TAGS.get(member, "SMP-DIRECTIVE-INVALID"))
        elif key == "$retainKeys":
            tags.append("SMP-RETAINKEYS")
        elif isinstance(key, str) and key.startswith("$setElementOrder/"):
            tags.append("SMP-SET-ORDER")
        elif isinstance(key, str) and key.startswith("$deleteFromPrimitiveList/"):
            tags.append("SMP-DELETE-PRIMITIVE")
    return tags


def _strategic(case: Case) -> list[str]:
    patch = case.inputs.get("patch")
    if not isinstance(patch, dict):
        return ["SMP-TYPE-CHANGE"]
    tags = _directives(patch)
    if any(isinstance(member, list) for _, member in _walk(patch)):
        tags.append("SMP-MERGE-LIST")
    return tags or ["SMP-MAP"]


def _strategic_creation(case: Case) -> list[str]:
    documents = [case.inputs.get(key) for key in ("original", "modified", "current")]
    tags = ["SMP2-BASIC"]
    if any(isinstance(member, list) for document in documents for _, member in _walk(document)):
        tags.append("SMP2-LIST")
    tags += _directives(documents)
    original, modified = documents[0], documents[1]
    if isinstance(original, dict) and isinstance(modified, dict) and _identity(original) != _identity(modified):
        tags.append("SMP2-PRECONDITION")
    return tags


def _identity(document: dict) -> tuple:
    metadata = document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return document.get("apiVersion"), document.get("kind"), name


def _apply(case: Case) -> list[str]:
    if case.inputs.get("current") is None:
        return ["APPLY-CREATE"]
    tags = []
    if case.inputs.get("original") is None:
        tags.append("APPLY-NO-ANNOTATION")
    modified = case.inputs.get("modified")
    if isinstance(modified, dict) and "." in str(modified.get("apiVersion", "")).partition("/")[0]:
        tags.append("APPLY-CRD")
    if any(isinstance(member, list) for _, member in _walk(modified)):
        tags.append("APPLY-LIST")
    if case.options.get("overwrite") is False:
        tags.append("APPLY-CONFLICT")
    return tags or ["APPLY-OVERWRITE"]


def behaviour_ids(case: Case) -> tuple[str, ...]:
    """The behaviour ids of ``case``, without repeats, in a stable order."""
    by_type = {
        "json-patch": _json_patch,
        "merge-patch": _merge_patch,
        "merge-patch-2way": lambda case: ["MP-CREATE"],
        "merge-patch-3way": lambda case: ["MP-3WAY"],
        "strategic": _strategic,
        "strategic-2way": _strategic_creation,
        "strategic-3way": lambda case: [*_strategic_creation(case), "APPLY-CONFLICT"]
        if case.options.get("overwrite") is False else _strategic_creation(case),
        "apply": _apply,
        "server-side-apply": lambda case: ["SSA-OWNERSHIP"],
    }
    tags = by_type.get(case.type, lambda case: [])(case)
    return tuple(sorted(set(tags)))
