"""Defaulting of core/v1 (Pod, Service, Secret, PersistentVolume(Claim), Namespace, Node...).

Go twin: k8s.io/kubernetes/pkg/apis/core/v1/defaults.go. Each function below mirrors the
``SetDefaults_<Type>`` its docstring names and is registered (``DEFAULTERS``) for the Go
definition it takes; generated.py calls it wherever the walk of an object meets that type, as
zz_generated.defaults.go does. Functions work on Go values (govalue.py) and change them in place.
Literal ``+default=`` markers (ContainerPort.protocol "TCP", RBD pool "rbd" since 1.31...) are
data, applied by the walk, not here. Rules that changed by release take the ``release`` asked for
(1.27 to 1.33 are modelled).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable

from reference_impl.defaults import quantity
from reference_impl.defaults.features import Release, enabled
from reference_impl.defaults.govalue import GoStruct, int_or_string_is_zero, is_empty, zero_struct

CORE = "io.k8s.api.core.v1."

TERMINATION_MESSAGE_PATH_DEFAULT = "/dev/termination-log"
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS = 10800
VOLUME_SOURCE_DEFAULT_MODE = 0o644  # Secret, ConfigMap, DownwardAPI and Projected alike
SERVICE_ACCOUNT_TOKEN_EXPIRATION_SECONDS = 3600
LABEL_METADATA_NAME = "kubernetes.io/metadata.name"

# github.com/distribution/reference (reference.go, regexp.go), what ParseNormalizedNamed accepts
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_NAME = rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_REFERENCE = re.compile(
    rf"^(?P<name>{_NAME})(?::(?P<tag>[\w][\w.-]{{0,127}}))?"
    r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$"
)
_HEX_IDENTIFIER = re.compile(r"^[a-f0-9]{64}$")


def image_tag(image: str) -> str:
    """The tag pkg/util/parsers ParseImageName finds: "latest" when neither tag nor digest is
    given, "" when the reference does not parse (the defaulter ignores the error)."""
    match = _REFERENCE.match(image)
    if not match or len(match["name"]) > 255 or _HEX_IDENTIFIER.match(image):
        return ""
    if match["tag"] is None and match["digest"] is None:
        return "latest"
    return match["tag"] or ""


def pull_policy_for(image: str) -> str:
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


def set_defaults_resource_list(resources: GoStruct | None, release: Release) -> None:
    """SetDefaults_ResourceList: every quantity rounded up to milli units (stored canonical)."""
    for name, value in (resources or {}).items():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            # a value that does not parse would have been refused by the decoder; left for validation
            with contextlib.suppress(quantity.QuantityError):
                resources[name] = quantity.rounded_to_milli(value)


def set_defaults_replication_controller(rc: GoStruct, release: Release) -> None:
    """SetDefaults_ReplicationController: selector and labels from the template's labels, replicas 1.

    From 1.33 ``replicas`` is a ``+default=1`` marker (applied by the walk, right after this)."""
    template = rc["spec"]["template"]
    labels = template["metadata"]["labels"] if template is not None else None
    if labels is not None:
        if is_empty(rc["spec"]["selector"]):
            rc["spec"]["selector"] = labels
        if is_empty(rc["metadata"]["labels"]):
            rc["metadata"]["labels"] = labels
    if release < (1, 33) and rc["spec"]["replicas"] is None:
        rc["spec"]["replicas"] = 1


def set_defaults_volume(volume: GoStruct, release: Release) -> None:
    """SetDefaults_Volume: a volume with no source is an emptyDir; an image volume's pull policy."""
    if all(value is None for name, value in volume.items() if name != "name"):
        volume["emptyDir"] = zero_struct(CORE + "EmptyDirVolumeSource")
    if enabled("ImageVolume", release) and volume.get("image") is not None and volume["image"]["pullPolicy"] == "":
        volume["image"]["pullPolicy"] = pull_policy_for(volume["image"]["reference"])


