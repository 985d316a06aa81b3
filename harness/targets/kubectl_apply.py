"""``kubectl-apply[:PATH]``: the real ``kubectl apply`` against a loopback recording endpoint.

No cluster is needed. For each ``apply`` case a small HTTP server on 127.0.0.1 plays the
apiserver: it serves legacy discovery for the case's kinds, answers the GET of the object
with ``current`` (carrying ``original`` as its last-applied annotation), and records the
PATCH (or, for an object that does not exist, the POST) that kubectl sends. That body is
kubectl's own three-way patch. The patched object is computed by the same kubectl
(``kubectl patch --local``), so nothing comes from patchconf's reference implementation.
Anything else kubectl asks for is recorded and refused, and fails the case visibly.

The endpoint answers 404 for the OpenAPI documents: kubectl's Patcher (k8s.io/kubectl
pkg/cmd/apply/patcher.go, patchSimple) then takes patch metadata from its compiled-in
scheme (``buildStrategicMergeFromBuiltins``) and sends a JSON merge patch for kinds the
scheme does not know (``buildMergePatch``) — the choice the ``upstream`` target makes.

The last-applied annotation is written by kubectl as well: ``original`` goes through
``kubectl apply --dry-run=client -o json``, which stores
``util.GetModifiedConfiguration(original)`` byte for byte as kubectl writes it.

What kubectl does that a library call does not, and this target therefore shows: a
config without ``metadata.namespace`` gets the context's namespace (``default``) before
the three-way merge; a create (POST) has the config's explicit nulls pruned
(``pruneNullsFromMap``) while its annotation keeps them; a config whose name, namespace or
kind differs from the live object's addresses another object, which kubectl creates.

What the endpoint does not do that an apiserver would: validate (kubectl runs with
``--validate=false``, so it asks for no field validation), default fields, or maintain
managedFields, resourceVersion and generation — the document is the live object with
kubectl's patch applied, and nothing else, as in the ``upstream`` target.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ...reference_impl.govalue import encoding_json
from ...reference_impl.kubernetes_object import is_custom_group, resource_plural
from ...reference_impl.patch_types import PATCH_REQUEST_TYPES, PATCH_TYPES
from ..corpus.cases import ABSENT, Case
from . import bounded
from .base import (
    KUBERNETES,
    MODES,
    Actual,
    ActualError,
    Target,
    TargetCrash,
    TargetInfo,
    TargetUnavailable,
)
from .kubectl import ERROR_PATTERNS, classify_error, find_kubectl, kubectl_version

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
DEFAULT_NAMESPACE = "default"
KUBECTL_TIMEOUT_SECONDS = 60
# kubectl patch --local runs while kubectl apply waits for the PATCH answer (--request-timeout).
PATCH_TIMEOUT_SECONDS = 20
REQUEST_TIMEOUT = "30s"
# kubectl lives a fraction of a second, mostly its start-up: the garbage collections there are
# a fifth of its CPU time, spent on memory about to be freed by exiting. Above the limit Go
# collects all the same. Used unless the user's environment sets either.
KUBECTL_GO_MEMORY = {"GOGC": "off", "GOMEMLIMIT": "512MiB"}
# kubectl patch --type of each PATCH request's media type
PATCH_CONTENT_TYPES = {PATCH_TYPES[name].content_type: PATCH_TYPES[name].kubectl_patch for name in PATCH_REQUEST_TYPES}
# OpenAPI documents kubectl asks for, deliberately answered with 404 (kubectl <= 1.27 falls
# back from /openapi/v2 to the legacy /swagger-2.0.0.pb-v1).
EXPECTED_NOT_FOUND = ("/openapi/v2", "/openapi/v3", "/swagger-2.0.0.pb-v1")

# Built-in kinds that are not namespaced (kube-apiserver's discovery); every other kind,
# custom kinds (whose group has a dot and does not end in .k8s.io) included, is namespaced.
CLUSTER_SCOPED_KINDS = frozenset({
    "APIService", "CertificateSigningRequest", "ClusterRole", "ClusterRoleBinding", "ClusterTrustBundle",
    "ComponentStatus", "CSIDriver", "CSINode", "CustomResourceDefinition", "FlowSchema", "IngressClass",
    "MutatingWebhookConfiguration", "Namespace", "Node", "PersistentVolume", "PriorityClass",
    "PriorityLevelConfiguration", "RuntimeClass", "SelfSubjectAccessReview", "SelfSubjectReview",
    "SelfSubjectRulesReview", "StorageClass", "SubjectAccessReview", "TokenReview",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ValidatingWebhookConfiguration",
    "VolumeAttachment",
})
# kubectl apply's own wording, checked before kubectl patch's patterns.
APPLY_ERROR_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"conflicts with changes made from original to current", "conflict"),
    (r"At least one of apiVersion, kind and name was changed|precondition failed", "precondition-failed"),
)


def classify_apply_error(message: str) -> str:
    return classify_error(message, APPLY_ERROR_PATTERNS + ERROR_PATTERNS)


@dataclass(frozen=True)
class Resource:
    """A kind as the endpoint's discovery serves it."""

    api_version: str
    kind: str
    namespaced: bool

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]

    @property
    def plural(self) -> str:
        return resource_plural(self.kind)

    @property
    def group_version_path(self) -> str:
        return f"/apis/{self.api_version}" if self.group else f"/api/{self.version}"

    def object_path(self, name: str, namespace: str | None) -> str:
        if self.namespaced:
            return f"{self.group_version_path}/namespaces/{namespace or DEFAULT_NAMESPACE}/{self.plural}/{name}"
        return f"{self.group_version_path}/{self.plural}/{name}"

    def serves(self, path: str, collection: bool = False) -> bool:
        """Whether ``path`` is one of this kind's objects (or, with ``collection``, its collection)."""
        name = "" if collection else "/[^/]+"
        scope = "/namespaces/[^/]+" if self.namespaced else ""
        return re.fullmatch(f"{re.escape(self.group_version_path)}{scope}/{re.escape(self.plural)}{name}",
                            path) is not None

    def to_api_resource(self) -> dict[str, Any]:
        return {
            "name": self.plural,
            "singularName": self.kind.lower(),
            "namespaced": self.namespaced,
            "kind": self.kind,
            "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
        }


