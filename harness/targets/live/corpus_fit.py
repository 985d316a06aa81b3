"""Which corpus cases (not written for live) a server can judge, and why the others cannot."""

from __future__ import annotations

from typing import Any

from ....reference_impl.patch_types import names_where, patch_type
from ...corpus.cases import ABSENT, Case
from .conventions import IDENTITY_POINTERS, SERVER_OWNED_METADATA
from .placement import HOST_FIELDS

# patches a server applies to any JSON object: these run on plain documents held in a custom resource
HOSTED_TYPES = names_where(lambda patch_type: patch_type.patch_request and patch_type.rfc)


def _ops(patch: Any) -> list[dict]:
    return [op for op in patch if isinstance(op, dict)] if isinstance(patch, list) else []


def _at_or_under(pointer: str, prefix: str) -> bool:
    return pointer == prefix or pointer.startswith(f"{prefix}/")


def corpus_problem(case: Case) -> str | None:
    """Why a corpus case (not written for live) cannot be judged against a server (the run label
    in an existing namespace is :func:`label_problem`'s concern)."""
    patch = case.inputs.get("patch")
    if case.type == "json-patch":
        for op in _ops(patch):
            problem = _whole_document_test(op)
            if problem:
                return problem
            for key in ("path", "from"):
                pointer = op.get(key)
                if not isinstance(pointer, str) or pointer in ("", "/apiVersion", "/kind"):
                    continue  # the server's own answer (jsonpatch's root rules, its decoding) is what is judged
                if pointer in IDENTITY_POINTERS or any(_at_or_under(pointer, f"/metadata/{field}")
                                                       for field in ("name", "namespace", *SERVER_OWNED_METADATA)):
                    return f"the patch operates on {pointer}, which a server owns or keeps fixed"
                if _at_or_under(pointer, "/status"):
                    return STATUS_PROBLEM
    elif case.type in ("merge-patch", "strategic") and isinstance(patch, dict):
        original = case.inputs.get("original") or {}
        metadata = patch.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            return "the patch replaces metadata as a whole"
        if isinstance(metadata, dict):
            same_name = metadata.get("name") == (original.get("metadata") or {}).get("name")
            owned = [key for key in ("name", "namespace", *SERVER_OWNED_METADATA)
                     if key in metadata and not (key == "name" and same_name)]
            if owned:
                return f"the patch sets metadata.{owned[0]}, which a server owns or keeps fixed"
        if "status" in patch:
            return STATUS_PROBLEM
    return None


def _whole_document_test(op: dict) -> str | None:
    """A ``test`` of the whole document against an object: the server's object holds more than
    the case's (its own metadata, or the fields of the object holding a plain document)."""
    if op.get("op") == "test" and op.get("path") == "" and isinstance(op.get("value"), dict):
        return "the patch tests the whole document, which on a server holds metadata the case does not state"
    return None


STATUS_PROBLEM = "the patch changes status, which a server ignores outside the status subresource"


def patches_only_status(case: Case) -> bool:
    """Whether a patch case's patch changes status and nothing else: sent to the status subresource."""
    patch = case.inputs.get("patch")
    if case.type == "json-patch":
        ops = _ops(patch)
        return bool(ops) and len(ops) == len(patch) and all(
            isinstance(op.get(key), str) and _at_or_under(op[key], "/status")
            for op in ops for key in ("path", "from") if key in op)
    if case.type not in ("merge-patch", "strategic") or not isinstance(patch, dict):
        return False
    original = case.inputs.get("original") or {}
    return "status" in patch and all(
        key == "status" or (key in ("apiVersion", "kind") and patch[key] == original.get(key)) for key in patch)


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
            problem = _whole_document_test(op)
            if problem:
                return problem
            for key in ("path", "from"):
                pointer = op.get(key)
                if pointer == "" and key == "path" and op.get("op") == "replace":
                    return ("the patch replaces the whole document, with the fields the object holding it "
                            "keeps for the server")
                # jsonpatch refuses "" for the other ops (test aside), whatever the document holds
                if isinstance(pointer, str) and pointer and pointer.split("/")[1] in HOST_FIELDS:
                    return (f"the patch operates on {pointer}, which the object holding the document keeps "
                            "for the server")
    elif isinstance(patch, dict) and any(key in patch for key in HOST_FIELDS):
        return "the patch sets apiVersion, kind or metadata, which the object holding the document keeps for the server"
    return None


