"""Talking to a live Kubernetes API server: exact requests, discovery, and patchconf's own objects.

Requests go out with the exact bytes and Content-Type patchconf chooses (the generated
``kubernetes`` client rewrites JSON content types), over the TLS connection pool and
credentials the ``kubernetes`` client builds from a kubeconfig.

Everything patchconf creates carries the label ``patchconf.dev/run=<run id>``: a namespace
``patchconf-<run id>`` per run, the objects in it, and cluster-scoped CRDs in the group
``<name>.<run id>.patchconf.dev``; a run in an existing namespace (``--namespace``) labels each
object it creates there. :func:`cleanup` deletes what carries that label and never anything else.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

RUN_LABEL = "patchconf.dev/run"
NAMESPACE_PREFIX = "patchconf-"
CRD_GROUP_SUFFIX = "patchconf.dev"
CONNECT_TIMEOUT = 3.0
REACH_TIMEOUT = 5.0
REQUEST_TIMEOUT = 30.0
JSON = "application/json"
# Transient trouble (throttling, a restarting server, a dropped connection) is retried with
# backoff for up to this long per request; then the request's error stands.
RETRY_BUDGET = 20.0
FIRST_BACKOFF, MAX_BACKOFF = 0.25, 4.0
# Answers that mean "not processed, ask again": throttling (priority and fairness) for every
# request; gateway trouble only for reads, since a write may have happened behind it.
RETRY_ANY = frozenset({429})
RETRY_READS = frozenset({502, 503, 504})
READS = frozenset({"GET", "HEAD"})
# kube-apiserver's Service IP allocator may pick an address another Service still holds (one being
# deleted, or a create racing it): the create fails with a 500 and makes nothing; asked again, it
# picks another address.
SERVICE_IP_COLLISION = b"failed to allocate a serviceIP"


def _allocator_collision(method: str, status: int, data: bytes) -> bool:
    return method == "POST" and status == 500 and SERVICE_IP_COLLISION in data


class ClusterUnreachable(Exception):
    """No usable answer from the API server (network, TLS, credentials)."""


@dataclass(frozen=True)
class Response:
    status: int
    body: Any  # parsed JSON, or the raw text when the server sent something else

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def reason(self) -> str:
        """The Status ``reason`` of an error answer (e.g. 'Invalid', 'Conflict')."""
        return str(self.body.get("reason", "")) if isinstance(self.body, dict) else ""

    def message(self) -> str:
        if isinstance(self.body, dict):
            return str(self.body.get("message", ""))
        return str(self.body)[:500]


@dataclass(frozen=True)
class Resource:
    """Where a kind lives on this server."""

    group_version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: frozenset[str] = frozenset()

    def collection(self, namespace: str | None) -> str:
        base = "/api/v1" if self.group_version == "v1" else f"/apis/{self.group_version}"
        if self.namespaced and namespace:
            return f"{base}/namespaces/{namespace}/{self.plural}"
        return f"{base}/{self.plural}"

    def item(self, namespace: str | None, name: str) -> str:
        return f"{self.collection(namespace)}/{quote(name, safe='')}"


def _unsent(exc: Exception) -> bool:
    """The request never reached the server: no connection was made."""
    import urllib3

    return isinstance(exc, (urllib3.exceptions.NewConnectionError, urllib3.exceptions.ConnectTimeoutError))


def _retry_after(answer: Any) -> float:
    """The server's Retry-After in seconds (0 when absent or not a number of seconds)."""
    try:
        return min(float(answer.headers.get("Retry-After", 0)), MAX_BACKOFF)
    except (TypeError, ValueError):
        return 0.0


def new_run_id() -> str:
    """A short, lowercase, time-ordered id usable in names and label values."""
    return f"r{int(time.time()):x}{secrets.token_hex(2)}"


def kubeconfig_path(explicit: str | None) -> str | None:
    """The kubeconfig to use: ``--kubeconfig``, else $KUBECONFIG, else the client's default."""
    return explicit or os.environ.get("KUBECONFIG") or None


