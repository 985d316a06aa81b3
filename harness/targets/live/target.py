"""The live target: lifecycle (run namespace, signals, cleanup), which cases run, and the dispatch
to each flow."""

from __future__ import annotations

import atexit
import dataclasses
import itertools
import shutil
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from ...controlplane.apiserver import CONTEXT_NAME as APISERVER_CONTEXT
from ...controlplane.live_cluster import (
    Cluster,
    ClusterUnreachable,
    Resource,
    cleanup,
    delete_namespace,
    kubeconfig_path,
    new_run_id,
)
from ...corpus.cases import Case, Outcome
from ..base import (
    KUBERNETES,
    MODES,
    Actual,
    Target,
    TargetCrash,
    TargetDeclined,
    TargetInfo,
    TargetUnavailable,
)
from .apply_flow import ClientSideApplyFlow
from .conventions import DEFAULT_WORKERS, LIVE_TYPES, SCHEMA_TYPES, UNREACHABLE_LIMIT
from .corpus_fit import (
    STATUS_PROBLEM,
    corpus_problem,
    hosting_problem,
    label_problem,
    nesting_problem,
    patches_only_status,
)
from .crds import RunCRDs
from .patch_flow import CannotHoldAsKind, PatchFlow
from .placement import (
    HELD_FIELD,
    Placement,
    PlacementMixin,
    case_subject,
    is_object,
    ssa_named_schema,
)
from .rendering import ServerRendering
from .ssa_flow import ServerSideApplyFlow


