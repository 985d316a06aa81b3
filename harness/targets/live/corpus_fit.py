"""Which corpus cases (not written for live) a server can judge, and why the others cannot."""

from __future__ import annotations

from typing import Any

from harness.cases import ABSENT, Case
from harness.targets.live.conventions import IDENTITY_POINTERS, SERVER_OWNED_METADATA
from harness.targets.live.placement import HOST_FIELDS

# patches a server applies to any JSON object: these run on plain documents held in a custom resource
HOSTED_TYPES = ("json-patch", "merge-patch")


def _ops(patch: Any) -> list[dict]:
    return [op for op in patch if isinstance(op, dict)] if isinstance(patch, list) else []


def corpus_problem(case: Case, labelled: bool = False) -> str | None:
    """Why a corpus case (not written for live) cannot be judged against a server (``labelled``:
    the target puts its run label on the objects it creates)."""
    patch = case.inputs.get("patch")
    if case.type == "json-patch":
        for op in _ops(patch):
            for key in ("path", "from"):
                pointer = op.get(key)
                if not isinstance(pointer, str):
                    continue
                if pointer in ("", *IDENTITY_POINTERS) or pointer.startswith(("/apiVersion/", "/kind/")) or any(
                        pointer == f"/metadata/{field}" or pointer.startswith(f"/metadata/{field}/")
                        for field in ("name", "namespace", *SERVER_OWNED_METADATA)):
                    return f"the patch operates on {pointer or 'the root'}, which a server owns or keeps fixed"
                if pointer == "/status" or pointer.startswith("/status/"):
                    return "the patch changes status, which a server ignores outside the status subresource"
                if labelled and pointer.startswith("/metadata/labels"):
                    return "the patch operates on metadata.labels, where the live target keeps its run label"
    elif case.type in ("merge-patch", "strategic") and isinstance(patch, dict):
        original = case.inputs.get("original") or {}
        if any(key in patch and patch[key] != original.get(key) for key in ("apiVersion", "kind")):
            return "the patch changes apiVersion or kind, which a server keeps fixed"
        metadata = patch.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            return "the patch replaces metadata as a whole"
        if isinstance(metadata, dict):
            same_name = metadata.get("name") == (original.get("metadata") or {}).get("name")
            owned = [key for key in ("name", "namespace", *SERVER_OWNED_METADATA)
                     if key in metadata and not (key == "name" and same_name)]
            if owned:
                return f"the patch sets metadata.{owned[0]}, which a server owns or keeps fixed"
            if labelled and "labels" in metadata and not isinstance(metadata["labels"], dict):
                return "the patch replaces metadata.labels, where the live target keeps its run label"
        if "status" in patch:
            return "the patch changes status, which a server ignores outside the status subresource"
    elif case.type in ("merge-patch", "strategic"):
        return "a patch that is not a JSON object would replace the whole object"
    return None


def hosting_problem(case: Case) -> str | None:
    """Why a case on a plain JSON document (no apiVersion, kind, metadata.name) cannot be held as
    the fields of a custom resource and patched there; None when it can."""
    document = case.inputs.get("original")
    if case.type not in HOSTED_TYPES:
        return (f"a server applies {case.type} patches only to Kubernetes objects of kinds it compiles in, "
                "and this document is not one")
    if not isinstance(document, dict):
        return f"a server stores only JSON objects, and this document is {_json_kind(document)}"
    taken = [key for key in HOST_FIELDS if key in document]
    if taken:
        return f"the document's own {taken[0]!r} would be the field a server keeps for every object"
    expected = case.outcome.document
    if case.outcome.error is None and expected is not ABSENT and not isinstance(expected, dict):
        return f"the expected document is {_json_kind(expected)}, which a server cannot store as an object"
    patch = case.inputs.get("patch")
    if case.type == "json-patch":
        for op in _ops(patch):
            for key in ("path", "from"):
                pointer = op.get(key)
                if isinstance(pointer, str) and (pointer == "" or pointer.split("/")[1] in HOST_FIELDS):
                    return (f"the patch operates on {pointer or 'the root'}, which the object holding the "
                            "document keeps for the server")
    elif not isinstance(patch, dict):
        return "a merge patch that is not a JSON object replaces the whole document, which a server keeps as an object"
    elif any(key in patch for key in HOST_FIELDS):
        return "the patch sets apiVersion, kind or metadata, which the object holding the document keeps for the server"
    return None


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return {list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")
