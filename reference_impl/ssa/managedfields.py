"""The field manager the apiserver puts around structured-merge-diff.

Go twin: k8s.io/apimachinery/pkg/util/managedfields/internal — one function per manager
of ``NewDefaultFieldManager``'s chain, outermost first: FieldManager (decode, encode,
reset), versionCheck, lastAppliedUpdater, lastAppliedManager, skipNonApplied, capManagers,
buildManagerInfo, managedFieldsUpdater (times), stripMeta, structuredMerge. Objects are
plain dicts; times are whatever the caller's clock gives (the apiserver layer uses step
numbers).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..errors import PatchError
from ..govalue import encoding_json
from ..govalue.decoded import json_copy
from ..govalue.gotypes import InvalidBytes
from ..govalue.strconv import quote
from .conversion import ConversionError
from .fieldpath import FieldSet, PathElement, VersionedSet, make_path, path_string
from .merge import ORDER_SENSITIVE_NOOP_SINCE, Conflict, Conflicts, ManagedFields, Updater
from .schema import Schema
from .typed import TypedValue, ValidationError

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# apimachinery's TotalAnnotationSizeLimitB: all of an object's annotation keys and values, in bytes.
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
MAX_UPDATE_MANAGERS = 10
BEFORE_FIRST_APPLY = "before-first-apply"
ANCIENT_CHANGES = "ancient-changes"
CURRENT_OPERATION = "current-operation"
DEFAULT_RELEASE = (1, 32)
# structuredmerge.go parses live and updated objects with typed.AllowDuplicates from apimachinery
# v0.29 (Kubernetes 1.29); before, an object with duplicate list items cannot be typed.
LIVE_DUPLICATES_SINCE = (1, 29)
# UpdateNoErrors keeps the live object's managedFields when an update cannot be tracked from
# apimachinery v0.37 (Kubernetes 1.37); before, it drops them.
KEEP_MANAGED_FIELDS_ON_ERROR_SINCE = (1, 37)
# stripMetaManager: never owned by anyone.
STRIPPED = FieldSet.of(
    make_path("apiVersion"), make_path("kind"), make_path("metadata"),
    *(make_path("metadata", name) for name in (
        "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
        "managedFields", "resourceVersion")),
)


class RequestError(PatchError):
    """What the apiserver answers with an HTTP status (400 BadRequest, 409 Conflict, 500 …)."""

    def __init__(self, error_class: str, message: str, status: int, reason: str,
                 conflicts: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.error_class = error_class
        self.status = status
        self.reason = reason
        self.conflicts = conflicts  # (owner's name, field path)


# A named tuple, not a dataclass: its dicts change, never which ones it holds; and quicker to define at import.
class Managed(NamedTuple):
    """Decoded managedFields: each manager identifier's fields and time."""

    fields: ManagedFields
    times: dict[str, Any]

    def copy(self) -> Managed:
        return Managed(dict(self.fields), dict(self.times))


# --- managedfields.go: identifiers, decoding, encoding --------------------------------------

def manager_identifier(manager: str, operation: str, api_version: str = "", subresource: str = "") -> str:
    """BuildManagerIdentifier: the entry's JSON without fields and time; Apply entries without apiVersion."""
    try:
        return _known_identifier(manager, operation, api_version, subresource)
    except TypeError:  # a member that is no string (a malformed entry), maybe unhashable: refused in its own words
        return _identifier(manager, operation, api_version, subresource)


def _identifier(manager: str, operation: str, api_version: str, subresource: str) -> str:
    entry: dict[str, str] = {}
    if manager:
        entry["manager"] = manager
    if operation:
        entry["operation"] = operation
    if api_version and operation != "Apply":
        entry["apiVersion"] = api_version
    if subresource:
        entry["subresource"] = subresource
    # encoding/json writes a struct's fields in declaration order
    return "{" + ",".join(f"{encoding_json.string(k)}:{encoding_json.string(v)}" for k, v in entry.items()) + "}"


