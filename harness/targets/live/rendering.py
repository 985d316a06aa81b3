"""The expectation as the server renders it: a dry-run create of the expected object, seen like the
read-back, so only what the patch did is compared; and what the server did beyond defaulting on the
way (admission, policy: harness/targets/live/mutations.py), reported beside each result."""

from __future__ import annotations

import copy
from typing import Any

from ...controlplane.live_cluster import ClusterUnreachable, Response
from ...corpus.cases import Case, Outcome
from ...corpus.stored_objects import about_status, drop_null_template_timestamps
from ..base import Actual
from .conventions import (
    ALLOCATED,
    CREATE_QUERY,
    CREATED_BY_ADMISSION,
    GENERATED_LABELS,
    SERVER_ANNOTATIONS,
    SERVER_OWNED_METADATA,
)
from .mutations import (
    AFTER,
    CREATED,
    REFUSED,
    RENDERED,
    REQUEST,
    ServerChanges,
    object_changes,
    refusal,
)
from .placement import Placement, is_object, shadow_of


class ServerRendering:
    def _dry_run(self, document: Any, placement: Placement) -> Response:
        """A dry-run create beside the case's object; allocated values (cluster IPs, node ports) are
        left for the server to choose, since the case's own object already holds them."""
        shadow = shadow_of(placement)
        body = self._to_live(document, shadow)
        for path in allocated_paths(body):
            pop_path(body, path)
        return self.cluster.request("POST", placement.collection, body,
                                    query={**CREATE_QUERY, "dryRun": "All"})

    # --- what the server did beyond defaulting -----------------------------------------------

    @property
    def _changes(self) -> ServerChanges:
        return self.__dict__.setdefault("_server_changes", ServerChanges())  # atomic: one store per target

    def _note_created(self, case: Case, document: Any, sent: Any) -> None:
        """The original as the server stored it: what admission added, took out or rewrote at creation."""
        self._changes.forget(case.id)  # a case's facts start with its object
        self._changes.note(case.id, CREATED, object_changes(document, CREATE_QUERY["fieldManager"], sent))

    def _note_rendering(self, case: Case, answer: Response, sent: Any = None) -> None:
        if answer.ok:
            self._changes.note(case.id, RENDERED, object_changes(answer.body, CREATE_QUERY["fieldManager"], sent))
            return
        refused = refusal(answer.status, answer.reason(), answer.message())
        if refused:
            self._changes.note(case.id, RENDERED, [(REFUSED, "", refused)])

    def server_changes(self, case: Case, actual: Actual) -> tuple[dict[str, Any], ...]:
        """What the server added, took out or refused beyond the request and its defaults while the case
        ran and was judged (mutations.py); an error answer from admission or policy counts too."""
        error = actual.error
        if error is not None and error.status is not None:
            refused = refusal(error.status, error.reason or "", error.message)
            if refused:
                self._changes.note(case.id, REQUEST, [(REFUSED, "", refused)])
        return self._changes.take(case.id)

    def _present(self, case: Case, placement: Placement, document: dict) -> Any:
        """The read-back in the case's terms, without what the server owns and the case does not state."""
        self._placements[case.id] = placement
        self._changes.note(case.id, AFTER, object_changes(document))
        if placement.hosted:  # a plain document: every field is the case's
            return self._from_live(document, placement)
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
        if placement is None or not isinstance(stated, dict) or not (placement.hosted or is_object(stated)):
            return outcome
        try:
            answer = self._dry_run(stated, placement)
        except ClusterUnreachable:
            return outcome
        self._note_rendering(case, answer, stated)
        if not answer.ok or not isinstance(answer.body, dict):
            return outcome
        shadow = shadow_of(placement)
        if placement.hosted:  # the server's JSON round trip of the document (numbers as Go holds them)
            return Outcome(document=self._from_live(answer.body, shadow), patch=outcome.patch, error=outcome.error)
        document = self._observable(case, self._from_live(answer.body, shadow), stated)
        for path in allocated_paths(stated):
            copy_path(stated, document, path)
        if case.id in self._rendered_statuses:  # a create ignores status: rendered through /status
            document["status"] = copy.deepcopy(self._rendered_statuses[case.id])
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
        keep_status = about_status(case)
        steps, rendered = [], False
        for want in outcome.document.get("steps", []):
            stated = want.get("expected")
            if is_object(stated):
                try:
                    answer = self._dry_run(stated, placement)
                except ClusterUnreachable:
                    answer = None
                if answer is not None:
                    self._note_rendering(case, answer, stated)
                if answer is not None and answer.ok and isinstance(answer.body, dict):
                    document = self._step_document(shadow_of(placement), answer.body, stated, keep_status)
                    document.pop("status", None)
                    if keep_status and "status" in stated:
                        document["status"] = copy.deepcopy(stated["status"])
                    for path in allocated_paths(stated):
                        copy_path(stated, document, path)
                    want, rendered = {**want, "expected": document}, True
            steps.append(want)
        return Outcome(document={"steps": steps}) if rendered else outcome

    def _render_status(self, case: Case, placement: Placement) -> None:
        """The expected status as the server stores it (its typed round trip, defaults): a dry-run
        write of it through the status subresource, on the case's object before it goes."""
        stated = self._live_outcome(case).document
        if not isinstance(stated, dict) or "status" not in stated:
            return
        current = self.cluster.request("GET", placement.path)
        if not current.ok or not isinstance(current.body, dict):
            return
        answer = self.cluster.request("PUT", placement.path + "/status", {**current.body, "status": stated["status"]},
                                      query={"dryRun": "All"})
        if answer.ok and isinstance(answer.body, dict):
            self._rendered_statuses[case.id] = self._from_live(answer.body, placement).get("status")

    def _judges_status(self, case: Case) -> bool:
        """Cases written for live, and corpus cases patching only status (through its subresource)."""
        return "live" in case.targets or case.id in self._through_status

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
        if "status" in document and ("status" not in stated or not self._judges_status(case)):
            document.pop("status")
        for path in ALLOCATED.get(document.get("kind"), ()):
            drop_unstated(document, stated, path)
        drop_unstated_node_ports(document, stated)
        drop_generated_labels(document, stated)
        drop_unstated_admission_items(document, stated)
        drop_null_template_timestamps(document, stated)
        return document


