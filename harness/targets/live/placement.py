"""Where a case's object lives on the server (run name, namespace, API group) and the mapping
between the case's terms and the server's, both ways."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ....reference_impl.govalue import encoding_json
from ...controlplane.live_cluster import RUN_LABEL, Resource
from ...corpus.cases import Case
from ..base import TargetDeclined
from .conventions import LAST_APPLIED, NAMESPACE_NAME_LABEL, SERVER_OWNED_METADATA

# A plain JSON document (RFC 6902 and RFC 7396 examples) is held as the top-level fields of a
# custom resource of the run's schemaless CRD: the server then patches exactly that document.
HOST_GROUP, HOST_VERSION, HOST_KIND = "documents.patchconf.dev", "v1", "Document"
HOST_FIELDS = ("apiVersion", "kind", "metadata")
HOSTED_NAME = "document"  # how the server's messages name a hosted document
# A JSON or merge patch case on an object the server cannot hold as its kind (a kind it does not
# serve or keep in a namespace, an invalid object, fields the server owns) runs on the object held
# whole as this one field of such a custom resource: a server applies these patches to any JSON.
HELD_FIELD = "document"
# a CronJob's name may be at most 52 characters, and the dry-run beside it adds "-dry"
MAX_NAME = 46


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
    hosted: bool = False  # a plain JSON document, held as the top-level fields of a run custom resource
    held_whole: bool = False  # hosted, the whole document as the field HELD_FIELD (see there)

    @property
    def path(self) -> str:
        return self.resource.item(self.namespace, self.name)

    @property
    def collection(self) -> str:
        return self.resource.collection(self.namespace)


def shadow_of(placement: Placement) -> Placement:
    """Where a dry-run create of the expected object goes: beside the case's object, never on it."""
    return Placement(placement.resource, placement.api_version, placement.case_api_version,
                     f"{placement.name[:55]}-dry", placement.case_name, placement.case_namespace,
                     placement.namespace, placement.hosted, placement.held_whole)


def case_subject(case: Case) -> Any:
    """The object the case creates on the server (server-side apply: ``current``, else the first
    step's object, which an apply creates)."""
    if case.type == "apply":
        return case.inputs.get("modified")
    if case.type == "server-side-apply":
        current = case.inputs.get("current")
        if current is not None:
            return current
        for step in case.inputs.get("steps") or ():
            if isinstance(step, dict) and is_object(step.get("object")):
                return step["object"]
        return None
    return case.inputs.get("original")


def ssa_named_schema(case: Case) -> str | None:
    """The named schema a server-side apply case's CRD carries."""
    if case.type != "server-side-apply" or case.schema is None:
        return None
    return case.schema.named


class LogicalClock:
    """Timestamps for a case's logical times: time *t* is *t* seconds after a moment an hour ago,
    so entries the case dates before step 1 (t <= 0) keep their order on the server."""

    def __init__(self) -> None:
        self.origin = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)

    def timestamp(self, time: int) -> str:
        return (self.origin + timedelta(seconds=time)).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_object(document: Any) -> bool:
    return (isinstance(document, dict) and isinstance(document.get("apiVersion"), str)
            and isinstance(document.get("kind"), str) and isinstance(document.get("metadata"), dict)
            and isinstance(document["metadata"].get("name"), str) and bool(document["metadata"]["name"]))


