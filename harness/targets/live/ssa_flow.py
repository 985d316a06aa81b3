"""Server-side apply cases: a sequence of requests on one object, read back after each step with
its managedFields, timed on the case's logical clock (:class:`StepTimes`)."""

from __future__ import annotations

import copy
import json
import math
import threading
import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ....reference_impl.govalue import encoding_json
from ...controlplane.live_cluster import Response
from ...corpus.cases import Case
from ...corpus.compare import show
from ..base import Actual, TargetCrash, TargetDeclined
from . import kubectl_ssa
from .conventions import (
    ALLOCATED,
    CONTENT_TYPES,
    CREATE_QUERY,
    SERVER_OWNED_METADATA,
    SETUP_MANAGER,
)
from .placement import LogicalClock, Placement, is_object, owns_run_label
from .rendering import (
    about_status,
    drop_generated_labels,
    drop_null_template_timestamps,
    drop_unstated,
    drop_unstated_node_ports,
)
from .responses import (
    classify_response,
    field_conflicts,
    full_message,
    ssa_error_class,
    status_conflicts,
    status_error_class,
)


class ServerSideApplyFlow:
    # --- server-side apply: a sequence of requests on one object -----------------------------

    def _run_server_side_apply(self, case: Case, placement: Placement) -> Actual:
        """Each step is sent as the real request; after it the object is read back.

        In the run's own namespace the object carries no run label: a label the case does not state
        would be owned by someone and show in managedFields (the run's namespace is what cleanup
        deletes). In an existing namespace (--namespace) cleanup finds it by the label, so it carries
        one without changing who owns what (:meth:`_labelled_step`); ownership of the label is not
        shown.
        """
        self._placements[case.id] = placement
        ops = {step.get("op") for step in case.input("steps")}
        if "csa-upgrade" in ops:
            raise TargetDeclined("op csa-upgrade is a call of client-go's csaupgrade library, which no kubectl "
                                 "command makes alone (op kubectl-apply-server-side runs kubectl's migration)")
        if "kubectl-apply-server-side" in ops and not self.kubectl:
            raise TargetDeclined("kubectl is not on PATH: op kubectl-apply-server-side runs the real kubectl")
        if "kubectl-apply" in ops:
            self._check_kubectl_client_side()
        clock = LogicalClock()
        live = self._set_up_current(case, placement, clock) if case.inputs.get("current") is not None else None
        self._check_expected_steps(case, placement)
        keep_status = about_status(case)
        stated = [step.get("expected") for step in self._step_expectations(case)]
        times = StepTimes(clock, self._server_lead())
        results: list[dict[str, Any]] = []
        for number, step in enumerate(case.input("steps")):
            before = resource_version(live)
            label = self._labelled_step(step, live)
            times.wait_for_a_new_second()
            warnings = None
            dry_answer = None  # a dry run's answer: the object the server would have stored
            if step["op"] == "kubectl-apply-server-side":
                error, dry_answer = self._kubectl_apply_server_side(step, placement, clock, label)
            elif step["op"] == "kubectl-apply":
                error, warnings = self._kubectl_apply_client_side(step, placement, clock)
            else:
                answer = self._send_step(step, placement, clock, label)
                error = None if answer.ok else self._step_error(step, answer, placement)
                if answer.ok and step.get("dry_run") and isinstance(answer.body, dict):
                    dry_answer = answer.body
            answered_at = time.time()
            read = self.cluster.request("GET", placement.path)
            live = read.body if read.ok and isinstance(read.body, dict) else None
            times.observe(number + 1, dry_answer or live, answered_at)
            shown = dry_answer if step.get("dry_run") else live
            warned = {} if warnings is None else {"warnings": warnings}
            if error is not None:
                results.append({"error": error, "unchanged": resource_version(live) == before, **warned})
            elif shown is None:
                raise TargetCrash(f"step {number + 1} succeeded, but the object could not be read back: "
                                  f"{read.status} {read.message()}")
            else:
                document = self._step_document(placement, shown, stated[number], keep_status)
                results.append({"document": document, "managed_fields": self._timed_entries(shown, placement, times),
                                "changed": resource_version(live) != before, **warned})
        return Actual(document={"steps": results},
                      notes=(*self._notes, "managedFields times: each step started in a later second of the "
                                           "server's clock, its timestamps mapped back to step numbers"))

    def _server_lead(self) -> ServerLead:
        """The run's bound on the server's clock, learned over all its cases (one per target)."""
        with self._lock:
            if not isinstance(getattr(self, "_server_clock", None), ServerLead):
                self._server_clock = ServerLead()
            return self._server_clock

    def _timed_entries(self, live: dict, placement: Placement, times: StepTimes) -> list[dict[str, Any]]:
        """The object's managedFields in the case's terms (:meth:`_entries_back`), in the server's
        order, each ``time`` the step that wrote it; an entry the server wrote without a time has none."""
        timed = []
        for entry in (live.get("metadata") or {}).get("managedFields") or []:
            for shown in self._entries_back({"metadata": {"managedFields": [entry]}}, placement):
                stamp = entry.get("time") if isinstance(entry, dict) else None
                if stamp is None:
                    shown.pop("time", None)
                else:
                    shown["time"] = times.time_of(stamp)
                timed.append(shown)
        return timed

    def _labelled_step(self, step: Mapping[str, Any], live: dict | None) -> bool:
        """Whether a step's object carries the run label (only in an existing namespace): an update
        always (it would remove it otherwise); an apply when it creates the object or its manager
        owns the label already (so it keeps it), never otherwise (it would change ownership, and so
        the resourceVersion); never on /status, which keeps metadata as it is, nor on /scale (a Scale
        has no labels)."""
        if not self.label_objects or step.get("subresource") in ("status", "scale"):
            return False
        if step["op"] == "update":
            return True
        if step["op"] not in ("apply", "kubectl-apply-server-side"):
            return False
        if live is None:
            return True
        entries = (live.get("metadata") or {}).get("managedFields") or []
        return any(entry.get("manager") == step.get("manager") and entry.get("operation") == "Apply"
                   and not entry.get("subresource") and owns_run_label(entry) for entry in entries)

    def _set_up_current(self, case: Case, placement: Placement, clock: LogicalClock) -> dict:
        """``current`` on the server with exactly the managedFields the case states (none: none);
        in an existing namespace with the run label, which no manager then owns."""
        current = case.input("current")
        stated = (current.get("metadata") or {}).get("managedFields") or []
        body = self._ssa_to_live(current, placement, clock, label=self.label_objects)
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
        if held is None or untimed(held) != untimed(stated):
            raise TargetDeclined(f"the server did not keep current's managedFields as stated: it holds {show(held)}")
        return read.body

    def _check_expected_steps(self, case: Case, placement: Placement) -> None:
        """A corpus case with a step's expected object a server cannot store is skipped."""
        if "live" in case.targets:
            return
        for number, step in enumerate(self._step_expectations(case), start=1):
            stated = step.get("expected")
            if not is_object(stated):
                continue
            probe = self._dry_run(stated, placement)
            if not probe.ok:
                raise TargetDeclined(f"the object step {number} expects cannot be stored by a server: "
                                     f"{probe.status} {probe.reason()}: {full_message(probe)[:300]}")

    def _step_expectations(self, case: Case) -> list[dict[str, Any]]:
        """Each step's expectations (a divergence for live wins), one per step."""
        steps = case.inputs.get("steps") or []
        document = self._live_outcome(case).document
        if isinstance(document, dict) and isinstance(document.get("steps"), list) \
                and len(document["steps"]) == len(steps):
            return document["steps"]
        return [{} for _ in steps]

    def _send_step(self, step: Mapping[str, Any], placement: Placement, clock: LogicalClock,
                   label: bool = False) -> Response:
        op = step["op"]
        subresource = step.get("subresource")
        path = placement.path + (f"/{subresource}" if subresource in ("status", "scale") else "")
        query: dict[str, str] = {}
        if "manager" in step:
            query["fieldManager"] = step["manager"]
        if "force" in step and op != "update":  # a PUT has no force; on a patch the server refuses it
            query["force"] = "true" if step["force"] else "false"
        if step.get("dry_run"):
            query["dryRun"] = "All"
        if op == "apply":
            body = encoding_json.encode(self._ssa_to_live(step["object"], placement, clock, label), sort_keys=False,
                                  numbers_as_written=True)
            return self.cluster.request("PATCH", path, raw_body=body.encode("utf-8"),
                                        content_type=CONTENT_TYPES["server-side-apply"], query=query)
        if op == "patch":
            patch = copy.deepcopy(step["patch"])
            if step["patch_type"] != "json-patch":
                patch = self._patch_to_live(patch, placement)
            body = encoding_json.encode(patch, sort_keys=False, numbers_as_written=True)
            return self.cluster.request("PATCH", path, raw_body=body.encode("utf-8"),
                                        content_type=CONTENT_TYPES[step["patch_type"]], query=query)
        # An update is a client writing the whole object it means, over what it last read: the live
        # resourceVersion, unless the case states one (a stale write is then what it is about).
        document = self._ssa_to_live(step["object"], placement, clock, label)
        metadata = document.setdefault("metadata", {}) if isinstance(document, dict) else None
        if isinstance(metadata, dict) and "resourceVersion" not in metadata:
            read = self.cluster.request("GET", placement.path)
            if read.ok and isinstance(read.body, dict):
                metadata["resourceVersion"] = read.body["metadata"]["resourceVersion"]
        return self.cluster.request("PUT", path, document, query=query)

    def helper_for(self, case: Case) -> str | None:
        """The program besides the server that a case's answer came from (for its provenance)."""
        ops = {step.get("op") for step in case.inputs.get("steps") or ()} if case.type == "server-side-apply" else set()
        commands = [command for op, command in (("kubectl-apply", "kubectl apply"),
                                                ("kubectl-apply-server-side", "kubectl apply --server-side"))
                    if op in ops]
        if commands:
            return f"{' and '.join(commands)} (kubectl {kubectl_ssa.client_version(self.kubectl)})"
        return None

    def _check_kubectl_client_side(self) -> None:
        """kubectl-apply steps need the real kubectl, and the run's own namespace: in an existing one
        the run label would be part of the manifest, and so of the last-applied configuration."""
        if not self.kubectl:
            raise TargetDeclined("kubectl is not on PATH: op kubectl-apply runs the real kubectl")
        if self.label_objects:
            raise TargetDeclined("op kubectl-apply runs only in the run's own namespace (with --namespace the run "
                                 "label would be part of the last-applied configuration kubectl writes)")

    def _kubectl_connection(self) -> list[str]:
        return (["--kubeconfig", self.kubeconfig] if self.kubeconfig else []) + (
            ["--context", self.context] if self.context else [])

    def _kubectl_error(self, answer: kubectl_ssa.KubectlAnswer, placement: Placement) -> dict[str, Any]:
        """A failed kubectl apply as a step's error: the failed request's Status, else kubectl's words."""
        status = answer.status or {}
        code = status.get("code")
        error: dict[str, Any] = {"class": status_error_class(code, answer.message),
                                 "message": self._message_back(answer.message, placement),
                                 "status": code, "reason": status.get("reason") or None}
        if code == 409:
            error["conflicts"] = status_conflicts(status)
        return error

    def _kubectl_apply_client_side(self, step: Mapping[str, Any], placement: Placement,
                                   clock: LogicalClock) -> tuple[dict[str, Any] | None, list[str]]:
        """The step run by the real kubectl (client-side): its error (the failed request's Status, else
        kubectl's words) or None, and the warnings it printed, in the case's names."""
        answer = kubectl_ssa.apply_client_side(self.kubectl, self._kubectl_connection(),
                                               self._ssa_to_live(step["object"], placement, clock),
                                               self.namespace, step["manager"])
        warnings = [self._message_back(warning, placement) for warning in answer.warnings]
        if answer.ok:
            return None, warnings
        return self._kubectl_error(answer, placement), warnings

    def _kubectl_apply_server_side(self, step: Mapping[str, Any], placement: Placement, clock: LogicalClock,
                                   label: bool = False) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """The step run by the real kubectl: its error (kubectl's words, the failed request's
        Status) or None, and with ``dry_run`` the object kubectl printed."""
        answer = kubectl_ssa.apply_server_side(self.kubectl, self._kubectl_connection(),
                                                self._ssa_to_live(step["object"], placement, clock, label),
                                                self.namespace, step["manager"], bool(step.get("force", False)),
                                                dry_run=bool(step.get("dry_run", False)))
        if answer.ok:
            return None, answer.printed if isinstance(answer.printed, dict) else None
        return self._kubectl_error(answer, placement), None

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
            drop_unstated(document, stated, path)
        drop_unstated_node_ports(document, stated)
        drop_generated_labels(document, stated)
        drop_null_template_timestamps(document, stated)
        return document

    def _step_error(self, step: Mapping[str, Any], answer: Response, placement: Placement) -> dict[str, Any]:
        if step["op"] == "apply":
            error_class = ssa_error_class(answer)
        else:
            error_class = classify_response(step.get("patch_type", "update"), answer)
        error: dict[str, Any] = {"class": error_class,
                                 "message": self._message_back(full_message(answer), placement),
                                 "status": answer.status, "reason": answer.reason() or None}
        conflicts = field_conflicts(answer)
        if conflicts is not None:
            error["conflicts"] = conflicts
        return error