def allocated_paths(document: Any) -> list[tuple]:
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


def pop_path(document: Any, path: tuple) -> None:
    parent = _get_path(document, path[:-1])
    if isinstance(parent, dict):
        parent.pop(path[-1], None)


def copy_path(source: Any, target: Any, path: tuple) -> None:
    parent = _get_path(target, path[:-1])
    value = _get_path(source, path)
    if isinstance(parent, dict) and value is not None:
        parent[path[-1]] = copy.deepcopy(value)


def drop_unstated(actual: dict, expected: dict, path: tuple[str, ...]) -> None:
    node, stated = actual, expected
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
        stated = stated.get(key) if isinstance(stated, dict) else None
    if isinstance(node, dict) and not (isinstance(stated, dict) and stated.get(path[-1]) is not None):
        node.pop(path[-1], None)


def drop_unstated_node_ports(actual: dict, expected: dict) -> None:
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


def drop_generated_labels(actual: dict, expected: dict) -> None:
    """Labels a Job's server-side defaulting derives from its uid and name: on its pod template,
    and on the Job itself when it has no labels of its own (defaulting copies the template's)."""
    if actual.get("kind") != "Job":
        return
    template = ((actual.get("spec") or {}).get("template") or {}).get("metadata") or {}
    stated_template = ((expected.get("spec") or {}).get("template") or {}).get("metadata") or {}
    metadata = actual.get("metadata") or {}
    stated_metadata = expected.get("metadata") or {}
    for holder, stated in ((template, stated_template), (metadata, stated_metadata)):
        labels = holder.get("labels") if isinstance(holder, dict) else None
        stated_labels = stated.get("labels") if isinstance(stated, dict) else None
        if not isinstance(labels, dict):
            continue
        for key in GENERATED_LABELS:
            if not (isinstance(stated_labels, dict) and key in stated_labels):
                labels.pop(key, None)
        if not labels and not (isinstance(stated, dict) and "labels" in stated):
            del holder["labels"]


def drop_unstated_admission_items(actual: dict, expected: dict) -> None:
    """The item a create-time admission plugin adds (CREATED_BY_ADMISSION), unless the case states it."""
    path, added = CREATED_BY_ADMISSION.get(actual.get("kind"), ((), None))
    items = _get_path(actual, path) if path else None
    if not isinstance(items, list):
        return
    stated = _get_path(expected, path)

    def is_added(item: Any) -> bool:
        if isinstance(added, dict):
            return isinstance(item, dict) and all(item.get(key) == value for key, value in added.items())
        return item == added

    if isinstance(stated, list) and any(is_added(item) for item in stated):
        return
    kept = [item for item in items if not is_added(item)]
    parent = _get_path(actual, path[:-1])
    if kept or stated is not None:
        parent[path[-1]] = kept
    else:
        del parent[path[-1]]