def dns_label(text: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")[:40] or "group"


RUN_LABEL_FIELD = ("f:metadata", "f:labels", f"f:{RUN_LABEL}")


def without_run_label(fields: Any) -> Any:
    """A managedFields entry's fieldsV1 without the run label: its ``f:labels`` and ``f:metadata``
    go when the label was all they held besides themselves (``.``), as they would without it."""
    if not isinstance(fields, dict):
        return fields
    metadata = fields.get(RUN_LABEL_FIELD[0])
    labels = metadata.get(RUN_LABEL_FIELD[1]) if isinstance(metadata, dict) else None
    if not isinstance(labels, dict) or RUN_LABEL_FIELD[2] not in labels:
        return fields
    labels = {key: value for key, value in labels.items() if key != RUN_LABEL_FIELD[2]}
    metadata = {key: value for key, value in metadata.items() if key != RUN_LABEL_FIELD[1]}
    if set(labels) - {"."}:
        metadata[RUN_LABEL_FIELD[1]] = labels
    fields = {key: value for key, value in fields.items() if key != RUN_LABEL_FIELD[0]}
    if set(metadata) - {"."}:
        fields[RUN_LABEL_FIELD[0]] = metadata
    return fields


def owns_run_label(entry: Any) -> bool:
    fields = entry.get("fieldsV1") if isinstance(entry, dict) else None
    for key in RUN_LABEL_FIELD:
        if not isinstance(fields, dict) or key not in fields:
            return False
        fields = fields[key]
    return True


class PlacementMixin:
    """The case's documents under the run's names, and the server's answers back in the case's."""

    def _placement(self, case: Case, held_whole: bool = False) -> Placement:
        document = case_subject(case)
        hosted = held_whole or not is_object(document)
        resource = self._host_resource() if hosted else self._resource(
            document["apiVersion"], document["kind"], ssa_named_schema(case))
        if isinstance(resource, str):
            raise TargetDeclined(resource)
        # in an existing namespace other runs (or what an interrupted one left) live beside this one
        prefix = f"c{next(self._counter):04d}" + (f"-{self.run_id}" if self.shared_namespace else "")
        slug = re.sub(r"[^a-z0-9-]+", "-", case.name.lower()).strip("-")
        name = f"{prefix}-{slug}"[:MAX_NAME].rstrip("-")
        if hosted:
            return Placement(resource, resource.group_version, "", name, HOSTED_NAME, None, self.namespace, True,
                             held_whole)
        metadata = document.get("metadata") or {}
        return Placement(resource, resource.group_version, document["apiVersion"], name, metadata["name"],
                         metadata.get("namespace"), self.namespace)

    def _labels(self, placement: Placement) -> bool:
        """Whether the object carries the run label, by which cleanup finds it: in an existing
        namespace, and outside any namespace (cluster-scoped)."""
        return self.label_objects or not placement.resource.namespaced

    def _host_resource(self) -> Resource | str:
        return self._custom_resource(HOST_GROUP, HOST_VERSION, HOST_KIND, None)

    def _to_live(self, document: Any, placement: Placement, for_create: bool = True, label: bool = True) -> Any:
        """The case's object under its run name, namespace, group and (``label``, where the target
        labels its objects) the run label; a plain document as the fields of its hosting object."""
        if not isinstance(document, dict):
            return document
        if placement.hosted:
            metadata = {"name": placement.name, "namespace": placement.namespace}
            if label and self._labels(placement):
                metadata["labels"] = {RUN_LABEL: self.run_id}
            fields = {HELD_FIELD: document} if placement.held_whole else document
            return {"apiVersion": placement.api_version, "kind": HOST_KIND, "metadata": metadata,
                    **copy.deepcopy(fields)}
        live = copy.deepcopy(document)
        if live.get("apiVersion") == placement.case_api_version:
            live["apiVersion"] = placement.api_version
        metadata = live.setdefault("metadata", {})
        if not isinstance(metadata, dict):
            return live
        metadata["name"] = placement.name
        if placement.resource.namespaced:
            metadata["namespace"] = placement.namespace
        else:
            metadata.pop("namespace", None)
        if label and self._labels(placement):
            labels = metadata.get("labels")
            metadata["labels"] = {**(labels if isinstance(labels, dict) else {}), RUN_LABEL: self.run_id}
        if for_create:
            for key in SERVER_OWNED_METADATA:
                metadata.pop(key, None)
        return live

    @staticmethod
    def _patch_to_live(patch: Any, placement: Placement) -> Any:
        """A patch that restates the object's identity names the run's object: a merge or strategic
        patch's apiVersion and metadata.name, a JSON patch's whole-document values."""
        if placement.held_whole:
            if isinstance(patch, list):  # pointers into the held field ("" never: see nesting_problem)
                for op in patch:
                    for key in ("path", "from"):
                        if isinstance(op, dict) and isinstance(op.get(key), str):
                            op[key] = f"/{HELD_FIELD}{op[key]}"
                return patch
            return {HELD_FIELD: patch}
        if placement.hosted:
            return patch
        if isinstance(patch, list):
            for op in patch:
                if isinstance(op, dict) and op.get("path") == "" and isinstance(op.get("value"), dict):
                    op["value"] = PlacementMixin._identity_to_live(op["value"], placement)
            return patch
        return PlacementMixin._identity_to_live(patch, placement)

    @staticmethod
    def _identity_to_live(document: Any, placement: Placement) -> Any:
        if not isinstance(document, dict):
            return document
        if document.get("apiVersion") == placement.case_api_version:
            document["apiVersion"] = placement.api_version
        metadata = document.get("metadata")
        if isinstance(metadata, dict):
            if metadata.get("name") == placement.case_name:
                metadata["name"] = placement.name
            if "namespace" in metadata and metadata["namespace"] == placement.case_namespace:
                metadata["namespace"] = placement.namespace
        return document

    def _from_live(self, document: Any, placement: Placement) -> Any:
        """A read-back object in the case's terms (identity mapped back, run label dropped)."""
        if not isinstance(document, dict):
            return document
        if placement.held_whole:
            return copy.deepcopy(document.get(HELD_FIELD))
        if placement.hosted:
            return {key: copy.deepcopy(value) for key, value in document.items() if key not in HOST_FIELDS}
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
                if labels.get(NAMESPACE_NAME_LABEL) == placement.name and back.get("kind") == "Namespace":
                    labels[NAMESPACE_NAME_LABEL] = placement.case_name
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
        return encoding_json.encode(self._from_live(recorded, placement)) + "\n"

    def _ssa_to_live(self, document: Any, placement: Placement, clock: LogicalClock, label: bool = False) -> Any:
        """A step's object (or ``current``) naming the run's object: apiVersion, name and namespace
        mapped where they are the case's own, managedFields entries in the server's form, and the
        run label where ``label`` asks; nothing else is added or taken away (a stated uid or
        resourceVersion is what a case is about)."""
        if not isinstance(document, dict):
            return document
        live = self._identity_to_live(copy.deepcopy(document), placement)
        metadata = live.get("metadata")
        if isinstance(metadata, dict):
            entries = metadata.get("managedFields")
            if isinstance(entries, list):
                metadata["managedFields"] = [self._entry_to_live(entry, placement, clock) for entry in entries]
            if label:
                labels = metadata.get("labels")
                metadata["labels"] = {**(labels if isinstance(labels, dict) else {}), RUN_LABEL: self.run_id}
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
        (a wall clock at second resolution cannot tell the case's steps apart), no ownership of the
        run label (an entry owning nothing else is one the case would not have)."""
        metadata = document.get("metadata") if isinstance(document, dict) else None
        entries = metadata.get("managedFields") if isinstance(metadata, dict) else None
        back = []
        for entry in entries or []:
            fields = without_run_label(entry.get("fieldsV1"))
            if fields == {}:
                continue
            shown = {key: value for key, value in entry.items() if key not in ("fieldsType", "time")}
            if fields is not None:
                shown["fieldsV1"] = fields
            if shown.get("apiVersion") == placement.api_version:
                shown["apiVersion"] = placement.case_api_version
            shown["time"] = None
            back.append(shown)
        return back

    @staticmethod
    def _message_back(message: str, placement: Placement) -> str:
        """The server's words about the run's object, in the case's names (object name, API group)."""
        for name in (shadow_of(placement).name, placement.name):  # the dry run's name holds the object's
            message = message.replace(name, placement.case_name)
        if placement.held_whole:
            message = message.replace(f"/{HELD_FIELD}/", "/")
        run_group = placement.api_version.rpartition("/")[0]
        case_group = placement.case_api_version.rpartition("/")[0]
        if run_group != case_group and run_group:
            message = message.replace(run_group, case_group)
        return message
