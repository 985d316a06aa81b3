"""Valid objects of built-in kinds, and the changes clients make to them, for fuzzing against a server.

A live kube-apiserver validates what it stores, so the objects here are ones it accepts:
Deployments, StatefulSets and DaemonSets whose selector matches their template's labels,
Jobs with a manual selector (no selector generated from the uid), CronJobs, Services whose
ports are named when there are several, ConfigMaps, Pods and Secrets (data and stringData); and
what a Helm chart ships beside
them: ServiceAccounts, Ingresses, HorizontalPodAutoscalers (autoscaling/v2, with ``behavior``),
PodDisruptionBudgets, NetworkPolicies, Roles and RoleBindings, PersistentVolumeClaims, and a
custom resource as operators' charts ship it (cases/schemas/database.yaml: structural defaults,
list-maps, atomic and granular maps, preserve-unknown-fields, int-or-string), served by a CRD
the live target makes from that schema. Each :class:`Kind` knows

- ``make``: a whole valid object (what the first request creates);
- ``vary``: the object with fields a client may change after creation changed (never an
  immutable one: a StatefulSet's serviceName, a Job's template, a Pod's spec beyond images, a
  RoleBinding's roleRef, an unbound claim's spec);
- ``facets``: partial configurations another manager applies (replicas, an image, a sidecar,
  a label, an annotation);
- ``status``: a status a controller writes through the ``status`` subresource;
- ``read_back``: what a client that read the object sends back besides what it set: the
  object as a server stores it, every default spelled out (the reference's decoding and
  defaulting: an input, never an expectation — the server judges what it makes of it).

Values are the smallest decision first, so Hypothesis shrinks towards short, plain objects.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...reference_impl.ssa import codec
from .choices import Choices, pick, some

Json = Any

IMAGES = ["nginx:1.25", "nginx", "busybox:latest", "redis:7"]
CONTAINER_NAMES = ["app", "side", "log"]
# (containerPort, protocol or None): keyed by both, a missing protocol defaulted to TCP, so none of these collide
CONTAINER_PORTS = [(80, None), (80, "UDP"), (443, "TCP"), (8080, None)]
LABEL_VALUES = ["x", "y"]


# --- pod templates ------------------------------------------------------------------------------


def container(c: Choices, name: str) -> dict:
    made: dict = {"name": name, "image": pick(c, IMAGES)}
    if c.chance(0.3):
        made["ports"] = [{"containerPort": port, **({"protocol": protocol} if protocol else {})}
                         for port, protocol in some(c, CONTAINER_PORTS)] or [{"containerPort": 80}]
    if c.chance(0.3):
        made["env"] = [{"name": env, "value": pick(c, ["1", "x"])} for env in some(c, ["A", "B"])] or [
            {"name": "A", "value": "1"}]
    if c.chance(0.2):
        made["imagePullPolicy"] = pick(c, ["IfNotPresent", "Always", "Never"])
    if c.chance(0.2):
        made["resources"] = pick(c, [{"limits": {"cpu": "500m"}}, {"requests": {"cpu": "100m", "memory": "64Mi"}},
                                     {"limits": {"cpu": "1", "memory": "128Mi"}}])
    if c.chance(0.15):
        made["args"] = some(c, ["serve", "-v"]) or ["serve"]
    return made


def pod_spec(c: Choices, restart_policy: str | None = None, tolerations: bool = True) -> dict:
    names = some(c, CONTAINER_NAMES[1:], 0.3)
    spec: dict = {"containers": [container(c, name) for name in ["app", *names]]}
    if restart_policy is not None:
        spec["restartPolicy"] = restart_policy
    if c.chance(0.2):
        spec["volumes"] = [{"name": "data", "emptyDir": {}}]
        if c.chance(0.5):
            spec["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    if c.chance(0.15):
        spec["terminationGracePeriodSeconds"] = pick(c, [10, 0, 30])
    if c.chance(0.15):
        spec["nodeSelector"] = {"disk": "ssd"}
    if tolerations and c.chance(0.1):
        spec["tolerations"] = [{"key": "k1", "operator": "Exists", "effect": "NoSchedule"}]
    if c.chance(0.1):
        spec["dnsPolicy"] = pick(c, ["Default", "ClusterFirst"])
    return spec


def template(c: Choices, labels: dict, restart_policy: str | None = None) -> dict:
    metadata: dict = {"labels": dict(labels)}
    if c.chance(0.2):
        metadata["labels"]["tier"] = pick(c, LABEL_VALUES)
    if c.chance(0.1):
        metadata["annotations"] = {"note": "t"}
    return {"metadata": metadata, "spec": pod_spec(c, restart_policy)}


def labels_of(obj: dict) -> dict:
    """The object's labels, to add one to (a map made where there is none, or an applier's null)."""
    metadata = obj["metadata"]
    if not isinstance(metadata.get("labels"), dict):
        metadata["labels"] = {}
    return metadata["labels"]


def _metadata(c: Choices, name: str) -> dict:
    metadata: dict = {"name": name}
    if c.chance(0.4):
        metadata["labels"] = {key: pick(c, LABEL_VALUES) for key in some(c, ["app", "env"])} or {"app": "x"}
    if c.chance(0.2):
        metadata["annotations"] = {"note": pick(c, ["a", "b"])}
    return metadata


def _varied_pod_spec(c: Choices, spec: dict, images_only: bool = False) -> dict:
    """A pod spec with images changed, and (unless ``images_only``, as a Pod allows) containers added or dropped."""
    spec = copy.deepcopy(spec)
    containers = spec["containers"]
    for item in containers:
        if c.chance(0.4):
            item["image"] = pick(c, IMAGES)
    if images_only:
        return spec
    if c.chance(0.15):
        present = {item["name"] for item in containers}
        missing = [name for name in CONTAINER_NAMES if name not in present]
        if missing:
            containers.append(container(c, pick(c, missing)))
    if len(containers) > 1 and c.chance(0.1):
        del containers[c.integer(1, len(containers) - 1)]
    if c.chance(0.1):
        spec["terminationGracePeriodSeconds"] = pick(c, [20, 0])
    return spec




# --- what a client reads back --------------------------------------------------------------------

# The release whose server a read-modify-write client read its object from.
READ_FROM = (1, 32)


def read_back(obj: dict) -> dict:
    """The object as a client that read it back sends it: as the server stores it, decoded into its
    Go type and defaulted (codec.decode: every default, status included), less the null
    creationTimestamp that only an object never stored has."""
    back = codec.decode(copy.deepcopy(obj), obj["apiVersion"], obj["kind"], READ_FROM)  # a custom kind: as sent
    back.get("metadata", {}).pop("creationTimestamp", None)
    return back


# --- the kinds ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    name: str
    make: Callable[[Choices], dict]
    vary: Callable[[Choices, dict], dict]
    facets: tuple[Callable[[Choices, dict], dict], ...]
    status: Callable[[Choices], dict] | None
    # where the pod spec is, for patches of containers (None: no pod spec)
    pod_spec_path: tuple[str, ...] | None = None
    # a custom kind's named schema (cases/schemas/), which its CRD and the reference are built from
    schema: str | None = None


def _identity(obj: dict) -> dict:
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": {"name": obj["metadata"]["name"]}}


def _with(obj: dict, path: tuple[str, ...], value: Json) -> dict:
    """The identity of ``obj`` with ``value`` at ``path`` (a partial configuration)."""
    partial = _identity(obj)
    here = partial
    for key in path[:-1]:
        here = here.setdefault(key, {})
    here[path[-1]] = value
    return partial


def _at(obj: dict, path: tuple[str, ...]) -> Json:
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _label_facet(c: Choices, obj: dict) -> dict:
    return _with(obj, ("metadata", "labels"), {pick(c, ["team", "env", "app"]): pick(c, [*LABEL_VALUES, None])})


def _annotation_facet(c: Choices, obj: dict) -> dict:
    return _with(obj, ("metadata", "annotations"), {pick(c, ["owner", "note"]): pick(c, ["me", "you", None])})


def _pod_facets(path: tuple[str, ...]) -> tuple[Callable[[Choices, dict], dict], ...]:
    def image(c: Choices, obj: dict) -> dict:
        """One container's image, the container named by its key."""
        containers = _at(obj, (*path, "containers")) or [{"name": "app"}]
        name = pick(c, [item["name"] for item in containers])
        return _with(obj, (*path, "containers"), [{"name": name, "image": pick(c, IMAGES)}])

    def sidecar(c: Choices, obj: dict) -> dict:
        """A container of the manager's own (an injector's sidecar), or a port of one by its key."""
        if c.chance(0.5):
            return _with(obj, (*path, "containers"), [container(c, pick(c, ["side", "log"]))])
        port, protocol = pick(c, CONTAINER_PORTS)
        item = {"containerPort": port, **({"protocol": protocol} if protocol else {})}
        return _with(obj, (*path, "containers"), [{"name": "app", "ports": [item]}])

    return image, sidecar