def resource_of(document: Any, cluster_scoped: bool | None = None) -> Resource | None:
    """The served kind of an object (scope: as kube-apiserver serves it unless given), or None."""
    if not isinstance(document, dict):
        return None
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version or not kind:
        return None
    if cluster_scoped is None:
        group = api_version.rpartition("/")[0]
        cluster_scoped = not is_custom_group(group) and kind in CLUSTER_SCOPED_KINDS
    return Resource(api_version, kind, namespaced=not cluster_scoped)


def object_path(resource: Resource, document: dict) -> str | None:
    metadata = document.get("metadata")
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str):
        return None
    namespace = metadata.get("namespace")
    return resource.object_path(metadata["name"], namespace if isinstance(namespace, str) else None)


def _namespace_of(resource: Resource, document: dict) -> str | None:
    """The namespace kubectl puts a namespaced object in (the context's when it names none)."""
    if not resource.namespaced:
        return None
    namespace = document.get("metadata", {}).get("namespace")
    return namespace if isinstance(namespace, str) and namespace else DEFAULT_NAMESPACE


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    content_type: str
    body: bytes


@dataclass
class EndpointState:
    """What the endpoint serves and what it saw."""

    resources: tuple[Resource, ...]
    objects: dict[str, Any]  # object path -> JSON document served by GET
    namespaces: frozenset[str]  # namespaces that exist (kubectl GETs an object's namespace before creating it)
    kubectl_version: str
    patch_document: Callable[[Any, str, bytes], tuple[int, Any]]
    max_body_bytes: int = bounded.DEFAULT_MAX_ANSWER_BYTES
    requests: list[Recorded] = field(default_factory=list)
    patched: dict[str, Any] = field(default_factory=dict)  # object path -> the object after its PATCH
    unexpected: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, entry: Recorded) -> None:
        with self.lock:
            self.requests.append(entry)

    def refuse(self, text: str) -> None:
        with self.lock:
            self.unexpected.append(text)

    def sent(self, method: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method]


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    # Headers and body are separate writes: with Nagle's algorithm the body waited for kubectl's
    # delayed ACK of the headers (40 ms), at every request after a connection's first.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are recorded in the state, not logged."""

    def _reply(self, code: int, document: Any) -> None:
        body = json.dumps(document).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _serving(self) -> EndpointState | None:
        """The invocation being served; None (answered 503) between invocations."""
        state = self.server.state
        if state is None:
            self.close_connection = True
            self._reply(503, _status(503, "ServiceUnavailable", "the recording endpoint serves no kubectl now"))
        return state

    def _body(self, state: EndpointState) -> bytes | None:
        """The request's body; None (refused, answered 413) beyond the answer size limit."""
        length = int(self.headers.get("Content-Length") or 0)
        limit = state.max_body_bytes
        if length > limit:  # what kubectl sends is its answer, bounded like any target's
            state.refuse(f"{self.command} {self.path}: a body of {length:,} bytes, "
                         + bounded.too_large("a request", limit))
            self.close_connection = True
            self._reply(413, _status(413, "RequestEntityTooLarge", "the body is over patchconf's answer size limit"))
            return None
        return self.rfile.read(length) if length else b""

    def _received(self) -> tuple[EndpointState, bytes] | None:
        """The invocation being served and the request's body; None when either was refused."""
        state = self._serving()
        body = None if state is None else self._body(state)
        return None if state is None or body is None else (state, body)

    def _unexpected(self, state: EndpointState, body: bytes = b"") -> None:
        text = f"{self.command} {self.path}"
        if body:
            text += f" {body[:200]!r}"
        state.refuse(text)
        code, reason = (404, "NotFound") if self.command == "GET" else (405, "MethodNotAllowed")
        message = f"patchconf recording endpoint does not serve {self.command} {urlsplit(self.path).path}"
        self._reply(code, _status(code, reason, message))

    def do_GET(self) -> None:
        state = self._serving()
        if state is None:
            return
        path = urlsplit(self.path).path
        state.record(Recorded("GET", path, "", b""))
        discovery = _discovery(state, path)
        if discovery is not None:
            self._reply(200, discovery)
        elif path in state.objects:
            self._reply(200, state.objects[path])
        elif path.removeprefix("/api/v1/namespaces/") in state.namespaces:
            name = path.removeprefix("/api/v1/namespaces/")
            self._reply(200, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name},
                              "status": {"phase": "Active"}})
        elif path in EXPECTED_NOT_FOUND:
            self._reply(404, _status(404, "NotFound", "the recording endpoint publishes no OpenAPI"))
        elif any(r.serves(path) for r in state.resources):
            self._reply(404, _status(404, "NotFound", f"{path} not found"))  # an object that does not exist
        else:
            self._unexpected(state)

    def do_PATCH(self) -> None:
        received = self._received()
        if received is None:
            return
        state, body = received
        path = urlsplit(self.path).path
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        state.record(Recorded("PATCH", path, content_type, body))
        if path not in state.objects:
            self._unexpected(state, body)
            return
        code, answer = state.patch_document(state.objects[path], content_type, body)
        if code == 200:
            with state.lock:
                state.patched[path] = answer
        self._reply(code, answer)

    def do_POST(self) -> None:
        received = self._received()
        if received is None:
            return
        state, body = received
        path = urlsplit(self.path).path
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        state.record(Recorded("POST", path, content_type, body))
        if not any(r.serves(path, collection=True) for r in state.resources):
            self._unexpected(state, body)
            return
        try:
            self._reply(201, json.loads(body))
        except ValueError:
            self._reply(400, _status(400, "BadRequest", "the created object is not JSON"))

    def do_PUT(self) -> None:
        received = self._received()
        if received is not None:
            self._unexpected(*received)

    def do_DELETE(self) -> None:
        received = self._received()
        if received is not None:
            self._unexpected(*received)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: EndpointState | None = None


