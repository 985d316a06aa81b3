"""What each kind's registry strategy decides around the field manager.

Go twins: ``pkg/registry/<group>/<resource>/strategy.go`` of k8s.io/kubernetes (v1.33) for
built-in kinds — ``GetResetFields`` (the fields an endpoint may not set: the main resource
resets ``status``, the ``status`` subresource what ``statusKeeps`` lists),
``PrepareForUpdate`` (a ``status`` request keeps those values from the stored object) and
``AllowCreateOnUpdate``, and ``PrepareForCreate`` where it sets more than an empty status (a Pod's
phase and QoS class, a DaemonSet's template generation) — and apiextensions-apiserver's ``customResourceStrategy`` and
``statusStrategy`` for custom resources. Data, as the upstream target's ``builtinStrategies``.
Kinds not listed have no status subresource and are not created by an update.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import conversion, qos

Path = tuple[str, ...]
SPEC: tuple[Path, ...] = (("spec",),)


# A named tuple, not a frozen dataclass: as immutable and compared alike, and quicker to define at import.
class Strategy(NamedTuple):
    status_subresource: bool = False
    # what a status request resets in ownership and keeps from the stored object
    status_keeps: tuple[Path, ...] = ()
    create_on_update: bool = False
    custom: bool = False  # a custom resource: its status request keeps everything but status


STATUS_SUBRESOURCE = Strategy(status_subresource=True, status_keeps=SPEC)
CREATED_BY_UPDATE = Strategy(create_on_update=True)

BUILTIN: dict[tuple[str, str], Strategy] = {
    ("apps", "Deployment"): Strategy(True, (("spec",), ("metadata", "labels"))),
    ("apps", "ReplicaSet"): STATUS_SUBRESOURCE,
    ("apps", "StatefulSet"): STATUS_SUBRESOURCE,
    ("apps", "DaemonSet"): STATUS_SUBRESOURCE,
    ("batch", "Job"): STATUS_SUBRESOURCE,
    ("batch", "CronJob"): STATUS_SUBRESOURCE,
    ("autoscaling", "HorizontalPodAutoscaler"): STATUS_SUBRESOURCE,
    ("networking.k8s.io", "Ingress"): STATUS_SUBRESOURCE,
    ("", "ReplicationController"): STATUS_SUBRESOURCE,
    ("", "PersistentVolumeClaim"): STATUS_SUBRESOURCE,
    ("", "ResourceQuota"): STATUS_SUBRESOURCE,
    ("policy", "PodDisruptionBudget"): STATUS_SUBRESOURCE,
    ("", "Service"): Strategy(True, SPEC, create_on_update=True),
    ("", "Pod"): Strategy(True, (("spec",), ("metadata", "deletionTimestamp"), ("metadata", "ownerReferences"))),
    ("", "Endpoints"): CREATED_BY_UPDATE,
    ("", "LimitRange"): CREATED_BY_UPDATE,
    ("", "Event"): CREATED_BY_UPDATE,
    ("events.k8s.io", "Event"): CREATED_BY_UPDATE,
    ("coordination.k8s.io", "Lease"): CREATED_BY_UPDATE,
    ("rbac.authorization.k8s.io", "Role"): CREATED_BY_UPDATE,
    ("rbac.authorization.k8s.io", "RoleBinding"): CREATED_BY_UPDATE,
}


def builtin(api_version: str, kind: str) -> Strategy:
    group = api_version.rpartition("/")[0]
    return BUILTIN.get((group, kind), Strategy())


def custom(status_subresource: bool) -> Strategy:
    """statusStrategy resets only ``spec`` (GetResetFields) but its PrepareForUpdate keeps the
    stored object except status: labels sent to ``status`` are owned, not kept."""
    return Strategy(status_subresource, SPEC, custom=True)


# --- PrepareForCreate / PrepareForUpdate beyond status (code, where the rule is conditional) ------


KEEP_STATUS = object()  # a kind without a status subresource: its create keeps the status sent
# Kinds whose PrepareForCreate stores the zero status, which storage's decoder defaults on every
# read (a claim's phase Pending): the first update writes the defaulted status back, so it changes
# the stored object (a new resourceVersion) whatever else it does. (A Pod's, a Namespace's and a
# PersistentVolume's PrepareForCreate state their phase.)
STATUS_DEFAULTED_ON_READ = frozenset({("v1", "PersistentVolumeClaim")})


def prepare_for_create(obj: dict[str, Any], api_version: str, kind: str, cleared_status: Any) -> dict[str, Any]:
    """PrepareForCreate: a kind with a status subresource has the status the request sent give way
    to ``cleared_status`` (the Go zero value; None: none; KEEP_STATUS for other kinds) — a Pod's to
    its phase and QoS class, which keeps a stated qosClass; a DaemonSet's template generation is
    at least 1; a ServiceAccount's secrets are references by name alone."""
    prepared = obj
    if cleared_status is not KEEP_STATUS:
        status = cleared_status
        if (api_version, kind) == ("v1", "Pod"):
            status = {"phase": "Pending", "qosClass": qos.pod_qos_class(obj)}
        prepared = {key: value for key, value in obj.items() if key != "status"}
        if status is not None:
            prepared["status"] = status
    if (api_version, kind) == ("apps/v1", "DaemonSet"):
        return conversion.with_template_generation(prepared, max(conversion.template_generation(obj), 1))
    if (api_version, kind) == ("v1", "ServiceAccount"):
        return _clean_secret_references(prepared)
    return prepared