def _replicas_facet(c: Choices, obj: dict) -> dict:
    return _with(obj, ("spec", "replicas"), pick(c, [2, 3, 0, None]))


# Deployment ------------------------------------------------------------------------------------

STRATEGIES = [{"type": "Recreate"}, {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
              {"rollingUpdate": {"maxUnavailable": "50%"}}, {"type": "RollingUpdate"},
              {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}}]


def deployment(c: Choices) -> dict:
    labels = {"app": "web"}
    spec: dict = {"selector": {"matchLabels": dict(labels)}, "template": template(c, labels)}
    if c.chance(0.5):
        spec["replicas"] = pick(c, [1, 2, 3, 0])
    if c.chance(0.4):
        spec["strategy"] = copy.deepcopy(pick(c, STRATEGIES))
    if c.chance(0.15):
        spec["revisionHistoryLimit"] = pick(c, [5, 0])
    if c.chance(0.1):
        spec["minReadySeconds"] = 5
    if c.chance(0.1):
        spec["paused"] = True
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _metadata(c, "web"), "spec": spec}


def _vary_workload(c: Choices, obj: dict, optional: dict[str, list]) -> dict:
    """``obj`` with its pod template varied and optional spec fields set, changed or dropped."""
    changed = copy.deepcopy(obj)
    spec = changed["spec"]
    spec["template"]["spec"] = _varied_pod_spec(c, spec["template"]["spec"])
    for key, values in optional.items():
        if c.chance(0.25):
            if key in spec and c.chance(0.3):
                del spec[key]
            else:
                spec[key] = copy.deepcopy(pick(c, values))
    if c.chance(0.2):
        labels_of(changed)["env"] = pick(c, LABEL_VALUES)
    return changed


def vary_deployment(c: Choices, obj: dict) -> dict:
    return _vary_workload(c, obj, {"replicas": [2, 1, 0], "strategy": STRATEGIES, "minReadySeconds": [0, 3]})


def deployment_status(c: Choices) -> dict:
    replicas = c.integer(0, 3)
    status: dict = {"replicas": replicas, "readyReplicas": c.integer(0, replicas) if replicas else 0}
    if c.chance(0.5):
        status["observedGeneration"] = 1
    if c.chance(0.5):
        status["conditions"] = [{"type": condition, "status": pick(c, ["True", "False"])}
                                for condition in some(c, ["Available", "Progressing"])] or [
            {"type": "Available", "status": "True"}]
    return status




# StatefulSet -------------------------------------------------------------------------------------

SET_STRATEGIES = [{"type": "OnDelete"}, {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}},
                  {"type": "RollingUpdate"}]


def stateful_set(c: Choices) -> dict:
    labels = {"app": "db"}
    spec: dict = {"serviceName": "db", "selector": {"matchLabels": dict(labels)}, "template": template(c, labels)}
    if c.chance(0.5):
        spec["replicas"] = pick(c, [1, 2, 0])
    if c.chance(0.3):
        spec["updateStrategy"] = copy.deepcopy(pick(c, SET_STRATEGIES))
    if c.chance(0.2):
        spec["podManagementPolicy"] = pick(c, ["Parallel", "OrderedReady"])
    if c.chance(0.15):
        spec["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": pick(c, ["Delete", "Retain"])}
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": _metadata(c, "db"), "spec": spec}


def vary_stateful_set(c: Choices, obj: dict) -> dict:
    return _vary_workload(c, obj, {"replicas": [2, 1], "updateStrategy": SET_STRATEGIES, "minReadySeconds": [0, 3]})


def stateful_set_status(c: Choices) -> dict:
    replicas = c.integer(0, 2)
    status: dict = {"replicas": replicas, "availableReplicas": 0}
    if c.chance(0.5):
        status["readyReplicas"] = replicas
        status["availableReplicas"] = replicas
    if c.chance(0.3):
        status["currentRevision"] = "db-1"
    return status