class Cluster:
    """One API server, reached through a kubeconfig (and optionally a named context)."""

    def __init__(self, kubeconfig: str | None = None, context: str | None = None) -> None:
        try:
            from kubernetes import config as kube_config
        except ImportError as exc:  # pragma: no cover - kubernetes is a declared dependency
            raise ClusterUnreachable("the `kubernetes` Python package is not installed") from exc
        path = kubeconfig_path(kubeconfig)
        try:
            self._api_client = kube_config.new_client_from_config(config_file=path, context=context,
                                                                  persist_config=False)
        except Exception as exc:  # the loader raises several unrelated types
            shown = path or "~/.kube/config"
            raise ClusterUnreachable(f"cannot load kubeconfig {shown}"
                                     f"{' context ' + context if context else ''}: {exc}") from exc
        self.host = self._api_client.configuration.host.rstrip("/")
        self.context = context or _current_context(kube_config, path)
        self._pool = self._api_client.rest_client.pool_manager
        self._discovery: dict[str, dict[str, Resource]] = {}
        self._discovery_lock = threading.Lock()

    # --- requests ------------------------------------------------------------------------

    def _auth_headers(self) -> dict[str, str]:
        # Configuration.auth_settings() is the client's public view of the kubeconfig's token
        # (refreshed by exec plugins); ApiClient.update_params_for_auth changed signature.
        headers = {}
        for setting in self._api_client.configuration.auth_settings().values():
            if setting.get("in") == "header" and setting.get("value"):
                headers[setting["key"]] = setting["value"]
        return headers

    def request(self, method: str, path: str, body: Any = None, content_type: str = JSON,
                query: Mapping[str, str] | None = None, timeout: float = REQUEST_TIMEOUT,
                raw_body: bytes | None = None, retry_budget: float | None = None) -> Response:
        """Send one request; HTTP errors come back as a Response, transport errors raise.

        Transient failures are retried with backoff within ``retry_budget`` seconds (default
        RETRY_BUDGET): a 429 always (after its Retry-After), a 502/503/504 or a connection
        dropped mid-request only for reads, a create the Service IP allocator failed (a 500 that
        made nothing), a connection that could not be made for any request (nothing was sent).
        The last answer or error stands when the budget is spent.
        """
        import urllib3

        headers = {"Accept": JSON, "User-Agent": "patchconf", **self._auth_headers()}
        data = raw_body
        if data is None and body is not None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        if data is not None:
            headers["Content-Type"] = content_type
        url = self.host + path + (f"?{urlencode(query)}" if query else "")
        deadline = time.monotonic() + (RETRY_BUDGET if retry_budget is None else retry_budget)
        backoff = FIRST_BACKOFF
        while True:
            try:
                answer = self._pool.request(method, url, body=data, headers=headers, retries=False,
                                            timeout=urllib3.Timeout(connect=CONNECT_TIMEOUT, read=timeout))
            except urllib3.exceptions.HTTPError as exc:
                wait = backoff if _unsent(exc) or method in READS else None
                if wait is None or time.monotonic() + wait > deadline:
                    raise ClusterUnreachable(f"{method} {self.host}{path}: {exc}") from exc
            else:
                retried = (answer.status in RETRY_ANY or (answer.status in RETRY_READS and method in READS)
                           or _allocator_collision(method, answer.status, answer.data))
                wait = max(backoff, _retry_after(answer)) if retried else None
                if wait is None or time.monotonic() + wait > deadline:
                    break
            time.sleep(wait)
            backoff = min(backoff * 2, MAX_BACKOFF)
        text = answer.data.decode("utf-8", errors="replace")
        try:
            parsed: Any = json.loads(text) if text else None
        except json.JSONDecodeError:
            parsed = text
        return Response(answer.status, parsed)

    def server_version(self) -> str:
        """``gitVersion`` from /version; fails within a few seconds when the server is not there."""
        try:
            answer = self.request("GET", "/version", timeout=REACH_TIMEOUT, retry_budget=REACH_TIMEOUT)
        except ClusterUnreachable as exc:
            raise ClusterUnreachable(f"cannot reach the API server at {self.host}: {_short(exc)}") from exc
        if answer.status in (401, 403):
            raise ClusterUnreachable(f"the API server at {self.host} refused our credentials "
                                     f"({answer.status}): {answer.message()}")
        if not answer.ok or not isinstance(answer.body, dict) or "gitVersion" not in answer.body:
            shown = answer.message() if answer.body else "an empty body"
            raise ClusterUnreachable(f"{self.host}/version answered {answer.status} with {shown}; "
                                     "is this a Kubernetes API server?")
        return str(answer.body["gitVersion"])

    # --- discovery -------------------------------------------------------------------------

    def resources(self, group_version: str, refresh: bool = False) -> dict[str, Resource]:
        """Kind → Resource for one group/version ({} when the server does not serve it)."""
        with self._discovery_lock:
            if group_version in self._discovery and not refresh:
                return self._discovery[group_version]
        path = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
        answer = self.request("GET", path)
        found: dict[str, Resource] = {}
        if answer.ok and isinstance(answer.body, dict):
            for entry in answer.body.get("resources", []):
                if "/" in entry.get("name", ""):
                    continue  # subresources
                found[entry["kind"]] = Resource(group_version, entry["kind"], entry["name"],
                                                bool(entry.get("namespaced")), frozenset(entry.get("verbs", [])))
        with self._discovery_lock:
            self._discovery[group_version] = found
        return found

    def resource_for(self, api_version: str, kind: str) -> Resource | None:
        return self.resources(api_version).get(kind)

    def preferred_group_versions(self) -> list[str]:
        versions = ["v1"]
        answer = self.request("GET", "/apis")
        if answer.ok and isinstance(answer.body, dict):
            for group in answer.body.get("groups", []):
                preferred = group.get("preferredVersion") or (group.get("versions") or [None])[0]
                if preferred:
                    versions.append(preferred["groupVersion"])
        return versions

    # --- patchconf's own objects -------------------------------------------------------------

    def create_run_namespace(self, run_id: str) -> str:
        name = NAMESPACE_PREFIX + run_id
        body = {"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": name, "labels": {RUN_LABEL: run_id}}}
        answer = self.request("POST", "/api/v1/namespaces", body)
        if not answer.ok:
            raise ClusterUnreachable(f"cannot create namespace {name}: {answer.status} {answer.message()}")
        return name

    def namespace_status(self, name: str) -> int:
        """The HTTP status of GET on a namespace: 200, 404 (none), 403 (may not read it), ..."""
        return self.request("GET", f"/api/v1/namespaces/{quote(name, safe='')}").status

    def may(self, verb: str, group: str, resource: str, namespace: str | None = None) -> bool | None:
        """Whether our credentials may ``verb`` ``resource`` (a SelfSubjectAccessReview, which every
        authenticated user may ask); None when the server cannot say."""
        attributes = {"verb": verb, "group": group, "resource": resource}
        if namespace:
            attributes["namespace"] = namespace
        review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                  "spec": {"resourceAttributes": attributes}}
        answer = self.request("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review)
        if not answer.ok or not isinstance(answer.body, dict):
            return None
        return bool((answer.body.get("status") or {}).get("allowed"))

    def delete_object(self, path: str) -> Response:
        """Delete at once: no grace period (no kubelet), no finalizers left to wait for."""
        current = self.request("GET", path)
        if current.ok and isinstance(current.body, dict) and current.body.get("metadata", {}).get("finalizers"):
            self.request("PATCH", path, {"metadata": {"finalizers": None}}, "application/merge-patch+json")
        options = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                   "propagationPolicy": "Background"}
        return self.request("DELETE", path, options)