class ServerLead:
    """How far the server's clock is ahead of ours, at least (negative: behind), learned from the
    timestamps it writes: a second *T* stamped before our request returned at local time *b* means
    its clock had reached *T* when ours read *b*, so its lead is at least *T* − *b*. A bound only
    ever rises; it holds whatever the two clocks' skew (no clock need be synchronized)."""

    def __init__(self) -> None:
        self.floor = -math.inf
        self._lock = threading.Lock()

    def learn(self, stamped: float, answered_at: float) -> None:
        with self._lock:
            self.floor = max(self.floor, stamped - answered_at)

    def local_time_of(self, server_time: float) -> float:
        """A local time by which the server's clock has surely reached ``server_time``."""
        return server_time - self.floor


# A timestamp more than this before the case started is one the case wrote itself (LogicalClock
# dates time t at t seconds after a moment an hour before the case), never a write of the server's.
STATED_WINDOW_SECONDS = 30 * 60


class StepTimes:
    """A case's logical clock (step *n* happens at time *n*) read off the server's timestamps.

    The server stamps the entry of a request's manager with the second its clock reads
    (fieldmanager's managedFieldsUpdater; metav1.Time keeps whole seconds) and sorts entries by
    operation, that second, then manager (managedfields' sortEncodedManagedFields). Each step is
    sent once the server's clock has passed every second stamped before it (:meth:`wait_for_a_new_second`,
    by the :class:`ServerLead` bound), so its writes carry seconds no earlier step's did: an entry's
    second names the step after which that second first appeared, and the server's order is the one
    the logical clock gives. A second from the case itself (``current``'s entries, or entries a
    step's object carries, written by the LogicalClock an hour back) maps back through that clock.
    """

    def __init__(self, clock: LogicalClock, lead: ServerLead) -> None:
        self.clock = clock
        self.lead = lead
        self.first_seen: dict[float, int] = {}  # a second the server stamped -> the step that stamped it
        self.latest: float | None = None  # the last second the server stamped in this case

    def wait_for_a_new_second(self) -> None:
        """Sleep until the server's clock has surely left the last second it stamped."""
        if self.latest is None:
            return
        delay = self.lead.local_time_of(self.latest + 1) - time.time()
        if delay > 0:
            time.sleep(delay)

    def observe(self, step: int, live: Any, answered_at: float) -> None:
        """After step ``step`` (its requests answered by local time ``answered_at``): the seconds the
        server stamped first in this step are the step's."""
        metadata = live.get("metadata") if isinstance(live, dict) else None
        for entry in (metadata or {}).get("managedFields") or []:
            second = self._second(entry.get("time") if isinstance(entry, dict) else None)
            if second is None or self._stated(second) or second in self.first_seen:
                continue
            self.first_seen[second] = step
            self.lead.learn(second, answered_at)
            self.latest = second if self.latest is None else max(self.latest, second)

    def time_of(self, stamp: Any) -> int | None:
        """The logical time of a timestamp the server holds (None: one no step of the case wrote)."""
        second = self._second(stamp)
        if second is None:
            return None
        if self._stated(second):
            return round(second - self.clock.origin.timestamp())
        return self.first_seen.get(second)

    def _stated(self, second: float) -> bool:
        return second < self.clock.origin.timestamp() + STATED_WINDOW_SECONDS

    @staticmethod
    def _second(stamp: Any) -> float | None:
        if not isinstance(stamp, str):
            return None
        try:
            return datetime.fromisoformat(stamp).timestamp()
        except ValueError:
            return None


def resource_version(document: Any) -> str | None:
    if not isinstance(document, dict):
        return None
    return (document.get("metadata") or {}).get("resourceVersion")


def untimed(entries: list[dict[str, Any]]) -> list[str]:
    """managedFields entries compared without time and order."""
    return sorted(json.dumps({k: v for k, v in entry.items() if k not in ("time", "fieldsType")}, sort_keys=True)
                  for entry in entries)