# Every entry of every request is named so, and managers repeat: each name is written once.
_known_identifier = functools.lru_cache(maxsize=4096, typed=True)(_identifier)


class FieldsV1Memo:
    """The FieldsV1 objects a field manager wrote at its last request and the sets they encode:
    at the next request, the live object's entries it wrote are not decoded again (known by
    identity), nor a manager's set encoded again when it is the set that manager had (the same
    trie, though most set operations make a new one). (No Go twin: Go decodes and encodes every
    entry.) FieldsV1 objects are never changed in place (``gotypes.FIELDS_V1``), sets never once
    made, and a set read back from its own encoding is the same set."""

    def __init__(self) -> None:
        self._sets: dict[int, tuple[Any, FieldSet]] = {}  # id(FieldsV1) -> (it, its set)
        self._written: dict[str, tuple[FieldSet, Any]] = {}  # manager identifier -> (its set, its FieldsV1)

    def decode(self, fields_v1: Any) -> FieldSet:
        known = self._sets.get(id(fields_v1))
        if known is not None and known[0] is fields_v1:
            return known[1]
        return FieldSet.from_json(fields_v1)

    def encode(self, identifier: str, fields: FieldSet) -> dict[str, Any]:
        known = self._written.get(identifier)
        if known is not None and known[0].same_trie(fields):
            return known[1]
        return fields.to_json()

    def remember(self, written: dict[str, tuple[FieldSet, Any]]) -> None:
        """What the last encoding wrote, by manager (earlier ones are forgotten)."""
        self._sets = {id(fields_v1): (fields_v1, fields) for fields, fields_v1 in written.values()}
        self._written = written


def decode_managed_fields(entries: Any, memo: FieldsV1Memo | None = None) -> Managed:
    managed = Managed({}, {})
    for index, entry in enumerate(entries or ()):
        if not isinstance(entry, dict):
            raise ValueError(f"managed fields entry {index} is not an object")
        if entry.get("operation") not in ("Apply", "Update"):
            raise ValueError("operation must be `Apply` or `Update`")
        if not entry.get("apiVersion"):
            raise ValueError("apiVersion must not be empty")
        if entry.get("fieldsType", "") == "":
            raise ValueError(f"missing fieldsType in managed fields entry {index}")
        if entry["fieldsType"] != "FieldsV1":
            raise ValueError(f"invalid fieldsType {entry['fieldsType']!r} in managed fields entry {index}")
        identifier = manager_identifier(entry.get("manager", ""), entry["operation"], entry["apiVersion"],
                                        entry.get("subresource", ""))
        fields_v1 = entry.get("fieldsV1") or {}
        fields = memo.decode(fields_v1) if memo is not None else FieldSet.from_json(fields_v1)
        managed.fields[identifier] = VersionedSet(fields, entry["apiVersion"], entry["operation"] == "Apply")
        managed.times[identifier] = entry.get("time")
    return managed


@functools.lru_cache(maxsize=1024)
def _identifier_members(identifier: str) -> dict[str, str]:
    """A manager identifier's members (read for every entry written; managers repeat). Not to be changed."""
    return json.loads(identifier)


def encode_managed_fields(managed: Managed, memo: FieldsV1Memo | None = None) -> list[dict[str, Any]] | None:
    if not managed.fields:
        return None
    entries = []
    written = {}
    for identifier, versioned in managed.fields.items():
        fields_v1 = memo.encode(identifier, versioned.set) if memo is not None else versioned.set.to_json()
        written[identifier] = (versioned.set, fields_v1)
        entries.append(_entry(identifier, versioned, managed.times.get(identifier), fields_v1))
    if memo is not None:
        memo.remember(written)
    # sortEncodedManagedFields: operation, then time (a missing one first), manager, apiVersion, subresource
    entries.sort(key=lambda e: (e.get("operation", ""), _seconds(e.get("time")), e.get("manager", ""),
                                e.get("apiVersion", ""), e.get("subresource", "")))
    return entries


