"""Defaulting of core/v1 (Pod, Service, Secret, PersistentVolume(Claim), Namespace, Node...).

Go twin: k8s.io/kubernetes/pkg/apis/core/v1/defaults.go. Each function below mirrors the
``SetDefaults_<Type>`` its docstring names and is registered (``DEFAULTERS``) for the Go
definition it takes; generated.py calls it wherever the walk of an object meets that type, as
zz_generated.defaults.go does. Functions work on Go values (govalue.py) and change them in place.
Literal ``+default=`` markers (ContainerPort.protocol "TCP", RBD pool "rbd" since 1.31...) are
data, applied by the walk, not here. Rules that changed by release take the ``release`` asked for
(1.27 to 1.37 are modelled).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable

from ..govalue.gotypes import GoStruct, int_or_string_is_zero, is_empty, zero_struct
from . import quantity
from .features import Release, enabled

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
    external and internal traffic policies, allocateLoadBalancerNodePorts, ingress ipMode (behind
    LoadBalancerIPMode until 1.34, ungated from 1.35)."""
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
    ip_mode = release >= (1, 35) or enabled("LoadBalancerIPMode", release)
    if spec["type"] == "LoadBalancer" and ip_mode:
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
    """SetDefaults_Pod: a negative terminationGracePeriodSeconds made 1 (from 1.37; conversion
    did it before), requests from limits (containers and init containers), enableServiceLinks,
    host ports under hostNetwork (from 1.28; SetDefaults_PodSpec did it before); behind gates,
    resize policies (until 1.32), pod-level hugepage limits and requests (PodLevelResources, on
    from 1.34; from 1.37 PodLevelResourcesFixDefaulting moves them to the pod strategy's
    PrepareForCreate), HTTP probes' protocol (from 1.37, behind H2CContainerProbe, off)."""
    spec = pod["spec"]
    grace = spec["terminationGracePeriodSeconds"]
    if release >= (1, 37) and grace is not None and grace < 0:
        spec["terminationGracePeriodSeconds"] = 1
    for container in spec["containers"] or []:
        _copy_limits_to_requests(container)
        if release < (1, 33) and enabled("InPlacePodVerticalScaling", release):
            _default_resize_policy(container)
    for container in spec["initContainers"] or []:
        _copy_limits_to_requests(container)
    if enabled("PodLevelResources", release) and not enabled("PodLevelResourcesFixDefaulting", release):
        if release < (1, 34):  # the gate is off by default there, and its rules were not those below
            raise NotImplementedError(f"pod-level resources defaulting of release {release} is not modelled")
        _default_huge_page_pod_limits(spec)
        _default_pod_requests(spec)
    if spec["enableServiceLinks"] is None:
        spec["enableServiceLinks"] = True
    if spec["hostNetwork"] and release >= (1, 28):
        _default_host_network_ports(spec)
    if release >= (1, 37) and enabled("H2CContainerProbe", release):
        for container in [*(spec["containers"] or []), *(spec["initContainers"] or []),
                          *(spec["ephemeralContainers"] or [])]:
            _default_http_probe_protocol(container)


def _default_http_probe_protocol(container: GoStruct) -> None:
    """defaultHTTPProbeProtocol (from 1.37): each HTTP probe and lifecycle hook speaks HTTP1 unless
    told. The Go model (k8s.io/api 0.32) has no HTTPGetAction.protocol yet: nothing to default
    until go-types.json knows it."""
    lifecycle = container["lifecycle"] or {}
    handlers = [container[name] for name in ("livenessProbe", "readinessProbe", "startupProbe")]
    handlers += [lifecycle.get("postStart"), lifecycle.get("preStop")]
    for handler in handlers:
        action = handler["httpGet"] if handler is not None else None
        if action is not None and "protocol" in action and action["protocol"] is None:
            action["protocol"] = "HTTP1"


HUGE_PAGES_PREFIX = "hugepages-"


def _is_supported_pod_level_resource(name: str) -> bool:
    """component-helpers resource.IsSupportedPodLevelResource: cpu, memory and huge pages."""
    return name in ("cpu", "memory") or name.startswith(HUGE_PAGES_PREFIX)


def _is_overcommit_allowed(name: str) -> bool:
    """pkg/apis/core/v1/helper IsOvercommitAllowed: a native resource that is not huge pages."""
    native = "/" not in name or "kubernetes.io/" in name
    return native and not name.startswith(HUGE_PAGES_PREFIX)