def _discovery(state: EndpointState, path: str) -> dict[str, Any] | None:
    """Legacy (non-aggregated) discovery documents for the served kinds."""
    if path == "/version":
        major, minor, *_ = [*state.kubectl_version.split("."), "0", "0"]
        return {"major": major, "minor": minor, "gitVersion": f"v{state.kubectl_version}", "platform": "patchconf"}
    if path == "/api":
        return {"kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}
    if path == "/apis":
        groups: dict[str, list[str]] = {}
        for resource in state.resources:
            if resource.group and resource.version not in groups.setdefault(resource.group, []):
                groups[resource.group].append(resource.version)
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            {"name": group, "versions": [{"groupVersion": f"{group}/{v}", "version": v} for v in versions],
             "preferredVersion": {"groupVersion": f"{group}/{versions[0]}", "version": versions[0]}}
            for group, versions in groups.items()
        ]}
    served = [r for r in state.resources if r.group_version_path == path]
    if served or path == "/api/v1":
        return {"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": "v1" if path == "/api/v1" else path.removeprefix("/apis/"),
                "resources": [r.to_api_resource() for r in _unique(served)]}
    return None


def _unique(resources: Iterable[Resource]) -> list[Resource]:
    seen: dict[tuple[str, str], Resource] = {}
    for resource in resources:
        seen.setdefault((resource.api_version, resource.kind), resource)
    return list(seen.values())