def set_defaults_container(container: GoStruct, release: Release) -> None:
    """SetDefaults_Container: imagePullPolicy from the image's tag, termination message path and policy."""
    if container["imagePullPolicy"] == "":
        container["imagePullPolicy"] = pull_policy_for(container["image"])
    if container["terminationMessagePath"] == "":
        container["terminationMessagePath"] = TERMINATION_MESSAGE_PATH_DEFAULT
    if container["terminationMessagePolicy"] == "":
        container["terminationMessagePolicy"] = "File"


def set_defaults_ephemeral_container(container: GoStruct, release: Release) -> None:
    """SetDefaults_EphemeralContainer: as a container (EphemeralContainerCommon has its fields)."""
    set_defaults_container(container, release)


def _externally_accessible(spec: GoStruct, release: Release) -> bool:
    """pkg/api/v1/service ExternallyAccessible: LoadBalancer, NodePort, or (from 1.29) ClusterIP with
    external IPs."""
    kind = spec["type"]
    with_external_ips = release >= (1, 29) and kind == "ClusterIP" and not is_empty(spec["externalIPs"])
    return kind in ("LoadBalancer", "NodePort") or with_external_ips


def set_defaults_service(service: GoStruct, release: Release) -> None:
    """SetDefaults_Service: session affinity, type ClusterIP, each port's protocol and targetPort,
    external and internal traffic policies, allocateLoadBalancerNodePorts, ingress ipMode."""
    spec = service["spec"]
    if spec["sessionAffinity"] == "":
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec["sessionAffinityConfig"] = None
    if spec["sessionAffinity"] == "ClientIP":
        config = spec["sessionAffinityConfig"]
        if config is None or config["clientIP"] is None or config["clientIP"]["timeoutSeconds"] is None:
            config = zero_struct(CORE + "SessionAffinityConfig")
            config["clientIP"] = zero_struct(CORE + "ClientIPConfig")
            config["clientIP"]["timeoutSeconds"] = DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS
            spec["sessionAffinityConfig"] = config
    if spec["type"] == "":
        spec["type"] = "ClusterIP"
    for port in spec["ports"] or []:
        if port["protocol"] == "":
            port["protocol"] = "TCP"
        if int_or_string_is_zero(port["targetPort"]):
            port["targetPort"] = port["port"]
    if _externally_accessible(spec, release) and spec["externalTrafficPolicy"] == "":
        spec["externalTrafficPolicy"] = "Cluster"
    if spec["internalTrafficPolicy"] is None and spec["type"] in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if spec["type"] == "LoadBalancer" and spec["allocateLoadBalancerNodePorts"] is None:
        spec["allocateLoadBalancerNodePorts"] = True
    if spec["type"] == "LoadBalancer" and enabled("LoadBalancerIPMode", release):
        for ingress in service["status"]["loadBalancer"]["ingress"] or []:
            if ingress["ip"] != "" and ingress["ipMode"] is None:
                ingress["ipMode"] = "VIP"


def _copy_limits_to_requests(container: GoStruct) -> None:
    """Requests default to limits, resource by resource (what SetDefaults_Pod does per container)."""
    resources = container["resources"]
    if resources["limits"] is None:
        return
    if resources["requests"] is None:
        resources["requests"] = {}
    for name, value in resources["limits"].items():
        resources["requests"].setdefault(name, value)


def _default_resize_policy(container: GoStruct) -> None:
    """1.32 only, with InPlacePodVerticalScaling on: NotRequired for requested cpu and memory."""
    requests = container["resources"]["requests"]
    if requests is None:
        return
    named = {policy["resourceName"] for policy in container["resizePolicy"] or []}
    for resource in ("cpu", "memory"):
        if resource in requests and resource not in named:
            policy = zero_struct(CORE + "ContainerResizePolicy")
            policy.update(resourceName=resource, restartPolicy="NotRequired")
            container["resizePolicy"] = [*(container["resizePolicy"] or []), policy]


def _default_host_network_ports(spec: GoStruct) -> None:
    """defaultHostNetworkPorts: under hostNetwork a container port's hostPort is the port itself."""
    for container in [*(spec["containers"] or []), *(spec["initContainers"] or [])]:
        for port in container["ports"] or []:
            if port["hostPort"] == 0:
                port["hostPort"] = port["containerPort"]