# DaemonSet ---------------------------------------------------------------------------------------

DAEMON_STRATEGIES = [{"type": "OnDelete"}, {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}},
                     {"type": "RollingUpdate"}]


def daemon_set(c: Choices) -> dict:
    labels = {"app": "agent"}
    spec: dict = {"selector": {"matchLabels": dict(labels)}, "template": template(c, labels)}
    if c.chance(0.3):
        spec["updateStrategy"] = copy.deepcopy(pick(c, DAEMON_STRATEGIES))
    if c.chance(0.15):
        spec["minReadySeconds"] = 5
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": _metadata(c, "agent"), "spec": spec}


def vary_daemon_set(c: Choices, obj: dict) -> dict:
    return _vary_workload(c, obj, {"updateStrategy": DAEMON_STRATEGIES, "minReadySeconds": [0, 3]})


def daemon_set_status(c: Choices) -> dict:
    scheduled = c.integer(0, 2)
    return {"currentNumberScheduled": scheduled, "desiredNumberScheduled": scheduled, "numberMisscheduled": 0,
            "numberReady": c.integer(0, scheduled) if scheduled else 0}




# Job ---------------------------------------------------------------------------------------------


def job(c: Choices) -> dict:
    # A manual selector: the server generates none from the uid, so every request can state it.
    labels = {"app": "job"}
    spec: dict = {"manualSelector": True, "selector": {"matchLabels": dict(labels)},
                  "template": template(c, labels, pick(c, ["Never", "OnFailure"]))}
    if c.chance(0.3):
        spec["backoffLimit"] = pick(c, [3, 0])
    if c.chance(0.3):
        spec["parallelism"] = pick(c, [2, 1])
    if c.chance(0.2):
        spec["completions"] = pick(c, [3, 1])
    if c.chance(0.2):
        spec["ttlSecondsAfterFinished"] = pick(c, [100, 0])
    if c.chance(0.15):
        spec["suspend"] = True
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": _metadata(c, "job"), "spec": spec}


def vary_job(c: Choices, obj: dict) -> dict:
    """A Job's template and completions are immutable: only its other fields change."""
    changed = copy.deepcopy(obj)
    spec = changed["spec"]
    for key, values in {"parallelism": [3, 1], "activeDeadlineSeconds": [600, 60], "ttlSecondsAfterFinished": [50],
                        "suspend": [True, False]}.items():
        if c.chance(0.3):
            if key in spec and c.chance(0.3):
                del spec[key]
            else:
                spec[key] = pick(c, values)
    if c.chance(0.2):
        labels_of(changed)["env"] = pick(c, LABEL_VALUES)
    return changed


def job_status(c: Choices) -> dict:
    status: dict = {}
    if c.chance(0.6):
        status["active"] = c.integer(0, 2)
    if c.chance(0.4):
        status["failed"] = c.integer(0, 1)
    return status or {"active": 1}




def _job_facets() -> tuple[Callable[[Choices, dict], dict], ...]:
    def parallelism(c: Choices, obj: dict) -> dict:
        return _with(obj, ("spec", "parallelism"), pick(c, [2, 1, None]))

    def deadline(c: Choices, obj: dict) -> dict:
        return _with(obj, ("spec", "activeDeadlineSeconds"), pick(c, [300, 60]))

    return parallelism, deadline


# CronJob -----------------------------------------------------------------------------------------


def cron_job(c: Choices) -> dict:
    labels = {"app": "cron"}
    job_spec: dict = {"template": template(c, labels, pick(c, ["OnFailure", "Never"]))}
    if c.chance(0.2):
        job_spec["backoffLimit"] = 2
    spec: dict = {"schedule": pick(c, ["*/5 * * * *", "0 * * * *"]), "jobTemplate": {"spec": job_spec}}
    if c.chance(0.3):
        spec["concurrencyPolicy"] = pick(c, ["Forbid", "Replace", "Allow"])
    if c.chance(0.2):
        spec["suspend"] = pick(c, [True, False])
    if c.chance(0.2):
        spec["successfulJobsHistoryLimit"] = pick(c, [1, 5])
    if c.chance(0.1):
        spec["startingDeadlineSeconds"] = 100
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": _metadata(c, "cron"), "spec": spec}


def vary_cron_job(c: Choices, obj: dict) -> dict:
    changed = copy.deepcopy(obj)
    spec = changed["spec"]
    job_template = spec["jobTemplate"]["spec"]["template"]
    job_template["spec"] = _varied_pod_spec(c, job_template["spec"])
    for key, values in {"schedule": ["*/10 * * * *", "0 * * * *"], "concurrencyPolicy": ["Forbid", "Allow"],
                        "suspend": [True, False], "failedJobsHistoryLimit": [0, 3]}.items():
        if c.chance(0.25):
            if key in spec and key != "schedule" and c.chance(0.3):
                del spec[key]
            else:
                spec[key] = pick(c, values)
    return changed


def cron_job_status(c: Choices) -> dict:
    return {"lastScheduleTime": pick(c, ["2024-01-01T00:00:00Z", "2024-01-02T10:00:00Z"])}




def _cron_facets() -> tuple[Callable[[Choices, dict], dict], ...]:
    def schedule(c: Choices, obj: dict) -> dict:
        return _with(obj, ("spec", "schedule"), pick(c, ["*/15 * * * *", "0 0 * * *"]))

    def suspend(c: Choices, obj: dict) -> dict:
        return _with(obj, ("spec", "suspend"), pick(c, [True, False, None]))

    return schedule, suspend


# Service -----------------------------------------------------------------------------------------

# (port, protocol or None, targetPort or None, name): names unique, required when there are several
SERVICE_PORTS = [(80, None, None, "http"), (443, "TCP", 8443, "https"), (80, "UDP", None, "dns"),
                 (8080, None, "web", "alt")]


def _service_ports(c: Choices) -> list[dict]:
    chosen = some(c, SERVICE_PORTS, 0.4) or [SERVICE_PORTS[0]]
    named = len(chosen) > 1 or c.chance(0.5)
    ports = []
    for port, protocol, target, name in chosen:
        item: dict = {"port": port}
        if protocol:
            item["protocol"] = protocol
        if target is not None:
            item["targetPort"] = target
        if named:
            item["name"] = name
        ports.append(item)
    return ports