class RecordingEndpoint:
    """A loopback apiserver stand-in serving one kubectl invocation's state at a time
    (``state``; None between invocations). Use as a context manager, or start and stop it."""

    def __init__(self, state: EndpointState | None = None) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = state
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def state(self) -> EndpointState | None:
        return self._server.state

    @state.setter
    def state(self, state: EndpointState | None) -> None:
        self._server.state = state

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()  # returns once serve_forever's poll (up to half a second) has seen it
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> RecordingEndpoint:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class EndpointPool:
    """The run's recording endpoints, one per kubectl invocation in flight, reused.

    Stopping a server costs up to half a second, which a server per invocation paid twice
    per case. An idle endpoint instead takes the next invocation's state; each invocation
    still has an endpoint, a kubeconfig and a cache directory of its own.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[RecordingEndpoint] = []
        self._started: list[RecordingEndpoint] = []

    @property
    def size(self) -> int:
        return len(self._started)

    @contextmanager
    def serving(self, state: EndpointState) -> Iterator[RecordingEndpoint]:
        with self._lock:
            endpoint = self._idle.pop() if self._idle else None
        if endpoint is None:
            endpoint = RecordingEndpoint()
            endpoint.start()
            with self._lock:
                self._started.append(endpoint)
        endpoint.state = state
        try:
            yield endpoint
        finally:
            endpoint.state = None
            with self._lock:
                self._idle.append(endpoint)

    def close(self) -> None:
        """Stop every endpoint, all at once (each waits for its server's poll)."""
        with self._lock:
            endpoints, self._started, self._idle = self._started, [], []
        stoppers = [threading.Thread(target=endpoint.stop) for endpoint in endpoints]
        for stopper in stoppers:
            stopper.start()
        for stopper in stoppers:
            stopper.join()


def kubeconfig_text(server_url: str) -> str:
    return json.dumps({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "patchconf", "cluster": {"server": server_url}}],
        "users": [{"name": "patchconf", "user": {}}],
        "contexts": [{"name": "patchconf",
                      "context": {"cluster": "patchconf", "user": "patchconf", "namespace": DEFAULT_NAMESPACE}}],
        "current-context": "patchconf",
    })