def _entry(identifier: str, versioned: VersionedSet, time: Any, fields_v1: dict[str, Any]) -> dict[str, Any]:
    """A ManagedFieldsEntry, its members in the struct's order: manager, operation, apiVersion, time,
    fieldsType, fieldsV1, subresource (those of the identifier as it names them)."""
    members = _identifier_members(identifier)
    entry = {}
    if "manager" in members:
        entry["manager"] = members["manager"]
    if versioned.applied:
        entry["operation"] = "Apply"
    elif "operation" in members:
        entry["operation"] = members["operation"]
    entry["apiVersion"] = versioned.api_version
    if time is not None:
        entry["time"] = time
    entry["fieldsType"] = "FieldsV1"
    entry["fieldsV1"] = fields_v1
    if "subresource" in members:
        entry["subresource"] = members["subresource"]
    return entry


def _seconds(time: Any) -> float:
    # Go counts a missing time as second 0, before every logical time (which lie after an epoch)
    return float("-inf") if time is None else time


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """A new object without managedFields; it shares ``obj``'s values but its metadata."""
    obj = dict(obj)
    if isinstance(obj.get("metadata"), dict):
        obj["metadata"] = {key: value for key, value in obj["metadata"].items() if key != "managedFields"}
    return obj


def _set_managed_fields(obj: dict[str, Any], entries: list | None) -> None:
    """``obj`` with ``entries`` as its managedFields (None: none), in metadata of its own: a merge
    may give back the request's own metadata, which is not ours to change."""
    if entries is None:
        metadata = obj.get("metadata")
        if isinstance(metadata, dict) and "managedFields" in metadata:
            obj["metadata"] = {key: value for key, value in metadata.items() if key != "managedFields"}
        return
    obj["metadata"] = {**obj.setdefault("metadata", {}), "managedFields": entries}


def _managed_fields_of(obj: dict[str, Any] | None) -> Any:
    metadata = (obj or {}).get("metadata")
    return metadata.get("managedFields") if isinstance(metadata, dict) else None


def gvk_string(api_version: str, kind: str) -> str:
    """schema.GroupVersionKind's String(): ``apps/v1, Kind=Deployment``, ``/v1, Kind=ConfigMap``."""
    group_version = api_version if "/" in api_version else "/" + api_version
    return f"{group_version}, Kind={kind}"