def _current_context(kube_config: Any, path: str | None) -> str | None:
    try:
        _, current = kube_config.list_kube_config_contexts(config_file=path)
    except Exception:  # a kubeconfig that loaded has one; this is only for naming it
        return None
    return (current or {}).get("name")


def _short(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) <= 300 else text[:297] + "..."


def _deletable(resource: Resource) -> bool:
    return {"list", "delete"} <= resource.verbs


def _items(answer: Response) -> list[dict]:
    if answer.ok and isinstance(answer.body, dict):
        return [item for item in answer.body.get("items") or [] if isinstance(item, dict)]
    return []


def empty_namespace(cluster: Cluster, namespace: str) -> int:
    """Delete every object in a patchconf namespace (no controller does it here). Returns the count."""
    return len(sweep_namespace(cluster, namespace))


def delete_namespace(cluster: Cluster, namespace: str) -> None:
    """Delete a namespace and finalize it: without kube-controller-manager it would stay Terminating
    (and with metadata.finalizers, which a case's Namespace may have, with one)."""
    path = f"/api/v1/namespaces/{quote(namespace, safe='')}"
    cluster.delete_object(path)  # a case's Namespace may carry finalizers of its own
    current = cluster.request("GET", path)
    if current.status == 404 or not isinstance(current.body, dict):
        return
    finalized = dict(current.body)
    finalized["spec"] = {**finalized.get("spec", {}), "finalizers": []}
    cluster.request("PUT", path + "/finalize", finalized)
    for _ in range(50):
        if cluster.request("GET", path).status == 404:
            return
        time.sleep(0.1)


def labelled(cluster: Cluster, path: str, selector: str) -> list[dict]:
    return _items(cluster.request("GET", path, query={"labelSelector": selector}))


