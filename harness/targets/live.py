"""``live`` / ``live:CONTEXT``: cases against a real Kubernetes API server.

Each run works in its own namespace ``patchconf-<run id>``; every object it creates is
labelled ``patchconf.dev/run=<run id>`` and named per case; custom kinds get a CRD of the
run (group ``<group>.<run id>.patchconf.dev``). Everything is deleted when the target
closes: at the end of the run, on SIGINT/SIGTERM (the handlers stop new cases and raise
into the main thread, whose ``finally`` closes the target), and at interpreter exit.

Per case the target creates ``original`` (``current`` for apply types) under its run name,
sends the real request with the patch type's Content-Type (``apply``: real ``kubectl apply``,
whose PATCH body is read from its request log), reads the object back and reports it in the
case's terms: name, namespace and apiVersion mapped back, the run label and server-owned
fields (uid, resourceVersion, …, status) dropped unless a case written for live states them.
The expectation is judged as the server renders it: a dry-run create of the expected
object gives it the server's defaults, admission and typed round trip, so what is compared
is what the patch did; values a case states stay as stated unless the server itself changes
them on creation. Errors carry HTTP status and Status reason.

A server-side apply case is a sequence of requests on one object: ``current`` is created and
given exactly the managedFields it states (or none), each step is sent as the real request
(apply, PUT, patch; on /status where asked) and the object read back after it, reported with
its managedFields (times as ``None``: a wall clock cannot tell the steps apart) and whether the
resourceVersion moved. Its custom kinds with a named schema get a CRD whose structural schema is
built from it (:func:`crd_schema`), so the server merges by the same list and map types.

Which cases run live (anything else is skipped with the reason):
- types json-patch, merge-patch, strategic, apply, server-side-apply, update;
- the document is a Kubernetes object (apiVersion, kind, metadata.name) of a namespaced
  kind the server serves, or of a custom kind (API group with a dot, outside *.k8s.io);
- cases not written for live (no ``targets`` naming ``live``) are additionally skipped when
  the patch changes identity (apiVersion, kind, metadata.name/namespace), server-owned
  metadata or status, when the server rejects ``original`` at creation, or when the server
  cannot store the object the case expects (dry-run create fails: wrong Go types, unknown
  fields, invalid), or when an update rule (immutable field, Pod spec) refuses the change.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import itertools
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from harness import bounded
from harness.cases import Case, Outcome, named_schema_path
from harness.compare import json_equal, show
from harness.live_cluster import (
    CRD_GROUP_SUFFIX,
    RUN_LABEL,
    Cluster,
    ClusterUnreachable,
    Resource,
    Response,
    cleanup,
    kubeconfig_path,
    new_run_id,
)
from harness.targets import live_kubectl
from harness.targets.base import (
    Actual,
    ActualError,
    Target,
    TargetCrash,
    TargetDeclined,
    TargetInfo,
    TargetUnavailable,
)
from harness.targets.kubectl import classify_error
from harness.yamlio import load_path
from reference_impl.kubernetes_object import is_custom_group

DEFAULT_WORKERS = 8
UNREACHABLE_LIMIT = 3
LIVE_TYPES = frozenset({"json-patch", "merge-patch", "strategic", "apply", "server-side-apply", "update"})
# types whose outcome depends on a schema, other than server-side apply (JSON patch and merge patch need none)
SCHEMA_TYPES = frozenset({"strategic", "apply", "update"})
CONTENT_TYPES = {
    "json-patch": "application/json-patch+json",
    "merge-patch": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "server-side-apply": "application/apply-patch+yaml",
}
SETUP_MANAGER = "patchconf-setup"
SERVER_OWNED_METADATA = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields",
                         "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds")
IDENTITY_POINTERS = ("/apiVersion", "/kind", "/metadata/name", "/metadata/namespace", "/metadata")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# annotations the server (not the client) maintains, dropped in cases not written for live
SERVER_ANNOTATIONS = ("deprecated.daemonset.template.generation", "deployment.kubernetes.io/revision")
# Objects are created strictly: a server never stores unknown fields of a built-in kind, so a
# case whose original (or expected object) has them is not one a server can hold.
CREATE_QUERY = {"fieldManager": "patchconf-setup", "fieldValidation": "Strict"}
# Values the server allocates or derives from the object's uid or name: never equal between
# the live object and a dry-run of the expectation, so dropped unless the case states them.
ALLOCATED = {
    "Service": (("spec", "clusterIP"), ("spec", "clusterIPs"), ("spec", "healthCheckNodePort")),
    "Job": (("spec", "selector"),),
}
# Errors of jsonpatch's Patch.Apply: the server answers all of them with a bare 422.
JSON_PATCH_APPLY_CLASSES = ("path-not-found", "invalid-index", "test-failed", "invalid-patch", "type-mismatch")
GENERATED_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name")


@dataclass
class Placement:
    """Where a case's object lives on the server, and how to map it back to the case's terms."""

    resource: Resource
    api_version: str  # as the server knows it (custom groups are renamed per run)
    case_api_version: str
    name: str
    case_name: str
    case_namespace: str | None
    namespace: str

    @property
    def path(self) -> str:
        return self.resource.item(self.namespace, self.name)

    @property
    def collection(self) -> str:
        return self.resource.collection(self.namespace)


class LiveTarget(Target):
    def __init__(self, context: str | None = None, kubeconfig: str | None = None,
                 workers: int = DEFAULT_WORKERS, kubectl: str | None = None) -> None:
        self.name = f"live:{context}" if context else "live"
        self.context = context
        self.kubeconfig = kubeconfig_path(kubeconfig)
        try:
            self.cluster = Cluster(self.kubeconfig, context)
            version = self.cluster.server_version()
        except ClusterUnreachable as exc:
            raise TargetUnavailable(str(exc)) from exc
        self.workers = workers
        self.run_id = new_run_id()
        self.kubectl = kubectl if kubectl is not None else shutil.which("kubectl")
        self.info = TargetInfo(
            family="live",
            version=version,
            patch_types=LIVE_TYPES,
            # named schemas only for server-side apply, whose CRD carries the schema (skip_reason)
            schemas=frozenset({"builtin", "named", "none"}),
            messages=True,
            description=f"kube-apiserver {version} at {self.cluster.host}, run {self.run_id}",
        )
        self._counter = itertools.count(1)
        self._lock = threading.Lock()
        self._crds: dict[tuple[str, str, str, str | None], Resource | str] = {}
        self._placements: dict[str, Placement] = {}
        self._stopping = threading.Event()
        self._stopped_because = "the run was interrupted"
        self._consecutive_failures = 0
        self._closed = False
        self._previous_handlers: dict[int, Any] = {}
        self._install_handlers()
        atexit.register(self.close)
        try:
            self.namespace = self.cluster.create_run_namespace(self.run_id)
        except ClusterUnreachable as exc:
            self.close()
            raise TargetUnavailable(str(exc)) from exc

    # --- lifecycle ----------------------------------------------------------------------

    def _install_handlers(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._previous_handlers[signum] = signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: Any) -> None:
        # Stop starting cases at once; the main thread's `finally` closes the target.
        self._stopping.set()
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stopping.set()
        restore = threading.current_thread() is threading.main_thread()
        if restore:
            # a second Ctrl-C must not cut the cleanup short
            for signum in self._previous_handlers:
                signal.signal(signum, signal.SIG_IGN)
        try:
            report = cleanup(self.cluster, [self.run_id])
            if report.namespaces or report.crds:
                print(f"patchconf live: cleaned up run {self.run_id}: {report}", file=sys.stderr)
        except ClusterUnreachable as exc:
            print(f"patchconf live: cleanup of run {self.run_id} failed ({exc}); "
                  f"run `patchconf live cleanup` when the server is back", file=sys.stderr)
        finally:
            if restore:
                for signum, handler in self._previous_handlers.items():
                    signal.signal(signum, handler)
            atexit.unregister(self.close)

    # --- which cases ------------------------------------------------------------------------

    def compares_messages(self, case: Case) -> bool:
        # Corpus message fragments quote kubectl's offline wording; only cases written for
        # the live target quote the server's.
        return "live" in case.targets

    def skip_reason(self, case: Case) -> str | None:
        if self._stopping.is_set():
            return self._stopped_because
        reason = super().skip_reason(case)
        if reason:
            return reason
        schema = case.effective_schema()
        if schema is not None and schema.named and case.type in SCHEMA_TYPES:
            # only a server-side apply case gets a CRD built from its schema; others would run schemaless
            return f"{self.name} cannot run cases on {schema.describe()}"
        document = _subject(case)
        if not _is_object(document):
            return "the live target needs a Kubernetes object (apiVersion, kind, metadata.name)"
        try:
            resource = self._resource(document["apiVersion"], document["kind"], _named_schema(case))
        except ClusterUnreachable as exc:
            return f"cannot ask the server about {document['apiVersion']} {document['kind']}: {exc}"
        if isinstance(resource, str):
            return resource
        if "live" in case.targets:
            return None
        return _corpus_problem(case)

    def _resource(self, api_version: str, kind: str, named: str | None = None) -> Resource | str:
        """Where the kind lives (creating the run's CRD for a custom kind), or why it cannot run.

        ``named``: the case's named schema, which the CRD then carries (server-side apply).
        """
        resource = self.cluster.resource_for(api_version, kind)
        if resource is not None:
            if not resource.namespaced:
                return (f"{kind} is cluster-scoped; the live target creates only namespaced objects "
                        "(and its own CRDs)")
            if named:
                return f"the server's own {api_version} {kind} cannot take named schema {named!r}"
            return resource
        group, _, version = api_version.rpartition("/")
        if not is_custom_group(group):
            return f"{api_version} {kind} is not served by this server"
        return self._custom_resource(group, version, kind, named)

    def _custom_resource(self, group: str, version: str, kind: str, named: str | None) -> Resource | str:
        key = (group, version, kind, named)
        with self._lock:
            known = self._crds.get(key)
            if known is None:
                known = self._crds[key] = self._create_crd(group, version, kind, named)
        return known

    def _create_crd(self, group: str, version: str, kind: str, named: str | None) -> Resource | str:
        """A CRD of the run serving the kind: schemaless, or with the structural schema built from
        ``named`` (and a status subresource when that schema has ``status``)."""
        label = _dns_label(group.replace(".", "-"))
        if named:  # one CRD per schema: the same kind may also run schemaless
            label = f"{label}-{_dns_label(named)}"[:63].rstrip("-")
        run_group = f"{label}.{self.run_id}.{CRD_GROUP_SUFFIX}"
        plural = kind.lower() + "s"
        served: dict[str, Any] = {"name": version, "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
        if named:
            path = named_schema_path(named)
            if path is None:
                return f"no named schema {named!r} in cases/schemas"
            try:
                served["schema"]["openAPIV3Schema"] = crd_schema(load_path(path))
            except ValueError as exc:
                return f"named schema {named!r} has no CRD form: {exc}"
            if "status" in served["schema"]["openAPIV3Schema"].get("properties", {}):
                served["subresources"] = {"status": {}}
        crd = {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{run_group}", "labels": {RUN_LABEL: self.run_id}},
            "spec": {
                "group": run_group,
                "scope": "Namespaced",
                "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"},
                "versions": [served],
            },
        }
        answer = self.cluster.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd,
                                      query={"fieldValidation": "Strict"})
        if not answer.ok:
            schema = f" (named schema {named!r})" if named else ""
            return (f"cannot create a CRD for {group}/{version} {kind}{schema}: {answer.status} "
                    f"{_full_message(answer)[:500]}")
        for _ in range(100):
            resource = self.cluster.resources(f"{run_group}/{version}", refresh=True).get(kind)
            if resource is not None:
                return resource
            self._stopping.wait(0.1)
        return f"the CRD for {group}/{version} {kind} did not become served"

    # --- running ------------------------------------------------------------------------------

    def run(self, case: Case) -> Actual:
        if self._stopping.is_set():
            raise TargetDeclined(self._stopped_because)
        runner: Callable[[Case, Placement], Actual] = {
            "json-patch": self._run_patch,
            "merge-patch": self._run_patch,
            "strategic": self._run_patch,
            "update": self._run_update,
            "server-side-apply": self._run_server_side_apply,
            "apply": self._run_apply,
        }[case.type]
        try:
            placement = self._placement(case)
            try:
                actual = runner(case, placement)
            finally:
                self.cluster.delete_object(placement.path)
        except ClusterUnreachable as exc:
            self._note_unreachable(exc)
            raise TargetCrash(str(exc)) from exc
        with self._lock:
            self._consecutive_failures = 0
        return actual

    def _note_unreachable(self, exc: ClusterUnreachable) -> None:
        """After a few cases in a row without an answer, stop instead of timing out case after case."""
        with self._lock:
            self._consecutive_failures += 1
            if self._consecutive_failures >= UNREACHABLE_LIMIT and not self._stopping.is_set():
                self._stopped_because = f"the API server stopped answering ({exc})"
                self._stopping.set()

    def _check_expected_object(self, case: Case, placement: Placement) -> None:
        """A corpus case whose expected object a server cannot store (wrong Go types, invalid) is skipped."""
        outcome = self._live_outcome(case)
        if "live" in case.targets or outcome.error is not None or not _is_object(outcome.document):
            return
        probe = self._dry_run(outcome.document, placement)
        if not probe.ok:
            raise TargetDeclined(f"the expected object cannot be stored by a server: {probe.status} "
                                 f"{probe.reason()}: {_full_message(probe)[:300]}")

    def _live_outcome(self, case: Case) -> Outcome:
        for divergence in case.divergences:
            if divergence.applies_to(self.info.family, self.info.version):
                return divergence.outcome
        return case.outcome

    def _placement(self, case: Case) -> Placement:
        document = _subject(case)
        resource = self._resource(document["apiVersion"], document["kind"], _named_schema(case))
        if isinstance(resource, str):
            raise TargetDeclined(resource)
        slug = re.sub(r"[^a-z0-9-]+", "-", case.name.lower()).strip("-")[:40].rstrip("-")
        name = f"c{next(self._counter):04d}-{slug}".rstrip("-")
        metadata = document.get("metadata") or {}
        return Placement(resource, resource.group_version, document["apiVersion"], name, metadata["name"],
                         metadata.get("namespace"), self.namespace)

    def _to_live(self, document: Any, placement: Placement, for_create: bool = True, label: bool = True) -> Any:
        """The case's object under its run name, namespace, group and (``label``) the run label."""
        if not isinstance(document, dict):
            return document
        live = copy.deepcopy(document)
        if live.get("apiVersion") == placement.case_api_version:
            live["apiVersion"] = placement.api_version
        metadata = live.setdefault("metadata", {})
        if not isinstance(metadata, dict):
            return live
        metadata["name"] = placement.name
        metadata["namespace"] = placement.namespace
        if label:
            labels = metadata.get("labels")
            metadata["labels"] = {**(labels if isinstance(labels, dict) else {}), RUN_LABEL: self.run_id}
        if for_create:
            for key in SERVER_OWNED_METADATA:
                metadata.pop(key, None)
        return live

    @staticmethod
    def _patch_to_live(patch: Any, placement: Placement) -> Any:
        """A merge or strategic patch that restates the object's identity names the run's object."""
        if not isinstance(patch, dict):
            return patch
        if patch.get("apiVersion") == placement.case_api_version:
            patch["apiVersion"] = placement.api_version
        metadata = patch.get("metadata")
        if isinstance(metadata, dict) and metadata.get("name") == placement.case_name:
            metadata["name"] = placement.name
        return patch

    def _from_live(self, document: Any, placement: Placement) -> Any:
        """A read-back object in the case's terms (identity mapped back, run label dropped)."""
        if not isinstance(document, dict):
            return document
        back = copy.deepcopy(document)
        if back.get("apiVersion") == placement.api_version:
            back["apiVersion"] = placement.case_api_version
        metadata = back.get("metadata")
        if isinstance(metadata, dict):
            if metadata.get("name") == placement.name:
                metadata["name"] = placement.case_name
            if placement.case_namespace is None:
                metadata.pop("namespace", None)
            else:
                metadata["namespace"] = placement.case_namespace
            labels = metadata.get("labels")
            if isinstance(labels, dict):
                labels.pop(RUN_LABEL, None)
                if not labels:
                    del metadata["labels"]
            annotations = metadata.get("annotations")
            if isinstance(annotations, dict) and isinstance(annotations.get(LAST_APPLIED), str):
                annotations[LAST_APPLIED] = self._last_applied_back(annotations[LAST_APPLIED], placement)
        return back

    def _last_applied_back(self, text: str, placement: Placement) -> str:
        try:
            recorded = json.loads(text)
        except json.JSONDecodeError:
            return text
        return go_json(self._from_live(recorded, placement)) + "\n"

    def _create(self, document: Any, placement: Placement, case: Case) -> dict:
        answer = self.cluster.request("POST", placement.collection, self._to_live(document, placement),
                                      query=CREATE_QUERY)
        if not answer.ok:
            raise TargetDeclined(f"original rejected by the server: {answer.status} {answer.reason()}: "
                                 f"{answer.message()}")
        self._check_expected_object(case, placement)
        return answer.body

    def _run_patch(self, case: Case, placement: Placement) -> Actual:
        before = self._create(case.input("original"), placement, case)
        patch = self._patch_to_live(case.input("patch"), placement)
        body = go_json(patch, sort_keys=False, as_written=True).encode("utf-8")
        answer = self.cluster.request("PATCH", placement.path, raw_body=body,
                                      content_type=CONTENT_TYPES[case.type],
                                      query={"fieldManager": "patchconf"})
        return self._outcome(case, placement, before, answer)

    def _run_update(self, case: Case, placement: Placement) -> Actual:
        before = self._create(case.input("original"), placement, case)
        body = self._to_live(case.input("modified"), placement, for_create=False)
        answer = self.cluster.request("PUT", placement.path, body, query={"fieldManager": "patchconf"})
        return self._outcome(case, placement, before, answer)

    # --- server-side apply: a sequence of requests on one object -----------------------------

    def _run_server_side_apply(self, case: Case, placement: Placement) -> Actual:
        """Each step is sent as the real request; after it the object is read back.

        The object carries no run label: a label the case does not state would be owned by
        someone and show in managedFields (the run's namespace is what cleanup deletes).
        """
        self._placements[case.id] = placement
        ops = {step.get("op") for step in case.input("steps")}
        if "csa-upgrade" in ops:
            raise TargetDeclined("op csa-upgrade is a call of client-go's csaupgrade library, which no kubectl "
                                 "command makes alone (op kubectl-apply-server-side runs kubectl's migration)")
        if "kubectl-apply-server-side" in ops and not self.kubectl:
            raise TargetDeclined("kubectl is not on PATH: op kubectl-apply-server-side runs the real kubectl")
        clock = LogicalClock()
        live = self._set_up_current(case, placement, clock) if case.inputs.get("current") is not None else None
        self._check_expected_steps(case, placement)
        keep_status = _about_status(case)
        stated = [step.get("expected") for step in self._step_expectations(case)]
        results: list[dict[str, Any]] = []
        for number, step in enumerate(case.input("steps")):
            before = _resource_version(live)
            if step["op"] == "kubectl-apply-server-side":
                error = self._kubectl_apply_server_side(step, placement, clock)
            else:
                answer = self._send_step(step, placement, clock)
                error = None if answer.ok else self._step_error(step, answer, placement)
            read = self.cluster.request("GET", placement.path)
            live = read.body if read.ok and isinstance(read.body, dict) else None
            if error is not None:
                results.append({"error": error, "unchanged": _resource_version(live) == before})
            elif live is None:
                raise TargetCrash(f"step {number + 1} succeeded, but the object could not be read back: "
                                  f"{read.status} {read.message()}")
            else:
                document = self._step_document(placement, live, stated[number], keep_status)
                results.append({"document": document, "managed_fields": self._entries_back(live, placement),
                                "changed": _resource_version(live) != before})
        return Actual(document={"steps": results},
                      notes=(*self._notes, "managedFields times are the server's clock: compared without them"))

    def _set_up_current(self, case: Case, placement: Placement, clock: LogicalClock) -> dict:
        """``current`` on the server with exactly the managedFields the case states (none: none)."""
        current = case.input("current")
        stated = (current.get("metadata") or {}).get("managedFields") or []
        body = self._ssa_to_live(current, placement, clock)
        for key in SERVER_OWNED_METADATA:
            body.get("metadata", {}).pop(key, None)
        answer = self.cluster.request("POST", placement.collection, body, query=CREATE_QUERY)
        if not answer.ok:
            raise TargetDeclined(f"current rejected by the server: {answer.status} {answer.reason()}: "
                                 f"{self._message_back(answer.message(), placement)}")
        live = answer.body
        if "status" in body and live.get("status") != body["status"]:
            # a status subresource: creating ignores status, /status sets it
            status = self.cluster.request("PUT", placement.path + "/status", {**live, "status": body["status"]},
                                          query={"fieldManager": SETUP_MANAGER})
            if not status.ok:
                raise TargetDeclined(f"current's status rejected by the server: {status.status} {status.reason()}: "
                                     f"{self._message_back(status.message(), placement)}")
            live = status.body
        if stated:
            # An update carrying managedFields replaces them (how managers are renamed or migrated);
            # the object itself is unchanged, so the request adds no entry of its own.
            live["metadata"]["managedFields"] = [self._entry_to_live(entry, placement, clock) for entry in stated]
            answer = self.cluster.request("PUT", placement.path, live, query={"fieldManager": SETUP_MANAGER})
        else:
            answer = self.cluster.request("PATCH", placement.path, {"metadata": {"managedFields": [{}]}},
                                          "application/merge-patch+json", query={"fieldManager": SETUP_MANAGER})
        if not answer.ok:
            raise TargetDeclined(f"the server refused current's managedFields: {answer.status} {answer.reason()}: "
                                 f"{self._message_back(answer.message(), placement)}")
        read = self.cluster.request("GET", placement.path)
        held = self._entries_back(read.body, placement) if read.ok else None
        if held is None or _untimed(held) != _untimed(stated):
            raise TargetDeclined(f"the server did not keep current's managedFields as stated: it holds {show(held)}")
        return read.body

    def _check_expected_steps(self, case: Case, placement: Placement) -> None:
        """A corpus case with a step's expected object a server cannot store is skipped."""
        if "live" in case.targets:
            return
        for number, step in enumerate(self._step_expectations(case), start=1):
            stated = step.get("expected")
            if not _is_object(stated):
                continue
            probe = self._dry_run(stated, placement)
            if not probe.ok:
                raise TargetDeclined(f"the object step {number} expects cannot be stored by a server: "
                                     f"{probe.status} {probe.reason()}: {_full_message(probe)[:300]}")

    def _step_expectations(self, case: Case) -> list[dict[str, Any]]:
        """Each step's expectations (a divergence for live wins), one per step."""
        steps = case.inputs.get("steps") or []
        document = self._live_outcome(case).document
        if isinstance(document, dict) and isinstance(document.get("steps"), list) \
                and len(document["steps"]) == len(steps):
            return document["steps"]
        return [{} for _ in steps]

    def _send_step(self, step: Mapping[str, Any], placement: Placement, clock: LogicalClock) -> Response:
        op = step["op"]
        path = placement.path + ("/status" if step.get("subresource") == "status" else "")
        query: dict[str, str] = {}
        if "manager" in step:
            query["fieldManager"] = step["manager"]
        if "force" in step and op != "update":  # a PUT has no force; on a patch the server refuses it
            query["force"] = "true" if step["force"] else "false"
        if op == "apply":
            body = go_json(self._ssa_to_live(step["object"], placement, clock), sort_keys=False, as_written=True)
            return self.cluster.request("PATCH", path, raw_body=body.encode("utf-8"),
                                        content_type=CONTENT_TYPES["server-side-apply"], query=query)
        if op == "patch":
            patch = copy.deepcopy(step["patch"])
            if step["patch_type"] != "json-patch":
                patch = self._patch_to_live(patch, placement)
            body = go_json(patch, sort_keys=False, as_written=True)
            return self.cluster.request("PATCH", path, raw_body=body.encode("utf-8"),
                                        content_type=CONTENT_TYPES[step["patch_type"]], query=query)
        # An update is a client writing the whole object it means, over what it last read: the live
        # resourceVersion, unless the case states one (a stale write is then what it is about).
        document = self._ssa_to_live(step["object"], placement, clock)
        metadata = document.setdefault("metadata", {}) if isinstance(document, dict) else None
        if isinstance(metadata, dict) and "resourceVersion" not in metadata:
            read = self.cluster.request("GET", placement.path)
            if read.ok and isinstance(read.body, dict):
                metadata["resourceVersion"] = read.body["metadata"]["resourceVersion"]
        return self.cluster.request("PUT", path, document, query=query)

    def helper_for(self, case: Case) -> str | None:
        """The program besides the server that a case's answer came from (for its provenance)."""
        if case.type == "server-side-apply" and any(
                step.get("op") == "kubectl-apply-server-side" for step in case.inputs.get("steps") or ()):
            return f"kubectl apply --server-side (kubectl {live_kubectl.client_version(self.kubectl)})"
        return None

    def _kubectl_apply_server_side(self, step: Mapping[str, Any], placement: Placement,
                                   clock: LogicalClock) -> dict[str, Any] | None:
        """The step run by the real kubectl; its error (kubectl's words, the failed request's
        Status) or None."""
        connection = (["--kubeconfig", self.kubeconfig] if self.kubeconfig else []) + (
            ["--context", self.context] if self.context else [])
        answer = live_kubectl.apply_server_side(self.kubectl, connection,
                                                self._ssa_to_live(step["object"], placement, clock),
                                                self.namespace, step["manager"], bool(step.get("force", False)))
        if answer.ok:
            return None
        status = answer.status or {}
        code = status.get("code")
        error: dict[str, Any] = {"class": _status_error_class(code, answer.message),
                                 "message": self._message_back(answer.message, placement),
                                 "status": code, "reason": status.get("reason") or None}
        if code == 409:
            error["conflicts"] = _status_conflicts(status)
        return error

    def _ssa_to_live(self, document: Any, placement: Placement, clock: LogicalClock) -> Any:
        """A step's object (or ``current``) naming the run's object: apiVersion, name and namespace
        mapped where they are the case's own, managedFields entries in the server's form; nothing
        else is added or taken away (a stated uid or resourceVersion is what a case is about)."""
        if not isinstance(document, dict):
            return document
        live = copy.deepcopy(document)
        if live.get("apiVersion") == placement.case_api_version:
            live["apiVersion"] = placement.api_version
        metadata = live.get("metadata")
        if isinstance(metadata, dict):
            if metadata.get("name") == placement.case_name:
                metadata["name"] = placement.name
            if "namespace" in metadata and metadata["namespace"] == placement.case_namespace:
                metadata["namespace"] = placement.namespace
            entries = metadata.get("managedFields")
            if isinstance(entries, list):
                metadata["managedFields"] = [self._entry_to_live(entry, placement, clock) for entry in entries]
        return live

    @staticmethod
    def _entry_to_live(entry: Any, placement: Placement, clock: LogicalClock) -> Any:
        """A case's managedFields entry as the server takes it: a timestamp for its logical time,
        ``fieldsType: FieldsV1`` (which cases leave out), the run's apiVersion for a custom kind."""
        if not isinstance(entry, dict):
            return entry
        live = dict(entry)
        if live.get("apiVersion") == placement.case_api_version:
            live["apiVersion"] = placement.api_version
        if isinstance(live.get("time"), int) and not isinstance(live["time"], bool):
            live["time"] = clock.timestamp(live["time"])
        if "fieldsV1" in live and "fieldsType" not in live:
            live["fieldsType"] = "FieldsV1"
        return live

    @staticmethod
    def _entries_back(document: Any, placement: Placement) -> list[dict[str, Any]]:
        """managedFields in the case's terms: no fieldsType, the case's apiVersion, ``time: None``
        (a wall clock at second resolution cannot tell the case's steps apart)."""
        metadata = document.get("metadata") if isinstance(document, dict) else None
        entries = metadata.get("managedFields") if isinstance(metadata, dict) else None
        back = []
        for entry in entries or []:
            shown = {key: value for key, value in entry.items() if key not in ("fieldsType", "time")}
            if shown.get("apiVersion") == placement.api_version:
                shown["apiVersion"] = placement.case_api_version
            shown["time"] = None
            back.append(shown)
        return back

    def _step_document(self, placement: Placement, live: dict, stated: Any, keep_status: bool) -> Any:
        """The object after a step as a case states it: identity mapped back, without what the server
        owns (uid, resourceVersion, creationTimestamp, generation, managedFields), without ``status``
        unless the case is about status, without values allocated per object unless stated."""
        document = self._from_live(live, placement)
        metadata = document.get("metadata")
        if isinstance(metadata, dict):
            for key in SERVER_OWNED_METADATA:
                metadata.pop(key, None)
        if not keep_status:
            document.pop("status", None)
        stated = stated if isinstance(stated, dict) else {}
        for path in ALLOCATED.get(document.get("kind"), ()):
            _drop_unstated(document, stated, path)
        _drop_unstated_node_ports(document, stated)
        _drop_generated_labels(document, stated)
        return document

    def _step_error(self, step: Mapping[str, Any], answer: Response, placement: Placement) -> dict[str, Any]:
        if step["op"] == "apply":
            error_class = _ssa_error_class(answer)
        else:
            error_class = classify_response(step.get("patch_type", "update"), answer)
        error: dict[str, Any] = {"class": error_class,
                                 "message": self._message_back(_full_message(answer), placement),
                                 "status": answer.status, "reason": answer.reason() or None}
        conflicts = _field_conflicts(answer)
        if conflicts is not None:
            error["conflicts"] = conflicts
        return error

    @staticmethod
    def _message_back(message: str, placement: Placement) -> str:
        """The server's words about the run's object, in the case's names (object name, API group)."""
        message = message.replace(placement.name, placement.case_name)
        run_group = placement.api_version.rpartition("/")[0]
        case_group = placement.case_api_version.rpartition("/")[0]
        if run_group != case_group and run_group:
            message = message.replace(run_group, case_group)
        return message

    def _run_apply(self, case: Case, placement: Placement) -> Actual:
        """kubectl apply's three-way flow against the server (real kubectl, when present)."""
        custom = placement.api_version != placement.case_api_version
        if not self.kubectl and not custom:
            raise TargetDeclined("kubectl is not on PATH, and the reference implementation has no strategic "
                                 "three-way merge: `apply` cases on built-in kinds need kubectl")
        before = None
        current = case.inputs.get("current")
        if current is not None:
            current = self._to_live(case.input("current"), placement)
            original = case.inputs.get("original")
            if original is not None:
                annotations = current["metadata"].setdefault("annotations", {})
                annotations[LAST_APPLIED] = self._last_applied(case.input("original"), placement)
            answer = self.cluster.request("POST", placement.collection, current,
                                          query=CREATE_QUERY)
            if not answer.ok:
                raise TargetDeclined(f"current rejected by the server: {answer.status} {answer.reason()}: "
                                     f"{answer.message()}")
            before = answer.body
        self._check_expected_object(case, placement)
        # The run label goes on objects apply creates; on an existing object it is already there,
        # and putting it into the configuration would change what kubectl's three-way merge sees.
        modified = self._to_live(case.input("modified"), placement, label=current is None)
        if not self.kubectl:
            return self._reference_apply(case, placement, modified, before)
        workdir = tempfile.mkdtemp(prefix="patchconf-live-")
        try:
            path = os.path.join(workdir, "modified.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(modified, handle)
            # -v=10 logs request bodies untruncated: the PATCH body is kubectl's three-way patch
            command = [self.kubectl, "apply", "-f", path, "-n", self.namespace, "--server-side=false",
                       f"--overwrite={'false' if case.options.get('overwrite') is False else 'true'}", "-v=10"]
            if self.kubeconfig:
                command += ["--kubeconfig", self.kubeconfig]
            if self.context:
                command += ["--context", self.context]
            completed = bounded.run_bounded(command, limit=bounded.max_answer_bytes(), timeout=60)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        notes = ("kubectl apply (real kubectl against the server)",)
        if completed.returncode != 0:
            message = _kubectl_error(completed.stderr)
            if ("live" not in case.targets and self._live_outcome(case).error is None
                    and re.search(r"is invalid: .*(Forbidden|immutable|may not change)", message)):
                raise TargetDeclined(f"the server's update rules refuse the change: {message[:300]}")
            return Actual(error=ActualError(_apply_error_class(message), message), notes=notes,
                          unchanged=self._unchanged(placement, before))
        read = self.cluster.request("GET", placement.path)
        document = self._present(case, placement, read.body)
        if current is None:
            return Actual(document=document, notes=(*notes, "created: no patch was sent"))
        patch = _sent_patch(completed.stderr)
        if patch is None:
            return Actual(document=document, patch={}, notes=(*notes, "kubectl sent no patch"))
        return Actual(document=document, patch=self._patch_from_live(patch, placement), notes=notes)

    def _reference_apply(self, case: Case, placement: Placement, modified: dict, before: dict | None) -> Actual:
        """Without kubectl, for a custom kind: the reference's three-way JSON merge patch, sent as kubectl would."""
        from reference_impl import merge_patch
        from reference_impl.errors import PatchError

        notes = ("the reference implementation's three-way merge patch (kubectl is not on PATH)",)
        annotated = copy.deepcopy(modified)
        annotations = annotated["metadata"].setdefault("annotations", {})
        annotations[LAST_APPLIED] = self._last_applied(case.input("modified"), placement)
        if before is None:
            answer = self.cluster.request("POST", placement.collection, annotated, query=CREATE_QUERY)
            if not answer.ok:
                return Actual(error=self._error(case, answer), notes=notes)
            return Actual(document=self._present(case, placement, answer.body),
                          notes=(*notes, "created: no patch was sent"))
        recorded = (before.get("metadata", {}).get("annotations") or {}).get(LAST_APPLIED)
        last_applied = json.loads(recorded) if recorded else None
        try:
            patch = merge_patch.create_three_way(last_applied, annotated, before)
        except PatchError as exc:
            return Actual(error=ActualError(exc.error_class, exc.message), notes=notes, unchanged=True)
        if patch:
            answer = self.cluster.request("PATCH", placement.path, patch, "application/merge-patch+json",
                                          query={"fieldManager": "kubectl-client-side-apply"})
            if not answer.ok:
                return Actual(error=self._error(case, answer), notes=notes,
                              unchanged=self._unchanged(placement, before))
        read = self.cluster.request("GET", placement.path)
        return Actual(document=self._present(case, placement, read.body),
                      patch=self._patch_from_live(copy.deepcopy(patch), placement), notes=notes)

    def _patch_from_live(self, patch: Any, placement: Placement) -> Any:
        """kubectl's patch in the case's terms: its last-applied annotation mapped back like the object's."""
        annotations = ((patch.get("metadata") or {}).get("annotations") or {}) if isinstance(patch, dict) else {}
        if isinstance(annotations.get(LAST_APPLIED), str):
            annotations[LAST_APPLIED] = self._last_applied_back(annotations[LAST_APPLIED], placement)
        return patch

    def _last_applied(self, original: dict, placement: Placement) -> str:
        """The annotation kubectl wrote when it applied ``original`` (kubectl apply -n sets the namespace)."""
        recorded = self._to_live(original, placement, label=False)
        annotations = recorded["metadata"].get("annotations") or {}
        annotations.pop(LAST_APPLIED, None)
        recorded["metadata"]["annotations"] = annotations
        return go_json(recorded) + "\n"

    # --- judging the answer ----------------------------------------------------------------

    def _outcome(self, case: Case, placement: Placement, before: dict | None, answer: Response) -> Actual:
        if answer.ok:
            read = self.cluster.request("GET", placement.path)
            if not read.ok:
                return Actual(error=self._error(case, read), notes=("the object could not be read back",))
            return Actual(document=self._present(case, placement, read.body), notes=self._notes)
        if "live" not in case.targets and self._live_outcome(case).error is None and _update_rule(answer):
            raise TargetDeclined(f"the server's update rules refuse the change: {answer.message()[:300]}")
        return Actual(error=self._error(case, answer), unchanged=self._unchanged(placement, before))

    @property
    def _notes(self) -> tuple[str, ...]:
        return (f"kube-apiserver {self.info.version}",)

    def _unchanged(self, placement: Placement, before: dict | None) -> bool | None:
        if before is None:
            return None
        after = self.cluster.request("GET", placement.path)
        if not after.ok:
            return False
        return json_equal(before, after.body)

    def _error(self, case: Case, answer: Response) -> ActualError:
        alternatives = JSON_PATCH_APPLY_CLASSES if _bare_json_patch_rejection(case.type, answer) else ()
        return ActualError(classify_response(case.type, answer), _full_message(answer), answer.status,
                           answer.reason() or None, alternatives)

    def _dry_run(self, document: Any, placement: Placement) -> Response:
        """A dry-run create beside the case's object; allocated values (cluster IPs, node ports) are
        left for the server to choose, since the case's own object already holds them."""
        shadow = _shadow(placement)
        body = self._to_live(document, shadow)
        for path in _allocated_paths(body):
            _pop_path(body, path)
        return self.cluster.request("POST", placement.collection, body,
                                    query={**CREATE_QUERY, "dryRun": "All"})

    def _present(self, case: Case, placement: Placement, document: dict) -> Any:
        """The read-back in the case's terms, without what the server owns and the case does not state."""
        self._placements[case.id] = placement
        return self._observable(case, self._from_live(document, placement), self._live_outcome(case).document)

    def rendered(self, case: Case, outcome: Outcome) -> Outcome:
        """The expected object as the server stores it: a dry-run create of it, seen like the read-back.

        That applies the server's defaults and its typed round trip (a null string becomes "",
        empty maps and lists and unknown fields of built-in kinds are not kept) to the
        expectation, so only what the patch itself did is compared. Fields the expectation
        states keep their stated values unless the server itself changes them on creation.
        """
        if case.type == "server-side-apply":
            return self._rendered_steps(case, outcome)
        placement = self._placements.get(case.id)
        stated = outcome.document
        if placement is None or not isinstance(stated, dict) or not _is_object(stated):
            return outcome
        try:
            answer = self._dry_run(stated, placement)
        except ClusterUnreachable:
            return outcome
        if not answer.ok or not isinstance(answer.body, dict):
            return outcome
        shadow = _shadow(placement)
        document = self._observable(case, self._from_live(answer.body, shadow), stated)
        for path in _allocated_paths(stated):
            _copy_path(stated, document, path)
        return Outcome(document=document, patch=outcome.patch, error=outcome.error)

    def _rendered_steps(self, case: Case, outcome: Outcome) -> Outcome:
        """Each step's expected object rendered as above (defaults, typed round trip); managedFields
        are never rendered: what the server owns, defaults included, is what a case asserts.

        ``status`` is not rendered: a create ignores it where a status subresource exists, so a case
        about status is judged by the status it states.
        """
        placement = self._placements.get(case.id)
        if placement is None or not isinstance(outcome.document, dict):
            return outcome
        keep_status = _about_status(case)
        steps, rendered = [], False
        for want in outcome.document.get("steps", []):
            stated = want.get("expected")
            if _is_object(stated):
                try:
                    answer = self._dry_run(stated, placement)
                except ClusterUnreachable:
                    answer = None
                if answer is not None and answer.ok and isinstance(answer.body, dict):
                    document = self._step_document(_shadow(placement), answer.body, stated, keep_status)
                    document.pop("status", None)
                    if keep_status and "status" in stated:
                        document["status"] = copy.deepcopy(stated["status"])
                    for path in _allocated_paths(stated):
                        _copy_path(stated, document, path)
                    want, rendered = {**want, "expected": document}, True
            steps.append(want)
        return Outcome(document={"steps": steps}) if rendered else outcome

    def _observable(self, case: Case, document: Any, stated: Any) -> Any:
        if not isinstance(document, dict):
            return document
        if not isinstance(stated, dict):  # no expected object (e.g. patchconf record asking): nothing stated
            stated = {}
        metadata = document.get("metadata")
        stated_metadata = stated.get("metadata") if isinstance(stated.get("metadata"), dict) else {}
        written_for_live = "live" in case.targets
        if isinstance(metadata, dict):
            for key in SERVER_OWNED_METADATA:
                if key not in stated_metadata or not written_for_live:
                    metadata.pop(key, None)
            annotations = metadata.get("annotations")
            if isinstance(annotations, dict) and not written_for_live:
                for key in SERVER_ANNOTATIONS:
                    annotations.pop(key, None)
                if not annotations and "annotations" not in stated_metadata:
                    del metadata["annotations"]
        if "status" in document and ("status" not in stated or "live" not in case.targets):
            document.pop("status")
        for path in ALLOCATED.get(document.get("kind"), ()):
            _drop_unstated(document, stated, path)
        _drop_unstated_node_ports(document, stated)
        _drop_generated_labels(document, stated)
        return document


# --- helpers -----------------------------------------------------------------------------------


def go_json(value: Any, sort_keys: bool = True, as_written: bool = False) -> str:
    """JSON as Go's encoding/json writes it: UTF-8, compact, HTML characters escaped, float64 as Go
    formats it (1.0 is 1, 1e-07 is 1e-7), maps with sorted keys.

    Requests are written this way too, as a Go client sends them: a JSON patch `test` compares
    string values byte for byte, and the server holds them in this form. ``as_written`` keeps
    numbers as the case writes them (80.0 stays 80.0: a float merge key is what a case tests).
    """
    if isinstance(value, dict):
        items = sorted(value.items()) if sort_keys else value.items()
        return "{" + ",".join(f"{go_json(str(k))}:{go_json(v, sort_keys, as_written)}" for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(v, sort_keys, as_written) for v in value) + "]"
    if isinstance(value, float):
        return repr(value) if as_written else _go_float(value)
    text = json.dumps(value, ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def _go_float(number: float) -> str:
    """strconv.FormatFloat as encoding/json uses it: shortest digits, 'e' below 1e-6 and from 1e21."""
    magnitude = abs(number)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        mantissa, _, exponent = repr(number).partition("e")
        if not exponent:
            mantissa, _, exponent = f"{number:e}".partition("e")
        sign = exponent[0] if exponent[0] in "+-" else "+"
        digits = exponent.lstrip("+-").lstrip("0") or "0"
        return f"{mantissa}e{sign}{digits.zfill(2) if sign == '+' else digits}"
    if number.is_integer():
        return str(int(number))
    return format(Decimal(repr(number)), "f")


def _shadow(placement: Placement) -> Placement:
    """Where a dry-run create of the expected object goes: beside the case's object, never on it."""
    return Placement(placement.resource, placement.api_version, placement.case_api_version,
                     f"{placement.name[:55]}-dry", placement.case_name, placement.case_namespace,
                     placement.namespace)


def _allocated_paths(document: Any) -> list[tuple]:
    """Where ``document`` states values the server allocates per object."""
    if not isinstance(document, dict):
        return []
    paths = [path for path in ALLOCATED.get(document.get("kind"), ())
             if _get_path(document, path) not in (None, "None", ["None"])]  # headless is chosen, not allocated
    if document.get("kind") == "Service":
        ports = (document.get("spec") or {}).get("ports")
        if isinstance(ports, list):
            paths += [("spec", "ports", index, "nodePort") for index, port in enumerate(ports)
                      if isinstance(port, dict) and port.get("nodePort") is not None]
    return paths


def _get_path(document: Any, path: tuple) -> Any:
    for key in path:
        if isinstance(document, dict) and isinstance(key, str):
            document = document.get(key)
        elif isinstance(document, list) and isinstance(key, int) and key < len(document):
            document = document[key]
        else:
            return None
    return document


def _pop_path(document: Any, path: tuple) -> None:
    parent = _get_path(document, path[:-1])
    if isinstance(parent, dict):
        parent.pop(path[-1], None)


def _copy_path(source: Any, target: Any, path: tuple) -> None:
    parent = _get_path(target, path[:-1])
    value = _get_path(source, path)
    if isinstance(parent, dict) and value is not None:
        parent[path[-1]] = copy.deepcopy(value)


def _drop_unstated(actual: dict, expected: dict, path: tuple[str, ...]) -> None:
    node, stated = actual, expected
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
        stated = stated.get(key) if isinstance(stated, dict) else None
    if isinstance(node, dict) and not (isinstance(stated, dict) and stated.get(path[-1]) is not None):
        node.pop(path[-1], None)


def _drop_unstated_node_ports(actual: dict, expected: dict) -> None:
    """Service node ports are allocated per object, like cluster IPs."""
    if actual.get("kind") != "Service":
        return
    ports = (actual.get("spec") or {}).get("ports")
    stated = (expected.get("spec") or {}).get("ports")
    if not isinstance(ports, list):
        return
    for index, port in enumerate(ports):
        stated_port = stated[index] if isinstance(stated, list) and index < len(stated) else {}
        if isinstance(port, dict) and not (isinstance(stated_port, dict) and stated_port.get("nodePort") is not None):
            port.pop("nodePort", None)


def _drop_generated_labels(actual: dict, expected: dict) -> None:
    """Labels a Job's server-side defaulting derives from its uid and name."""
    if actual.get("kind") != "Job":
        return
    labels = (((actual.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels")
    stated = (((expected.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}
    if not isinstance(labels, dict):
        return
    for key in GENERATED_LABELS:
        if key not in stated:
            labels.pop(key, None)


def _subject(case: Case) -> Any:
    """The object the case creates on the server (server-side apply: ``current``, else the first
    step's object, which an apply creates)."""
    if case.type == "apply":
        return case.inputs.get("modified")
    if case.type == "server-side-apply":
        current = case.inputs.get("current")
        if current is not None:
            return current
        for step in case.inputs.get("steps") or ():
            if isinstance(step, dict) and _is_object(step.get("object")):
                return step["object"]
        return None
    return case.inputs.get("original")


def _named_schema(case: Case) -> str | None:
    """The named schema a server-side apply case's CRD carries."""
    if case.type != "server-side-apply" or case.schema is None:
        return None
    return case.schema.named


def _about_status(case: Case) -> bool:
    """Whether a server-side apply case is about status: a step on /status, or status stated anywhere."""
    current = case.inputs.get("current")
    if isinstance(current, dict) and "status" in current:
        return True
    for step in case.inputs.get("steps") or ():
        if not isinstance(step, dict):
            continue
        if step.get("subresource") == "status" or any(
                isinstance(step.get(key), dict) and "status" in step[key] for key in ("object", "expected", "patch")):
            return True
    return False


def _resource_version(document: Any) -> str | None:
    if not isinstance(document, dict):
        return None
    return (document.get("metadata") or {}).get("resourceVersion")


def _untimed(entries: list[dict[str, Any]]) -> list[str]:
    """managedFields entries compared without time and order."""
    return sorted(json.dumps({k: v for k, v in entry.items() if k not in ("time", "fieldsType")}, sort_keys=True)
                  for entry in entries)


class LogicalClock:
    """Timestamps for a case's logical times: time *t* is *t* seconds after a moment an hour ago,
    so entries the case dates before step 1 (t <= 0) keep their order on the server."""

    def __init__(self) -> None:
        self.origin = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)

    def timestamp(self, time: int) -> str:
        return (self.origin + timedelta(seconds=time)).strftime("%Y-%m-%dT%H:%M:%SZ")


_CONFLICT_WITH = re.compile(r'^conflict with "((?:[^"\\]|\\.)*)"')


def _field_conflicts(answer: Response) -> list[dict[str, str]] | None:
    """A 409's field conflicts (Status causes ``FieldManagerConflict``, message ``conflict with "mgr"…``);
    ``[]`` for a 409 without them (a stale resourceVersion), None for other answers."""
    if answer.status != 409:
        return None
    return _status_conflicts(answer.body)


def _status_conflicts(status: Any) -> list[dict[str, str]]:
    """The field conflicts of a Status (causes ``FieldManagerConflict``)."""
    causes = (status.get("details") or {}).get("causes") or [] if isinstance(status, dict) else []
    conflicts = []
    for cause in causes:
        if not isinstance(cause, dict) or cause.get("reason") != "FieldManagerConflict":
            continue
        match = _CONFLICT_WITH.match(str(cause.get("message", "")))
        manager = match.group(1) if match else ""
        with contextlib.suppress(json.JSONDecodeError):  # Go's %q quoting, as JSON reads it
            manager = json.loads(f'"{manager}"')
        conflicts.append({"manager": manager, "field": str(cause.get("field", ""))})
    return conflicts


def _ssa_error_class(answer: Response) -> str:
    """An apply request's failure: 409 conflict, 422 a request the server refuses (PatchOptions,
    validation), 400/500 an apply body it cannot take (another apiVersion, managedFields, a
    configuration the schema cannot type)."""
    return _status_error_class(answer.status, _full_message(answer))


def _status_error_class(code: int | None, message: str) -> str:
    if code == 409:
        return "conflict"
    if code == 422:
        return "invalid"
    if code == 415:
        return "unsupported-media-type"
    if code in (400, 500):
        return "invalid-patch"
    return classify_error(message)


# --- a CRD schema from a named schema -----------------------------------------------------------

# OpenAPI v2 keywords a CRD's structural schema takes as they are
CRD_KEYWORDS = ("type", "format", "enum", "default", "nullable", "required", "minimum", "maximum",
                "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "minItems",
                "maxItems", "minProperties", "maxProperties", "x-kubernetes-list-type",
                "x-kubernetes-list-map-keys", "x-kubernetes-map-type", "x-kubernetes-preserve-unknown-fields",
                "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource")


def crd_schema(named: Mapping[str, Any]) -> dict[str, Any]:
    """A CRD's structural openAPIV3Schema for a named schema (OpenAPI v2 ``definitions`` + ``root``),
    typed for the server's field manager as Kubernetes types its own OpenAPI:

    - ``$ref``s are inlined (a recursive definition has no CRD form: ValueError);
    - ``x-kubernetes-list-type``/``-list-map-keys``/``-map-type`` are kept; a list with neither but
      ``x-kubernetes-patch-strategy: merge`` becomes ``map`` keyed by its merge key, or ``set``
      without one (kube-openapi's schemaconv reads patch strategies so); patch strategies go;
    - a list-map key neither required nor defaulted is made required (a CRD demands it);
    - a value of no type is any JSON value, an object without properties any object
      (``x-kubernetes-preserve-unknown-fields``);
    - ``metadata`` is the server's own ObjectMeta (a CRD may not describe it).
    """
    definitions = named.get("definitions") or {}
    root = definitions.get(named.get("root")) if isinstance(named.get("root"), str) else None
    if not isinstance(root, dict):
        raise ValueError(f"no root definition {named.get('root')!r}")
    schema = _structural(root, definitions, ())
    schema["type"] = "object"
    properties = schema.setdefault("properties", {})
    properties["metadata"] = {"type": "object"}
    return schema


def _structural(node: Mapping[str, Any], definitions: Mapping[str, Any], seen: tuple[str, ...]) -> dict[str, Any]:
    if "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        if name in seen:
            raise ValueError(f"definition {name!r} contains itself; a CRD schema cannot recurse")
        target = definitions.get(name)
        if not isinstance(target, dict):
            raise ValueError(f"$ref to an unknown definition {name!r}")
        # extensions beside a $ref (a patch strategy) apply to the referenced schema
        merged = {**target, **{key: value for key, value in node.items() if key != "$ref"}}
        return _structural(merged, definitions, (*seen, name))
    schema: dict[str, Any] = {key: copy.deepcopy(node[key]) for key in CRD_KEYWORDS if key in node}
    if isinstance(node.get("properties"), dict):
        schema["properties"] = {key: _structural(value, definitions, seen) for key, value in node["properties"].items()}
    if isinstance(node.get("additionalProperties"), dict):
        schema["additionalProperties"] = _structural(node["additionalProperties"], definitions, seen)
    elif node.get("additionalProperties") is True:
        schema["x-kubernetes-preserve-unknown-fields"] = True
    if isinstance(node.get("items"), dict):
        schema["items"] = _structural(node["items"], definitions, seen)
    if "type" not in schema:
        if "properties" in schema or "additionalProperties" in schema:
            schema["type"] = "object"
        elif "items" in schema:
            schema["type"] = "array"
        elif not schema.get("x-kubernetes-int-or-string"):
            schema["x-kubernetes-preserve-unknown-fields"] = True
    if schema.get("type") == "object" and "properties" not in schema and "additionalProperties" not in schema:
        schema["x-kubernetes-preserve-unknown-fields"] = True
    if schema.get("type") == "array":
        _list_type_from_patch_strategy(node, schema)
    return schema


def _list_type_from_patch_strategy(node: Mapping[str, Any], schema: dict[str, Any]) -> None:
    if "x-kubernetes-list-type" not in schema:
        strategy = str(node.get("x-kubernetes-patch-strategy", "")).split(",")
        key = node.get("x-kubernetes-patch-merge-key")
        if "merge" in strategy:
            schema["x-kubernetes-list-type"] = "map" if key else "set"
            if key:
                schema["x-kubernetes-list-map-keys"] = [key]
    if schema.get("x-kubernetes-list-type") != "map" or not isinstance(schema.get("items"), dict):
        return
    items = schema["items"]
    required = items.setdefault("required", [])
    for key in schema.get("x-kubernetes-list-map-keys") or ():
        declared = (items.get("properties") or {}).get(key) or {}
        if key not in required and "default" not in declared:
            required.append(key)


def _is_object(document: Any) -> bool:
    return (isinstance(document, dict) and isinstance(document.get("apiVersion"), str)
            and isinstance(document.get("kind"), str) and isinstance(document.get("metadata"), dict)
            and isinstance(document["metadata"].get("name"), str) and bool(document["metadata"]["name"]))




def _dns_label(text: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")[:40] or "group"


def _validation_failure(answer: Response) -> bool:
    """422 Invalid with field causes: the server's validation, not the patch library.

    A patched document that does not convert to the Go type is reported against the field
    "patch"; that is the patch's fault, not validation.
    """
    if answer.status != 422 or answer.reason() != "Invalid" or not isinstance(answer.body, dict):
        return False
    causes = (answer.body.get("details") or {}).get("causes") or []
    return any(cause.get("field") not in (None, "", "patch") for cause in causes if isinstance(cause, dict))


def _update_rule(answer: Response) -> bool:
    """A 422 for what may not change after creation (immutable fields, Pod spec), not for an invalid object."""
    if not _validation_failure(answer):
        return False
    causes = answer.body.get("details", {}).get("causes") or []
    return any(cause.get("reason") == "FieldValueForbidden" or "immutable" in str(cause.get("message", ""))
               or "may not change" in str(cause.get("message", "")) for cause in causes if isinstance(cause, dict))


def _bare_json_patch_rejection(patch_type: str, answer: Response) -> bool:
    """A JSON patch that did not apply: the server drops the library's message (422, no details)."""
    if patch_type != "json-patch" or answer.status != 422 or not isinstance(answer.body, dict):
        return False
    return not (answer.body.get("details") or {}).get("causes")


def classify_response(patch_type: str, answer: Response) -> str:
    """patchconf's error class for an API server's error answer."""
    if answer.status == 415:
        return "no-strategic-schema" if patch_type == "strategic" else "unsupported-media-type"
    if answer.status == 409:
        return "conflict"
    if _validation_failure(answer):
        return "invalid"
    if _bare_json_patch_rejection(patch_type, answer):
        return "unclassified"
    if "name must be provided" in answer.message():
        return "invalid-document"  # the patch left no object (e.g. `$patch: delete` at the root)
    return classify_error(_full_message(answer))


def _full_message(answer: Response) -> str:
    """The Status message with its causes' messages (where a patch library's own error travels),
    each cause once and only when the message does not already say it."""
    causes = (answer.body.get("details") or {}).get("causes") or [] if isinstance(answer.body, dict) else []
    parts = [answer.message()]
    for cause in causes:
        text = str(cause.get("message", "")) if isinstance(cause, dict) else ""
        if text and not any(text in part for part in parts):
            parts.append(text)
    return "; ".join(part for part in parts if part)


_REQUEST_BODY = re.compile(r'"Request Body" body=(".*")\s*$')
# kubectl before 1.32 (which a version-matching kubectl runs against an older server) logs it bare
_BARE_REQUEST_BODY = re.compile(r"\] Request Body: (.*?)\s*$")


def _sent_patch(log: str) -> Any:
    """The body of the PATCH request in kubectl's -v=10 log (None: kubectl sent no patch)."""
    pending = None
    for line in log.splitlines():
        quoted, bare = _REQUEST_BODY.search(line), _BARE_REQUEST_BODY.search(line)
        if quoted or bare:
            try:
                text = json.loads(quoted.group(1)) if quoted else bare.group(1)
                pending = json.loads(text) if text else None
            except json.JSONDecodeError:
                pending = None
        elif "-XPATCH" in line and pending is not None:
            return pending
    return None


def _kubectl_error(log: str) -> str:
    """kubectl's own error and warning lines, without its -v=10 request log."""
    lines = [line for line in log.splitlines() if line and not re.match(r"^[IEW]\d{4} |^\t|^\s", line)]
    return "\n".join(lines).strip().removeprefix("error: ")


def _apply_error_class(message: str) -> str:
    if "the object has been modified" in message or "conflicts with" in message or "Conflict" in message:
        return "conflict"
    if "is invalid" in message or "Invalid value" in message:
        return "invalid"
    return classify_error(message)


def _ops(patch: Any) -> list[dict]:
    return [op for op in patch if isinstance(op, dict)] if isinstance(patch, list) else []


def _corpus_problem(case: Case) -> str | None:
    """Why a corpus case (not written for live) cannot be judged against a server."""
    patch = case.inputs.get("patch")
    if case.type == "json-patch":
        for op in _ops(patch):
            for key in ("path", "from"):
                pointer = op.get(key)
                if not isinstance(pointer, str):
                    continue
                if pointer in ("", *IDENTITY_POINTERS) or pointer.startswith(("/apiVersion/", "/kind/")) or any(
                        pointer == f"/metadata/{field}" or pointer.startswith(f"/metadata/{field}/")
                        for field in ("name", "namespace", *SERVER_OWNED_METADATA)):
                    return f"the patch operates on {pointer or 'the root'}, which a server owns or keeps fixed"
                if pointer == "/status" or pointer.startswith("/status/"):
                    return "the patch changes status, which a server ignores outside the status subresource"
                if pointer.startswith("/metadata/labels"):
                    return "the patch operates on metadata.labels, where the live target keeps its run label"
    elif case.type in ("merge-patch", "strategic") and isinstance(patch, dict):
        original = case.inputs.get("original") or {}
        if any(key in patch and patch[key] != original.get(key) for key in ("apiVersion", "kind")):
            return "the patch changes apiVersion or kind, which a server keeps fixed"
        metadata = patch.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            return "the patch replaces metadata as a whole"
        if isinstance(metadata, dict):
            same_name = metadata.get("name") == (original.get("metadata") or {}).get("name")
            owned = [key for key in ("name", "namespace", *SERVER_OWNED_METADATA)
                     if key in metadata and not (key == "name" and same_name)]
            if owned:
                return f"the patch sets metadata.{owned[0]}, which a server owns or keeps fixed"
            if "labels" in metadata and not isinstance(metadata["labels"], dict):
                return "the patch replaces metadata.labels, where the live target keeps its run label"
        if "status" in patch:
            return "the patch changes status, which a server ignores outside the status subresource"
    elif case.type in ("merge-patch", "strategic"):
        return "a patch that is not a JSON object would replace the whole object"
    return None