def set_defaults_pod(pod: GoStruct, release: Release) -> None:
    """SetDefaults_Pod: requests from limits (containers and init containers), enableServiceLinks,
    host ports under hostNetwork (from 1.28; SetDefaults_PodSpec did it before); behind gates,
    resize policies (until 1.32) and pod-level requests."""
    spec = pod["spec"]
    for container in spec["containers"] or []:
        _copy_limits_to_requests(container)
        if release < (1, 33) and enabled("InPlacePodVerticalScaling", release):
            _default_resize_policy(container)
    for container in spec["initContainers"] or []:
        _copy_limits_to_requests(container)
    if enabled("PodLevelResources", release):
        raise NotImplementedError("pod-level resources defaulting (gate PodLevelResources) is not modelled")
    if spec["enableServiceLinks"] is None:
        spec["enableServiceLinks"] = True
    if spec["hostNetwork"] and release >= (1, 28):
        _default_host_network_ports(spec)


def set_defaults_pod_spec(spec: GoStruct, release: Release) -> None:
    """SetDefaults_PodSpec: dnsPolicy, restartPolicy, securityContext, grace period, schedulerName;
    host ports under hostNetwork in every pod spec, templates too, in 1.27 (then behind
    DefaultHostNetworkHostPortsInPodTemplates, off, until 1.30)."""
    if spec["dnsPolicy"] == "":
        spec["dnsPolicy"] = "ClusterFirst"
    if spec["restartPolicy"] == "":
        spec["restartPolicy"] = "Always"
    if spec["securityContext"] is None:
        spec["securityContext"] = zero_struct(CORE + "PodSecurityContext")
    if spec["terminationGracePeriodSeconds"] is None:
        spec["terminationGracePeriodSeconds"] = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS
    if spec["schedulerName"] == "":
        spec["schedulerName"] = DEFAULT_SCHEDULER_NAME
    gated = release < (1, 31) and enabled("DefaultHostNetworkHostPortsInPodTemplates", release)
    if spec["hostNetwork"] and (release < (1, 28) or gated):
        _default_host_network_ports(spec)


def set_defaults_probe(probe: GoStruct, release: Release) -> None:
    """SetDefaults_Probe: timeout 1s, period 10s, success 1, failure 3."""
    defaults = (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3))
    for name, default in defaults:
        if probe[name] == 0:
            probe[name] = default


def _default_mode(source: GoStruct, release: Release) -> None:
    if source["defaultMode"] is None:
        source["defaultMode"] = VOLUME_SOURCE_DEFAULT_MODE


def set_defaults_secret_volume_source(source: GoStruct, release: Release) -> None:
    """SetDefaults_SecretVolumeSource: defaultMode 0644."""
    _default_mode(source, release)


def set_defaults_config_map_volume_source(source: GoStruct, release: Release) -> None:
    """SetDefaults_ConfigMapVolumeSource: defaultMode 0644."""
    _default_mode(source, release)


def set_defaults_downward_api_volume_source(source: GoStruct, release: Release) -> None:
    """SetDefaults_DownwardAPIVolumeSource: defaultMode 0644."""
    _default_mode(source, release)


def set_defaults_projected_volume_source(source: GoStruct, release: Release) -> None:
    """SetDefaults_ProjectedVolumeSource: defaultMode 0644."""
    _default_mode(source, release)


def set_defaults_secret(secret: GoStruct, release: Release) -> None:
    """SetDefaults_Secret: type Opaque."""
    if secret["type"] == "":
        secret["type"] = "Opaque"


def set_defaults_service_account_token_projection(projection: GoStruct, release: Release) -> None:
    """SetDefaults_ServiceAccountTokenProjection: expirationSeconds one hour."""
    if projection["expirationSeconds"] is None:
        projection["expirationSeconds"] = SERVICE_ACCOUNT_TOKEN_EXPIRATION_SECONDS