def service(c: Choices) -> dict:
    spec: dict = {"ports": _service_ports(c)}
    if c.chance(0.8):
        spec["selector"] = {"app": "web"}
    if c.chance(0.3):
        spec["type"] = pick(c, ["ClusterIP", "NodePort"])
    if c.chance(0.2):
        spec["sessionAffinity"] = pick(c, ["ClientIP", "None"])
    if c.chance(0.1):
        spec["publishNotReadyAddresses"] = True
    return {"apiVersion": "v1", "kind": "Service", "metadata": _metadata(c, "svc"), "spec": spec}


def vary_service(c: Choices, obj: dict) -> dict:
    changed = copy.deepcopy(obj)
    spec = changed["spec"]
    if c.chance(0.3):
        spec["ports"] = _service_ports(c)
    if c.chance(0.2):
        spec["sessionAffinity"] = pick(c, ["ClientIP", "None"])
    if c.chance(0.2):
        spec["selector"] = {"app": pick(c, ["web", "api"])}
    if c.chance(0.2):
        labels_of(changed)["env"] = pick(c, LABEL_VALUES)
    return changed


def service_status(c: Choices) -> dict:
    return {"conditions": [{"type": "Ready", "status": pick(c, ["True", "False"]), "reason": "Fuzz",
                            "message": "", "lastTransitionTime": "2024-01-01T00:00:00Z"}]}




def _service_facets() -> tuple[Callable[[Choices, dict], dict], ...]:
    def port(c: Choices, obj: dict) -> dict:
        """One port, keyed by port and protocol (the protocol stated or not)."""
        number, protocol, target, name = pick(c, SERVICE_PORTS)
        item: dict = {"port": number, "name": name}
        if protocol and c.chance(0.7):
            item["protocol"] = protocol
        if target is not None and c.chance(0.5):
            item["targetPort"] = target
        return _with(obj, ("spec", "ports"), [item])

    def affinity(c: Choices, obj: dict) -> dict:
        return _with(obj, ("spec", "sessionAffinity"), pick(c, ["ClientIP", "None", None]))

    return port, affinity


# ConfigMap ---------------------------------------------------------------------------------------


def config_map(c: Choices) -> dict:
    made = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _metadata(c, "cm"),
            "data": {key: pick(c, ["1", "", "x"]) for key in some(c, ["a", "b", "c.txt"])}}
    if c.chance(0.1):
        made["binaryData"] = {"bin": "AAE="}
    return made


def vary_config_map(c: Choices, obj: dict) -> dict:
    changed = copy.deepcopy(obj)
    data = changed.setdefault("data", {})
    for key in ["a", "b", "c.txt"]:
        if c.chance(0.3):
            if key in data and c.chance(0.4):
                del data[key]
            else:
                data[key] = pick(c, ["2", "y"])
    if c.chance(0.2):
        labels_of(changed)["env"] = pick(c, LABEL_VALUES)
    return changed




def _config_map_facets() -> tuple[Callable[[Choices, dict], dict], ...]:
    def key(c: Choices, obj: dict) -> dict:
        return _with(obj, ("data",), {pick(c, ["a", "d"]): pick(c, ["9", None])})

    return (key,)


# Secret ------------------------------------------------------------------------------------------

SECRET_KEYS = ["username", "password", "token", "ca.crt"]
SECRET_VALUES = ["admin", "p", "", "h\u00e9llo \u2713"]
BASIC_AUTH = "kubernetes.io/basic-auth"


def _secret_entry(c: Choices, secret: dict, key: str) -> None:
    """``key`` written with a new value, as ``stringData`` (plain text) or ``data`` (base64)."""
    value = pick(c, SECRET_VALUES)
    for member in ("data", "stringData"):
        if isinstance(secret.get(member), dict):
            secret[member].pop(key, None)
    if c.chance(0.5):
        secret.setdefault("stringData", {})[key] = value
    else:
        secret.setdefault("data", {})[key] = base64.b64encode(value.encode()).decode()


def _secret_keys(secret: dict) -> list[str]:
    return sorted({key for member in ("data", "stringData") for key in (secret.get(member) or {})})


def _secret_valid(secret: dict) -> dict:
    """A basic-auth Secret names username or password (its validation); empty maps left out."""
    if secret.get("type") == BASIC_AUTH and not {"username", "password"} & set(_secret_keys(secret)):
        secret.setdefault("stringData", {})["password"] = "p"
    for member in ("data", "stringData"):
        if member in secret and not secret[member]:
            del secret[member]
    return secret


def secret(c: Choices) -> dict:
    made: dict = {"apiVersion": "v1", "kind": "Secret", "metadata": _metadata(c, "secret")}
    if c.chance(0.3):
        made["type"] = pick(c, ["Opaque", BASIC_AUTH])
    for key in some(c, SECRET_KEYS) or ["username"]:
        _secret_entry(c, made, key)
    return _secret_valid(made)


def vary_secret(c: Choices, obj: dict) -> dict:
    """Keys changed, moved between data and stringData, renamed, dropped or added (the type is immutable)."""
    changed = copy.deepcopy(obj)
    for key in _secret_keys(changed):
        if c.chance(0.3):
            for member in ("data", "stringData"):
                if isinstance(changed.get(member), dict):
                    changed[member].pop(key, None)
            if c.chance(0.5):  # renamed, not dropped
                _secret_entry(c, changed, key + "1")
        elif c.chance(0.3):
            _secret_entry(c, changed, key)
    if c.chance(0.3):
        _secret_entry(c, changed, pick(c, SECRET_KEYS))
    if c.chance(0.2):
        labels_of(changed)["env"] = pick(c, LABEL_VALUES)
    return _secret_valid(changed)


def _secret_facets() -> tuple[Callable[[Choices, dict], dict], ...]:
    def data(c: Choices, obj: dict) -> dict:
        value = pick(c, SECRET_VALUES)
        return _with(obj, ("data",), {pick(c, SECRET_KEYS): base64.b64encode(value.encode()).decode()})

    def string_data(c: Choices, obj: dict) -> dict:
        return _with(obj, ("stringData",), {pick(c, SECRET_KEYS): pick(c, SECRET_VALUES)})

    return (data, string_data)


# Pod ---------------------------------------------------------------------------------------------


def pod(c: Choices) -> dict:
    # No tolerations of its own: the DefaultTolerationSeconds admission plugin appends two to a
    # Pod's (atomic) list when it is created, so who owns the list would be admission's doing.
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _metadata(c, "pod"),
            "spec": pod_spec(c, pick(c, [None, "Never", "OnFailure"]), tolerations=False)}