def prepare_for_update(obj: dict[str, Any], old: dict[str, Any], api_version: str, kind: str,
                       subresource: str) -> dict[str, Any]:
    """What a kind's PrepareForUpdate does beyond keeping status (main resource) or what
    ``status_keeps`` lists (status)."""
    if (api_version, kind) == ("apps/v1", "DaemonSet"):
        generation = conversion.template_generation(old)  # requests cannot set it
        if not subresource and (obj.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template"):
            generation += 1
        return conversion.with_template_generation(obj, generation)
    if (api_version, kind) == ("v1", "Service") and not subresource:
        return _drop_type_dependent_fields(_patch_allocated_values(obj, old), old)
    if (api_version, kind) == ("v1", "ServiceAccount"):
        return _clean_secret_references(obj)
    if (api_version, kind) == ("v1", "Pod") and subresource == "status":
        status = obj.get("status") or {}
        if not status.get("qosClass") and (old.get("status") or {}).get("qosClass"):
            return {**obj, "status": {**status, "qosClass": old["status"]["qosClass"]}}
    return obj


def _patch_allocated_values(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """patchAllocatedValues (pkg/registry/core/service/storage/storage.go, the REST's BeginUpdate,
    before PrepareForUpdate): what an update leaves out of the values the server allocated, while
    the Service still needs them, is taken from the stored object — a clusterIP (``None`` too) and
    clusterIPs, a port's nodePort by port name unless another port uses it, healthCheckNodePort."""
    spec, old_spec = dict(new.get("spec") or {}), old.get("spec") or {}
    if spec.get("type") != "ExternalName" and old_spec.get("type") != "ExternalName":  # needsClusterIP
        if not spec.get("clusterIP") and old_spec.get("clusterIP"):
            spec["clusterIP"] = old_spec["clusterIP"]
        if not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
            spec["clusterIPs"] = old_spec["clusterIPs"]
    if _needs_node_port(old_spec) and _needs_node_port(spec):
        used = _node_ports(old_spec) & _node_ports(spec)
        by_name = {port.get("name", ""): port.get("nodePort") for port in old_spec.get("ports") or ()
                   if isinstance(port, dict)}
        ports = []
        for port in spec.get("ports") or ():
            if isinstance(port, dict) and not port.get("nodePort") and by_name.get(port.get("name", "")) \
                    and by_name[port.get("name", "")] not in used:
                port = {**port, "nodePort": by_name[port.get("name", "")]}
            ports.append(port)
        if "ports" in spec:
            spec["ports"] = ports
    if _needs_health_check_node_port(old_spec) and _needs_health_check_node_port(spec) \
            and not spec.get("healthCheckNodePort") and old_spec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]
    return {**new, "spec": spec} if spec != (new.get("spec") or {}) else new


def _needs_node_port(spec: dict[str, Any]) -> bool:
    """needsNodePort (pkg/registry/core/service/storage/storage.go)."""
    return spec.get("type") == "NodePort" or (
        spec.get("type") == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") in (None, True))


def _drop_type_dependent_fields(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """dropTypeDependentFields (pkg/registry/core/service/strategy.go): a Service changing its type
    loses what only the old type used and the request left as it was (a field the request also
    changed is validation's to refuse)."""
    spec, old_spec = dict(new.get("spec") or {}), old.get("spec") or {}
    new_type, old_type = spec.get("type"), old_spec.get("type")

    def same(key: str) -> bool:
        return spec.get(key) == old_spec.get(key)

    if old_type != "ExternalName" and new_type == "ExternalName":  # needsClusterIP no more
        if same("clusterIP") and same("clusterIPs"):
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        for key in ("ipFamilies", "ipFamilyPolicy"):
            if same(key):
                spec.pop(key, None)
    node_port_types = ("NodePort", "LoadBalancer")
    if old_type in node_port_types and new_type not in node_port_types and \
            _node_ports(spec) <= _node_ports(old_spec):
        spec["ports"] = [{k: v for k, v in port.items() if k != "nodePort"} if isinstance(port, dict) else port
                         for port in spec.get("ports") or ()]
    if _needs_health_check_node_port(old_spec) and not _needs_health_check_node_port(spec) \
            and same("healthCheckNodePort"):
        spec.pop("healthCheckNodePort", None)
    if old_type == "LoadBalancer" and new_type != "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is not None and same("allocateLoadBalancerNodePorts"):
            spec.pop("allocateLoadBalancerNodePorts")
        if same("loadBalancerClass"):
            spec.pop("loadBalancerClass", None)
    if _externally_accessible(old_spec) and not _externally_accessible(spec) and same("externalTrafficPolicy"):
        spec.pop("externalTrafficPolicy", None)
    dropped = {**new, "spec": spec}
    if new_type != "LoadBalancer" and isinstance(new.get("status"), dict):
        dropped["status"] = {**new["status"], "loadBalancer": {}}
    return dropped


def _node_ports(spec: dict[str, Any]) -> set[Any]:
    return {port.get("nodePort") for port in spec.get("ports") or () if isinstance(port, dict) and port.get("nodePort")}


def _needs_health_check_node_port(spec: dict[str, Any]) -> bool:
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def _externally_accessible(spec: dict[str, Any]) -> bool:
    """ExternallyAccessible (pkg/api/service/util.go)."""
    kind = spec.get("type")
    return kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and bool(spec.get("externalIPs")))


def _clean_secret_references(service_account: dict[str, Any]) -> dict[str, Any]:
    """cleanSecretReferences (pkg/registry/core/serviceaccount/strategy.go): each secret reference
    keeps its name alone."""
    secrets = service_account.get("secrets")
    if not isinstance(secrets, list):
        return service_account
    cleaned = [{"name": secret["name"]} if isinstance(secret, dict) and secret.get("name") else {}
               for secret in secrets]
    return {**service_account, "secrets": cleaned}