@dataclass(frozen=True)
class KubectlRun:
    returncode: int
    stdout: str
    stderr: str
    state: EndpointState

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(line for line in self.stderr.splitlines() if line.startswith("Warning: "))

    @property
    def message(self) -> str:
        lines = [line.removeprefix("error: ") for line in self.stderr.strip().splitlines()
                 if not line.startswith("Warning: ")]
        return "\n".join(lines).strip()


class KubectlApplyTarget(Target):
    def __init__(self, binary: str | None = None, max_answer_bytes: int | None = None) -> None:
        if binary is None and shutil.which("kubectl") is None:
            raise TargetUnavailable("kubectl is not on PATH; the kubectl-apply target runs the real kubectl apply: "
                                    "install kubectl or pass --target kubectl-apply:PATH")
        self.binary = find_kubectl(binary)
        self.name = f"kubectl-apply:{binary}" if binary else "kubectl-apply"
        version = kubectl_version(self.binary)
        self.info = TargetInfo(
            family="kubectl",
            category=KUBERNETES,
            version=version,
            patch_types=frozenset({"apply"}),
            schemas=frozenset({"builtin", "none"}),
            messages=True,
            description=f"kubectl apply against patchconf's recording endpoint ({self.binary})",
            modes=MODES,  # --overwrite=false
        )
        # Two cases per CPU: a case's kubectl runs follow one another, and it waits between them
        # (2 workers kept 2 idle CPUs half busy: 29.9 s for the apply corpus, 4 workers 20.0 s).
        self.workers = 2 * (os.cpu_count() or 1)
        self._tmp = tempfile.TemporaryDirectory(prefix="patchconf-kubectl-apply-")
        self._env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG" and not k.startswith("KUBECTL_")}
        if "GOGC" not in self._env and "GOMEMLIMIT" not in self._env:
            self._env.update(KUBECTL_GO_MEMORY)
        self.max_answer_bytes = bounded.max_answer_bytes(max_answer_bytes)
        self._endpoints = EndpointPool()
        # original.json as kubectl reads it -> the annotation kubectl wrote for it, this run's
        self._annotations: dict[str, str] = {}
        self._annotations_lock = threading.Lock()

    def skip_reason(self, case: Case) -> str | None:
        reason = super().skip_reason(case)
        if reason:
            return reason
        modified = case.inputs.get("modified")
        if resource_of(modified) is None or object_path(resource_of(modified), modified) is None:
            return "kubectl apply reads only objects with apiVersion, kind and metadata.name"
        if case.schema is not None and (case.schema.api_version, case.schema.kind) != (
            modified["apiVersion"], modified["kind"]
        ):
            return f"kubectl apply uses the object's own kind, not the case's schema {case.schema.describe()}"
        current = case.inputs.get("current")
        if current is not None and (resource_of(current) is None or object_path(resource_of(current), current) is None):
            return "the endpoint serves only a live object with apiVersion, kind and metadata.name"
        return None

    def run(self, case: Case) -> Actual:
        workdir = Path(tempfile.mkdtemp(dir=self._tmp.name))
        try:
            return self._run(case, workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _run(self, case: Case, workdir: Path) -> Actual:
        modified = case.input("modified")
        current = case.input("current") if case.has_input("current") else None
        served: dict[str, Any] = {}
        resources = [resource_of(modified)]
        if current is not None:
            live = self._live_object(case, current, workdir)
            resources.append(resource_of(live))
            served[object_path(resource_of(live), live)] = live
        namespaces = frozenset(namespace for document in (modified, *served.values())
                               if (namespace := _namespace_of(resource_of(document), document)))
        state = EndpointState(tuple(_unique(resources)), served, namespaces, self.info.version,
                              lambda obj, content_type, body: self._patched(obj, content_type, body, workdir),
                              self.max_answer_bytes)
        (workdir / "modified.json").write_text(json.dumps(modified), encoding="utf-8")
        arguments = ["apply", "-f", str(workdir / "modified.json"), "--validate=false", "--server-side=false"]
        if case.options.get("overwrite", True) is False:
            arguments.append("--overwrite=false")
        run = self._kubectl(arguments, state, workdir / "apply")
        return self._actual(run, served, {str(workdir / "modified.json"): "modified.json"})

    def _actual(self, run: KubectlRun, served: dict[str, Any], renames: dict[str, str]) -> Actual:
        state = run.state
        message = run.message
        for temporary, stable in renames.items():  # no temporary paths in reports
            message = message.replace(temporary, stable)
        if state.unexpected:
            raise TargetCrash("kubectl made requests the recording endpoint does not serve: "
                              + "; ".join(state.unexpected) + (f"; kubectl said: {message}" if message else ""))
        patches, creates = state.sent("PATCH"), state.sent("POST")
        if len(patches) + len(creates) > 1:
            raise TargetCrash("kubectl sent more than one write: "
                              + "; ".join(f"{r.method} {r.path}" for r in patches + creates))
        notes: tuple[str, ...] = run.warnings
        if run.returncode != 0:
            if not message:
                raise TargetCrash(f"kubectl apply exited {run.returncode} without a message")
            if patches:
                notes += (f"kubectl sent {patches[0].content_type}: {patches[0].body.decode('utf-8', 'replace')}",)
            return Actual(error=ActualError(classify_apply_error(message), message), notes=notes)
        if creates:
            return Actual(document=_json_body(creates[0]), notes=("created", *notes))
        if patches:
            patch = patches[0]
            document = state.patched.get(patch.path, ABSENT)
            notes = (f"Content-Type: {patch.content_type}", *notes)
            return Actual(patch=_json_body(patch), document=document, notes=notes)
        # kubectl sends no PATCH when its patch is {}: the live object stays as served.
        if len(served) != 1:
            raise TargetCrash(f"kubectl neither patched nor created anything: {run.stdout.strip()!r}")
        return Actual(patch={}, document=copy.deepcopy(next(iter(served.values()))), notes=("no request sent", *notes))

    def _live_object(self, case: Case, current: dict, workdir: Path) -> dict:
        """``current`` carrying ``original`` as its last-applied annotation, as kubectl wrote it."""
        if not case.has_input("original"):
            return current
        metadata = current.setdefault("metadata", {})
        annotations = metadata.get("annotations")
        original = case.input("original")
        if original is None:
            if isinstance(annotations, dict) and LAST_APPLIED in annotations:
                del annotations[LAST_APPLIED]
                if not annotations:
                    del metadata["annotations"]
            return current
        if not isinstance(annotations, dict):
            annotations = metadata["annotations"] = {}
        annotations[LAST_APPLIED] = self._last_applied(original, workdir)
        return current

    def _last_applied(self, original: Any, workdir: Path) -> str:
        """The annotation kubectl writes for ``original``: it creates it with --dry-run=client.

        kubectl defaults the namespace of a namespaced object and clears that of a
        cluster-scoped one; declaring the kind namespaced exactly when ``original`` names a
        namespace makes it do neither, so the annotation holds ``original`` as it is.
        kubectl writes the same annotation for the same file, so the run asks it once per
        distinct ``original`` (many apply cases share theirs with another).
        """
        metadata = original.get("metadata") if isinstance(original, dict) else None
        has_namespace = isinstance(metadata, dict) and bool(metadata.get("namespace"))
        resource = resource_of(original, cluster_scoped=not has_namespace)
        if resource is None or object_path(resource, original) is None:
            # Not an object kubectl could have applied; upstream stores the JSON as it is.
            return encoding_json.encode(original) + "\n"
        config = json.dumps(original)
        with self._annotations_lock:
            written = self._annotations.get(config)
        if written is not None:
            return written
        state = EndpointState((resource,), {}, frozenset(), self.info.version, lambda *_: (405, {}),
                              self.max_answer_bytes)
        (workdir / "original.json").write_text(config, encoding="utf-8")
        run = self._kubectl(["apply", "-f", str(workdir / "original.json"), "--validate=false",
                             "--dry-run=client", "-o", "json"], state, workdir / "annotate")
        try:
            written = json.loads(run.stdout)["metadata"]["annotations"][LAST_APPLIED]
        except (ValueError, KeyError, TypeError) as exc:
            raise TargetCrash(f"kubectl could not write the last-applied annotation for `original`: "
                              f"{run.message or run.stdout[:300]}") from exc
        with self._annotations_lock:
            self._annotations[config] = written
        return written

    def _patched(self, live: Any, content_type: str, body: bytes, workdir: Path) -> tuple[int, Any]:
        """The live object with the recorded patch applied by kubectl patch --local."""
        patch_type = PATCH_CONTENT_TYPES.get(content_type)
        if patch_type is None:
            return 415, _status(415, "UnsupportedMediaType", f"the endpoint does not apply {content_type!r} patches")
        directory = Path(tempfile.mkdtemp(dir=workdir))
        (directory / "live.json").write_text(json.dumps(live), encoding="utf-8")
        (directory / "patch.json").write_bytes(body)
        command = [self.binary, "patch", "--local", "-f", str(directory / "live.json"), "--type", patch_type,
                   "--patch-file", str(directory / "patch.json"), "-o", "json", "--show-managed-fields"]
        try:
            completed = run_process(command, self._env, PATCH_TIMEOUT_SECONDS, self.max_answer_bytes)
        except subprocess.TimeoutExpired:
            return 504, _status(504, "Timeout", f"kubectl patch --local took longer than {PATCH_TIMEOUT_SECONDS}s")
        except bounded.AnswerTooLarge as exc:
            return 500, _status(500, "InternalError", f"kubectl patch --local: {exc}")
        if completed.returncode != 0:
            message = completed.stderr.strip().removeprefix("error: ")
            return 422, _status(422, "Invalid", f"applying the patch with kubectl patch --local: {message}")
        try:
            document = json.loads(completed.stdout)
        except ValueError:
            return 500, _status(500, "InternalError", f"kubectl patch --local printed: {completed.stdout[:200]}")
        return 200, document

    def _kubectl(self, arguments: list[str], state: EndpointState, directory: Path) -> KubectlRun:
        directory.mkdir()
        with self._endpoints.serving(state) as endpoint:
            (directory / "kubeconfig").write_text(kubeconfig_text(endpoint.url), encoding="utf-8")
            command = [self.binary, *arguments, "--kubeconfig", str(directory / "kubeconfig"),
                       "--cache-dir", str(directory / "cache"), "--request-timeout", REQUEST_TIMEOUT]
            try:
                completed = run_process(command, self._env, KUBECTL_TIMEOUT_SECONDS, self.max_answer_bytes)
            except subprocess.TimeoutExpired as exc:
                raise TargetCrash(f"kubectl {arguments[0]} did not finish within {KUBECTL_TIMEOUT_SECONDS}s") from exc
        return KubectlRun(completed.returncode, completed.stdout, completed.stderr, state)

    def close(self) -> None:
        self._endpoints.close()
        self._tmp.cleanup()


def run_process(command: list[str], env: dict[str, str], timeout: float,
                limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """Run kubectl in its own process group, so a timeout also ends what a dispatcher started;
    its output bounded (AnswerTooLarge beyond ``limit`` bytes)."""
    return bounded.run_bounded(command, limit=bounded.max_answer_bytes(limit), timeout=timeout, env=env,
                               new_session=True)


def _json_body(recorded: Recorded) -> Any:
    try:
        return json.loads(recorded.body)
    except ValueError as exc:
        raise TargetCrash(f"kubectl sent a {recorded.method} body that is not JSON: {recorded.body[:200]!r}") from exc