def sweep_namespace(cluster: Cluster, namespace: str, selector: str | None = None) -> list[str]:
    """Delete the objects in a namespace that ``selector`` (on the run label) picks, of every kind
    the server serves that we may list; nothing else. Returns them as ``kind/name``. Without a
    selector: every object but Events (a patchconf namespace, emptied before it is deleted)."""
    deleted = []
    for group_version in cluster.preferred_group_versions():
        for resource in cluster.resources(group_version).values():
            if not resource.namespaced or not _deletable(resource) or (selector is None and resource.kind == "Event"):
                continue
            collection = resource.collection(namespace)
            found = _items(cluster.request("GET", collection)) if selector is None else labelled(
                cluster, collection, selector)
            for item in found:
                name = item.get("metadata", {}).get("name")
                if name and cluster.delete_object(resource.item(namespace, name)).ok:
                    deleted.append(f"{resource.kind}/{name}")
    return deleted


# Cluster-scoped kinds a run may create for a case (labelled; Namespaces are found with the run's own)
CLUSTER_SCOPED_CASE_COLLECTIONS = {
    "ClusterRole": "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    "Node": "/api/v1/nodes",
    "PersistentVolume": "/api/v1/persistentvolumes",
}


@dataclass
class CleanupReport:
    namespaces: list[str]
    crds: list[str]
    objects: int
    swept_namespace: str | None = None  # cleanup inside one existing namespace
    swept: list[str] = field(default_factory=list)
    cluster_objects: list[str] = field(default_factory=list)  # cluster-scoped, as kind/name

    def __str__(self) -> str:
        if not self.namespaces and not self.crds and not self.swept and not self.cluster_objects:
            where = f" in namespace {self.swept_namespace}" if self.swept_namespace else ""
            return f"nothing labelled patchconf.dev/run found{where}"
        parts = []
        if self.swept_namespace is None:
            parts += [f"{len(self.namespaces)} namespaces ({', '.join(self.namespaces) or '-'})",
                      f"{self.objects} objects in them"]
        else:
            parts.append(f"{len(self.swept)} objects in namespace {self.swept_namespace} "
                         f"({', '.join(self.swept) or '-'})")
        if self.swept_namespace is None or self.crds:
            parts.append(f"{len(self.crds)} CRDs ({', '.join(self.crds) or '-'})")
        if self.cluster_objects:
            parts.append(f"{len(self.cluster_objects)} cluster-scoped objects ({', '.join(self.cluster_objects)})")
        return "deleted " + ", ".join(parts)


def cleanup(cluster: Cluster, run_ids: Iterable[str] | None = None, namespace: str | None = None) -> CleanupReport:
    """Delete what patchconf labelled: every run (``run_ids`` None) or the given runs.

    Only namespaces and CRDs carrying ``patchconf.dev/run`` are touched (and the objects
    inside those namespaces, which only a patchconf run creates). With ``namespace`` (a run in an
    existing namespace) only the objects in it carrying the label are deleted, never the namespace,
    and CRDs only of the given runs: another run may be using its own.
    """
    wanted = None if run_ids is None else set(run_ids)
    selector = RUN_LABEL if wanted is None else f"{RUN_LABEL} in ({','.join(sorted(wanted))})"
    report = CleanupReport([], [], 0, swept_namespace=namespace)
    if namespace is not None:
        report.swept = sweep_namespace(cluster, namespace, selector)
        report.objects = len(report.swept)
        if wanted is None:
            return report
    for found in labelled(cluster, "/api/v1/namespaces", selector) if namespace is None else ():
        name = found["metadata"]["name"]
        report.objects += empty_namespace(cluster, name)
        delete_namespace(cluster, name)
        report.namespaces.append(name)
    for kind, path in CLUSTER_SCOPED_CASE_COLLECTIONS.items() if namespace is None else ():
        for found in labelled(cluster, path, selector):  # an account that may not list them made none
            name = found["metadata"]["name"]
            if cluster.delete_object(f"{path}/{quote(name, safe='')}").ok:
                report.cluster_objects.append(f"{kind}/{name}")
    crd_path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    for crd in labelled(cluster, crd_path, selector):
        name = crd["metadata"]["name"]
        cluster.request("DELETE", f"{crd_path}/{quote(name, safe='')}")
        report.crds.append(name)
    for name in report.crds:
        for _ in range(100):
            if cluster.request("GET", f"{crd_path}/{quote(name, safe='')}").status == 404:
                break
            time.sleep(0.1)
    return report