def vary_pod(c: Choices, obj: dict) -> dict:
    """A Pod's spec is immutable but for its containers' images (and a few fields not generated here)."""
    changed = copy.deepcopy(obj)
    changed["spec"] = _varied_pod_spec(c, changed["spec"], images_only=True)
    if c.chance(0.3):
        labels_of(changed)["env"] = pick(c, LABEL_VALUES)
    return changed


def pod_status(c: Choices) -> dict:
    status: dict = {"phase": pick(c, ["Pending", "Running"])}
    if c.chance(0.5):
        status["conditions"] = [{"type": "Ready", "status": pick(c, ["True", "False"])}]
    return status




def _pod_image_facet(c: Choices, obj: dict) -> dict:
    names = [item["name"] for item in obj["spec"]["containers"]]
    return _with(obj, ("spec", "containers"), [{"name": pick(c, names), "image": pick(c, IMAGES)}])


# --- the kinds a Helm chart ships beside its workloads -------------------------------------------


def _vary_metadata(c: Choices, obj: dict) -> dict:
    changed = copy.deepcopy(obj)
    if c.chance(0.3):
        labels_of(changed)["env"] = pick(c, LABEL_VALUES)
    if c.chance(0.15):
        metadata = changed["metadata"]
        if not isinstance(metadata.get("annotations"), dict):  # none, or an applier's null
            metadata["annotations"] = {}
        metadata["annotations"]["note"] = pick(c, ["c", "d"])
    return changed


def _optional(c: Choices, spec: dict, optional: dict[str, list], chance: float = 0.25) -> None:
    """Set, change or drop each optional member of ``spec``."""
    for key, values in optional.items():
        if c.chance(chance):
            if key in spec and c.chance(0.3):
                del spec[key]
            else:
                spec[key] = copy.deepcopy(pick(c, values))


def _condition(c: Choices, kind: str) -> dict:
    """A metav1.Condition as a controller writes it (every member validation requires)."""
    return {"type": kind, "status": pick(c, ["True", "False"]), "reason": pick(c, ["Fuzz", "Ready"]),
            "message": "", "lastTransitionTime": pick(c, ["2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"])}


def _set_facet(path: tuple[str, ...], values: list) -> Callable[[Choices, dict], dict]:
    def facet(c: Choices, obj: dict) -> dict:
        return _with(obj, path, copy.deepcopy(pick(c, values)))

    facet.__name__ = "_".join(path[-2:])
    return facet


# ServiceAccount ----------------------------------------------------------------------------------


def service_account(c: Choices) -> dict:
    made: dict = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _metadata(c, "sa")}
    if c.chance(0.3):
        made["automountServiceAccountToken"] = pick(c, [False, True])
    if c.chance(0.3):
        made["imagePullSecrets"] = [{"name": name} for name in some(c, ["regcred", "mirror"])] or [{"name": "regcred"}]
    if c.chance(0.2):
        made["secrets"] = [{"name": name} for name in some(c, ["token", "extra"])] or [{"name": "token"}]
    return made


def vary_service_account(c: Choices, obj: dict) -> dict:
    changed = _vary_metadata(c, obj)
    _optional(c, changed, {"automountServiceAccountToken": [True, False],
                           "imagePullSecrets": [[{"name": "regcred"}], [{"name": "mirror"}, {"name": "regcred"}]],
                           "secrets": [[{"name": "token"}], [{"name": "other"}]]}, 0.3)
    return changed


SERVICE_ACCOUNT_FACETS = (_set_facet(("automountServiceAccountToken",), [True, False, None]),
                          _set_facet(("secrets",), [[{"name": "injected"}], [{"name": "token"}]]))


# Ingress -----------------------------------------------------------------------------------------

INGRESS_BACKENDS = [{"service": {"name": "web", "port": {"number": 80}}},
                    {"service": {"name": "api", "port": {"name": "http"}}}]


def _ingress_rules(c: Choices) -> list[dict]:
    rules = []
    for host in some(c, ["a.example.com", "b.example.com"]) or ["a.example.com"]:
        paths = [{"path": path, "pathType": pick(c, ["Prefix", "Exact", "ImplementationSpecific"]),
                  "backend": copy.deepcopy(pick(c, INGRESS_BACKENDS))} for path in some(c, ["/", "/api"])] or [
            {"path": "/", "pathType": "Prefix", "backend": copy.deepcopy(INGRESS_BACKENDS[0])}]
        rules.append({"host": host, "http": {"paths": paths}})
    return rules


def ingress(c: Choices) -> dict:
    spec: dict = {"rules": _ingress_rules(c)}
    if c.chance(0.4):
        spec["ingressClassName"] = pick(c, ["nginx", "traefik"])
    if c.chance(0.2):
        spec["defaultBackend"] = copy.deepcopy(pick(c, INGRESS_BACKENDS))
    if c.chance(0.3):
        spec["tls"] = [{"hosts": ["a.example.com"], "secretName": "tls"}]
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": _metadata(c, "ing"), "spec": spec}


def vary_ingress(c: Choices, obj: dict) -> dict:
    changed = _vary_metadata(c, obj)
    spec = changed["spec"]
    if c.chance(0.3):
        spec["rules"] = _ingress_rules(c)
    _optional(c, spec, {"ingressClassName": ["nginx", "traefik"], "defaultBackend": INGRESS_BACKENDS,
                        "tls": [[{"hosts": ["b.example.com"], "secretName": "tls2"}]]})
    return changed


def ingress_status(c: Choices) -> dict:
    entry = pick(c, [{"ip": "192.0.2.1"}, {"hostname": "lb.example.com"},
                     {"ip": "192.0.2.2", "ports": [{"port": 443, "protocol": "TCP"}]}])
    return {"loadBalancer": {"ingress": [copy.deepcopy(entry)]}}


INGRESS_FACETS = (_set_facet(("spec", "ingressClassName"), ["nginx", "haproxy", None]),
                  _set_facet(("spec", "tls"), [[{"hosts": ["a.example.com"], "secretName": "cert"}]]))


# HorizontalPodAutoscaler -------------------------------------------------------------------------

HPA_METRICS = [
    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}},
    {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
]


