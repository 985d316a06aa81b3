"""What a built-in object looks like after the apiserver's trip through its kind's internal version.

The apiserver converts every request into the kind's internal version and every answer and
stored object back (k8s.io/apiserver handlers, the versioning codec); the field manager sees
the versioned object converted back from the internal one. Whatever a v1 -> internal -> v1 round
trip rewrites is therefore stored and shown rewritten, while an apply's managedFields keep what
the request sent (the merge runs before the conversion): a Secret applied with ``stringData``
is stored with base64 ``data`` and no ``stringData``, and its Apply entry owns
``f:stringData``, never ``f:data``. An update (PUT) or a patch is converted before the field
manager compares it, so its entry owns what was stored (``f:data``). As a live kube-apiserver
shows (cases/server-side-apply/conversion.yaml): a key renamed or dropped from an applied
``stringData`` stays in ``data``, owned by nobody (kubernetes#108008); another manager writing
``data.<key>`` never conflicts with the ``stringData`` applier, whose next apply writes its value
back; an empty ``stringData`` is owned as ``f:stringData`` and adds nothing.

What each kind's round trip rewrites (Kubernetes 1.27 to 1.34; only the HPA tolerance
annotations differ, dropped from 1.33), with its Go twin in k8s.io/kubernetes pkg/apis:

- Secret: ``stringData`` is merged into ``data`` (each value's UTF-8 bytes, base64 as JSON
  writes ``[]byte``; a key in both takes ``stringData``'s value) and never kept; an empty
  ``stringData`` adds nothing (``Convert_v1_Secret_To_core_Secret``, core/v1/conversion.go).
- Every pod spec (a Pod's, a template's in a Deployment, ReplicaSet, StatefulSet, DaemonSet,
  Job, CronJob, ReplicationController, PodTemplate): the deprecated ``serviceAccount`` is an
  alias of ``serviceAccountName`` — the name when given, else the alias — and is written back
  equal to it (``Convert_v1_PodSpec_To_core_PodSpec`` and its inverse). From 1.37 the
  defaulters do the same (:mod:`..defaults.core_v1`): applying it again changes nothing. The
  host namespace fields (``hostNetwork``...) travel through the internal securityContext and
  come back unchanged (its ``{}`` is a default anyway).
- A Pod's and every pod template's ``metadata.annotations`` lose the pre-1.8 init container
  annotations ``pod.{alpha,beta}.kubernetes.io/init-containers`` and ``…/init-container-statuses``
  (``dropInitContainerAnnotations`` in ``Convert_v1_Pod_To_core_Pod`` and
  ``Convert_v1_PodTemplateSpec_To_core_PodTemplateSpec``).
- A Pod's negative ``terminationGracePeriodSeconds`` becomes 1 (``Convert_v1_Pod_To_core_Pod``;
  templates keep theirs; from 1.37 SetDefaults_Pod).
- A Pod's ``status.podIP`` and ``status.podIPs``: podIP wins, podIPs becoming ``[{ip: podIP}]``
  when missing or when its first differs; without podIP, podIP is the first of podIPs
  (``Convert_v1_PodStatus_To_core_PodStatus`` and its inverse). A Node's ``spec.podCIDR`` and
  ``spec.podCIDRs`` alike (``Convert_v1_NodeSpec_To_core_NodeSpec``).
- Deployment: the annotation ``deprecated.deployment.rollback.to`` is the internal
  ``spec.rollbackTo.revision``: an integer comes back written as Go formats it (``"007"`` as
  ``"7"``), an empty one is dropped (``Convert_v1_Deployment_To_apps_Deployment``, apps/v1); one
  that is no integer fails the request (:class:`ConversionError`: an apply's answer is a 500, an
  update's or a patch's a 400 or 422).
- DaemonSet: ``spec.templateGeneration`` (internal only) is written as the annotation
  ``deprecated.daemonset.template.generation`` whatever its value: a body without the
  annotation reads as generation 0 and is seen with ``"0"``
  (``Convert_apps_DaemonSet_To_v1_DaemonSet`` and its inverse). The strategy sets the stored
  value (:mod:`.strategies`). A value that is no integer (``""`` included) fails the request.
- StatefulSet: each of ``spec.volumeClaimTemplates`` is written with ``apiVersion: v1`` and
  ``kind: PersistentVolumeClaim`` whatever it said (``Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec``).
- Fields the internal version holds as values where the versioned one has pointers come back
  set even when no request set them: a rolling update's ``maxUnavailable`` and ``maxSurge``
  (internal ``intstr.IntOrString``) and a StatefulSet's ``partition`` (internal ``int32``) are
  written as 0 wherever their ``rollingUpdate`` exists — a DaemonSet with ``type: OnDelete``,
  which its defaulting leaves alone, included
  (``metav1.Convert_intstr_IntOrString_To_Pointer_intstr_IntOrString``,
  ``Convert_int32_To_Pointer_int32`` in apps/v1/zz_generated.conversion.go). The other such
  fields (``replicas``, a projected token's ``expirationSeconds``) are always defaulted before.
- policy/v1 PodDisruptionBudget: ``spec.selector.matchExpressions`` lose every requirement on
  the key ``pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match``, unless the selector is
  exactly the one requirement ``Exists`` on it (``Convert_v1_PodDisruptionBudget_To_policy_PodDisruptionBudget``).
- autoscaling/v2 HorizontalPodAutoscaler: the annotations older versions round-trip through
  (``autoscaling.alpha.kubernetes.io/metrics``, ``current-metrics``, ``conditions``,
  ``behavior``; from 1.33 ``scale-down-tolerance`` and ``scale-up-tolerance``) are dropped
  (``Convert_v2_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler``).

Conversions of kinds the reference does not model as served versions: autoscaling/v1
HorizontalPodAutoscaler (its ``targetCPUUtilizationPercentage`` and the metrics annotations are
the internal ``metrics``), events.k8s.io/v1 Event (fields renamed from core's, none rewritten),
the beta versions (apps/v1beta*, extensions, networking/v1beta1, policy/v1beta1, discovery,
flowcontrol, resource, node/v1alpha1, rbac/v1alpha1), abac policies. Copies only, rewriting
nothing: admissionregistration/v1 rules, authentication/v1 UserInfo, core/v1 ResourceList and
PersistentVolumeSpec, ReplicationController's spec.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from ..govalue.strconv import NumError, parse_int

TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"
ROLLBACK_TO = "deprecated.deployment.rollback.to"
INIT_CONTAINER_ANNOTATIONS = frozenset({
    "pod.beta.kubernetes.io/init-containers", "pod.alpha.kubernetes.io/init-containers",
    "pod.beta.kubernetes.io/init-container-statuses", "pod.alpha.kubernetes.io/init-container-statuses",
})
PDB_V1BETA1_LABEL = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"
HPA_ROUND_TRIP_ANNOTATIONS = ("autoscaling.alpha.kubernetes.io/metrics",
                              "autoscaling.alpha.kubernetes.io/current-metrics",
                              "autoscaling.alpha.kubernetes.io/conditions",
                              "autoscaling.alpha.kubernetes.io/behavior")
HPA_TOLERANCE_ANNOTATIONS = ("autoscaling.alpha.kubernetes.io/scale-down-tolerance",
                             "autoscaling.alpha.kubernetes.io/scale-up-tolerance")
HPA_TOLERANCE_SINCE = (1, 33)

Path = tuple[str, ...]


class ConversionError(ValueError):
    """A value the internal version cannot hold: the server fails the request (Go's error text)."""


# kind -> (where a struct sits, its members that are values in the internal version)
ZERO_WHEN_PRESENT: dict[tuple[str, str], tuple[tuple[Path, tuple[str, ...]], ...]] = {
    ("apps/v1", "DaemonSet"): ((("spec", "updateStrategy", "rollingUpdate"), ("maxUnavailable", "maxSurge")),),
    ("apps/v1", "Deployment"): ((("spec", "strategy", "rollingUpdate"), ("maxUnavailable", "maxSurge")),),
    ("apps/v1", "StatefulSet"): ((("spec", "updateStrategy", "rollingUpdate"), ("partition",)),),
}
# kind -> where its pod template (metadata and spec) sits; () for a Pod, which is its own
POD_TEMPLATES: dict[tuple[str, str], Path] = {
    ("v1", "Pod"): (),
    ("v1", "PodTemplate"): ("template",),
    ("v1", "ReplicationController"): ("spec", "template"),
    ("apps/v1", "Deployment"): ("spec", "template"),
    ("apps/v1", "ReplicaSet"): ("spec", "template"),
    ("apps/v1", "StatefulSet"): ("spec", "template"),
    ("apps/v1", "DaemonSet"): ("spec", "template"),
    ("batch/v1", "Job"): ("spec", "template"),
    ("batch/v1", "CronJob"): ("spec", "jobTemplate", "spec", "template"),
}


def through_internal_version(obj: dict[str, Any], api_version: str, kind: str,
                             release: tuple[int, int] | None = None) -> dict[str, Any]:
    """``obj`` as it comes back from the kind's internal version, by the rules of ``release``
    (None: the newest). A new dict where anything changed; ``obj`` is never changed."""
    for path, members in ZERO_WHEN_PRESENT.get((api_version, kind), ()):
        obj = _with_zeros(obj, path, members)
    template = POD_TEMPLATES.get((api_version, kind))
    if template is not None:
        obj = _at(obj, template, _pod_template)
    converter = _CONVERTERS.get((api_version, kind))
    if converter is not None:
        obj = converter(obj, release)
    return obj


# --- each kind's own ---------------------------------------------------------------------------


def secret(obj: dict[str, Any], release: tuple[int, int] | None = None) -> dict[str, Any]:
    """Convert_v1_Secret_To_core_Secret: ``stringData`` merged into ``data``, then gone."""
    if "stringData" not in obj:
        return obj
    string_data = obj["stringData"] if isinstance(obj["stringData"], dict) else {}
    data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
    if string_data:
        data = {**data, **{key: go_bytes_json(value) for key, value in string_data.items()}}
    out: dict[str, Any] = {}
    for key, value in obj.items():  # in the struct's order: data comes before stringData
        if key == "data" or (key == "stringData" and "data" not in obj):
            if data:
                out["data"] = data
        elif key != "stringData":
            out[key] = value
    return out


def go_bytes_json(text: Any) -> str:
    """A Go string's ``[]byte`` as JSON writes it: its UTF-8 bytes in standard base64. A lone
    surrogate (which Go's JSON decoder had read as U+FFFD) is U+FFFD's bytes."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    raw = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")
    return base64.b64encode(raw).decode("ascii")


def _pod(obj: dict[str, Any], release: tuple[int, int] | None) -> dict[str, Any]:
    """Convert_v1_Pod_To_core_Pod: a negative grace period is 1; podIP and podIPs in step."""
    obj = _at(obj, ("spec",), _positive_grace_period)
    return _at(obj, ("status",), lambda status: _single_and_plural(status, "podIP", "podIPs", _pod_ip))


def _node(obj: dict[str, Any], release: tuple[int, int] | None) -> dict[str, Any]:
    """Convert_v1_NodeSpec_To_core_NodeSpec: podCIDR and podCIDRs in step."""
    return _at(obj, ("spec",), lambda spec: _single_and_plural(spec, "podCIDR", "podCIDRs", lambda item: item))


def _deployment(obj: dict[str, Any], release: tuple[int, int] | None) -> dict[str, Any]:
    """Convert_v1_Deployment_To_apps_Deployment and back: the rollback annotation is an int64."""
    annotations = (obj.get("metadata") or {}).get("annotations")
    if not isinstance(annotations, dict) or ROLLBACK_TO not in annotations:
        return obj
    value = annotations[ROLLBACK_TO]
    if value == "":
        return _with_annotations(obj, {k: v for k, v in annotations.items() if k != ROLLBACK_TO})
    try:
        revision = parse_int(value)
    except NumError as error:
        raise ConversionError(f"failed to parse annotation[{ROLLBACK_TO}]={value} as int64: {error}") from None
    return _with_annotations(obj, {**annotations, ROLLBACK_TO: str(revision)})


def _daemon_set(obj: dict[str, Any], release: tuple[int, int] | None) -> dict[str, Any]:
    """Convert_v1_DaemonSet_To_apps_DaemonSet and back: the annotation, when there, is an int64."""
    annotations = (obj.get("metadata") or {}).get("annotations")
    if isinstance(annotations, dict) and TEMPLATE_GENERATION in annotations:
        try:
            parse_int(annotations[TEMPLATE_GENERATION])
        except NumError as error:
            raise ConversionError(str(error)) from None
    return with_template_generation(obj, template_generation(obj))


def _stateful_set(obj: dict[str, Any], release: tuple[int, int] | None) -> dict[str, Any]:
    """Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec: claim templates say what they are."""
    def typed(templates: Any) -> Any:
        if not isinstance(templates, list):
            return templates
        return [{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 **{k: v for k, v in template.items() if k not in ("apiVersion", "kind")}}
                if isinstance(template, dict) else template for template in templates]
    return _at(obj, ("spec",), lambda spec: _member(spec, "volumeClaimTemplates", typed))


def _pod_disruption_budget(obj: dict[str, Any], release: tuple[int, int] | None) -> dict[str, Any]:
    """Convert_v1_PodDisruptionBudget_To_policy_PodDisruptionBudget: StripPDBV1beta1Label."""
    def stripped(selector: dict[str, Any]) -> dict[str, Any]:
        expressions = selector.get("matchExpressions")
        if not isinstance(expressions, list):
            return selector
        if selector == {"matchExpressions": [{"key": PDB_V1BETA1_LABEL, "operator": "Exists"}]}:
            return selector  # the v1 match-none selector, kept
        kept = [e for e in expressions if not (isinstance(e, dict) and e.get("key") == PDB_V1BETA1_LABEL)]
        if len(kept) == len(expressions):
            return selector
        if kept:
            return {**selector, "matchExpressions": kept}
        return {k: v for k, v in selector.items() if k != "matchExpressions"}
    return _at(obj, ("spec", "selector"), stripped)


def _horizontal_pod_autoscaler(obj: dict[str, Any], release: tuple[int, int] | None) -> dict[str, Any]:
    """DropRoundTripHorizontalPodAutoscalerAnnotations."""
    dropped = HPA_ROUND_TRIP_ANNOTATIONS
    if release is None or release >= HPA_TOLERANCE_SINCE:
        dropped += HPA_TOLERANCE_ANNOTATIONS
    annotations = (obj.get("metadata") or {}).get("annotations")
    if not isinstance(annotations, dict) or not any(name in annotations for name in dropped):
        return obj
    return _with_annotations(obj, {k: v for k, v in annotations.items() if k not in dropped})


_CONVERTERS: dict[tuple[str, str], Callable[[dict[str, Any], tuple[int, int] | None], dict[str, Any]]] = {
    ("v1", "Secret"): secret,
    ("v1", "Pod"): _pod,
    ("v1", "Node"): _node,
    ("apps/v1", "Deployment"): _deployment,
    ("apps/v1", "DaemonSet"): _daemon_set,
    ("apps/v1", "StatefulSet"): _stateful_set,
    ("policy/v1", "PodDisruptionBudget"): _pod_disruption_budget,
    ("autoscaling/v2", "HorizontalPodAutoscaler"): _horizontal_pod_autoscaler,
}


# --- pod specs and templates ---------------------------------------------------------------------


def _pod_template(template: dict[str, Any]) -> dict[str, Any]:
    """A PodTemplateSpec (or a Pod): its annotations without the init container ones, its spec's
    service account alias resolved."""
    template = _at(template, ("metadata",), _without_init_container_annotations)
    return _at(template, ("spec",), _service_account)


def _without_init_container_annotations(metadata: dict[str, Any]) -> dict[str, Any]:
    annotations = metadata.get("annotations")
    if not isinstance(annotations, dict) or INIT_CONTAINER_ANNOTATIONS.isdisjoint(annotations):
        return metadata
    kept = {k: v for k, v in annotations.items() if k not in INIT_CONTAINER_ANNOTATIONS}
    if kept:
        return {**metadata, "annotations": kept}
    return {k: v for k, v in metadata.items() if k != "annotations"}  # empty: omitted


def _service_account(spec: dict[str, Any]) -> dict[str, Any]:
    """serviceAccountName, else the deprecated serviceAccount; written back to both."""
    name = spec.get("serviceAccountName") or spec.get("serviceAccount") or ""
    if spec.get("serviceAccountName", "") == name and spec.get("serviceAccount", "") == name:
        return spec
    out: dict[str, Any] = {}
    for key, value in spec.items():  # both where the first of them was: the struct's order
        if key not in ("serviceAccountName", "serviceAccount"):
            out[key] = value
        elif name and "serviceAccount" not in out:  # both are omitempty strings
            out["serviceAccountName"] = name
            out["serviceAccount"] = name
    return out


def _positive_grace_period(spec: dict[str, Any]) -> dict[str, Any]:
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and not isinstance(grace, bool) and grace < 0:
        return {**spec, "terminationGracePeriodSeconds": 1}
    return spec


def _pod_ip(item: Any) -> Any:
    return item.get("ip", "") if isinstance(item, dict) else ""


def _single_and_plural(struct: dict[str, Any], single: str, plural: str,
                       text_of: Callable[[Any], Any]) -> dict[str, Any]:
    """The singular wins where both are given and differ, and fills a missing plural; without
    it, the singular is the plural's first (podIP/podIPs as items {ip}, podCIDR/podCIDRs as text)."""
    one, many = struct.get(single) or "", struct.get(plural) or []
    if not isinstance(many, list):
        return struct
    if one:
        if many and text_of(many[0]) == one:
            return struct
        item = {"ip": one} if plural == "podIPs" else one
        return {**struct, plural: [item]}
    if many and text_of(many[0]):
        return {**struct, single: text_of(many[0])}
    return struct


# --- helpers -----------------------------------------------------------------------------------


def _at(obj: dict[str, Any], path: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """``obj`` with the object at ``path`` replaced by ``change`` of it (parents copied), or
    ``obj`` itself when there is no object there or nothing changed."""
    if not path:
        return change(obj)
    child = obj.get(path[0]) if isinstance(obj, dict) else None
    if not isinstance(child, dict):
        return obj
    changed = _at(child, path[1:], change)
    return obj if changed is child else {**obj, path[0]: changed}


def _member(struct: dict[str, Any], name: str, change: Callable[[Any], Any]) -> dict[str, Any]:
    if name not in struct:
        return struct
    value = change(struct[name])
    return struct if value == struct[name] else {**struct, name: value}


def _with_zeros(obj: dict[str, Any], path: Path, members: tuple[str, ...]) -> dict[str, Any]:
    """``obj`` with each of ``members`` of the struct at ``path`` 0 where absent, if the struct exists."""
    return _at(obj, path, lambda node: node if all(member in node for member in members)
               else {**node, **{member: 0 for member in members if member not in node}})


def _with_annotations(obj: dict[str, Any], annotations: dict[str, str]) -> dict[str, Any]:
    metadata = {k: v for k, v in (obj.get("metadata") or {}).items() if k != "annotations"}
    if annotations:  # an empty map is omitted
        metadata["annotations"] = annotations
    return {**obj, "metadata": metadata}


def template_generation(daemon_set: dict[str, Any]) -> int:
    """The internal ``spec.templateGeneration``: the annotation's integer, 0 without one. A value
    that is not an integer fails the conversion on a server; it is read as 0 here (not modelled)."""
    annotations = (daemon_set.get("metadata") or {}).get("annotations") or {}
    try:
        return int(annotations.get(TEMPLATE_GENERATION, 0))
    except (TypeError, ValueError):
        return 0


def with_template_generation(daemon_set: dict[str, Any], generation: int) -> dict[str, Any]:
    metadata = dict(daemon_set.get("metadata") or {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), TEMPLATE_GENERATION: str(generation)}
    return {**daemon_set, "metadata": metadata}