class LiveTarget(PlacementMixin, RunCRDs, PatchFlow, ServerSideApplyFlow, ClientSideApplyFlow, ServerRendering,
                 Target):
    def __init__(self, context: str | None = None, kubeconfig: str | None = None,
                 workers: int = DEFAULT_WORKERS, kubectl: str | None = None, namespace: str | None = None) -> None:
        self.name = f"live:{context}" if context else "live"
        self.context = context
        self.kubeconfig = kubeconfig_path(kubeconfig)
        try:
            self.cluster = Cluster(self.kubeconfig, context)
            version = self.cluster.server_version()
        except ClusterUnreachable as exc:
            raise TargetUnavailable(str(exc)) from exc
        self.workers = workers
        # patchconf apiserver's control plane runs no controllers: Nodes and PersistentVolumes may be made there
        self.own_control_plane = self.cluster.context == APISERVER_CONTEXT
        self.run_id = new_run_id()
        # --namespace: everything in one existing namespace, for accounts that may not create
        # namespaces; each object carries the run label, by which cleanup finds it there.
        self.shared_namespace = namespace is not None
        if namespace is not None:
            problem = self._namespace_problem(namespace)
            if problem:
                raise TargetUnavailable(problem)
            self.namespace = namespace
        where = f" in namespace {namespace}" if namespace else ""
        self.kubectl = kubectl if kubectl is not None else shutil.which("kubectl")
        self.info = TargetInfo(
            family="live",
            category=KUBERNETES,
            version=version,
            patch_types=LIVE_TYPES,
            # named schemas only for server-side apply, whose CRD carries the schema (skip_reason)
            schemas=frozenset({"builtin", "named", "none"}),
            messages=True,
            description=f"kube-apiserver {version} at {self.cluster.host}, run {self.run_id}{where}",
            modes=MODES,  # its client-side apply runs kubectl apply, --overwrite=false included
        )
        self._counter = itertools.count(1)
        self._lock = threading.Lock()
        self._crds: dict[tuple[str, str, str, str | None], Resource | str] = {}
        self._crd_refusal: str | None = None  # why this account may not make the run's CRDs
        self._crd_permission_asked = False
        self._placements: dict[str, Placement] = {}
        # cases run with their object held whole as a custom resource's field, and why
        self._held_whole: dict[str, str] = {}
        # corpus cases whose patch changes only status: sent to the status subresource, status judged
        self._through_status: set[str] = set()
        self._rendered_statuses: dict[str, Any] = {}  # their expected status, as the server renders it
        self._stopping = threading.Event()
        self._stopped_because = "the run was interrupted"
        self._consecutive_failures = 0
        self._closed = False
        self._previous_handlers: dict[int, Any] = {}
        self._install_handlers()
        atexit.register(self.close)
        if self.shared_namespace:
            return
        try:
            self.namespace = self.cluster.create_run_namespace(self.run_id)
        except ClusterUnreachable as exc:
            self.close()
            raise TargetUnavailable(str(exc)) from exc

    def _namespace_problem(self, namespace: str) -> str | None:
        """Why a run cannot work in the existing namespace ``namespace`` (None: it can, or may)."""
        try:
            status = self.cluster.namespace_status(namespace)
        except ClusterUnreachable as exc:
            return str(exc)
        if status == 404:
            return (f"namespace {namespace} does not exist; --namespace runs in an existing namespace "
                    "(without it the run creates its own)")
        # 403: an account limited to the namespace may not read the namespace object; its first
        # request in the namespace says the rest
        return None

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
            report = cleanup(self.cluster, [self.run_id], self.namespace if self.shared_namespace else None)
            if report.namespaces or report.crds or report.swept:
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
        # Corpus message fragments quote kubectl's offline wording; cases written for the live
        # target, and their divergences for live, quote the server's.
        return "live" in case.targets or self._live_outcome(case) is not case.outcome

    @property
    def label_objects(self) -> bool:
        """Objects in the run's own namespace need no run label (deleting the namespace removes
        them), so cases that patch metadata.labels run there; in an existing one each carries it."""
        return self.shared_namespace

    def skip_reason(self, case: Case) -> str | None:
        if self._stopping.is_set():
            return self._stopped_because
        reason = super().skip_reason(case)
        if reason:
            return reason
        schema = case.effective_schema()
        if schema is not None and schema.named and case.type in SCHEMA_TYPES:
            # only a server-side apply case gets a CRD built from its schema; others would run schemaless
            if case.type in ("strategic", "apply"):
                return (f"a server has no strategic merge for custom resources, and {schema.describe()} can only "
                        "be a custom resource's schema there")
            return f"{self.name} cannot run cases on {schema.describe()}"
        document = case_subject(case)
        if not is_object(document):
            problem = hosting_problem(case)
            if problem:
                return problem
            try:
                resource = self._host_resource()
            except ClusterUnreachable as exc:
                return f"cannot create the run's CRD for plain documents: {exc}"
            return resource if isinstance(resource, str) else None
        if self.shared_namespace:
            reason = label_problem(case)
            if reason:
                return reason
        try:
            resource = self._resource(document["apiVersion"], document["kind"], ssa_named_schema(case))
        except ClusterUnreachable as exc:
            return f"cannot ask the server about {document['apiVersion']} {document['kind']}: {exc}"
        problem = resource if isinstance(resource, str) else None
        if problem is None and not resource.namespaced:
            problem = label_problem(case)  # cleanup finds a cluster-scoped object by the run label
        if problem is None and "live" not in case.targets:
            problem = corpus_problem(case)
            if problem == STATUS_PROBLEM and patches_only_status(case):
                self._through_status.add(case.id)
                return None
        if problem is None:
            return None
        if not self._may_hold_whole(case):
            return problem
        try:
            host = self._host_resource()
        except ClusterUnreachable:
            return problem
        if isinstance(host, str):
            return problem
        self._held_whole[case.id] = problem
        return None

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
            held_because = self._held_whole.get(case.id)
            try:
                actual = self._run_placed(case, runner, held_because)
            except CannotHoldAsKind as exc:
                if held_because is not None or not self._may_hold_whole(case):
                    raise
                actual = self._run_placed(case, runner, str(exc))
        except ClusterUnreachable as exc:
            self._note_unreachable(exc)
            raise TargetCrash(str(exc)) from exc
        with self._lock:
            self._consecutive_failures = 0
        return actual

    @staticmethod
    def _may_hold_whole(case: Case) -> bool:
        """A corpus case whose object the run may hold whole as a field of its schemaless custom resource."""
        return "live" not in case.targets and nesting_problem(case) is None

    def _run_placed(self, case: Case, runner: Callable[[Case, Placement], Actual],
                    held_because: str | None) -> Actual:
        """The case on its object as its kind, or (``held_because``) held whole as a field."""
        placement = self._placement(case, held_whole=held_because is not None)
        try:
            actual = runner(case, placement)
        except TargetDeclined as exc:  # said in the case's names, so equal reasons group in the report
            raise type(exc)(self._message_back(str(exc), placement)) from exc
        finally:
            if placement.resource.kind == "Namespace" and not placement.hosted:
                delete_namespace(self.cluster, placement.name)
            else:
                self.cluster.delete_object(placement.path)
        if held_because is None:
            return actual
        note = (f"the object was held whole as the field {HELD_FIELD!r} of a schemaless custom resource, "
                f"as it cannot run as its kind: {held_because}")
        return dataclasses.replace(actual, notes=(*actual.notes, note))

    def _note_unreachable(self, exc: ClusterUnreachable) -> None:
        """After a few cases in a row without an answer, stop instead of timing out case after case."""
        with self._lock:
            self._consecutive_failures += 1
            if self._consecutive_failures >= UNREACHABLE_LIMIT and not self._stopping.is_set():
                self._stopped_because = f"the API server stopped answering ({exc})"
                self._stopping.set()

    def _live_outcome(self, case: Case) -> Outcome:
        for divergence in case.divergences:
            if divergence.applies_to(self.info.family, self.info.version):
                return divergence.outcome
        return case.outcome

    @property
    def _notes(self) -> tuple[str, ...]:
        return (f"kube-apiserver {self.info.version}",)
