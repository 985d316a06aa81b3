"""Moving an object from client-side to server-side apply: kubectl's rewrite of managedFields.

Go twins: k8s.io/client-go/util/csaupgrade (upgrade.go: ``FindFieldsOwners``,
``UpgradeManagedFields``, ``UpgradeManagedFieldsPatch``; options.go: ``Subresource``, since
client-go v0.30) and the two steps of ``kubectl apply --server-side`` that call it
(k8s.io/kubectl pkg/cmd/apply/apply.go: ``saveLastApplyAnnotationIfNecessary``,
``migrateToSSAIfNecessary``, then the apply sent again).

Client-side apply records its changes as ``Update`` entries (manager
``kubectl-client-side-apply`` by default). A server-side applier owns only what it sent, so a
field dropped from the manifest later stays: the Update entry still owns it. The upgrade folds
each named client-side manager's Update entry into the applier's ``Apply`` entry (turning the
first such Update entry into it when the applier has none yet) and drops those Update entries;
the next apply then prunes what the manifest no longer has. Entries are managedFields entries
as the object carries them (``fieldsV1`` a dict); nothing given is changed in place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..govalue.decoded import json_copy
from .fieldpath import FieldSet, make_path
from .managedfields import LAST_APPLIED

# kubectl's default managers (apply.go: FieldManagerClientSideApply, fieldManagerServerSideApply,
# fieldManagerLastAppliedAnnotation)
CLIENT_SIDE_APPLY_MANAGER = "kubectl-client-side-apply"
SERVER_SIDE_APPLY_MANAGER = "kubectl"
LAST_APPLIED_MANAGER = "kubectl-last-applied"
# apply.go lastAppliedAnnotationFieldPath: who owns the annotation is who applied client-side
LAST_APPLIED_FIELD = FieldSet.of(make_path("metadata", "annotations", LAST_APPLIED))


def find_fields_owners(entries: Sequence[dict[str, Any]] | None, operation: str,
                       fields: FieldSet) -> list[dict[str, Any]]:
    """FindFieldsOwners: the entries of ``operation`` owning every field of ``fields``, in order.

    An entry whose fieldsV1 cannot be read owns nothing (Go ignores the decoding error).
    """
    owners = []
    for entry in entries or ():
        if entry.get("operation") != operation:
            continue
        owned = _fields_or_none(entry)
        if owned is not None and fields.difference(owned).empty():
            owners.append(entry)
    return owners


def upgrade_managed_fields(entries: Sequence[dict[str, Any]] | None, csa_managers: Iterable[str],
                           ssa_manager: str, subresource: str = "") -> list[dict[str, Any]] | None:
    """UpgradeManagedFields on a list of entries: the entries after folding each of
    ``csa_managers``' Update entries (of ``subresource``) into ``ssa_manager``'s Apply entry.

    Managers are folded in the order given; Go ranges over a set, in no fixed order, which
    matters only when the applier has no Apply entry yet and several client-side managers'
    entries differ in time or apiVersion (the first one folded becomes the Apply entry).
    ``None`` (an object without managedFields) stays ``None``.
    """
    upgraded = None if entries is None else [json_copy(entry) for entry in entries]
    for csa_manager in csa_managers:
        upgraded = _upgraded(upgraded, csa_manager, ssa_manager, subresource)
    return upgraded


def upgrade_managed_fields_patch(obj: dict[str, Any], csa_managers: Iterable[str], ssa_manager: str,
                                 subresource: str = "") -> list[dict[str, Any]] | None:
    """UpgradeManagedFieldsPatch: the JSON patch kubectl sends, or ``None`` when there is nothing
    to upgrade. It replaces all of ``/metadata/managedFields`` and, so that a write in between
    fails with 409 rather than being overwritten, ``/metadata/resourceVersion`` with the one read
    (a "replace" rather than a "test": etcd, not the patch, then refuses a stale one)."""
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    entries = metadata.get("managedFields")
    upgraded = upgrade_managed_fields(entries, csa_managers, ssa_manager, subresource)
    if upgraded == entries:
        return None
    return [
        {"op": "replace", "path": "/metadata/managedFields", "value": upgraded},
        {"op": "replace", "path": "/metadata/resourceVersion", "value": metadata.get("resourceVersion", "")},
    ]


def _upgraded(entries: list[dict[str, Any]] | None, csa_manager: str, ssa_manager: str,
              subresource: str) -> list[dict[str, Any]] | None:
    """upgradedManagedFields for one client-side manager."""
    if entries is None:
        return None
    target = _first_index(entries, ssa_manager, "Apply", subresource)
    if target is None:
        # No Apply entry yet: the client-side manager's first Update entry becomes it (Go's
        # comment says "most recent is first", but the server sorts the oldest first).
        target = _first_index(entries, csa_manager, "Update", subresource)
        if target is None:
            return entries
        entries[target] = {**entries[target], "manager": ssa_manager, "operation": "Apply"}
    entries[target] = _with_union(entries, target, csa_manager, subresource)
    return [entry for entry in entries if not _is(entry, csa_manager, "Update", subresource)] or None


def _with_union(entries: list[dict[str, Any]], target: int, csa_manager: str, subresource: str) -> dict[str, Any]:
    """unionManagerIntoIndex: the target entry owning, besides its own fields, those of the
    client-side manager's Update entry of the same apiVersion (entries of other apiVersions are
    dropped with their fields). The target's fields are written anew either way."""
    owner = entries[target]
    fields = _fields(owner)
    same_version = next((entry for entry in entries if _is(entry, csa_manager, "Update", subresource)
                         and entry.get("apiVersion") == owner.get("apiVersion")), None)
    if same_version is not None:
        fields = fields.union(_fields(same_version))
    return {**owner, "fieldsV1": fields.to_json()}


def _first_index(entries: list[dict[str, Any]], manager: str, operation: str, subresource: str) -> int | None:
    return next((index for index, entry in enumerate(entries) if _is(entry, manager, operation, subresource)), None)


def _is(entry: dict[str, Any], manager: str, operation: str, subresource: str) -> bool:
    return (entry.get("manager", "") == manager and entry.get("operation") == operation
            and entry.get("subresource", "") == subresource)


def _fields(entry: dict[str, Any]) -> FieldSet:
    owned = _fields_or_none(entry)
    if owned is None:
        raise ValueError(f"failed to convert fields to set: manager {entry.get('manager', '')!r} has "
                         f"unreadable fieldsV1 {entry.get('fieldsV1')!r}")
    return owned


def _fields_or_none(entry: dict[str, Any]) -> FieldSet | None:
    if not isinstance(entry.get("fieldsV1"), dict):
        return None  # Go: no JSON to read
    try:
        return FieldSet.from_json(entry["fieldsV1"])
    except (ValueError, TypeError, AttributeError):
        return None


__all__ = [
    "CLIENT_SIDE_APPLY_MANAGER",
    "LAST_APPLIED_FIELD",
    "LAST_APPLIED_MANAGER",
    "SERVER_SIDE_APPLY_MANAGER",
    "find_fields_owners",
    "upgrade_managed_fields",
    "upgrade_managed_fields_patch",
]