def set_defaults_persistent_volume(volume: GoStruct, release: Release) -> None:
    """SetDefaults_PersistentVolume: status phase Pending, reclaim policy Retain, volumeMode Filesystem."""
    if volume["status"]["phase"] == "":
        volume["status"]["phase"] = "Pending"
    if volume["spec"]["persistentVolumeReclaimPolicy"] == "":
        volume["spec"]["persistentVolumeReclaimPolicy"] = "Retain"
    if volume["spec"]["volumeMode"] is None:
        volume["spec"]["volumeMode"] = "Filesystem"


def set_defaults_persistent_volume_claim(claim: GoStruct, release: Release) -> None:
    """SetDefaults_PersistentVolumeClaim: status phase Pending."""
    if claim["status"]["phase"] == "":
        claim["status"]["phase"] = "Pending"


def set_defaults_persistent_volume_claim_spec(spec: GoStruct, release: Release) -> None:
    """SetDefaults_PersistentVolumeClaimSpec: volumeMode Filesystem."""
    if spec["volumeMode"] is None:
        spec["volumeMode"] = "Filesystem"


def set_defaults_endpoints(endpoints: GoStruct, release: Release) -> None:
    """SetDefaults_Endpoints: each subset port's protocol TCP."""
    for subset in endpoints["subsets"] or []:
        for port in subset["ports"] or []:
            if port["protocol"] == "":
                port["protocol"] = "TCP"


def set_defaults_http_get_action(action: GoStruct, release: Release) -> None:
    """SetDefaults_HTTPGetAction: path "/", scheme HTTP."""
    if action["path"] == "":
        action["path"] = "/"
    if action["scheme"] == "":
        action["scheme"] = "HTTP"


def set_defaults_namespace(namespace: GoStruct, release: Release) -> None:
    """SetDefaults_Namespace: the kubernetes.io/metadata.name label, when the namespace has a name."""
    name = namespace["metadata"]["name"]
    if name:
        namespace["metadata"]["labels"] = {**(namespace["metadata"]["labels"] or {}), LABEL_METADATA_NAME: name}


def set_defaults_namespace_status(status: GoStruct, release: Release) -> None:
    """SetDefaults_NamespaceStatus: phase Active."""
    if status["phase"] == "":
        status["phase"] = "Active"


def set_defaults_node_status(status: GoStruct, release: Release) -> None:
    """SetDefaults_NodeStatus: allocatable is the capacity when absent (Go shares the map)."""
    if status["allocatable"] is None and status["capacity"] is not None:
        status["allocatable"] = status["capacity"]


def set_defaults_object_field_selector(selector: GoStruct, release: Release) -> None:
    """SetDefaults_ObjectFieldSelector: apiVersion v1."""
    if selector["apiVersion"] == "":
        selector["apiVersion"] = "v1"


def set_defaults_limit_range_item(item: GoStruct, release: Release) -> None:
    """SetDefaults_LimitRangeItem: for Container limits, default from max, defaultRequest from
    default, then from min."""
    if item["type"] != "Container":
        return
    item["default"] = dict(item["default"] or {})
    item["defaultRequest"] = dict(item["defaultRequest"] or {})
    for source, target in (("max", "default"), ("default", "defaultRequest"), ("min", "defaultRequest")):
        for name, value in (item[source] or {}).items():
            item[target].setdefault(name, value)


def set_defaults_config_map(config_map: GoStruct, release: Release) -> None:
    """SetDefaults_ConfigMap: data is an empty map rather than nil (omitempty drops it again)."""
    if config_map["data"] is None:
        config_map["data"] = {}


def _fill(source: GoStruct, defaults: dict[str, object]) -> None:
    for name, default in defaults.items():
        if source[name] in ("", None):
            source[name] = default


MARKERS_SINCE = (1, 31)  # the volume sources below: functions until 1.30, +default markers (data) since


def set_defaults_iscsi_volume_source(source: GoStruct, release: Release) -> None:
    """SetDefaults_ISCSIVolumeSource and SetDefaults_ISCSIPersistentVolumeSource (until 1.30):
    iscsiInterface "default"."""
    if release < MARKERS_SINCE:
        _fill(source, {"iscsiInterface": "default"})


