"""``kubectl apply`` (client-side) as kubectl runs it against a server, for ``kubectl-apply`` steps.

Go twin: k8s.io/kubectl pkg/cmd/apply/apply.go (``applyOneObject`` without ``--server-side``) and
patcher.go (``Patcher.patchSimple``). kubectl reads the object; if there is none it creates the
manifest carrying its last-applied annotation (a POST); otherwise it warns when the object has
no last-applied annotation, computes the three-way patch of :mod:`patchconf.reference_impl.kubectl_apply`
and sends it (a strategic merge patch for built-in kinds, a JSON merge patch for others), unless
it is ``{}``. Each request names the step's manager as fieldManager (kubectl's default for a
client-side apply is ``kubectl-client-side-apply``), so the server records an Update entry.

The step's ``warnings`` are the ones kubectl prints, without their ``Warning: `` prefix.
"""

from __future__ import annotations

from .. import kubectl_apply
from ..errors import PatchError
from ..kubernetes_object import resource_plural
from .managedfields import LAST_APPLIED, RequestError
from .request import Endpoint, Step, StepResult

OP = "kubectl-apply"

# apply.go: warningNoLastAppliedConfigAnnotation, with kubectl's command name.
_MISSING_ANNOTATION = ("resource {object} is missing the {annotation} annotation which is required by kubectl apply. "
                       "kubectl apply should only be used on resources created declaratively by either kubectl "
                       "create --save-config or kubectl apply. The missing annotation will be patched automatically.")


def missing_annotation_warning(kind: str, name: str) -> str:
    """What kubectl prints (after ``Warning: ``) applying to an object without the annotation;
    the object is named as ``resource.Info.ObjectName`` names it: ``<resource>/<name>``."""
    return _MISSING_ANNOTATION.format(object=f"{resource_plural(kind)}/{name}", annotation=LAST_APPLIED)


def run(store: Endpoint, step: Step, patch_meta: object | None) -> StepResult:
    """The step's requests on ``store``. ``patch_meta`` is the kind's strategic patch metadata,
    None for a kind kubectl patches with a JSON merge patch."""
    if store.live is None:
        try:
            created = kubectl_apply.apply(step.object, None, patch_meta).live
        except PatchError as exc:
            return _refused_by_kubectl(exc)
        return store.request(Step("create", step.manager, object=created))._replace(warnings=())
    warnings: tuple[str, ...] = ()
    metadata = store.live.get("metadata") or {}
    if LAST_APPLIED not in (metadata.get("annotations") or {}):
        warnings = (missing_annotation_warning(store.kind, metadata.get("name", "")),)
    try:
        computed = kubectl_apply.apply(step.object, store.live, patch_meta)
    except PatchError as exc:
        return _refused_by_kubectl(exc)._replace(warnings=warnings)
    if computed.patch == {}:  # kubectl sends nothing: "unchanged"
        return StepResult.of(store.live, False)._replace(warnings=warnings)
    patch_type = "strategic" if computed.patch_type == kubectl_apply.STRATEGIC else "merge-patch"
    answer = store.request(Step("patch", step.manager, patch_type=patch_type, patch=computed.patch))
    return answer._replace(warnings=warnings)


def _refused_by_kubectl(exc: PatchError) -> StepResult:
    """An error of kubectl's own, before any request (no HTTP status)."""
    return StepResult(error=RequestError(exc.error_class, exc.message, 0, ""))