@dataclass
class FieldManager:
    """NewDefaultFieldManager for one kind and endpoint (the object itself, or a subresource)."""

    schema: Schema
    api_version: str
    kind: str
    subresource: str = ""
    reset_fields: FieldSet | None = None
    clock: Any = None  # a callable giving the time stamped on entries
    release: tuple[int, int] = DEFAULT_RELEASE  # the Kubernetes release whose rules apply
    # the scheme's defaulter: what an applied result goes through before it is returned (none for custom kinds)
    object_defaulter: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # the scheme's creater: the kind's new, empty object (a built-in kind's zero Go value)
    object_creater: Callable[[], dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        self.updater = Updater(self.reset_fields, order_sensitive_noop=self.release >= ORDER_SENSITIVE_NOOP_SINCE)
        self.live_duplicates = self.release >= LIVE_DUPLICATES_SINCE
        self.keep_managed_fields_on_error = self.release >= KEEP_MANAGED_FIELDS_ON_ERROR_SINCE
        self.fields_v1 = FieldsV1Memo()

    # --- FieldManager (fieldmanager.go) -------------------------------------------------------

    def update(self, live: dict[str, Any], new: dict[str, Any], manager: str) -> dict[str, Any]:
        """FieldManager.Update: ``new`` with the managedFields it gets (the server's UpdateNoErrors)."""
        managed = self._decode_live_or_new(live, new)
        new = _without_managed_fields(new)
        try:
            obj, managed = self._skip_non_applied_update(live, new, managed, manager)
        except (ValidationError, ValueError):
            # UpdateNoErrors: the update goes through; managedFields are dropped (v0.37+: kept as live's)
            kept = json_copy(_managed_fields_of(live)) if self.keep_managed_fields_on_error else None
            _set_managed_fields(new, kept)
            return new
        _set_managed_fields(obj, encode_managed_fields(managed, self.fields_v1))
        return obj

    def _decode_live_or_new(self, live: dict[str, Any], new: dict[str, Any]) -> Managed:
        live_entries = _managed_fields_of(live)
        if self.subresource:
            return _decode_or_empty(live_entries, self.fields_v1)
        entries = _managed_fields_of(new)
        if entries is not None and (entries == [] or entries == [{}]):
            return Managed({}, {})  # isResetManagedFields
        try:
            managed = decode_managed_fields(entries)
        except (ValueError, TypeError):
            managed = None
        if managed is None or not managed.fields:
            return _decode_or_empty(live_entries, self.fields_v1)
        return managed

    def apply(self, live: dict[str, Any], applied: dict[str, Any], manager: str, force: bool) -> dict[str, Any]:
        """FieldManager.Apply: the object after applying, with its managedFields."""
        try:
            managed = decode_managed_fields(_managed_fields_of(live), self.fields_v1)
        except (ValueError, TypeError) as exc:
            raise RequestError("invalid-document", f"failed to decode managed fields: {exc}", 500,
                               "InternalError") from exc
        # versionCheckManager
        gvk = gvk_string(str(applied.get("apiVersion", "")), str(applied.get("kind", "")))
        if gvk != gvk_string(self.api_version, self.kind):
            raise RequestError("invalid-patch", f"invalid object type: {gvk}", 400, "BadRequest")
        try:
            obj, managed = self._last_applied_updater_apply(live, applied, managed, manager, force)
        except Conflicts as exc:
            raise _conflict_error(exc.conflicts) from exc
        _set_managed_fields(obj, encode_managed_fields(managed, self.fields_v1))
        return obj

    # --- lastAppliedUpdater / lastAppliedManager -------------------------------------------

    def _last_applied_updater_apply(self, live, applied, managed, manager, force):
        obj, managed = self._last_applied_manager_apply(live, applied, managed, manager, force)
        if manager == "kubectl" and _has_last_applied(obj):
            config = json_copy(applied)
            annotations = (config.get("metadata") or {}).get("annotations")
            if isinstance(annotations, dict):
                annotations.pop(LAST_APPLIED, None)
            annotations = obj.setdefault("metadata", {}).setdefault("annotations", {})
            annotations[LAST_APPLIED] = encoding_json.encode(config) + "\n"
            if annotations_size(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT:  # SetLastApplied: too large, dropped
                del annotations[LAST_APPLIED]
        return obj, managed

    def _last_applied_manager_apply(self, live, applied, managed, manager, force):
        try:
            return self._skip_non_applied_apply(live, applied, managed.copy(), manager, force)
        except Conflicts as exc:
            if manager != "kubectl":
                raise
            allowed = self._allowed_conflicts_from_last_applied(live)
            if allowed is None:
                raise
            remaining = [c for c in exc.conflicts if not allowed.has(c.path)]
            if remaining:
                raise Conflicts(remaining) from exc
            return self._skip_non_applied_apply(live, applied, managed.copy(), manager, True)

    def _allowed_conflicts_from_last_applied(self, live: dict[str, Any]) -> FieldSet | None:
        """Fields of the last-applied annotation that still match live: client-side apply owned them."""
        annotations = (live.get("metadata") or {}).get("annotations") or {}
        text = annotations.get(LAST_APPLIED)
        if not text:
            return None
        try:
            last = json.loads(text)
            if not isinstance(last, dict) or last.get("apiVersion") != self.api_version:
                return None
            last_typed = self._typed(last, allow_duplicates=False)
            live_typed = self._typed(live, allow_duplicates=False)
            fields = last_typed.to_field_set()
            comparison = last_typed.compare(live_typed)
        except (ValueError, ValidationError):
            return None
        return fields.difference(comparison.modified).difference(comparison.added).difference(comparison.removed)

    # --- skipNonApplied -----------------------------------------------------------------------

    def _skip_non_applied_update(self, live, new, managed, manager):
        if not managed.fields and _uid(live):
            return new, managed  # an object that exists without managedFields stays untracked
        return self._cap_managers_update(live, new, managed, manager)

    def _skip_non_applied_apply(self, live, applied, managed, manager, force):
        if not managed.fields:
            creation = self._creation_key(live)
            if creation not in _CREATIONS_OWNING_NOTHING:
                empty = self._new_object(applied)
                try:
                    live, managed = self._cap_managers_update(empty, live, managed, BEFORE_FIRST_APPLY)
                except (ValueError, ValidationError) as exc:  # the live object cannot be typed (duplicates before 1.29)
                    raise RequestError("invalid-document", f"failed to create manager for existing fields: {exc}",
                                       500, "InternalError") from exc
                if creation is not None and not managed.fields:
                    _remember_creation(creation)
        return self._build_manager_info_apply(live, applied, managed, manager, force)

    def _creation_key(self, live: dict[str, Any]) -> tuple | None:
        """What decides the before-first-apply update of an apply creating the object (the live object
        is then the bare ``{apiVersion, kind}``); None for any other live object."""
        if self.object_creater is None or live != {"apiVersion": self.api_version, "kind": self.kind}:
            return None
        return (self.schema.resolved(self.schema.root), self.object_creater, self.api_version, self.kind,
                self.live_duplicates)

    def _new_object(self, applied: dict[str, Any]) -> dict[str, Any]:
        if self.object_creater is not None:
            return self.object_creater()
        return {"apiVersion": applied.get("apiVersion"), "kind": applied.get("kind")}

    # --- capManagers --------------------------------------------------------------------------

    def _cap_managers_update(self, live, new, managed, manager):
        obj, managed = self._build_manager_info_update(live, new, managed, manager)
        return obj, self._cap_update_managers(managed)

    def _cap_update_managers(self, managed: Managed) -> Managed:
        updaters = [m for m, versioned in managed.fields.items() if not versioned.applied]
        if len(updaters) <= MAX_UPDATE_MANAGERS:
            return managed
        updaters.sort(key=lambda m: (_seconds(managed.times.get(m)), m.encode()))
        first_by_version: dict[str, str] = {}
        length = len(updaters)
        for updater in updaters:
            if length <= MAX_UPDATE_MANAGERS:
                break
            versioned = managed.fields[updater]
            time = managed.times.get(updater)
            bucket = manager_identifier(ANCIENT_CHANGES, "Update", versioned.api_version)
            first = first_by_version.get(versioned.api_version)
            if first is None:
                first_by_version[versioned.api_version] = updater
                continue
            if bucket not in managed.fields:
                managed.fields[bucket] = managed.fields.pop(first)
                managed.times.pop(first, None)
            managed.fields[bucket] = VersionedSet(versioned.set.union(managed.fields[bucket].set),
                                                  versioned.api_version, versioned.applied)
            del managed.fields[updater]
            managed.times.pop(updater, None)
            length -= 1
            managed.times[bucket] = time
        return managed

    # --- buildManagerInfo ---------------------------------------------------------------------

    def _identifier(self, manager: str, operation: str) -> str:
        return manager_identifier(manager or "unknown", operation, self.api_version, self.subresource)

    def _build_manager_info_update(self, live, new, managed, manager):
        return self._times_update(live, new, managed, self._identifier(manager, "Update"))

    def _build_manager_info_apply(self, live, applied, managed, manager, force):
        return self._times_apply(live, applied, managed, self._identifier(manager, "Apply"), force)

    # --- managedFieldsUpdater -------------------------------------------------------------------

    def _times_update(self, live, new, managed, manager):
        obj, managed = self._strip_meta_update(live, new, managed, CURRENT_OPERATION)
        ours = managed.fields.pop(CURRENT_OPERATION, None)
        if ours is not None:
            previous = managed.fields.get(manager)
            if previous is not None:
                ours = VersionedSet(ours.set.union(previous.set), ours.api_version, ours.applied)
            managed.fields[manager] = ours
            managed.times[manager] = self.clock()
        return obj, managed

    def _times_apply(self, live, applied, managed, manager, force):
        obj, managed = self._strip_meta_apply(live, applied, managed, manager, force)
        if obj is not None:
            managed.times[manager] = self.clock()
        else:
            obj = json_copy(live)
            _set_managed_fields(obj, None)
        return obj, managed

    # --- stripMeta ------------------------------------------------------------------------------

    @staticmethod
    def _strip(managed: Managed, manager: str) -> None:
        versioned = managed.fields.get(manager)
        if versioned is None:
            return
        rest = versioned.set.difference(STRIPPED)
        if rest.empty():
            del managed.fields[manager]
        else:
            managed.fields[manager] = VersionedSet(rest, versioned.api_version, versioned.applied)

    def _strip_meta_update(self, live, new, managed, manager):
        obj, managed = self._structured_merge_update(live, new, managed, manager)
        self._strip(managed, manager)
        return obj, managed

    def _strip_meta_apply(self, live, applied, managed, manager, force):
        obj, managed = self._structured_merge_apply(live, applied, managed, manager, force)
        self._strip(managed, manager)
        return obj, managed

    # --- structuredMerge ------------------------------------------------------------------------

    def _typed(self, obj: dict[str, Any], allow_duplicates: bool) -> TypedValue:
        typed = TypedValue(obj, self.schema, self.schema.root)
        typed.validate(allow_duplicates=allow_duplicates)
        return typed

    def _structured_merge_update(self, live, new, managed, manager):
        typed = {}
        for which, obj in (("new", new), ("live", live)):
            try:
                typed[which] = self._typed(obj, allow_duplicates=self.live_duplicates)
            except ValidationError as exc:
                where = _gvknn(obj, self.api_version, self.kind)
                raise ValueError(f"failed to convert {which} object ({where}) to smd typed: {exc}") from exc
        new_typed, live_typed = typed["new"], typed["live"]
        _, fields = self.updater.update(live_typed, new_typed, self.api_version, managed.fields, manager)
        return new, Managed(fields, managed.times)

    def _structured_merge_apply(self, live, applied, managed, manager, force):
        version = str(applied.get("apiVersion", ""))
        if version != self.api_version:
            raise RequestError("invalid-patch", "Incorrect version specified in apply patch. Specified patch "
                               f"version: {version}, expected: {self.api_version}", 400, "BadRequest")
        if _managed_fields_of(applied) is not None:
            raise RequestError("invalid-patch", "metadata.managedFields must be nil", 400, "BadRequest")
        where = _gvknn(applied, self.api_version, self.kind)
        try:
            config_typed = self._typed(applied, allow_duplicates=False)
        except ValidationError as exc:
            raise RequestError("invalid-patch", f"failed to create typed patch object ({where}): {exc}",
                               500, "InternalError") from exc
        try:
            live_typed = self._typed(live, allow_duplicates=self.live_duplicates)
        except ValidationError as exc:
            raise RequestError("invalid-document", f"failed to create typed live object ({where}): {exc}",
                               500, "InternalError") from exc
        merged, fields = self.updater.apply(live_typed, config_typed, self.api_version, managed.fields,
                                            manager, force)
        managed = Managed(fields, managed.times)
        if merged is None:
            return None, managed
        # TypedToObject, then the versioned Go type, defaulted: what the merge left unset gets its default.
        obj = merged.value
        if self.object_defaulter is None:
            return obj, managed
        where = _gvknn(obj, self.api_version, self.kind)
        try:
            return self.object_defaulter(obj), managed
        except InvalidBytes as exc:  # toVersioned
            raise RequestError("invalid-patch", f"failed to convert new object ({where}) to proper version: unable "
                               f"to convert unstructured object to {gvk_string(self.api_version, self.kind)}: "
                               f"error decoding from json: {exc}", 500, "InternalError") from exc
        except ConversionError as exc:  # toUnversioned
            raise RequestError("invalid-patch", f"failed to convert to unversioned ({where}): {exc}", 500,
                               "InternalError") from exc


# An apply creating an object meets a live object without managedFields, the bare {apiVersion, kind}:
# skipNonApplied first runs an update by before-first-apply from the kind's new object to it, which
# owns nothing of it (apiVersion and kind are stripped) and can only fail typing the two objects,
# alike for every creation by the same types, creater and rules. The creations it went through for
# (_creation_key) are kept, and it is not run again for them. No Go twin: Go runs it at every create.
_CREATIONS_OWNING_NOTHING: set[tuple] = set()
_MAX_CREATIONS = 1024


def _remember_creation(creation: tuple) -> None:
    if len(_CREATIONS_OWNING_NOTHING) >= _MAX_CREATIONS:
        _CREATIONS_OWNING_NOTHING.clear()
    _CREATIONS_OWNING_NOTHING.add(creation)


def _decode_or_empty(entries: Any, memo: FieldsV1Memo | None = None) -> Managed:
    try:
        return decode_managed_fields(entries, memo)
    except (ValueError, TypeError):
        return Managed({}, {})


def _uid(obj: dict[str, Any] | None) -> str:
    metadata = (obj or {}).get("metadata")
    return str(metadata.get("uid") or "") if isinstance(metadata, dict) else ""


def annotations_size(annotations: dict[str, Any]) -> int:
    """ValidateAnnotationsSize's measure: the bytes of every key and value."""
    return sum(len(key.encode()) + len(value.encode()) for key, value in annotations.items()
               if isinstance(key, str) and isinstance(value, str))


def _has_last_applied(obj: dict[str, Any]) -> bool:
    annotations = (obj.get("metadata") or {}).get("annotations")
    return isinstance(annotations, dict) and bool(annotations.get(LAST_APPLIED))


def _gvknn(obj: dict[str, Any], api_version: str, kind: str) -> str:
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    namespace = metadata.get("namespace") or ""
    name = metadata.get("name") or ""
    return f"{namespace}/{name}; {gvk_string(api_version, kind)}"


def print_manager(identifier: str, time_text: str | None = None) -> str:
    """conflict.go printManager: ``"name"``, ``"name" with subresource "status"``, ``… using v1``."""
    try:
        entry = json.loads(identifier)
    except ValueError:
        return quote(identifier)
    text = quote(entry.get("manager", ""))
    if entry.get("subresource"):
        text += f" with subresource {quote(entry['subresource'])}"
    if entry.get("operation") == "Update":
        text += f" using {entry.get('apiVersion', '')}"
    return text


def _conflict_error(conflicts: list[Conflict]) -> RequestError:
    """NewConflictError: 409 with one cause per conflicting field."""
    ordered = sorted(conflicts, key=lambda c: (c.manager, [e.sort_key() for e in c.path]))
    if len(ordered) == 1:
        only = ordered[0]
        message = f"Apply failed with 1 conflict: conflict with {print_manager(only.manager)}: {path_string(only.path)}"
    else:
        lines = []
        for manager in sorted({c.manager for c in ordered}):
            lines.append(f"conflicts with {print_manager(manager)}:")
            lines.extend(f"- {path_string(c.path)}" for c in ordered if c.manager == manager)
        message = f"Apply failed with {len(ordered)} conflicts: " + "\n".join(lines)
    owners = tuple((json.loads(c.manager).get("manager", ""), path_string(c.path)) for c in ordered)
    return RequestError("conflict", message, 409, "Conflict", owners)


__all__ = [
    "FieldManager",
    "Managed",
    "PathElement",
    "RequestError",
    "decode_managed_fields",
    "encode_managed_fields",
    "manager_identifier",
]