def set_defaults_rbd_volume_source(source: GoStruct, release: Release) -> None:
    """SetDefaults_RBDVolumeSource and SetDefaults_RBDPersistentVolumeSource (until 1.30): pool rbd,
    user admin, keyring /etc/ceph/keyring."""
    if release < MARKERS_SINCE:
        _fill(source, {"pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"})


def set_defaults_azure_disk_volume_source(source: GoStruct, release: Release) -> None:
    """SetDefaults_AzureDiskVolumeSource (until 1.30): cachingMode ReadWrite, kind Shared, fsType
    ext4, readOnly false."""
    if release < MARKERS_SINCE:
        defaults = (("cachingMode", "ReadWrite"), ("kind", "Shared"), ("fsType", "ext4"), ("readOnly", False))
        for name, default in defaults:
            if source[name] is None:
                source[name] = default


def set_defaults_scale_io_volume_source(source: GoStruct, release: Release) -> None:
    """SetDefaults_ScaleIOVolumeSource and SetDefaults_ScaleIOPersistentVolumeSource (until 1.30):
    storageMode ThinProvisioned, fsType xfs."""
    if release < MARKERS_SINCE:
        _fill(source, {"storageMode": "ThinProvisioned", "fsType": "xfs"})


def set_defaults_host_path_volume_source(source: GoStruct, release: Release) -> None:
    """SetDefaults_HostPathVolumeSource: type "" (HostPathUnset) rather than nil."""
    if source["type"] is None:
        source["type"] = ""


Defaulter = Callable[[GoStruct, Release], None]

DEFAULTERS: dict[str, Defaulter] = {
    CORE + "ResourceList": set_defaults_resource_list,
    CORE + "ReplicationController": set_defaults_replication_controller,
    CORE + "Volume": set_defaults_volume,
    CORE + "Container": set_defaults_container,
    CORE + "EphemeralContainer": set_defaults_ephemeral_container,
    CORE + "Service": set_defaults_service,
    CORE + "Pod": set_defaults_pod,
    CORE + "PodSpec": set_defaults_pod_spec,
    CORE + "Probe": set_defaults_probe,
    CORE + "SecretVolumeSource": set_defaults_secret_volume_source,
    CORE + "ConfigMapVolumeSource": set_defaults_config_map_volume_source,
    CORE + "DownwardAPIVolumeSource": set_defaults_downward_api_volume_source,
    CORE + "Secret": set_defaults_secret,
    CORE + "ProjectedVolumeSource": set_defaults_projected_volume_source,
    CORE + "ServiceAccountTokenProjection": set_defaults_service_account_token_projection,
    CORE + "PersistentVolume": set_defaults_persistent_volume,
    CORE + "PersistentVolumeClaim": set_defaults_persistent_volume_claim,
    CORE + "PersistentVolumeClaimSpec": set_defaults_persistent_volume_claim_spec,
    CORE + "Endpoints": set_defaults_endpoints,
    CORE + "HTTPGetAction": set_defaults_http_get_action,
    CORE + "Namespace": set_defaults_namespace,
    CORE + "NamespaceStatus": set_defaults_namespace_status,
    CORE + "NodeStatus": set_defaults_node_status,
    CORE + "ObjectFieldSelector": set_defaults_object_field_selector,
    CORE + "LimitRangeItem": set_defaults_limit_range_item,
    CORE + "ConfigMap": set_defaults_config_map,
    CORE + "HostPathVolumeSource": set_defaults_host_path_volume_source,
    CORE + "ISCSIVolumeSource": set_defaults_iscsi_volume_source,
    CORE + "ISCSIPersistentVolumeSource": set_defaults_iscsi_volume_source,
    CORE + "RBDVolumeSource": set_defaults_rbd_volume_source,
    CORE + "RBDPersistentVolumeSource": set_defaults_rbd_volume_source,
    CORE + "AzureDiskVolumeSource": set_defaults_azure_disk_volume_source,
    CORE + "ScaleIOVolumeSource": set_defaults_scale_io_volume_source,
    CORE + "ScaleIOPersistentVolumeSource": set_defaults_scale_io_volume_source,
}
