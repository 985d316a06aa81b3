"""Which corpus cases (not written for live) a server can judge, and why the others cannot."""

from __future__ import annotations

from typing import Any

from harness.cases import Case
from harness.targets.live.conventions import IDENTITY_POINTERS, SERVER_OWNED_METADATA


def _ops(patch: Any) -> list[dict]:
    return [op for op in patch if isinstance(op, dict)] if isinstance(patch, list) else []


def corpus_problem(case: Case) -> str | None:
    """Why a corpus case (not written for live) cannot be judged against a server."""
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
                if pointer.startswith("/metadata/labels"):
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
            if "labels" in metadata and not isinstance(metadata["labels"], dict):
                return "the patch replaces metadata.labels, where the live target keeps its run label"
        if "status" in patch:
            return "the patch changes status, which a server ignores outside the status subresource"
    elif case.type in ("merge-patch", "strategic"):
        return "a patch that is not a JSON object would replace the whole object"
    return None
