"""Steps of several requests: client-go's managedFields upgrade, and ``kubectl apply --server-side``.

``csa-upgrade`` is what a program calling client-go's ``csaupgrade.UpgradeManagedFieldsPatch``
sends: the JSON patch rewriting managedFields (nothing when there is nothing to upgrade).
``kubectl-apply-server-side`` is kubectl's whole sequence (k8s.io/kubectl pkg/cmd/apply/apply.go,
``applyOneObject``): the apply; as manager ``kubectl``, an apply of the last-applied annotation
alone by ``kubectl-last-applied`` unless an Apply entry owns it already
(``saveLastApplyAnnotationIfNecessary``); the upgrade of every Update manager owning the
annotation (``migrateToSSAIfNecessary``); and, if that sent a patch, the apply once more, which
now prunes what the manifest dropped. Only the first apply's failure fails the step: kubectl
reports a failure of the later requests as a warning and stops there.

Every request of a step happens at the step's time; the step changed the object if any of its
requests did.
"""

from __future__ import annotations

from typing import Any

from .csaupgrade import (
    LAST_APPLIED_FIELD,
    LAST_APPLIED_MANAGER,
    SERVER_SIDE_APPLY_MANAGER,
    find_fields_owners,
    upgrade_managed_fields_patch,
)
from .managedfields import LAST_APPLIED, RequestError
from .request import Endpoint, Step, StepResult

OPS = ("csa-upgrade", "kubectl-apply-server-side")


def run(store: Endpoint, step: Step) -> StepResult:
    """The step's requests on ``store``, at its current time."""
    if step.op == "csa-upgrade":
        return _csa_upgrade(store, step)
    return _kubectl_apply_server_side(store, step)


def _csa_upgrade(store: Endpoint, step: Step) -> StepResult:
    if store.live is None:
        return StepResult(error=RequestError("path-not-found", f"{store.kind.lower()} not found", 404, "NotFound"))
    try:
        sent = _upgrade(store, step.csa_managers, step.manager or "", step.subresource)
    except RequestError as exc:
        return StepResult(error=exc.with_traceback(None))  # as Endpoint.request keeps it: no cycle
    return _result(store, sent is not None and sent.changed)


def _upgrade(store: Endpoint, csa_managers: tuple[str, ...], ssa_manager: str,
             subresource: str = "", info: dict[str, Any] | None = None, dry_run: bool = False) -> StepResult | None:
    """UpgradeManagedFieldsPatch of ``info`` (the object the client last read; default: the stored
    one) and, if it gives a patch, the patch sent (by the applier's name, to the object itself
    whatever the subresource: managedFields sent to /status are ignored); the patch request's
    result, None when there was nothing to send."""
    try:
        patch = upgrade_managed_fields_patch(store.live if info is None else info, csa_managers, ssa_manager,
                                             subresource)
    except ValueError as exc:
        raise RequestError("invalid-document", str(exc), 0, "") from exc
    if patch is None:
        return None
    # The reference store keeps no resourceVersion: the patch's second operation, which only
    # restates the one read, has nothing to replace here.
    managed_fields_only = [operation for operation in patch if operation["path"] == "/metadata/managedFields"]
    answer = store.request(Step("patch", ssa_manager, patch_type="json-patch", patch=managed_fields_only,
                                dry_run=dry_run))
    if answer.error is not None:
        raise answer.error
    return answer


def _kubectl_apply_server_side(store: Endpoint, step: Step) -> StepResult:
    """kubectl computes each request from the answer to the one before (info.Refresh). With
    --dry-run=server every request is a dry run against the stored object: the migration is
    computed and answered but never stored, so the last apply answers as the first did and kubectl
    shows fields the real sequence removes (kubernetes#125607)."""
    apply = Step("apply", step.manager, step.force, object=step.object, dry_run=step.dry_run)
    first = store.request(apply)
    if first.error is not None:
        return first
    changed, info = first.changed, first.answer
    try:
        if step.manager == SERVER_SIDE_APPLY_MANAGER:
            saved = _save_last_applied(store, info, step.dry_run)
            if saved is not None:
                changed, info = changed or saved.changed, saved.answer
        owners = find_fields_owners(_entries(info), "Update", LAST_APPLIED_FIELD)
        csa_managers = tuple(dict.fromkeys(entry.get("manager", "") for entry in owners))
        migrated = _upgrade(store, csa_managers, step.manager or "", info=info, dry_run=step.dry_run)
        if migrated is not None:  # kubectl applies again after any migration patch that went through
            changed, info = changed or migrated.changed, migrated.answer
            again = store.request(apply)
            if again.error is None:
                changed, info = changed or again.changed, again.answer
    except RequestError:
        pass  # kubectl warns and leaves the object as the requests so far made it
    return StepResult.of(info, changed)


def _save_last_applied(store: Endpoint, info: dict[str, Any], dry_run: bool) -> StepResult | None:
    """saveLastApplyAnnotationIfNecessary on the object kubectl last read: the annotation applied
    alone by kubectl-last-applied, so that the applier's next apply, which does not send it, does
    not remove it. The request's answer, None when none was needed."""
    metadata = info.get("metadata") or {}
    annotations = metadata.get("annotations") or {}
    if LAST_APPLIED not in annotations or find_fields_owners(_entries(info), "Apply", LAST_APPLIED_FIELD):
        return None
    just_annotation: dict[str, Any] = {"apiVersion": store.api_version, "kind": store.kind, "metadata": {
        "name": metadata.get("name"), "annotations": {LAST_APPLIED: annotations[LAST_APPLIED]}}}
    if metadata.get("namespace"):
        just_annotation["metadata"]["namespace"] = metadata["namespace"]
    answer = store.request(Step("apply", LAST_APPLIED_MANAGER, object=just_annotation, dry_run=dry_run))
    if answer.error is not None:
        raise answer.error
    return answer


def _entries(obj: dict[str, Any] | None) -> list[dict[str, Any]]:
    return ((obj or {}).get("metadata") or {}).get("managedFields") or []


def _result(store: Endpoint, changed: bool) -> StepResult:
    return StepResult.of(store.live, changed)