def nesting_problem(case: Case) -> str | None:
    """Why a case on an object cannot run with the object held whole as one field of a custom
    resource (placement.HELD_FIELD); None when it can: patches at the root, and non-object
    documents or merge patches, follow rules of their own there that a field does not."""
    if case.type not in HOSTED_TYPES:
        return f"a server applies {case.type} patches only to objects it can hold as their kind"
    if not isinstance(case.inputs.get("original"), dict):
        return "a server stores only JSON objects"
    expected = case.outcome.document
    if case.outcome.error is None and expected is not ABSENT and not isinstance(expected, dict):
        return f"the expected document is {_json_kind(expected)}, which a server cannot store as an object"
    patch = case.inputs.get("patch")
    if case.type == "json-patch":
        if any(op.get(key) == "" for op in _ops(patch) for key in ("path", "from")):
            return "the patch operates on the root, which jsonpatch treats apart from any member"
    elif not isinstance(patch, dict):
        return "a merge patch that is not a JSON object follows rules of its own at the root"
    return None


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return {list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")


# strategic merge patch directives that may replace or prune a map's keys (labels among them)
WHOLE_MAP_DIRECTIVES = ("$patch", "$retainKeys")
SHARED_NAMESPACE_LABELS = ("in an existing namespace (--namespace) or outside any (a cluster-scoped kind) every "
                           "object the run creates carries the label patchconf.dev/run, by which cleanup finds it, "
                           "and this case's {what} metadata.labels, which that label would change")


def label_problem(case: Case) -> str | None:
    """Why a case cannot run in an existing namespace, where every object it creates must keep the
    run label: its patch (or a patch step) operates on metadata.labels, or kubectl apply would drop
    them as a whole (the last applied configuration has labels, the new one none)."""
    if patch_type(case.type).patch_request:
        if _patch_touches_labels(case.type, case.inputs.get("patch")):
            return SHARED_NAMESPACE_LABELS.format(what="patch operates on")
    elif case.type == "server-side-apply":
        # who owns metadata.labels, and whether the map is there at all, is what such a case judges
        if _states_labels(case.inputs.get("current")):
            return SHARED_NAMESPACE_LABELS.format(what="current states")
        for step in case.inputs.get("steps") or ():
            if not isinstance(step, dict):
                continue
            if step.get("op") == "patch" and _patch_touches_labels(step.get("patch_type"), step.get("patch")):
                return SHARED_NAMESPACE_LABELS.format(what="patch step operates on")
            if _states_labels(step.get("object")):
                return SHARED_NAMESPACE_LABELS.format(what="step object states")
    elif case.type == "apply" and _has_labels(case.inputs.get("original")) \
            and not _has_labels(case.inputs.get("modified")):
        return SHARED_NAMESPACE_LABELS.format(what="apply drops")
    return None


def _states_labels(document: Any) -> bool:
    """``labels: null`` too: the run label would turn it into a map, and the request into another."""
    metadata = document.get("metadata") if isinstance(document, dict) else None
    return isinstance(metadata, dict) and "labels" in metadata


def _has_labels(document: Any) -> bool:
    metadata = document.get("metadata") if isinstance(document, dict) else None
    return isinstance(metadata, dict) and metadata.get("labels") is not None


def _patch_touches_labels(patch_type: Any, patch: Any) -> bool:
    if patch_type == "json-patch":
        return any(isinstance(op.get(key), str) and (op[key] in ("", "/metadata")
                                                    or _at_or_under(op[key], "/metadata/labels"))
                   for op in _ops(patch) for key in ("path", "from"))
    if not isinstance(patch, dict):
        return True  # replaces the whole object
    if any(key in patch for key in WHOLE_MAP_DIRECTIVES):  # e.g. $patch: replace on the whole object
        return True
    metadata = patch.get("metadata")
    if metadata is None:
        return False
    return not isinstance(metadata, dict) or any(key in metadata for key in ("labels", *WHOLE_MAP_DIRECTIVES))