def _scaling_rules(c: Choices) -> dict:
    rules: dict = {}
    if c.chance(0.5):
        rules["stabilizationWindowSeconds"] = pick(c, [300, 0, 60])
    if c.chance(0.3):
        rules["selectPolicy"] = pick(c, ["Min", "Max", "Disabled"])
    if c.chance(0.4):
        rules["policies"] = [{"type": kind, "value": value, "periodSeconds": 60}
                             for kind, value in some(c, [("Pods", 2), ("Percent", 50)])] or [
            {"type": "Pods", "value": 1, "periodSeconds": 60}]
    return rules


def _behavior(c: Choices) -> dict:
    behavior: dict = {}
    for direction in some(c, ["scaleUp", "scaleDown"]):
        behavior[direction] = _scaling_rules(c)
    return behavior


def horizontal_pod_autoscaler(c: Choices) -> dict:
    spec: dict = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                  "maxReplicas": pick(c, [5, 10])}
    if c.chance(0.5):
        spec["minReplicas"] = pick(c, [2, 1])
    if c.chance(0.6):
        spec["metrics"] = [copy.deepcopy(metric) for metric in some(c, HPA_METRICS)] or [copy.deepcopy(HPA_METRICS[0])]
    if c.chance(0.5):
        spec["behavior"] = _behavior(c)
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": _metadata(c, "hpa"),
            "spec": spec}


def vary_horizontal_pod_autoscaler(c: Choices, obj: dict) -> dict:
    changed = _vary_metadata(c, obj)
    spec = changed["spec"]
    if c.chance(0.3):
        spec["maxReplicas"] = pick(c, [8, 10, 5])
    _optional(c, spec, {"minReplicas": [1, 3], "metrics": [HPA_METRICS[:1], HPA_METRICS[1:], HPA_METRICS]})
    if c.chance(0.3):
        if "behavior" in spec and c.chance(0.3):
            del spec["behavior"]
        else:
            spec["behavior"] = _behavior(c)
    return changed


def horizontal_pod_autoscaler_status(c: Choices) -> dict:
    replicas = c.integer(0, 3)
    status: dict = {"currentReplicas": replicas, "desiredReplicas": pick(c, [replicas, 2])}
    if c.chance(0.5):
        status["conditions"] = [{"type": kind, "status": pick(c, ["True", "False"]), "reason": "Fuzz",
                                 "lastTransitionTime": "2024-01-01T00:00:00Z"}
                                for kind in some(c, ["AbleToScale", "ScalingActive"])] or [
            {"type": "AbleToScale", "status": "True"}]
    return status


def _hpa_behavior_facet(c: Choices, obj: dict) -> dict:
    """Another manager's opinion on one direction's scaling rules."""
    return _with(obj, ("spec", "behavior", pick(c, ["scaleUp", "scaleDown"])), _scaling_rules(c) or
                 {"stabilizationWindowSeconds": 120})


HPA_FACETS = (_set_facet(("spec", "minReplicas"), [2, 1, None]), _set_facet(("spec", "maxReplicas"), [6, 10]),
              _hpa_behavior_facet)


# PodDisruptionBudget -----------------------------------------------------------------------------


def _budget(c: Choices) -> tuple[str, Json]:
    return pick(c, [("minAvailable", 1), ("minAvailable", "50%"), ("maxUnavailable", 1),
                    ("maxUnavailable", "25%")])


def pod_disruption_budget(c: Choices) -> dict:
    key, value = _budget(c)
    spec: dict = {key: value, "selector": {"matchLabels": {"app": pick(c, ["web", "db"])}}}
    if c.chance(0.2):
        spec["unhealthyPodEvictionPolicy"] = pick(c, ["IfHealthyBudget", "AlwaysAllow"])
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": _metadata(c, "pdb"),
            "spec": spec}


def vary_pod_disruption_budget(c: Choices, obj: dict) -> dict:
    changed = _vary_metadata(c, obj)
    spec = changed["spec"]
    if c.chance(0.4):  # one budget or the other, never both
        spec.pop("minAvailable", None)
        spec.pop("maxUnavailable", None)
        key, value = _budget(c)
        spec[key] = value
    _optional(c, spec, {"unhealthyPodEvictionPolicy": ["AlwaysAllow", "IfHealthyBudget"]})
    if c.chance(0.15):
        spec["selector"] = {"matchLabels": {"app": pick(c, ["web", "api"])}}
    return changed


def pod_disruption_budget_status(c: Choices) -> dict:
    healthy = c.integer(0, 3)
    status: dict = {"currentHealthy": healthy, "desiredHealthy": 1, "disruptionsAllowed": max(healthy - 1, 0),
                    "expectedPods": healthy}
    if c.chance(0.5):
        status["conditions"] = [_condition(c, "DisruptionAllowed")]
    if c.chance(0.3):
        status["observedGeneration"] = 1
    return status


PDB_FACETS = (_set_facet(("spec", "unhealthyPodEvictionPolicy"), ["AlwaysAllow", "IfHealthyBudget", None]),)


# NetworkPolicy -----------------------------------------------------------------------------------

POLICY_PEERS = [{"podSelector": {"matchLabels": {"app": "api"}}},
                {"namespaceSelector": {"matchLabels": {"team": "x"}}},
                {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}]
POLICY_PORTS = [{"port": 80}, {"protocol": "TCP", "port": 443}, {"protocol": "UDP", "port": 53},
                {"port": "http"}, {"port": 8000, "endPort": 8080}]


def _policy_rules(c: Choices, peers: str) -> list[dict]:
    """Ingress or egress rules. Not generated: ``from: []`` (or ``to``, ``ports``) in a rule of these
    atomic lists. A server's field manager compares atomic lists of Go values with reflect.DeepEqual
    (structured-merge-diff value/listreflect.go), so an update that sends ``from: []`` where storage
    gave back nil changes the list and takes it over; the reference, which reads an empty
    ``omitempty`` slice as nil, does not (not modelled yet)."""
    rules = []
    for _ in range(c.integer(1, 2)):
        rule: dict = {}
        # never an empty list of peers or ports: see _policy_rules' note
        if c.chance(0.7):
            rule[peers] = [copy.deepcopy(peer) for peer in some(c, POLICY_PEERS)] or [copy.deepcopy(POLICY_PEERS[0])]
        if c.chance(0.6):
            rule["ports"] = [copy.deepcopy(port) for port in some(c, POLICY_PORTS)] or [copy.deepcopy(POLICY_PORTS[0])]
        rules.append(rule)
    return rules


