"""A request to the apiserver's endpoint for one object, and what it answers.

Go twins: the request options and bodies the handlers in k8s.io/apiserver/pkg/endpoints/handlers
take (``create.go``, ``update.go``, ``patch.go``), and the object they return. A step of a case
is one request, or several for the steps :mod:`.migration` runs; both the endpoint
(:mod:`.apiserver`) and those steps speak these types, so neither imports the other.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from ..govalue.decoded import json_copy
from .managedfields import RequestError

# What the server sets on every object and a case's document leaves out.
SERVER_OWNED = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields")


# Named tuples, not dataclasses: never changed, and quicker to define at import.
class Step(NamedTuple):
    """One request: ``op`` apply, update (PUT), patch (``patch_type``) or create (POST, as kubectl
    apply creates), on the object or ``status``."""

    op: str
    manager: str | None = None
    force: bool = False
    subresource: str = ""
    object: Any = None
    patch_type: str | None = None
    patch: Any = None
    csa_managers: tuple[str, ...] = ()  # op csa-upgrade (patchconf.reference_impl.ssa.migration)
    dry_run: bool = False  # dryRun=All: the object is answered, nothing is stored

    @staticmethod
    def from_json(data: dict[str, Any]) -> Step:
        return Step(data["op"], data.get("manager"), bool(data.get("force", False)), data.get("subresource") or "",
                    with_fields_type(json_copy(data.get("object"))), data.get("patch_type"),
                    json_copy(data.get("patch")), tuple(data.get("csa_managers") or ()),
                    bool(data.get("dry_run", False)))


def with_fields_type(obj: Any) -> Any:
    """Case files leave ``fieldsType: FieldsV1`` out of managedFields entries; the request has it.
    An empty entry stays empty: ``[{}]`` is the reset marker."""
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    entries = metadata.get("managedFields") if isinstance(metadata, dict) else None
    if isinstance(entries, list):
        metadata["managedFields"] = [{**entry, "fieldsType": "FieldsV1"} if isinstance(entry, dict) and entry
                                     and "fieldsType" not in entry else entry for entry in entries]
    return obj


class StepResult(NamedTuple):
    document: Any = None
    managed_fields: list[dict[str, Any]] | None = None
    changed: bool = False
    error: RequestError | None = None
    warnings: tuple[str, ...] | None = None  # what kubectl printed (kubectl-apply steps); None: not told
    answer: dict[str, Any] | None = None  # the whole object answered, server-owned metadata and all

    @staticmethod
    def of(stored: dict[str, Any], changed: bool) -> StepResult:
        """The answer showing ``stored``: the document without what the server owns, and its entries.
        It shares ``stored``'s values, which the endpoint never changes in place."""
        return StepResult(shown(stored), entries_of(stored), changed=changed, answer=stored)

    def to_json(self) -> dict[str, Any]:
        warned = {} if self.warnings is None else {"warnings": list(self.warnings)}
        if self.error is not None:
            error: dict[str, Any] = {"class": self.error.error_class, "message": self.error.message,
                                     "status": self.error.status, "reason": self.error.reason}
            if self.error.conflicts:
                error["conflicts"] = [{"manager": m, "field": f} for m, f in self.error.conflicts]
            return {"error": error, **warned}
        return {"document": self.document, "managed_fields": self.managed_fields or [], "changed": self.changed,
                **warned}


class Endpoint(Protocol):
    """The apiserver's endpoint for one object, as the several-request steps use it."""

    api_version: str
    kind: str
    live: dict[str, Any] | None

    def request(self, step: Step) -> StepResult: ...


def entries_of(obj: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The object's managedFields entries as a case states them (no ``fieldsType``): new entries,
    holding the object's FieldsV1 objects."""
    metadata = (obj or {}).get("metadata") or {}
    return [{k: v for k, v in entry.items() if k != "fieldsType"} for entry in metadata.get("managedFields") or ()]


def shown(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as a case's document states it: without the metadata the server owns. A new
    object and metadata; below them, ``obj``'s values."""
    document = dict(obj)
    metadata = obj.get("metadata")
    if isinstance(metadata, dict):
        document["metadata"] = {name: member for name, member in metadata.items() if name not in SERVER_OWNED}
    return document
