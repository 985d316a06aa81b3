"""Valid objects of built-in kinds, and the changes clients make to them, for fuzzing against a server.

A live kube-apiserver validates what it stores, so the objects here are ones it accepts:
Deployments, StatefulSets and DaemonSets whose selector matches their template's labels,
Jobs with a manual selector (no selector generated from the uid), CronJobs, Services whose
ports are named when there are several, ConfigMaps, Pods and Secrets (data and stringData). Each :class:`Kind` knows

- ``make``: a whole valid object (what the first request creates);
- ``vary``: the object with fields a client may change after creation changed (never an
  immutable one: a StatefulSet's serviceName, a Job's template, a Pod's spec beyond images);
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

from patchconf.harness.fuzz.choices import Choices, pick, some
from patchconf.reference_impl.ssa import codec

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
    back = codec.decode(obj, obj["apiVersion"], obj["kind"], READ_FROM)
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
}