def network_policy(c: Choices) -> dict:
    spec: dict = {"podSelector": {"matchLabels": {"app": "web"}} if c.chance(0.7) else {}}
    if c.chance(0.7):
        spec["ingress"] = _policy_rules(c, "from")
    if c.chance(0.4):
        spec["egress"] = _policy_rules(c, "to")
    if c.chance(0.3):
        spec["policyTypes"] = some(c, ["Ingress", "Egress"]) or ["Ingress"]
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": _metadata(c, "np"),
            "spec": spec}


def vary_network_policy(c: Choices, obj: dict) -> dict:
    changed = _vary_metadata(c, obj)
    spec = changed["spec"]
    for key, peers in (("ingress", "from"), ("egress", "to")):
        if c.chance(0.25):
            if key in spec and c.chance(0.3):
                del spec[key]
            else:
                spec[key] = _policy_rules(c, peers)
    _optional(c, spec, {"policyTypes": [["Ingress"], ["Ingress", "Egress"], ["Egress"]]}, 0.2)
    return changed


NETWORK_POLICY_FACETS = (_set_facet(("spec", "policyTypes"), [["Ingress", "Egress"], ["Ingress"]]),
                         _set_facet(("spec", "egress"), [[{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}],
                                                          [{"ports": [{"port": 53, "protocol": "UDP"}]}]]))


# Role and RoleBinding ----------------------------------------------------------------------------

ROLE_RULES = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
              {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "update"]},
              {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["cm"], "verbs": ["get"]}]


def role(c: Choices) -> dict:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": _metadata(c, "reader"),
            "rules": [copy.deepcopy(rule) for rule in some(c, ROLE_RULES)] or [copy.deepcopy(ROLE_RULES[0])]}


def vary_role(c: Choices, obj: dict) -> dict:
    changed = _vary_metadata(c, obj)
    if c.chance(0.5):
        changed["rules"] = [copy.deepcopy(rule) for rule in some(c, ROLE_RULES)]
    return changed


ROLE_FACETS = (_set_facet(("rules",), [ROLE_RULES[1:2], []]),)

SUBJECTS = [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "User", "name": "jane"},
            {"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"},
            {"kind": "ServiceAccount", "name": "default", "namespace": "kube-system"}]


def role_binding(c: Choices) -> dict:
    role_ref: dict = {"kind": "Role", "name": "reader"}
    if c.chance(0.6):
        role_ref["apiGroup"] = "rbac.authorization.k8s.io"
    made: dict = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                  "metadata": _metadata(c, "read"), "roleRef": role_ref}
    if c.chance(0.9):
        made["subjects"] = [copy.deepcopy(subject) for subject in some(c, SUBJECTS)] or [copy.deepcopy(SUBJECTS[0])]
    return made


def vary_role_binding(c: Choices, obj: dict) -> dict:
    """A binding's roleRef is immutable: its subjects change."""
    changed = _vary_metadata(c, obj)
    if c.chance(0.5):
        changed["subjects"] = [copy.deepcopy(subject) for subject in some(c, SUBJECTS)]
    return changed


ROLE_BINDING_FACETS = (_set_facet(("subjects",), [SUBJECTS[1:2], [{"kind": "ServiceAccount", "name": "ci"}]]),)


# PersistentVolumeClaim ---------------------------------------------------------------------------


PVC_PROTECTION = "kubernetes.io/pvc-protection"


def persistent_volume_claim(c: Choices) -> dict:
    spec: dict = {"accessModes": some(c, ["ReadWriteOnce", "ReadOnlyMany"]) or ["ReadWriteOnce"],
                  "resources": {"requests": {"storage": pick(c, ["1Gi", "500Mi", "10Gi"])}}}
    if c.chance(0.3):
        spec["storageClassName"] = pick(c, ["standard", "fast"])
    if c.chance(0.2):
        spec["volumeMode"] = pick(c, ["Filesystem", "Block"])
    if c.chance(0.1):
        spec["selector"] = {"matchLabels": {"tier": "gold"}}
    metadata = _metadata(c, "data")
    # The finalizer the StorageObjectInUseProtection admission plugin adds to a claim that has
    # none, stated: the object is then the client's alone (the plugin adds nobody owns it, and a
    # later update without it would remove it).
    metadata["finalizers"] = [PVC_PROTECTION]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": metadata, "spec": spec}


def vary_persistent_volume_claim(c: Choices, obj: dict) -> dict:
    """An unbound claim's spec is immutable: only its metadata changes."""
    return _vary_metadata(c, obj)


def persistent_volume_claim_status(c: Choices) -> dict:
    status: dict = {"phase": pick(c, ["Pending", "Bound"])}
    if c.chance(0.5):
        status["accessModes"] = ["ReadWriteOnce"]
        status["capacity"] = {"storage": pick(c, ["1Gi", "2Gi"])}
    return status


# A custom resource (cases/schemas/database.yaml) ------------------------------------------------

DATABASE_SCHEMA = "database"


def _users(c: Choices) -> list[dict]:
    users = []
    for name in some(c, ["app", "admin", "ro"]) or ["app"]:
        user: dict = {"name": name}
        if c.chance(0.5):
            user["role"] = pick(c, ["owner", "reader", "writer"])
        if c.chance(0.3):
            user["databases"] = some(c, ["main", "logs"]) or ["main"]
        users.append(user)
    return users


def _endpoints(c: Choices) -> list[dict]:
    endpoints = []
    for host, port in some(c, [("db", 5432), ("db", 5433), ("replica", 5432)]) or [("db", 5432)]:
        endpoint: dict = {"host": host, "port": port}
        if c.chance(0.3):
            endpoint["tls"] = pick(c, [True, False])
        endpoints.append(endpoint)
    return endpoints


DATABASE_VALUES = [{"pooler": {"enabled": True, "size": 3}}, {"tuning": ["fast"], "note": "x"},
                   {"pooler": {"enabled": False}}, {"anything": None}]


def _storage(c: Choices) -> dict:
    return {key: value for key, value in some(c, [("size", pick(c, ["5Gi", "1Gi"])), ("className", "fast")])}