def _add_resource_list(total: dict, more: dict | None) -> None:
    """component-helpers resource addResourceList. A resource first met is copied as it is (its text
    kept); a sum (Quantity.Add) is written canonically, in the first operand's format (the second's
    when the first is zero)."""
    for name, value in (more or {}).items():
        if name not in total:
            total[name] = value
            continue
        left, right = quantity.parse(total[name]), quantity.parse(value)
        format_ = right.format if left.value == 0 else left.format
        total[name] = quantity.format_quantity(quantity.Quantity(left.value + right.value, format_))


def _max_resource_list(total: dict, more: dict) -> None:
    """component-helpers resource maxResourceList: the greater of each (Quantity.Cmp), as it is."""
    for name, value in more.items():
        if name not in total or quantity.parse(value).value > quantity.parse(total[name]).value:
            total[name] = value


def _aggregate_container_resources(spec: GoStruct, kind: str) -> dict:
    """component-helpers resource AggregateContainerRequests (``kind`` "requests") and
    AggregateContainerLimits ("limits"), with no options: the containers' sum, sidecars (init
    containers restarted Always) added to it, and at least what any init container needs while it
    runs (itself plus the sidecars started before it)."""
    total: dict = {}
    for container in spec["containers"] or []:
        _add_resource_list(total, container["resources"][kind])
    sidecars: dict = {}
    init_peak: dict = {}
    for container in spec["initContainers"] or []:
        own = container["resources"][kind]
        if container["restartPolicy"] == "Always":
            _add_resource_list(total, own)
            _add_resource_list(sidecars, own)
            running = sidecars
        else:
            running = {}
            _add_resource_list(running, own)
            _add_resource_list(running, sidecars)
        _max_resource_list(init_peak, running)
    _max_resource_list(total, init_peak)
    return total


def _default_huge_page_pod_limits(spec: GoStruct) -> None:
    """defaultHugePagePodLimits (1.34 to 1.36): when pod-level resources are partly given, a huge
    page size limited by containers but neither limited nor requested at pod level gets the
    containers' aggregated limit."""
    resources = spec["resources"]
    if resources is None or (is_empty(resources["limits"]) and is_empty(resources["requests"])):
        return
    limits = resources["limits"] if resources["limits"] is not None else {}
    for name, value in _aggregate_container_resources(spec, "limits").items():
        if not name.startswith(HUGE_PAGES_PREFIX) or name in (resources["requests"] or {}):
            continue
        limits.setdefault(name, value)
    if limits:
        resources["limits"] = limits


def _default_pod_requests(spec: GoStruct) -> None:
    """defaultPodRequests (1.34 to 1.36): with pod-level limits, a pod-level request missing for a
    supported resource is the containers' aggregated request (cpu and memory: resources that may be
    overcommitted), else the pod-level limit."""
    resources = spec["resources"]
    if resources is None or is_empty(resources["limits"]):
        return
    requests = resources["requests"] if resources["requests"] is not None else {}
    for name, value in _aggregate_container_resources(spec, "requests").items():
        if name not in requests and _is_supported_pod_level_resource(name) and _is_overcommit_allowed(name):
            requests[name] = value
    for name, value in resources["limits"].items():
        if name not in requests and _is_supported_pod_level_resource(name):
            requests[name] = value
    if requests:
        resources["requests"] = requests


def set_defaults_pod_status(status: GoStruct, release: Release) -> None:
    """SetDefaults_PodStatus (from 1.37; v1 conversion did it before): podIP and podIPs kept in
    step, podIP winning when both are given and the first of podIPs differs."""
    if release < (1, 37):
        return
    pod_ip, pod_ips = status["podIP"], status["podIPs"]
    if pod_ip and (is_empty(pod_ips) or pod_ips[0]["ip"] != pod_ip):
        only = zero_struct(CORE + "PodIP")
        only["ip"] = pod_ip
        status["podIPs"] = [only]
    elif not pod_ip and not is_empty(pod_ips):
        status["podIP"] = pod_ips[0]["ip"]


def set_defaults_pod_spec(spec: GoStruct, release: Release) -> None:
    """SetDefaults_PodSpec: serviceAccountName from serviceAccount and back (from 1.37; v1
    conversion did it before), dnsPolicy, restartPolicy, securityContext, grace period,
    schedulerName; host ports under hostNetwork in every pod spec, templates too, in 1.27 (then
    behind DefaultHostNetworkHostPortsInPodTemplates, off, until 1.30)."""
    if release >= (1, 37):
        if spec["serviceAccountName"] == "":
            spec["serviceAccountName"] = spec["serviceAccount"]
        spec["serviceAccount"] = spec["serviceAccountName"]
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
    CORE + "PodStatus": set_defaults_pod_status,
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