def database(c: Choices) -> dict:
    spec: dict = {}
    if c.chance(0.4):
        spec["replicas"] = pick(c, [3, 1, 2])
    if c.chance(0.3):
        spec["version"] = pick(c, ["15", "16"])
    if c.chance(0.3):
        spec["port"] = pick(c, [5433, "postgres", 5432])
    if c.chance(0.4):
        spec["storage"] = _storage(c)
    if c.chance(0.5):
        spec["users"] = _users(c)
    if c.chance(0.3):
        spec["endpoints"] = _endpoints(c)
    if c.chance(0.3):
        spec["parameters"] = {key: pick(c, ["on", "100"]) for key in some(c, ["max_connections", "fsync"])}
    if c.chance(0.2):
        spec["selector"] = {key: "x" for key in some(c, ["app", "tier"])} or {"app": "x"}
    if c.chance(0.2):
        spec["backup"] = dict(some(c, [("schedule", "0 0 * * *"), ("retention", pick(c, [7, "7d"]))]))
    if c.chance(0.3):
        spec["values"] = copy.deepcopy(pick(c, DATABASE_VALUES))
    if c.chance(0.2):
        spec["tags"] = some(c, ["prod", "eu"])
    return {"apiVersion": "example.com/v1", "kind": "Database", "metadata": _metadata(c, "db"), "spec": spec}


def vary_database(c: Choices, obj: dict) -> dict:
    changed = _vary_metadata(c, obj)
    if not isinstance(changed.get("spec"), dict):
        changed["spec"] = {}
    spec = changed["spec"]
    generated = {"users": _users, "endpoints": _endpoints, "storage": _storage}
    for key, make in generated.items():
        if c.chance(0.25):
            if key in spec and c.chance(0.3):
                del spec[key]
            else:
                spec[key] = make(c)
    _optional(c, spec, {"replicas": [2, 5], "version": ["16", "17"], "port": [5432, "pg"],
                        "parameters": [{"fsync": "off"}, {"max_connections": "50", "work_mem": "4MB"}],
                        "selector": [{"app": "y"}], "backup": [{"schedule": "0 1 * * *"}, {"retention": 3}],
                        "values": DATABASE_VALUES, "tags": [["prod"], ["eu", "us"]]})
    return changed


def database_status(c: Choices) -> dict:
    status: dict = {"phase": pick(c, ["Creating", "Ready"])}
    if c.chance(0.5):
        status["readyReplicas"] = c.integer(0, 3)
    if c.chance(0.5):
        status["conditions"] = [{"type": kind, "status": pick(c, ["True", "False"])}
                                for kind in some(c, ["Ready", "Backup"])] or [{"type": "Ready", "status": "True"}]
    return status


def _database_user_facet(c: Choices, obj: dict) -> dict:
    """One user of the manager's own, or a role for an existing one, by its key."""
    user: dict = {"name": pick(c, ["app", "monitor"])}
    if c.chance(0.6):
        user["role"] = pick(c, ["reader", "owner"])
    return _with(obj, ("spec", "users"), [user])


DATABASE_FACETS = (_set_facet(("spec", "replicas"), [3, 2, None]),
                   _set_facet(("spec", "parameters"), [{"fsync": "on"}, {"shared_buffers": "1GB"}]),
                   _set_facet(("spec", "storage", "size"), ["20Gi", None]),
                   _set_facet(("spec", "values"), [{"pooler": {"size": 5}}, {"metrics": True}]),
                   _database_user_facet,
                   _set_facet(("spec", "endpoints"), [[{"host": "db", "port": 5432, "tls": True}]]))


COMMON_FACETS = (_label_facet, _annotation_facet)
POD_TEMPLATE = ("spec", "template", "spec")

KINDS: dict[str, Kind] = {
    "Deployment": Kind("Deployment", deployment, vary_deployment,
                       (_replicas_facet, *_pod_facets(POD_TEMPLATE), *COMMON_FACETS),
                       deployment_status, POD_TEMPLATE),
    "Service": Kind("Service", service, vary_service, (*_service_facets(), *COMMON_FACETS), service_status),
    "ConfigMap": Kind("ConfigMap", config_map, vary_config_map, (*_config_map_facets(), *COMMON_FACETS), None),
    "StatefulSet": Kind("StatefulSet", stateful_set, vary_stateful_set,
                        (_replicas_facet, *_pod_facets(POD_TEMPLATE), *COMMON_FACETS),
                        stateful_set_status, POD_TEMPLATE),
    "DaemonSet": Kind("DaemonSet", daemon_set, vary_daemon_set, (*_pod_facets(POD_TEMPLATE), *COMMON_FACETS),
                      daemon_set_status, POD_TEMPLATE),
    "Job": Kind("Job", job, vary_job, (*_job_facets(), *COMMON_FACETS), job_status),
    "CronJob": Kind("CronJob", cron_job, vary_cron_job, (*_cron_facets(), *COMMON_FACETS), cron_job_status,
                    ("spec", "jobTemplate", "spec", "template", "spec")),
    "Pod": Kind("Pod", pod, vary_pod, (_pod_image_facet, *COMMON_FACETS), pod_status, ("spec",)),
    "Secret": Kind("Secret", secret, vary_secret, (*_secret_facets(), *COMMON_FACETS), None),
    "ServiceAccount": Kind("ServiceAccount", service_account, vary_service_account,
                           (*SERVICE_ACCOUNT_FACETS, *COMMON_FACETS), None),
    "Ingress": Kind("Ingress", ingress, vary_ingress, (*INGRESS_FACETS, *COMMON_FACETS), ingress_status),
    "HorizontalPodAutoscaler": Kind("HorizontalPodAutoscaler", horizontal_pod_autoscaler,
                                    vary_horizontal_pod_autoscaler, (*HPA_FACETS, *COMMON_FACETS),
                                    horizontal_pod_autoscaler_status),
    "PodDisruptionBudget": Kind("PodDisruptionBudget", pod_disruption_budget, vary_pod_disruption_budget,
                                (*PDB_FACETS, *COMMON_FACETS), pod_disruption_budget_status),
    "NetworkPolicy": Kind("NetworkPolicy", network_policy, vary_network_policy,
                          (*NETWORK_POLICY_FACETS, *COMMON_FACETS), None),
    "Role": Kind("Role", role, vary_role, (*ROLE_FACETS, *COMMON_FACETS), None),
    "RoleBinding": Kind("RoleBinding", role_binding, vary_role_binding, (*ROLE_BINDING_FACETS, *COMMON_FACETS), None),
    "PersistentVolumeClaim": Kind("PersistentVolumeClaim", persistent_volume_claim, vary_persistent_volume_claim,
                                  COMMON_FACETS, persistent_volume_claim_status),
    "Database": Kind("Database", database, vary_database, (*DATABASE_FACETS, *COMMON_FACETS), database_status,
                     schema=DATABASE_SCHEMA),
}
